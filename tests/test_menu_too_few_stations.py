"""A new game chosen instead of the unfinished one the box offers, with fewer stations
plugged in than that game needs: the menu says so, as when the game is chosen from its
list, and never shows an empty list of player counts (where OK took a count from nothing:
an IndexError that ended the box)."""

from __future__ import annotations

from controller.app.menu import BACK, MINUS, OK, PLUS, Menu, Saved
from controller.games import GAMES


def saved_partout(game: str | None) -> Saved | None:
    return Saved("partout", 4, {}, "22.11. 19:40", 12, ("s1", "s2", "s3", "s4")) if game in (None, "partout") else None


def test_a_new_game_at_switch_on_with_too_few_stations_says_so_and_changes_nothing():
    assert min(GAMES["partout"].player_counts) > 1 and not GAMES["partout"].bots_fill_seats
    menu = Menu(stations=1, unfinished=saved_partout)
    menu.offer(saved_partout(None))
    menu.press(PLUS)                                   # "a new game"
    assert menu.press(OK) is None
    assert menu.note is not None and menu.note.key == "menu_too_few_stations"
    assert menu.note.params["n"] == min(GAMES["partout"].player_counts)
    assert menu.page != "players" or menu.lines()[1]
    for button in (OK, OK, PLUS, OK, MINUS, OK, BACK, OK):   # whatever is pressed next: no error
        menu.press(button)
