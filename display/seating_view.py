"""Seats by button on the shared screen: every seat of the game about to start, empty
("press a button on your station") or with its station, and what it is choosing: a name the
table knows, a new name letter by letter (the letters in rows, the one under the cursor
framed gold, and the six buttons labelled as on the station), then a colour. A seat that has
both is framed gold. A refusal (a name or colour someone else took) takes the help line's
place at the top, where it covers no seat."""

from __future__ import annotations

from typing import Any, NamedTuple

import pygame

from controller.games import texts
from display import draw
from display.draw import GOLD, INK, MUTED, RED

TOP = 190                       # the seats' area: below the title and the help line
BOTTOM = 1064


class _Key(NamedTuple):         # a soft key's label, as draw.soft_keys reads one
    key: str
    params: dict


def seat_boxes(players: int) -> list[pygame.Rect]:
    cols = 1 if players == 1 else 2 if players <= 4 else 3 if players <= 6 else 4
    rows = (players + cols - 1) // cols
    w, h = (1800 - (cols - 1) * 30) // cols, min(420, (BOTTOM - TOP - (rows - 1) * 24) // rows)
    return [pygame.Rect(60 + (i % cols) * (w + 30), TOP + (i // cols) * (h + 24), w, h) for i in range(players)]


class SeatingView:
    def __init__(self, lang: str, *, live: bool = False) -> None:
        self.lang = lang

    def t(self, key: str, **params: Any) -> str:
        return texts.render(self.lang, key, params)

    def draw(self, surface: pygame.Surface, snap: Any) -> None:
        draw.text(surface, self.t("seating_title", game=snap.title), (30, 24), 56, GOLD, True, max_width=1860)
        help_line = pygame.Rect(60, 96, 1800, 84)
        if snap.note is not None:
            draw.panel(surface, help_line, RED, 6)
            draw.text(surface, self.t(snap.note[0], **snap.note[1]), help_line.center, 34, INK, True, "center",
                      help_line.width - 40)
        else:                                       # two lines at most, at a size read from the sofa
            draw.wrapped(surface, self.t("seating_help"), help_line.inflate(-20, -8), 30, MUTED, align="center")
        spelling = snap.spelling if getattr(snap, "spelling", None) else (None,) * len(snap.seats)
        for i, (rect, (station, name, taken)) in enumerate(zip(seat_boxes(len(snap.seats)), snap.seats)):
            draw.panel(surface, rect, GOLD if taken else None, 6 if taken else 3)
            draw.text(surface, self.t("seat_n", n=i + 1), (rect.left + 24, rect.top + 16), 36, MUTED, True)
            if station is None:
                draw.text(surface, self.t("seating_press"), rect.center, 36, INK, False, "center", rect.width - 40)
                continue
            stage = snap.picking[i] if snap.picking else ("done" if taken else "name")
            spelled = spelling[i]
            if stage == "spell" and spelled is not None:
                self._spell(surface, rect, name, spelled)
                continue
            if name:
                draw.text(surface, name, (rect.centerx, rect.centery - 10), 56, GOLD if taken else INK, True,
                          "center", rect.width - 40)
            else:                                   # "a new name": spelled once chosen
                draw.text(surface, self.t("seating_new_name"), (rect.centerx, rect.centery - 10), 44, INK, True,
                          "center", rect.width - 40)
            colour = snap.colours[i] if snap.colours else None
            if colour is not None:                  # the colour chosen so far, with its name
                colour, shade = colour
                chip = pygame.Rect(rect.left + 24, rect.centery + 44, 40, 40)
                pygame.draw.rect(surface, draw.hex_rgb(shade), chip, border_radius=20)
                pygame.draw.rect(surface, INK, chip, 3, border_radius=20)
                draw.text(surface, texts.colour_name(self.lang, colour), (chip.right + 12, chip.centery), 32, INK,
                          True, "midleft", rect.width - 110)
            key = {"done": "seating_ready", "colour": "seating_choose_colour"}.get(stage, "seating_choose_name")
            draw.wrapped(surface, self.t(key), pygame.Rect(rect.left + 20, rect.bottom - 84, rect.width - 40, 72),
                         28, GOLD if taken else MUTED)

    def _spell(self, surface: pygame.Surface, rect: pygame.Rect, name: str | None,
               spelling: tuple[tuple[str, ...], int, int, tuple[str | None, ...]]) -> None:
        """The name so far with a caret, the letter rows with the cursor, the six buttons."""
        rows, row, col, keys = spelling
        draw.text(surface, (name or "") + "|", (rect.centerx, rect.top + 84), 48, GOLD, True, "center",
                  rect.width - 40)
        columns = max(len(r) for r in rows)
        cell_w = min(64, (rect.width - 40) // columns)
        cell_h = 38
        left = rect.centerx - cell_w * columns // 2
        top = rect.top + 116
        for r, letters in enumerate(rows):
            for c, letter in enumerate(letters):
                cell = pygame.Rect(left + c * cell_w, top + r * cell_h, cell_w - 4, cell_h - 4)
                here = (r, c) == (row, col)
                if here:
                    pygame.draw.rect(surface, GOLD, cell, 4, border_radius=8)
                ink = GOLD if here else INK if r == row else MUTED
                if letter == " ":                    # a space, drawn as one: ⎵
                    y = cell.centery + 6
                    pygame.draw.lines(surface, ink, False, [(cell.left + 12, y - 8), (cell.left + 12, y),
                                                            (cell.right - 12, y), (cell.right - 12, y - 8)], 3)
                else:
                    draw.text(surface, letter, cell.center, 32 if r == row else 28, ink, r == row, "center")
        key_w = (rect.width - 40 - 12) // 3
        draw.soft_keys(surface, self.lang, [None if k is None else _Key(k, {}) for k in keys],
                       (rect.left + 20, top + len(rows) * cell_h + 8), (key_w, 34))


VIEW = SeatingView
