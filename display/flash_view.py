"""The stations' update on the TV (the menu's "Update the stations"): a line per station
with what it is doing now, then ✓ and its new firmware or ✗ and what to do."""

from __future__ import annotations

from typing import Any

import pygame

from controller.games import texts
from display import checklist, draw
from display.draw import GOLD, MUTED


class FlashView:
    def __init__(self, lang: str, *, live: bool = False) -> None:
        self.lang = lang

    def draw(self, surface: pygame.Surface, snap: Any) -> None:
        draw.text(surface, texts.render(self.lang, "flash_title", {"version": snap.version}), (30, 24), 52, GOLD,
                  True, max_width=1860)
        lines = [("busy" if ok is None else "ok" if ok else "fail", words) for words, ok in snap.lines]
        checklist.rows(surface, lines, 160, 960)
        if snap.done:
            draw.text(surface, texts.render(self.lang, "flash_press_any"), (960, 1000), 32, MUTED, True, "midtop",
                      1800)


VIEW = FlashView
