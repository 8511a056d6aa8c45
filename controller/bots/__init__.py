"""Bots for empty seats, one module per game (``controller/bots/<game>.py``, exporting
``BOT``), and the drivers that make them act through their stations
(``controller/bots/driver.py``).

>>> from controller.games import find_game
>>> bot_class(find_game("partout")).__name__
'PartoutBot'
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from controller.games.core import GameRules


def bot_class(rules: GameRules) -> Any:
    """The game's bot: ``BOT`` of ``controller/bots/<game>.py``."""
    return import_module(f"{__name__}.{rules.module}").BOT


__all__ = ["bot_class"]
