"""A list of lines each marked ✓, ✗, – or … (under way) (``spieltisch doctor`` and the stations' update on
the TV): the mark in its colour and its shape, the words beside it at 30 px, broken to fit;
what does not fit is left for the caller to count."""

from __future__ import annotations

from typing import Sequence

import pygame

from display import draw
from display.draw import INK, MUTED, RED

GREEN = (90, 200, 110)
COLOUR = {"ok": GREEN, "fail": RED, "skip": MUTED, "busy": MUTED}
SIZE = 30
LEFT, WIDTH = 110, 1700


def rows(surface: pygame.Surface, lines: Sequence[tuple[str, str]], top: int, bottom: int) -> int:
    """Draw ``(status, words)`` rows from ``top`` while they fit above ``bottom``; how many were drawn."""
    step = draw.line_step(SIZE)
    y = top
    for drawn, (status, words) in enumerate(lines):
        broken = draw.lines_of(words, WIDTH, SIZE)
        if y + len(broken) * step > bottom:
            return drawn
        mark(surface, status, (LEFT - 40, y + step // 2))
        for i, line in enumerate(broken):
            draw.text(surface, line, (LEFT, y + i * step), SIZE, INK if status != "skip" else MUTED)
        y += len(broken) * step + 8
    return len(lines)


def mark(surface: pygame.Surface, status: str, centre: tuple[int, int]) -> None:
    """✓, ✗, – or … drawn as lines (the screen's font has no such glyphs): a shape each, so
    that the colour is never the only cue."""
    x, y = centre
    colour = COLOUR[status]
    if status == "ok":
        pygame.draw.lines(surface, colour, False, [(x - 13, y), (x - 4, y + 10), (x + 14, y - 12)], 6)
    elif status == "fail":
        pygame.draw.line(surface, colour, (x - 11, y - 11), (x + 11, y + 11), 6)
        pygame.draw.line(surface, colour, (x - 11, y + 11), (x + 11, y - 11), 6)
    elif status == "skip":
        pygame.draw.line(surface, colour, (x - 12, y), (x + 12, y), 5)
    else:
        for dx in (-10, 0, 10):
            pygame.draw.circle(surface, colour, (x + dx, y), 3)
