"""Drawing helpers shared by every game's view: fonts, text, panels, cards, soft keys."""

from __future__ import annotations

import itertools
import math
from collections import OrderedDict
from functools import lru_cache
from typing import Any, Sequence

import pygame

from controller.games import texts
from controller.games.team_colours import TEAM_COLOURS

FELT = (24, 84, 52)
FELT_DARK = (16, 58, 36)
INK = (240, 240, 232)
MUTED = (170, 190, 176)
GOLD = (255, 196, 40)
RED = (230, 60, 50)
PANEL = (14, 44, 28)
CARD_FACE = (250, 248, 240)
TEAM = [(int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)) for c in TEAM_COLOURS]   # the LEDs' too
TEAM_SHAPE = ("triangle", "circle", "square", "diamond", "pentagon")   # a team told by shape too, not by colour alone
_SEE_THROUGH = (255, 0, 255)       # the background an image leaves uncopied: no drawing uses it

# What the drawing caches may hold, in bytes of pixels. A Pi Zero 2 or a Pi 3 shares its
# 512 MB-1 GB with the GPU, and no process of the table may pass 150 MB at a game's largest
# table (`spieltisch bench --only app`). Each budget holds a whole table's working set:
# every card face and seat of a frame at the most players, and the faces and seats seen a
# few moves ago (docs/architecture.md, "Memory").
FACE_BYTES = 12 << 20              # card faces and soft-key legends
SEAT_BYTES = 16 << 20              # seats (and other kept regions) as they looked, shared by every view
TEXT_BYTES = 6 << 20               # texts' images
PANEL_BYTES = 4 << 20              # rounded panels and frames


def image_bytes(image: pygame.Surface) -> int:
    """The memory an image's pixels take (rows are padded to the pitch)."""
    return image.get_pitch() * image.get_height()


class ImageCache:
    """Images kept by key within a budget in bytes; when a new one would overrun it, the
    least recently used go first. An image larger than the whole budget is not kept."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.bytes = 0
        self._images: OrderedDict[Any, pygame.Surface] = OrderedDict()

    def __len__(self) -> int:
        return len(self._images)

    def get(self, key: Any) -> pygame.Surface | None:
        image = self._images.get(key)
        if image is not None:
            self._images.move_to_end(key)
        return image

    def put(self, key: Any, image: pygame.Surface) -> pygame.Surface:
        """Keep ``image`` for ``key`` (making room) and return it."""
        size = image_bytes(image)
        old = self._images.pop(key, None)
        if old is not None:
            self.bytes -= image_bytes(old)
        if size > self.budget:
            return image
        while self.bytes + size > self.budget:
            _, gone = self._images.popitem(last=False)
            self.bytes -= image_bytes(gone)
        self._images[key] = image
        self.bytes += size
        return image

    def clear(self) -> None:
        self._images.clear()
        self.bytes = 0


_FACES = ImageCache(FACE_BYTES)
_SEATS = ImageCache(SEAT_BYTES)
_TEXTS = ImageCache(TEXT_BYTES)
_PANELS = ImageCache(PANEL_BYTES)


def team_mark(surface: pygame.Surface, team: int, centre: tuple[int, int], r: int = 12) -> None:
    """A team's shape in its colour."""
    shape(surface, TEAM_SHAPE[team % len(TEAM_SHAPE)], centre, r, TEAM[team % len(TEAM)])


def hex_rgb(colour: str) -> tuple[int, int, int]:
    """"e03c32" (or "#e03c32") → (224, 60, 50)."""
    colour = colour.lstrip("#")
    return int(colour[0:2], 16), int(colour[2:4], 16), int(colour[4:6], 16)


def seat_colour(surface: pygame.Surface, colour: str | None, name: pygame.Rect) -> None:
    """A seat's colour (its team's in a game with teams, else the one its player chose): the
    name underlined in it (a line, so it is not taken for a team's shape; the name, not the
    line, tells seats apart)."""
    if colour:
        line = pygame.Rect(name.left, name.bottom - 1, max(name.width, 40), 6)
        ink = hex_rgb(colour)
        pygame.draw.rect(surface, ink, line, border_radius=3)
        if sum(ink) < 150:                  # a dark team's line (Crazy Kick's black) on a dark panel: outlined
            pygame.draw.rect(surface, MUTED, line.inflate(2, 2), 1, border_radius=3)


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
    image = rendered(str(words), fitted_size(str(words), size, bold, max_width), bold, tuple(colour))
    rect = image.get_rect(**{anchor: pos})
    surface.blit(image, rect)
    return rect


@lru_cache(maxsize=8192)
def fitted_size(words: str, size: int, bold: bool, max_width: int | None) -> int:
    """The size ``words`` are drawn at: ``size``, or smaller until they fit ``max_width``."""
    if max_width is not None:
        while font(size, bold).size(words)[0] > max_width and size > 14:
            size -= 2
    return size


def rendered(words: str, size: int, bold: bool, colour: tuple[int, ...]) -> pygame.Surface:
    """A text's image, made once: a frame mostly redraws the texts of the last one, and
    rendering glyphs was a fifth of a frame's time (``spieltisch bench --only frames``)."""
    key = (words, size, bold, colour)
    image = _TEXTS.get(key)
    return image if image is not None else _TEXTS.put(key, font(size, bold).render(drawable(words), True, colour))


def drawable(words: str) -> str:
    """``words`` without the characters a font cannot draw: control and format characters
    (NUL among them, which pygame refuses with an error). Every text on the TV passes here,
    and a sticker's text, quoted in a refusal, may hold any."""
    return words if words.isprintable() else "".join(ch for ch in words if ch.isprintable())


def _see_through(size: tuple[int, int], *colours: tuple[int, ...] | None) -> pygame.Surface:
    """A blank image whose background will not be copied: a colour key none of ``colours`` is."""
    used = {tuple(c[:3]) for c in colours if c is not None}
    image = pygame.Surface(size)
    key = _SEE_THROUGH if _SEE_THROUGH not in used else (0, 255, 0)
    image.fill(key)
    image.set_colorkey(key)
    return image


def _rounded(size: tuple[int, int], colour: tuple[int, ...], width: int, radius: int) -> pygame.Surface:
    key = ("rounded", size, colour, width, radius)
    image = _PANELS.get(key)
    if image is None:
        image = _see_through(size, colour)
        pygame.draw.rect(image, colour, image.get_rect(), width, border_radius=radius)
        _PANELS.put(key, image)
    return image


def rounded(surface: pygame.Surface, colour, rect, width: int = 0, radius: int = 14) -> None:
    """``pygame.draw.rect`` with rounded corners, drawn once per size and colour and then
    copied: rounding corners was a third of a frame's time."""
    rect = pygame.Rect(rect)
    if rect.width <= 0 or rect.height <= 0:
        return
    surface.blit(_rounded(rect.size, tuple(colour), width, radius), rect)


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
        image = rendered(line, size, bold, tuple(colour))
        y = rect.top + i * f.get_linesize()
        surface.blit(image, image.get_rect(midtop=(rect.centerx, y)) if align == "center" else (rect.left, y))


def lines_of(words: str, width: int, size: int, bold: bool = False) -> list[str]:
    """``words`` broken into lines no wider than ``width`` at ``size`` (a word longer than the
    width stands alone on its line); a new line in ``words`` begins a new line."""
    f = font(size, bold)
    lines: list[str] = []
    for paragraph in str(words).split("\n"):
        line = ""
        for word in paragraph.split():
            trial = f"{line} {word}".strip()
            if f.size(trial)[0] > width and line:
                lines.append(line)
                line = word
            else:
                line = trial
        lines.append(line)
    return lines


@lru_cache(maxsize=64)
def line_step(size: int, bold: bool = False) -> int:
    """How far apart lines of words are at ``size``: the tallest a line can be drawn (accented
    capitals reach above the font's own line height), so that no two lines overlap."""
    f = font(size, bold)
    return max(f.get_linesize(), f.size("ÀÉÎÔÛÄÖÜgjpqy")[1]) + 2


def paragraph(surface: pygame.Surface, words: str, topleft: tuple[int, int], width: int, size: int = 30,
              colour=INK, bold: bool = False) -> int:
    """Words broken into lines (``lines_of``), each drawn by ``text`` at ``size`` (never
    shrunk); returns the bottom of the last line."""
    x, y = topleft
    step = line_step(size, bold)
    for line in lines_of(words, width, size, bold):
        if line:
            text(surface, line, (x, y), size, colour, bold)
        y += step
    return y


def shape(surface: pygame.Surface, kind: str, centre: tuple[int, int], r: int, ink: tuple[int, int, int]) -> None:
    """A colour's own shape (circle, square, triangle, diamond, pentagon), so that a colour-blind
    player tells the colours apart: each game's view says which colour has which."""
    x, y = centre
    if kind == "circle":
        pygame.draw.circle(surface, ink, centre, r)
    elif kind == "square":
        pygame.draw.rect(surface, ink, (x - r + 2, y - r + 2, 2 * r - 4, 2 * r - 4))
    elif kind == "triangle":
        pygame.draw.polygon(surface, ink, [(x, y - r), (x + r, y + r - 2), (x - r, y + r - 2)])
    elif kind == "pentagon":
        pygame.draw.polygon(surface, ink, [(round(x + r * math.sin(k * 2 * math.pi / 5)),
                                            round(y - r * math.cos(k * 2 * math.pi / 5))) for k in range(5)])
    else:
        pygame.draw.polygon(surface, ink, [(x, y - r), (x + r, y), (x, y + r), (x - r, y)])


def panel(surface: pygame.Surface, rect: pygame.Rect, border=None, width: int = 3, fill=PANEL) -> None:
    """A rounded panel, with a border when ``border`` is a colour: one copy of an image made
    once per size and colours."""
    rect = pygame.Rect(rect)
    if rect.width <= 0 or rect.height <= 0:
        return
    surface.blit(_panel(rect.size, tuple(fill), None if border is None else tuple(border), width), rect)


# A refusal's frame: red dashes on the panel's own edge, in the margin (SEAT_MARGIN) that
# nothing a view draws inside a seat enters, so that it never runs into a team's mark, a
# name's line, a pile or a key; a dashed outline around the whole panel, unlike any team's
# mark (a shape beside the name) or line (a bar under it), whatever the team's colour.
REFUSED_WIDTH, REFUSED_DASH, REFUSED_GAP = 4, 18, 12
SEAT_MARGIN = REFUSED_WIDTH + 2          # a seat's contents keep this far from its panel's edge
PANEL_RADIUS = 14


def seat_frame(surface: pygame.Surface, rect: pygame.Rect, *, turn: bool, refused: bool, width: int = 5) -> None:
    """A seat's panel: a solid gold frame while it is on turn (or has the ball), and red
    dashes along the same edge while a refusal stands there: the gold shows between the
    dashes, so both can be seen at once and told apart by their shape too, not by colour
    alone (issue 40: red replaced the gold)."""
    panel(surface, rect, GOLD if turn else None, width if turn else 3)
    if refused:
        dashed_frame(surface, pygame.Rect(rect), RED, REFUSED_WIDTH)


def dashed_frame(surface: pygame.Surface, rect: pygame.Rect, colour: tuple[int, int, int], width: int) -> None:
    """A panel's rounded outline in dashes, ``width`` thick, along its edge: each rounded
    corner a dash, the straight sides cut into dashes between them (drawn once per size)."""
    rect = pygame.Rect(rect)
    if rect.width <= 0 or rect.height <= 0:
        return
    key = ("dashed", rect.size, tuple(colour), width)
    image = _PANELS.get(key)
    if image is None:
        image = _see_through(rect.size, colour)
        pygame.draw.rect(image, colour, image.get_rect(), width, border_radius=PANEL_RADIUS)
        see_through = image.get_colorkey() or (0, 0, 0)     # set by _see_through
        w, h = rect.size
        for at in _gap_starts(w):                       # top and bottom
            image.fill(see_through, (at, 0, REFUSED_GAP, width))
            image.fill(see_through, (at, h - width, REFUSED_GAP, width))
        for at in _gap_starts(h):                       # left and right
            image.fill(see_through, (0, at, width, REFUSED_GAP))
            image.fill(see_through, (w - width, at, width, REFUSED_GAP))
        _PANELS.put(key, image)
    surface.blit(image, rect)


def _gap_starts(length: int) -> list[int]:
    """Where the gaps of a side ``length`` long begin: spread evenly over its straight part,
    which begins and ends in a dash (the corners' own)."""
    straight = length - 2 * PANEL_RADIUS
    gaps = max(1, round(straight / (REFUSED_DASH + REFUSED_GAP)))
    return [round(PANEL_RADIUS + (k + 0.5) * straight / gaps - REFUSED_GAP / 2) for k in range(gaps)]


def _panel(size: tuple[int, int], fill: tuple[int, ...], border: tuple[int, ...] | None, width: int) -> pygame.Surface:
    key = ("panel", size, fill, border, width)
    image = _PANELS.get(key)
    if image is None:
        image = _see_through(size, fill, border)
        pygame.draw.rect(image, fill, image.get_rect(), 0, border_radius=PANEL_RADIUS)
        if border is not None:
            pygame.draw.rect(image, border, image.get_rect(), width, border_radius=PANEL_RADIUS)
        _PANELS.put(key, image)
    return image


def soft_keys(surface: pygame.Surface, lang: str, keys: Sequence[Any], topleft: tuple[int, int],
              size: tuple[int, int] = (96, 34), bold: bool = True) -> None:
    """The six buttons in two rows of three, labelled with what they do right now (drawn
    once per legend and copied: a seat's keys seldom change between frames)."""
    w, h = size
    legend = ("soft_keys", lang, size, bold,
              tuple(None if k is None else (k.key, repr(sorted(k.params.items()))) for k in keys))
    face(surface, pygame.Rect(topleft, (3 * w + 12, 2 * h + 6)), legend,
         lambda image, at: _paint_soft_keys(image, lang, keys, size, bold))


def _paint_soft_keys(image: pygame.Surface, lang: str, keys: Sequence[Any], size: tuple[int, int],
                     bold: bool) -> None:
    w, h = size
    for i, key in enumerate(keys):
        rect = pygame.Rect((i % 3) * (w + 6), (i // 3) * (h + 6), w, h)
        active = key is not None
        pygame.draw.rect(image, (70, 110, 86) if active else (30, 60, 42), rect, border_radius=8)
        if active:
            text(image, texts.render(lang, key.key, key.params), rect.center, 28, INK, bold, "center", w - 6)


def enlarged(surface: pygame.Surface, rect: pygame.Rect, natural: tuple[int, int], paint: Any) -> None:
    """Something a game's view draws at its own size (a mission card), shown larger in
    ``rect`` (a how-to-play page's picture): ``paint(image, rect_at_origin)`` draws it at
    ``natural`` size, and the drawing is scaled, so it looks exactly as in the game."""
    image = pygame.Surface(natural, pygame.SRCALPHA)
    paint(image, image.get_rect())
    surface.blit(pygame.transform.smoothscale(image, pygame.Rect(rect).size), rect)


def face(surface: pygame.Surface, rect: pygame.Rect, key: tuple, paint: Any) -> None:
    """A card's face (or a seat's soft keys) drawn once for ``key`` (which must hold all
    ``paint(image, rect_at_origin)`` reads) and copied after: its corners show what is under it."""
    image = _FACES.get(key)
    if image is None:
        image = _see_through(rect.size)
        paint(image, pygame.Rect((0, 0), rect.size))
        _FACES.put(key, image)
    surface.blit(image, rect.topleft)


class Regions:
    """Dirty rectangles: a view draws its screen as regions (a seat, the middle, the score
    table), each with a key that holds everything its painter reads. A region whose key is
    the one it was last painted with is left as it is on the canvas; the others are filled
    with their background and painted, clipped to their rectangle. ``forget`` when the
    canvas no longer holds the last frame (another screen, an overlay drawn across)."""

    _owners = itertools.count()

    def __init__(self) -> None:
        self.painted: dict[str, Any] = {}
        # kept images live in one cache for every view (``SEAT_BYTES``), each view's under its own mark
        self._owner = next(Regions._owners)

    def forget(self) -> None:
        self.painted.clear()

    def paint_kept(self, surface: pygame.Surface, name: str, rect: pygame.Rect, key: Any, painter: Any,
                   background=FELT) -> None:
        """As ``paint``, for a region whose painter draws relative to the rectangle it is given
        (``painter(surface, rect)``, a seat): its images are kept by key, so a seat that looks
        again as it did a few moves ago (no longer on turn, say) is copied, not drawn."""
        if self.painted.get(name) == key:
            return
        image = _SEATS.get((self._owner, key))
        if image is None:
            image = pygame.Surface(rect.size)
            image.fill(background)
            painter(image, pygame.Rect((0, 0), rect.size))
            _SEATS.put((self._owner, key), image)
        surface.blit(image, rect.topleft)
        self.painted[name] = key

    def paint(self, surface: pygame.Surface, name: str, rect: pygame.Rect, key: Any, painter: Any,
              background=FELT) -> None:
        if self.painted.get(name) == key:
            return
        surface.set_clip(rect)
        if background is not None:             # None: the painter lays its own background
            surface.fill(background, rect)
        painter()
        surface.set_clip(None)
        self.painted[name] = key


def messages_shown(snap: Any) -> list[Any]:
    """Everything the message box says, newest first: the table's last message, and every
    refusal still standing at a seat (each seat framed red can be read: issue 40, where two
    seats refused one after the other showed only the second's reason)."""
    standing = sorted((seat.refusal for seat in snap.seats if getattr(seat, "refusal", None) is not None),
                      key=lambda r: -r.revision)
    if snap.message is not None and snap.message not in standing:
        return [snap.message, *standing]
    return standing


def hints_shown(snap: Any) -> tuple[int, tuple] | None:
    """The learning hints the message box shows: the seat that may act now and its hints
    (a turn-based game gives them to that seat only), or None."""
    for seat in snap.seats:
        if getattr(seat, "hints", ()):
            return seat.seat, seat.hints
    return None


def message_key(snap: Any) -> str:
    """What the message box shows, as a region's key (``Regions``)."""
    return repr((messages_shown(snap), hints_shown(snap)))


HINT_SIZE = 28           # the hints' words: as many as fit, read from the sofa


def hints_box(surface: pygame.Surface, lang: str, seat: int, hints: Sequence[Any], names: Sequence[str],
              box: pygame.Rect) -> None:
    """The learning option's hints for ``seat``, one paragraph each under a gold title, as
    many as fit the box (the most useful come first); "…" says some are left out."""
    panel(surface, box, GOLD, 3)
    inner = box.inflate(-36, -24)
    step = line_step(HINT_SIZE)
    y = paragraph(surface, texts.render(lang, "learn_title", {"player": seat}, names), inner.topleft, inner.width,
                  HINT_SIZE, GOLD, True) + 6
    for k, hint in enumerate(hints):
        lines = lines_of(texts.render(lang, hint.key, hint.params, names), inner.width - 22, HINT_SIZE)
        room = (inner.bottom - y) // step
        if len(lines) > room or (len(lines) == room and k < len(hints) - 1):
            if room >= 1:
                text(surface, "…", (inner.left + 22, y), HINT_SIZE, GOLD, True)
            return
        pygame.draw.circle(surface, GOLD, (inner.left + 7, y + step // 2), 5)
        for line in lines:
            text(surface, line, (inner.left + 22, y), HINT_SIZE, INK)
            y += step
        y += 4


def message_box(surface: pygame.Surface, lang: str, snap: Any, names: Sequence[str], box: pygame.Rect,
                help_key: str, size: int = 30) -> None:
    """``messages_shown`` (a refusal framed red, naming whose input it was; several, newest
    first, as many as fit, "…" for the rest), else the learning option's hints
    (``hints_box``), else the game's help line."""
    said = messages_shown(snap)
    hinted = hints_shown(snap)
    if not said and hinted is not None:
        hints_box(surface, lang, hinted[0], hinted[1], names, box)
        return
    panel(surface, box, RED if any(m.refusal for m in said) else None)
    if not said:
        wrapped(surface, texts.render(lang, help_key, {}, names), box.inflate(-40, -40), 30, MUTED)
        return
    inner = pygame.Rect(box.left + 20, box.top + 18, box.width - 40, box.height - 30)
    step, y = line_step(size), inner.top
    for k, m in enumerate(said):
        heading = texts.render(lang, "refused_for", {"player": m.seat}, names) if m.refusal and m.seat is not None \
            else None
        body = lines_of(texts.render(lang, m.key, m.params, names), inner.width, size)
        need = (46 if heading else 0) + len(body) * step
        if k > 0 and y + need > inner.bottom:            # the first always; the rest as they fit
            text(surface, "…", (inner.left, y), size, RED, True)
            return
        if k > 0:
            pygame.draw.line(surface, MUTED, (inner.left, y - 6), (inner.right, y - 6), 2)
        if heading:
            text(surface, heading, (inner.left, y), 32, RED, True, max_width=inner.width)
            y += 46
        for line in body:
            if y + step > box.bottom - 6:
                break
            text(surface, line, (inner.left, y), size)
            y += step
        y += 14


def pause_banner(surface: pygame.Surface, lang: str, snap: Any, names: Sequence[str]) -> bool:
    """Across the middle of the screen while the game waits: a seat's station is unplugged,
    or the table cannot save. Whether it was drawn."""
    if snap.finished or not (snap.paused_for or getattr(snap, "cannot_save", None)):
        return False
    if snap.paused_for:
        words = texts.render(lang, "paused_banner", {"seat": snap.paused_for[0]}, names)
    else:
        words = texts.render(lang, "cannot_save_banner")
    box = pygame.Rect(0, 0, 1300, 150)
    box.center = (surface.get_width() // 2, surface.get_height() // 2)
    panel(surface, box, RED, 8)
    text(surface, words, box.center, 52, RED, True, "center", box.width - 60)
    return True
