"""The bot every turn-based game's bot starts from.

Whoever seats a bot (the drivers, the benches, the tests) calls :meth:`Bot.choose` with the
whole state; the bot's own :meth:`Bot.decide` gets only ``rules.seat_view(state, seat)``,
what a person at that seat knows. A bot cannot read what its seat cannot see: it is not
there (the rule books: "Es wird dabei nicht kommuniziert!").
"""

from __future__ import annotations

import random
from typing import Any

from controller.games.core import GameRules


class Bot:
    """A turn-based game's bot: subclasses write :meth:`decide`."""

    def choose(self, rules: GameRules, state: Any, seat: int, rng: random.Random) -> Any:
        """The action of ``seat`` now, decided from the seat's view alone."""
        return self.decide(rules, rules.seat_view(state, seat), seat, rng)

    def decide(self, rules: GameRules, view: Any, seat: int, rng: random.Random) -> Any:
        raise NotImplementedError


class RandomBot(Bot):
    """Any legal action, uniformly (a seat's own legal actions are the same on its view)."""

    def decide(self, rules: GameRules, view: Any, seat: int, rng: random.Random) -> Any:
        return rng.choice(rules.legal_actions(view, seat))
