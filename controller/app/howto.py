"""How to play a game, on the TV: its pages (``controller.games.texts.how_to_play``), paged
through with any station's buttons, as the menu is.

Offered before the first move of a new game (``spieltisch box``, ``play``, a demo with a
person at the keyboard): a first-timer reads page after page, a family that knows the game
presses the top-left button once and plays. From the menu ("How to play") the same pages,
and the top-left button goes back to the menu.

    bottom row:  «  back        OK  next (on the last page: play, or back to the menu)   »  next
    top left:    play now (before a game) / back to the menu
"""

from __future__ import annotations

import queue
import time
from dataclasses import dataclass
from typing import Any, Callable

from controller.games import texts
from hardware.events import EventQueue

SKIP, PREVIOUS, OK, NEXT = 0, 3, 4, 5      # a station's buttons (menu.py: BACK, MINUS, OK, PLUS)


@dataclass(frozen=True)
class HowToSnapshot:
    """What the screen's view (``display/howto_view.py``) draws: a page of a game's how to play."""

    game: str                  # "howto": the screen's view
    which: str                 # the game explained ("team-up")
    page: int
    pages: int
    before_game: bool          # offered before a game: the top-left button plays at once
    variants: tuple[str, ...] = ()   # the game's switches that are on: pages that say them do


class Pages:
    """The pages of one game, turned by presses (no hardware, no screen)."""

    def __init__(self, game: str, *, before_game: bool, variants: tuple[str, ...] = ()) -> None:
        self.game = game
        self.variants = variants
        self.pages = len(texts.how_to_play(game, texts.DEFAULT_LANGUAGE))
        self.page = 0
        self.before_game = before_game
        self.done = False

    def press(self, button: int) -> bool:
        """One press; True once the pages are left (skipped, or read to the end)."""
        if button == SKIP:
            self.done = True
        elif button == PREVIOUS:
            self.page = max(0, self.page - 1)
        elif button in (OK, NEXT):
            if self.page == self.pages - 1:
                self.done = True
            else:
                self.page += 1
        return self.done

    def snapshot(self) -> HowToSnapshot:
        return HowToSnapshot("howto", self.game, self.page, self.pages, self.before_game, self.variants)


def show_pages(screen: Any, events: EventQueue, game: str, *, before_game: bool,
               other: Callable[[Any], None] | None = None, deadline: float | None = None,
               until: Callable[[], bool] | None = None, keys: Callable[[tuple], None] | None = None,
               variants: tuple[str, ...] = ()) -> bool:
    """The pages on ``screen`` until a station (or the keyboard's station keys) leaves them;
    False when Esc was pressed. Presses and taps meanwhile are the pages' (a tap is no move);
    anything else a station says (unplugged, back) goes to ``other``, so the table still
    hears it (``until()`` true leaves the pages: the host panel's menu button held).
    ``deadline`` (``time.monotonic``) passed: TimeoutError, as a game's own. ``keys``: the
    game's keyboard; before a game a card's key leaves the pages and is played, and keys
    typed after the pages were left are the game's, not lost (issue 40). ``variants``: the
    game's switches that are on, which the pages say (Crazy Kick's handicap)."""
    from controller.table.runner import INTERRUPTED, Wake
    from hardware.events import ButtonEvent, TagEvent
    pages = Pages(game, before_game=before_game, variants=variants)
    # a screen in a process of its own wakes this loop when it sends something (a key, a
    # frame drawn), so the loop waits on the stations' queue; one drawn here is looked at
    # 30 times a second (the pages before a game waited so on a TV: reviewer 2, finding 2)
    wakes = hasattr(screen, "wake_on_input")
    if wakes:
        screen.wake_on_input(lambda: events.put(Wake()))
    wait_s = 0.25 if wakes else 1 / 30
    screen.show(pages.snapshot())
    while not pages.done and not (until is not None and until()):
        if INTERRUPTED.is_set():              # Ctrl-C whose KeyboardInterrupt was lost (cli.py)
            raise KeyboardInterrupt
        if deadline is not None and time.monotonic() > deadline:
            raise TimeoutError("the how-to-play pages were still shown when the time given was up")
        shown = pages.page
        for ui in screen.poll():                      # a developer's keyboard: q w e / a s d, Esc
            if ui[0] == "quit":
                return False
            if pages.done:                            # left by an earlier key of these
                if keys is not None:
                    keys(ui)
            elif ui[0] == "button":
                pages.press(ui[1])
            elif before_game and keys is not None and ui[0] in ("card", "table_card"):
                pages.done = True                     # the game begins with the card played
                keys(ui)
        try:
            event = events.get(timeout=wait_s)
        except queue.Empty:
            event = None
        if isinstance(event, ButtonEvent):
            if event.pressed and not pages.done:
                pages.press(event.button)
        elif event is not None and not isinstance(event, TagEvent) and other is not None:
            other(event)
        if not pages.done and (pages.page != shown or screen.wants_redraw()):
            screen.show(pages.snapshot())      # a frame the frame-rate limit held back comes now
    return True
