"""Enrollment on the shared screen (``spieltisch enroll DECK``): the card to tap now, drawn
large as the game's own view draws it, its name (and which copy, for decks with equal
cards), how far the deck has come, and what the last tap did (a refusal framed red)."""

from __future__ import annotations

from importlib import import_module
from typing import Any

import pygame

from controller.games import find_game, texts
from display import draw
from display.draw import GOLD, INK, MUTED, RED

CARD_RECT = pygame.Rect(0, 0, 300, 420)
CARD_RECT.midtop = (960, 200)
NOTE_RECT = pygame.Rect(360, 760, 1200, 200)


def card_caption(lang: str, card: str) -> str:
    """The card's name; of several equal cards, which copy ("red 3, 2 of 4")."""
    base, dash, copy = card.rpartition("-")
    if dash and copy.isdigit() and base:
        return texts.render(lang, "enroll_copy", {"card": base, "copy": int(copy)})
    return texts.card_name(lang, card)


class EnrollView:
    def __init__(self, lang: str, *, live: bool = False) -> None:
        self.lang = lang

    def t(self, key: str, **params: Any) -> str:
        return texts.render(self.lang, key, params)

    def draw(self, surface: pygame.Surface, snap: Any) -> None:
        draw.text(surface, self.t("enroll_title", game=snap.title), (30, 24), 56, GOLD, True, max_width=1300)
        draw.text(surface, self.t("enroll_progress", n=snap.index, total=snap.total), (1890, 34), 40, INK, True,
                  "topright")
        bar = pygame.Rect(30, 116, 1860, 24)
        draw.rounded(surface, (40, 80, 56), bar, 0, 8)
        done = bar.copy()
        done.width = round(bar.width * snap.index / max(1, snap.total))
        draw.rounded(surface, GOLD, done, 0, 8)
        if snap.card is None:
            draw.text(surface, self.t("enroll_done", n=snap.total, game=snap.title), (960, 420), 56, GOLD, True,
                      "center", 1700)
        else:
            face = import_module(f"display.{find_game(snap.deck).module}_view").card_face
            face(surface, self.lang, snap.card, CARD_RECT)
            draw.text(surface, card_caption(self.lang, snap.card), (960, CARD_RECT.bottom + 20), 48, INK, True,
                      "midtop", 1400)
            key = "enroll_keep_on_reader" if snap.writing else "enroll_tap_now"
            draw.text(surface, self.t(key), (960, 160), 36, GOLD if snap.writing else MUTED, True, "midtop", 1700)
        note = snap.note
        if note is not None:
            draw.panel(surface, NOTE_RECT, RED if note.refusal else None, 6 if note.refusal else 3)
            draw.wrapped(surface, texts.render(self.lang, note.key, note.params), NOTE_RECT.inflate(-50, -50), 36,
                         RED if note.refusal else INK)


VIEW = EnrollView
