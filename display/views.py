"""Which view draws which game."""

from __future__ import annotations

from typing import Any


def view_for(game: str, lang: str) -> Any:
    if game == "partout":
        from display.partout_view import PartoutView
        return PartoutView(lang)
    raise KeyError(f"no view for the game {game!r}")
