"""Drawing helpers shared by every game's view: fonts, text, panels, cards, soft keys."""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Sequence

import pygame

from controller.games import texts

FELT = (24, 84, 52)
FELT_DARK = (16, 58, 36)
INK = (240, 240, 232)
MUTED = (170, 190, 176)
GOLD = (255, 196, 40)
RED = (230, 60, 50)
PANEL = (14, 44, 28)
CARD_FACE = (250, 248, 240)
TEAM = [(230, 120, 40), (60, 160, 230), (190, 90, 200), (120, 200, 90)]


def seat_ring(players: int, area: pygame.Rect, size: tuple[int, int], inset: tuple[int, int] = (10, 10)) -> list[pygame.Rect]:
    """Seat panels clockwise around an ellipse inside ``area``, seat 1 at the bottom centre."""
    cx, cy = area.centerx, area.centery
    rx = (area.width - size[0]) / 2 - inset[0]
    ry = (area.height - size[1]) / 2 - inset[1]
    rects = []
    for i in range(players):
        angle = math.pi / 2 + 2 * math.pi * i / players    # clockwise on screen (y points down)
        rect = pygame.Rect(0, 0, *size)
        rect.center = (round(cx + rx * math.cos(angle)), round(cy + ry * math.sin(angle)))
        rects.append(rect.clamp(area))
    return rects


@lru_cache(maxsize=64)
def font(size: int, bold: bool = False) -> pygame.font.Font:
    f = pygame.font.Font(None, size)   # pygame-ce's bundled font: Latin-1 and more, no system fonts needed
    f.set_bold(bold)
    return f


def text(surface: pygame.Surface, words: str, pos: tuple[int, int], size: int = 32, colour=INK,
         bold: bool = False, anchor: str = "topleft", max_width: int | None = None) -> pygame.Rect:
    f = font(size, bold)
    if max_width is not None:
        while f.size(words)[0] > max_width and size > 14:
            size -= 2
            f = font(size, bold)
    image = f.render(words, True, colour)
    rect = image.get_rect(**{anchor: pos})
    surface.blit(image, rect)
    return rect


def wrapped(surface: pygame.Surface, words: str, rect: pygame.Rect, size: int = 30, colour=INK, *,
            bold: bool = False, align: str = "left") -> None:
    """Words broken into lines that fit ``rect``'s width, from its top (``align``: "left" or
    "center")."""
    f = font(size, bold)
    lines, line = [], ""
    for word in words.split():
        trial = f"{line} {word}".strip()
        if f.size(trial)[0] > rect.width and line:
            lines.append(line)
            line = word
        else:
            line = trial
    if line:
        lines.append(line)
    for i, line in enumerate(lines):
        image = f.render(line, True, colour)
        y = rect.top + i * f.get_linesize()
        surface.blit(image, image.get_rect(midtop=(rect.centerx, y)) if align == "center" else (rect.left, y))


def shape(surface: pygame.Surface, kind: str, centre: tuple[int, int], r: int, ink: tuple[int, int, int]) -> None:
    """A colour's own shape (circle, square, triangle, diamond), so that a colour-blind
    player tells the colours apart: each game's view says which colour has which."""
    x, y = centre
    if kind == "circle":
        pygame.draw.circle(surface, ink, centre, r)
    elif kind == "square":
        pygame.draw.rect(surface, ink, (x - r + 2, y - r + 2, 2 * r - 4, 2 * r - 4))
    elif kind == "triangle":
        pygame.draw.polygon(surface, ink, [(x, y - r), (x + r, y + r - 2), (x - r, y + r - 2)])
    else:
        pygame.draw.polygon(surface, ink, [(x, y - r), (x + r, y), (x, y + r), (x - r, y)])


def panel(surface: pygame.Surface, rect: pygame.Rect, border=None, width: int = 3, fill=PANEL) -> None:
    pygame.draw.rect(surface, fill, rect, border_radius=14)
    if border is not None:
        pygame.draw.rect(surface, border, rect, width, border_radius=14)


def soft_keys(surface: pygame.Surface, lang: str, keys: Sequence[Any], topleft: tuple[int, int],
              size: tuple[int, int] = (96, 34), bold: bool = True) -> None:
    """The six buttons in two rows of three, labelled with what they do right now."""
    w, h = size
    for i, key in enumerate(keys):
        rect = pygame.Rect(topleft[0] + (i % 3) * (w + 6), topleft[1] + (i // 3) * (h + 6), w, h)
        active = key is not None
        pygame.draw.rect(surface, (70, 110, 86) if active else (30, 60, 42), rect, border_radius=8)
        if active:
            text(surface, texts.render(lang, key.key, key.params), rect.center, 28, INK, bold, "center", w - 6)


def message_box(surface: pygame.Surface, lang: str, snap: Any, names: Sequence[str], box: pygame.Rect,
                help_key: str, size: int = 30) -> None:
    """The table's last message (a refusal framed red, naming whose input it was), or the
    game's help line while there is none."""
    panel(surface, box, RED if snap.message and snap.message.refusal else None)
    if snap.message is None:
        wrapped(surface, texts.render(lang, help_key, {}, names), box.inflate(-40, -40), 30, MUTED)
        return
    m = snap.message
    if m.refusal and m.seat is not None:
        text(surface, texts.render(lang, "refused_for", {"player": m.seat}, names), (box.left + 20, box.top + 18), 32,
             RED, True, max_width=box.width - 40)
    body = texts.render(lang, m.key, m.params, names)
    wrapped(surface, body, pygame.Rect(box.left + 20, box.top + 64, box.width - 40, box.height - 80), size)


def pause_banner(surface: pygame.Surface, lang: str, snap: Any, names: Sequence[str]) -> None:
    """Across the middle of the screen while the game waits: a seat's station is unplugged,
    or the table cannot save."""
    if snap.finished or not (snap.paused_for or getattr(snap, "cannot_save", None)):
        return
    if snap.paused_for:
        words = texts.render(lang, "paused_banner", {"seat": snap.paused_for[0]}, names)
    else:
        words = texts.render(lang, "cannot_save_banner")
    box = pygame.Rect(0, 0, 1300, 150)
    box.center = (surface.get_width() // 2, surface.get_height() // 2)
    panel(surface, box, RED, 8)
    text(surface, words, box.center, 52, RED, True, "center", box.width - 60)
