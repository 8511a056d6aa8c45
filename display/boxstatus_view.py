"""The box's TV while it waits (``controller/app/box_status.py``): what it waits for in
large letters, how to get on, each port that did not become a station and why, and, when
the table's database cannot be used, the store's own sentence for the owner. Something
wrong is framed red; a wait alone is not."""

from __future__ import annotations

from typing import Any

import pygame

from controller.games import texts
from display import draw
from display.draw import GOLD, INK, MUTED, RED

BODY = pygame.Rect(160, 300, 1600, 700)


class BoxStatusView:
    def __init__(self, lang: str, *, live: bool = False) -> None:
        self.lang = lang

    def draw(self, surface: pygame.Surface, snap: Any) -> None:
        draw.text(surface, "Spieltisch", (30, 20), 64, GOLD, True)
        draw.text(surface, texts.render(self.lang, snap.title.key, snap.title.params), (960, 150), 72,
                  RED if snap.trouble and snap.detail else INK, True, "midtop", 1800)
        # the first line says how to get on; the owner's sentence follows it; then the rest
        said = [(texts.render(self.lang, line.key, line.params), 40 if i == 0 else 34, INK if i == 0 else MUTED)
                for i, line in enumerate(snap.lines)]
        if snap.detail:
            detail = snap.detail if isinstance(snap.detail, str) else \
                texts.render(self.lang, snap.detail.key, snap.detail.params)
            said.insert(1, (detail, 32, INK))
        heights = [self._lines(words, size, BODY.width - 80) * draw.font(size).get_linesize()
                   for words, size, _ in said]
        body = BODY.copy()
        body.height = min(BODY.height, 60 + sum(heights) + 24 * (len(said) - 1))
        draw.panel(surface, body, RED if snap.trouble else None, 6 if snap.trouble else 3)
        y = body.top + 30
        for (words, size, ink), height in zip(said, heights):
            draw.wrapped(surface, words, pygame.Rect(body.left + 40, y, body.width - 80, height), size, ink)
            y += height + 24

    @staticmethod
    def _lines(words: str, size: int, width: int) -> int:
        f, count, line = draw.font(size), 1, ""
        for word in words.split():
            trial = f"{line} {word}".strip()
            if f.size(trial)[0] > width and line:
                count, line = count + 1, word
            else:
                line = trial
        return count


VIEW = BoxStatusView
