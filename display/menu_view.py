"""The table's menu on the shared screen (``spieltisch box``): what is being chosen, the
choices in a list with the chosen one framed gold and pointed at, which buttons do what,
how many stations are plugged in, and a message when something could not start."""

from __future__ import annotations

from typing import Any

import pygame

from controller.games import texts
from display import draw
from display.draw import GOLD, INK, MUTED, RED

LIST = pygame.Rect(460, 220, 1000, 700)
ROW = 86
ROWS = 8                     # lines in sight; a longer list scrolls with the chosen line
NOTE = pygame.Rect(310, 990, 1300, 0)     # a note's box ends above the buttons' help, as tall as its lines
NOTE_SIZE, NOTE_PAD = 34, 30


def rows_in_sight(note: pygame.Rect | None) -> int:
    """The list's lines in sight: all ``ROWS``, or as many as end above a note's box."""
    if note is None:
        return ROWS
    return max(1, min(ROWS, (note.top - 16 - LIST.top + 12) // ROW))


class MenuView:
    def __init__(self, lang: str, *, live: bool = False) -> None:
        self.lang = lang

    def words(self, line: Any) -> str:
        params = dict(line.params)
        if params.get("value") in ("on", "off"):
            params["value"] = texts.render(self.lang, f"menu_{params['value']}")
        return texts.render(self.lang, line.key, params)

    def draw(self, surface: pygame.Surface, snap: Any) -> None:
        draw.text(surface, "Spieltisch", (30, 20), 64, GOLD, True)
        draw.text(surface, texts.render(self.lang, "menu_stations", {"n": snap.stations}), (1890, 34), 36, INK, True,
                  "topright")
        draw.text(surface, self.words(snap.title), (960, 140), 52, INK, True, "midtop", 1800)
        note = self.note_box(snap)
        rows = rows_in_sight(note)
        first = max(0, min(snap.chosen - min(3, rows - 1), len(snap.lines) - rows))    # the chosen line stays in sight
        self._more(surface, first, 0, up=True)                          # lines out of sight, above and below
        self._more(surface, len(snap.lines) - first - rows, rows - 1, up=False)
        for row, line in enumerate(snap.lines[first:first + rows]):
            index = first + row
            rect = pygame.Rect(LIST.left, LIST.top + row * ROW, LIST.width, ROW - 12)
            chosen = index == snap.chosen
            draw.panel(surface, rect, GOLD if chosen else None, 6 if chosen else 3)
            if chosen:
                pygame.draw.polygon(surface, GOLD, [(rect.left - 50, rect.centery - 22), (rect.left - 50,
                                    rect.centery + 22), (rect.left - 16, rect.centery)])
            draw.text(surface, self.words(line), (rect.left + 30, rect.centery), 40, GOLD if chosen else INK, chosen,
                      "midleft", rect.width - 60)
        draw.text(surface, texts.render(self.lang, "menu_buttons_help"), (960, 1000), 32, MUTED, False, "midtop",
                  1800)
        if note is not None:
            draw.panel(surface, note, RED, 6)
            draw.paragraph(surface, self.words(snap.note), (note.left + NOTE_PAD, note.top + NOTE_PAD // 2),
                           note.width - 2 * NOTE_PAD, NOTE_SIZE)

    def note_box(self, snap: Any) -> pygame.Rect | None:
        """Where a note is drawn: as tall as its lines, just above the buttons' help; the list
        above it shows fewer lines (``rows_in_sight``) rather than lying under it."""
        if snap.note is None:
            return None
        lines = draw.lines_of(self.words(snap.note), NOTE.width - 2 * NOTE_PAD, NOTE_SIZE)
        box = NOTE.copy()
        box.height = len(lines) * draw.line_step(NOTE_SIZE) + NOTE_PAD
        box.bottom = NOTE.bottom
        return box

    @staticmethod
    def _more(surface: pygame.Surface, hidden: int, row: int, *, up: bool) -> None:
        """Beside the first or last line in sight: an arrow and how many lines lie beyond it,
        so a family sees the list goes on (the arrow's shape says which way)."""
        if hidden <= 0:
            return
        x, y = LIST.right + 50, LIST.top + row * ROW + (ROW - 12) // 2
        tip, base = (y - 22, y + 10) if up else (y + 22, y - 10)
        pygame.draw.polygon(surface, MUTED, [(x - 20, base), (x + 20, base), (x, tip)])
        draw.text(surface, f"+{hidden}", (x + 34, y), 32, MUTED, True, "midleft")


VIEW = MenuView
