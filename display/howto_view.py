"""How to play a game on the shared screen (``controller/app/howto.py``): one page at a
time, its title and words on the left at reading size, the picture the game's own view
draws on the right (``how_to_picture`` of ``display/<game>_view.py``), and at the foot the
station's six buttons with what they do here (any station turns the pages).

Nothing is shrunk to fit: the words are broken into lines at their size, and a page whose
words would run past their column fails its test (``tests/test_how_to_play.py``)."""

from __future__ import annotations

from importlib import import_module
from typing import Any, NamedTuple

import pygame

from controller.games import find_game, texts
from display import draw
from display.draw import GOLD, INK, MUTED

TEXT = pygame.Rect(60, 130, 860, 770)          # the page's title and words
PICTURE = pygame.Rect(960, 130, 920, 770)      # the game's picture
FOOTER = pygame.Rect(40, 920, 1840, 150)       # the buttons
TITLE_SIZE, WORDS_SIZE = 52, 42
KEY_SIZE = (250, 56)


class Key(NamedTuple):
    """A button's label, as ``draw.soft_keys`` reads one."""

    key: str
    params: dict[str, Any] = {}    # noqa: RUF012 - shared, so never changed: its readers copy it


class HowToView:
    def __init__(self, lang: str, *, live: bool = False) -> None:
        self.lang = lang
        self.laid_out: list[tuple[str, pygame.Rect]] = []     # what was drawn where (the page's test reads it)

    def draw(self, surface: pygame.Surface, snap: Any) -> None:
        rules = find_game(snap.which)
        pages = texts.how_to_play(rules.name, self.lang, getattr(snap, "variants", ()))
        page = pages[min(snap.page, len(pages) - 1)]
        self.laid_out = []
        heading = texts.render(self.lang, "howto_heading", {"game": rules.title})
        self._note("heading", draw.text(surface, heading, (30, 18), 56, GOLD, True))
        counter = texts.render(self.lang, "howto_page", {"n": snap.page + 1, "total": snap.pages})
        self._note("counter", draw.text(surface, counter, (1890, 30), 40, INK, False, "topright"))
        y = TEXT.top
        for line in draw.lines_of(page.title, TEXT.width, TITLE_SIZE, True):
            self._note("title", draw.text(surface, line, (TEXT.left, y), TITLE_SIZE, GOLD, True))
            y += draw.line_step(TITLE_SIZE, True)
        y += 18
        step = draw.line_step(WORDS_SIZE)
        for paragraph in page.text.split("\n"):
            for line in draw.lines_of(paragraph, TEXT.width, WORDS_SIZE):
                self._note("words", draw.text(surface, line, (TEXT.left, y), WORDS_SIZE, INK))
                y += step
            y += step // 2
        picture = surface.subsurface(PICTURE)                  # the game's view draws in its own part only
        import_module(f"display.{rules.module}_view").how_to_picture(picture, self.lang, page.picture,
                                                                     picture.get_rect())
        self.laid_out.append(("picture", PICTURE.copy()))
        self._keys(surface, snap)

    def _note(self, what: str, rect: pygame.Rect) -> None:
        self.laid_out.append((what, rect))

    def _keys(self, surface: pygame.Surface, snap: Any) -> None:
        """The six buttons as on a station, labelled with what they do on this page."""
        last = snap.page >= snap.pages - 1
        leave = Key("howto_key_play_now" if snap.before_game else "howto_key_menu")
        ok = Key(("howto_key_play" if snap.before_game else "howto_key_done") if last else "howto_key_next")
        keys = (leave, None, None, Key("howto_key_back") if snap.page else None, ok,
                None if last else Key("howto_key_next"))
        width = 3 * KEY_SIZE[0] + 12
        left = FOOTER.right - 20 - width
        label = texts.render(self.lang, "howto_keys")
        self._note("keys_label", draw.text(surface, label, (left - 30, FOOTER.top + 10 + KEY_SIZE[1] + 3), 40,
                                           MUTED, False, "midright"))
        draw.soft_keys(surface, self.lang, keys, (left, FOOTER.top + 10), KEY_SIZE)
        self.laid_out.append(("keys", pygame.Rect(left, FOOTER.top + 10, width, 2 * KEY_SIZE[1] + 6)))


VIEW = HowToView
