"""The bot every turn-based game's bot starts from."""

from __future__ import annotations

import random
from typing import Any

from controller.games.core import GameRules


class RandomBot:
    """Any legal action, uniformly."""

    def choose(self, rules: GameRules, state: Any, seat: int, rng: random.Random) -> Any:
        return rng.choice(rules.legal_actions(state, seat))
