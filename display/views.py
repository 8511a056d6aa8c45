"""Which view draws which game: ``VIEW`` of ``display/<game>_view.py``."""

from __future__ import annotations

from importlib import import_module
from typing import Any


def view_class(game: str) -> Any:
    """``"crazy-kick"`` → ``display/crazykick_view.py``'s ``VIEW``."""
    try:
        module = import_module(f"display.{game.replace('-', '')}_view")
    except ModuleNotFoundError as exc:
        raise KeyError(f"no view for the game {game!r}") from exc
    return module.VIEW


def view_for(game: str, lang: str, *, live: bool = False) -> Any:
    return view_class(game)(lang, live=live)
