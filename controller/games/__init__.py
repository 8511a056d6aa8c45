"""The rules core: one pure module per game, registered by name.

>>> from controller.games import find_game
>>> find_game("partout").title
'Partout'
"""

from __future__ import annotations

from controller.games.core import GameRules, IllegalAction, Outcome

GAMES: dict[str, GameRules] = {}


def register(rules: GameRules) -> GameRules:
    GAMES[rules.name] = rules
    return rules


def find_game(name: str) -> GameRules:
    key = name.strip().lower().replace("_", "-")
    if key not in GAMES:
        raise KeyError(f"no game called {name!r}; the table knows {', '.join(sorted(GAMES))}")
    return GAMES[key]


from controller.games import crazykick as _crazykick  # noqa: E402  (registered below)
from controller.games import partout as _partout  # noqa: E402
from controller.games import tadika as _tadika  # noqa: E402
from controller.games import teamplay as _teamplay  # noqa: E402
from controller.games import teamup as _teamup  # noqa: E402

register(_partout.RULES)
register(_crazykick.RULES)
register(_tadika.RULES)
register(_teamplay.RULES)
register(_teamup.RULES)

__all__ = ["GAMES", "GameRules", "IllegalAction", "Outcome", "find_game", "register"]
