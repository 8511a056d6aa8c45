"""Seats by button on the shared screen: every seat of the game about to start, empty
("press a button on your station") or with its station, the name and then the colour it is
choosing (a seat that has both framed gold), which buttons do what, and a refusal (a name
or colour someone else took)."""

from __future__ import annotations

from typing import Any

import pygame

from controller.games import texts
from display import draw
from display.draw import GOLD, INK, MUTED, RED


def seat_boxes(players: int) -> list[pygame.Rect]:
    cols = 2 if players <= 4 else 3 if players <= 6 else 4
    rows = (players + cols - 1) // cols
    w, h = (1800 - (cols - 1) * 30) // cols, min(260, (760 - (rows - 1) * 30) // rows)
    return [pygame.Rect(60 + (i % cols) * (w + 30), 200 + (i // cols) * (h + 30), w, h) for i in range(players)]


class SeatingView:
    def __init__(self, lang: str, *, live: bool = False) -> None:
        self.lang = lang

    def t(self, key: str, **params: Any) -> str:
        return texts.render(self.lang, key, params)

    def draw(self, surface: pygame.Surface, snap: Any) -> None:
        draw.text(surface, self.t("seating_title", game=snap.title), (30, 24), 56, GOLD, True, max_width=1860)
        draw.text(surface, self.t("seating_help"), (960, 130), 34, MUTED, False, "midtop", 1800)
        for i, (rect, (station, name, taken)) in enumerate(zip(seat_boxes(len(snap.seats)), snap.seats)):
            draw.panel(surface, rect, GOLD if taken else None, 6 if taken else 3)
            draw.text(surface, self.t("seat_n", n=i + 1), (rect.left + 24, rect.top + 16), 36, MUTED, True)
            if station is None:
                draw.text(surface, self.t("seating_press"), rect.center, 36, INK, False, "center", rect.width - 40)
                continue
            draw.text(surface, name, (rect.centerx, rect.centery + 6), 56, GOLD if taken else INK, True, "center",
                      rect.width - 40)
            colour = snap.colours[i] if snap.colours else None
            if colour is not None:                  # the colour chosen so far, with its name
                colour, shade = colour
                chip = pygame.Rect(rect.right - 230, rect.top + 14, 40, 40)
                pygame.draw.rect(surface, draw.hex_rgb(shade), chip, border_radius=20)
                pygame.draw.rect(surface, INK, chip, 3, border_radius=20)
                draw.text(surface, texts.colour_name(self.lang, colour), (chip.right + 12, chip.centery), 32, INK,
                          True, "midleft", 170)
            stage = snap.picking[i] if snap.picking else ("done" if taken else "name")
            key = {"done": "seating_ready", "colour": "seating_choose_colour"}.get(stage, "seating_choose_name")
            draw.text(surface, self.t(key), (rect.centerx, rect.bottom - 16), 30, GOLD if taken else MUTED, taken,
                      "midbottom", rect.width - 40)
        if snap.note is not None:
            box = pygame.Rect(0, 0, 1300, 100)
            box.midbottom = (960, 1060)
            draw.panel(surface, box, RED, 6)
            draw.text(surface, self.t(snap.note[0], **snap.note[1]), box.center, 36, INK, True, "center", 1260)


VIEW = SeatingView
