"""Spieltisch controller: the rules core (``controller.games``) and the table around it."""
