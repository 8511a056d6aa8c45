"""Which view draws which game."""

from __future__ import annotations

from typing import Any


def view_for(game: str, lang: str, *, live: bool = False) -> Any:
    if game == "crazy-kick":
        from display.crazykick_view import CrazyKickView
        return CrazyKickView(lang, live=live)
    if game == "partout":
        from display.partout_view import PartoutView
        return PartoutView(lang)
    raise KeyError(f"no view for the game {game!r}")
