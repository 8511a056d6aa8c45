"""The shared screen: a window (or, with no screen, SDL's dummy driver) showing the
table's snapshots. It draws on a logical 1920×1080 canvas and scales it to the window.
It reads snapshots and returns what the keyboard asked for; it changes nothing itself.

Keyboard (a developer being one station): ``q w e`` / ``a s d`` are the station's
buttons (top row / bottom row), ``1``–``9`` and ``0`` tap the 1st–10th card of that
seat's hand (virtual cards), ``z``–``m`` the 1st–7th card lying open on the table,
``u`` asks to undo (again: takes the move back), ``Esc`` quits.
"""

from __future__ import annotations

import collections
import os
import time
from typing import Any, Callable

LOGICAL_SIZE = (1920, 1080)
KEY_BUTTONS = "qweasd"
KEY_CARDS = "1234567890"
KEY_TABLE_CARDS = "zxcvbnm"      # the cards lying open on the table (Tadika's middle, Teamplay's bank)
# At the keyboard the table is drawn whole and shown smaller above a strip of its own: the
# seat's hand under keys 1-0, the open cards under z-m, the buttons' keys. Drawn across the
# table, the hand covered the seat's own panel, its bid and its − / OK keys (issue 30).
KEYBOARD_STRIP = 236


def table_cards(view: dict[str, Any]) -> list[Any]:
    """The cards lying open on the table that the keys z-m tap, in order."""
    return list(view.get("middle") or view.get("bank") or [])


def has_screen() -> bool:
    """Whether a window can be shown: an X/Wayland display, or a console driver chosen."""
    if os.environ.get("SDL_VIDEODRIVER") == "dummy":
        return False
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
                or os.environ.get("SDL_VIDEODRIVER") in ("kmsdrm", "wayland", "x11"))


def fitted_window(desktops: list[tuple[int, int]]) -> tuple[int, int]:
    """A window as large as the first screen allows, room left for a desktop's bars: the
    largest 16:9 size within 90 % of it, never above the canvas's 1920×1080 (a fixed
    1280×720 was a third of a 1080p screen)."""
    width, height = desktops[0] if desktops else (1280, 800)
    scale = min(width * 0.9 / LOGICAL_SIZE[0], height * 0.9 / LOGICAL_SIZE[1], 1.0)
    return int(LOGICAL_SIZE[0] * scale), int(LOGICAL_SIZE[1] * scale)


class Screen:
    def __init__(self, *, lang: str = "en", headless: bool = False, window: tuple[int, int] | None = None,
                 fullscreen: bool = False, max_fps: float = 60.0, volume: int | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if headless:
            os.environ["SDL_VIDEODRIVER"] = "dummy"
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        import pygame
        self.pg = pygame
        pygame.display.init()
        pygame.font.init()
        self.lang = lang
        self.headless = headless
        self.interactive = not headless
        if headless:
            self.window = pygame.display.set_mode((1, 1))
            self.canvas = pygame.Surface(LOGICAL_SIZE)
        else:
            driver = pygame.display.get_driver().lower()
            if driver == "x11":
                # X11 takes the window's pixels itself (shared memory). SDL's default hands them
                # to OpenGL as a texture instead, which loads the GL stack: under Xvfb (Mesa's
                # llvmpipe) 100 MB more in the screen's process, and a frame's flip 4 times
                # slower (docs/architecture.md, "Memory").
                os.environ.setdefault("SDL_FRAMEBUFFER_ACCELERATION", "0")
            elif driver == "kmsdrm":
                # kmsdrm (the Pi's console) has no such choice: the pixels go through a GL
                # renderer. SDL tries desktop OpenGL first, and without libGL.so.1 (the console
                # has only the GL ES libraries the guide installs) it still made that renderer,
                # over libGLESv2, and every frame was black (seen in the virtual machine,
                # tools/box_vm, docs/raspberry-pi.md). GL ES 2 is the one the console has.
                os.environ.setdefault("SDL_FRAMEBUFFER_ACCELERATION", "opengles2")
            flags = pygame.FULLSCREEN if fullscreen else pygame.RESIZABLE
            size = (0, 0) if fullscreen else (window or fitted_window(pygame.display.get_desktop_sizes()))
            self.window = pygame.display.set_mode(size, flags)
            pygame.display.set_caption("Spieltisch")
            self.canvas = pygame.Surface(LOGICAL_SIZE)
        if not headless:
            self.starting()                    # at once: importing and setting up take seconds more
        self.min_interval = 1.0 / max_fps
        self.clock = clock                     # the frame rate's seconds (a test's own clock)
        self.frames = 0
        self.frame_ns: collections.deque[int] = collections.deque(maxlen=4096)   # how long each frame took
        self._last_draw = 0.0
        self._pending: Any = None
        self._views: dict[str, Any] = {}
        self._seen: Any = None                 # the last snapshot given, for the sounds it calls for
        self._drawn_by: Any = None             # the view that drew the canvas's last frame
        self._overlaid = False                 # and whether something was drawn across it
        self._layout: Any = None               # and for which game and player count
        from display.sound import DEFAULT_VOLUME, Sounds
        # only a screen people watch makes sounds: not the headless demo, not the tests
        self.sounds = Sounds(DEFAULT_VOLUME if volume is None else volume) if not headless else None

    def starting(self) -> None:
        """Until the table's first frame: that it is starting, in the screen's language, shown
        the moment the window opens (issue 40: a keyboard game's window stayed black for 9–15 s
        on a loaded machine while the sounds, the views and the table were set up). Keys
        pressed meanwhile wait in the window's queue for ``poll``."""
        from controller.games import texts
        from display import draw
        self.canvas.fill(draw.FELT)
        self.pg.draw.rect(self.canvas, draw.FELT_DARK, (0, 0, LOGICAL_SIZE[0], 100))
        draw.text(self.canvas, "Spieltisch", (30, 20), 64, draw.GOLD, True)
        draw.text(self.canvas, texts.render(self.lang, "screen_starting"), (LOGICAL_SIZE[0] // 2, LOGICAL_SIZE[1] // 2),
                  64, draw.INK, True, "center", LOGICAL_SIZE[0] - 120)
        self.present()

    def set_lang(self, lang: str) -> None:
        """Another language from now on (the menu's choice): the views are made anew."""
        if lang != self.lang:
            self.lang = lang
            self._views.clear()

    def _view(self, game: str) -> Any:
        if game not in self._views:
            from display.views import view_for
            self._views[game] = view_for(game, self.lang, live=not self.headless)
        return self._views[game]

    def show(self, snapshot: Any) -> None:
        """Draw a snapshot now, or, when frames come faster than ``max_fps``, soon. Its sounds
        play at once, even when its frame is held back."""
        self._sound(snapshot)
        now = self.clock()
        if now - self._last_draw < self.min_interval and self.frames:
            self._pending = snapshot
            return
        self._pending = None
        self._last_draw = now
        self.render(snapshot)
        self.present()

    def _sound(self, snapshot: Any) -> None:
        before, self._seen = self._seen, snapshot
        if self.sounds is None or not hasattr(snapshot, "view"):
            return
        from display.sound import cues_between
        for cue in cues_between(before, snapshot, self._view(snapshot.game)):
            self.sounds.play(cue)

    def wants_redraw(self) -> bool:
        """A held-back frame is due, or a view is animating (a goal celebration)."""
        if self.clock() - self._last_draw < self.min_interval:
            return False
        if self._pending is not None:
            return True
        return any(getattr(view, "animating", lambda: False)() for view in self._views.values())

    def next_redraw_s(self) -> float | None:
        """Seconds until ``wants_redraw`` may say yes (a held-back frame, a view animating),
        or None while neither: then nothing changes on the screen until it is told."""
        animating = any(getattr(view, "animating", lambda: False)() for view in self._views.values())
        if self._pending is None and not animating:
            return None
        return max(0.0, self.min_interval - (self.clock() - self._last_draw))

    def flush(self) -> None:
        if self._pending is not None:
            snapshot, self._pending = self._pending, None
            self.render(snapshot)
            self.present()

    def redraw(self) -> None:
        """What ``wants_redraw`` asked for: the held-back frame, or the last one again (an
        animation's next frame)."""
        if self._pending is not None:
            self.flush()
        elif self._seen is not None:
            self._last_draw = self.clock()
            self.render(self._seen)
            self.present()

    def render(self, snapshot: Any) -> Any:
        """The frame for ``snapshot``. A view that draws in regions (``draw.Regions``) repaints
        only those whose part of the snapshot changed, when the canvas still holds its last
        frame; otherwise, and for every other view, the whole canvas is drawn afresh."""
        from display.draw import FELT, FELT_DARK
        started = time.monotonic_ns()
        private = getattr(snapshot, "private", None)
        if private and getattr(self, "_table", None) is None:
            self._table = self.pg.Surface(LOGICAL_SIZE)
        canvas = self._table if private else self.canvas
        view = self._view(snapshot.game)
        regions = getattr(view, "regions", None)
        # the same view at another player count lays its regions out elsewhere
        layout = (snapshot.game, len(getattr(snapshot, "seats", ())), bool(private))
        if regions is None or self._drawn_by is not view or self._overlaid or layout != self._layout:
            canvas.fill(FELT)
            self.pg.draw.rect(canvas, FELT_DARK, (0, 0, LOGICAL_SIZE[0], 100))
            if regions is not None:
                regions.forget()
        view.draw(canvas, snapshot)
        self._drawn_by, self._layout = view, layout
        # something drawn across the regions (a banner): next frame afresh
        self._overlaid = bool(getattr(view, "overlaid", False))
        if private:
            self._keyboard_frame(canvas, snapshot)
        self.frames += 1
        self.last_snapshot = snapshot
        self.frame_ns.append(time.monotonic_ns() - started)
        return self.canvas

    def table_area(self) -> Any:
        """Where the table is shown at the keyboard: whole, smaller, above the strip."""
        height = LOGICAL_SIZE[1] - KEYBOARD_STRIP
        width = round(LOGICAL_SIZE[0] * height / LOGICAL_SIZE[1])
        return self.pg.Rect((LOGICAL_SIZE[0] - width) // 2, 0, width, height)

    def _keyboard_frame(self, table: Any, snapshot: Any) -> None:
        """The keyboard seat's frame: the table whole above; below it the seat's hand, each
        card under the key that taps it (1-0), and the cards lying open on the table under
        z-m, drawn as the game's view draws its cards; beside the table, the station's keys."""
        from importlib import import_module
        from controller.games import find_game, texts
        from display import draw
        canvas, area = self.canvas, self.table_area()
        canvas.fill(draw.FELT_DARK)
        canvas.blit(self.pg.transform.smoothscale(table, area.size), area.topleft)
        self._keys_legend(canvas, self.pg.Rect(0, 0, area.left, area.height))
        seat, hand = snapshot.private
        try:
            face = import_module(f"display.{find_game(snapshot.game).module}_view").card_face
        except (ImportError, AttributeError, KeyError):
            return
        names = [s.name for s in snapshot.seats]
        strip = self.pg.Rect(0, area.bottom, LOGICAL_SIZE[0], KEYBOARD_STRIP)
        groups = [(texts.render(self.lang, "your_hand", {"player": seat}, names), KEY_CARDS,
                   list(hand[:len(KEY_CARDS)]))]
        on_table = table_cards(snapshot.view)[:len(KEY_TABLE_CARDS)]
        if on_table:
            groups.append((texts.render(self.lang, "table_cards_keys", {}), KEY_TABLE_CARDS, on_table))
        count = sum(len(cards) for _, _, cards in groups)
        gap = 10
        w = min(96, (strip.width - 40 - 40 * len(groups) - gap * count) // max(count, 1))
        h = round(w * 136 / 96)
        x = strip.left + 8
        for title, keys, cards in groups:
            box = self.pg.Rect(x, strip.top + 6, 24 + len(cards) * (w + gap), strip.height - 12)
            draw.panel(canvas, box, draw.GOLD, 3)
            draw.text(canvas, title, (box.left + 12, box.top + 4), 28, draw.GOLD, True,
                      max_width=max(box.width - 24, 200))
            for i, card in enumerate(cards):
                rect = self.pg.Rect(box.left + 12 + i * (w + gap), box.bottom - h - 8, w, h)
                draw.text(canvas, keys[i], (rect.centerx, rect.top - 34), 30, draw.GOLD, True, "midtop")
                face(canvas, self.lang, card, rect)
            x = box.right + 24

    def _keys_legend(self, canvas: Any, room: Any) -> None:
        """The keys that stand for the station's buttons, beside the table: q w e over a s d
        (top and bottom row, as on the station), u to undo, Esc to stop."""
        from controller.games import texts
        from display import draw
        draw.wrapped(canvas, texts.render(self.lang, "keyboard_buttons", {}),
                     self.pg.Rect(room.left + 12, room.top + 100, room.width - 20, 72), 28, draw.GOLD, bold=True)
        size = (room.width - 40) // 3
        for i, key in enumerate(KEY_BUTTONS):
            cell = self.pg.Rect(room.left + 14 + (i % 3) * (size + 6), room.top + 176 + (i // 3) * (size + 6),
                                size, size)
            draw.panel(canvas, cell, draw.GOLD, 2)
            draw.text(canvas, key, cell.center, 32, draw.INK, True, "center")
        y = room.top + 176 + 2 * (size + 6) + 24
        for key, words in (("u", "keyboard_undo"), ("Esc", "keyboard_quit")):
            draw.text(canvas, texts.labelled(self.lang, key, texts.render(self.lang, words, {})),
                      (room.left + 14, y), 28, draw.INK, False, max_width=room.width - 24)
            y += 44

    def present(self) -> None:
        if self.headless:
            return
        size = self.window.get_size()
        if size == LOGICAL_SIZE:
            self.window.blit(self.canvas, (0, 0))
        else:
            scale = min(size[0] / LOGICAL_SIZE[0], size[1] / LOGICAL_SIZE[1])
            scaled = (round(LOGICAL_SIZE[0] * scale), round(LOGICAL_SIZE[1] * scale))
            self.window.fill((0, 0, 0))
            self.window.blit(self.pg.transform.smoothscale(self.canvas, scaled),
                             ((size[0] - scaled[0]) // 2, (size[1] - scaled[1]) // 2))
        self.pg.display.flip()

    def poll(self) -> list[tuple]:
        """Keyboard and window events as table inputs: ("button", n), ("card", i), ("table_card", i),
        ("undo",), ("quit",)."""
        inputs: list[tuple] = []
        for event in self.pg.event.get():
            if event.type == self.pg.QUIT:
                inputs.append(("quit",))
            elif event.type == self.pg.VIDEORESIZE or event.type == self.pg.WINDOWEXPOSED:
                self.present()
            elif event.type == self.pg.KEYDOWN:
                # the character typed; SDL leaves it empty at times (often the first key after
                # the window opens: pygame-ce issue 1609), then the key's own code names it
                key = event.unicode.lower() if event.unicode else \
                    (chr(event.key) if 32 < event.key < 127 else "")
                if event.key == self.pg.K_ESCAPE:
                    inputs.append(("quit",))
                elif key and key in KEY_BUTTONS:
                    inputs.append(("button", KEY_BUTTONS.index(key)))
                elif key and key in KEY_CARDS:
                    inputs.append(("card", KEY_CARDS.index(key)))
                elif key and key in KEY_TABLE_CARDS:
                    inputs.append(("table_card", KEY_TABLE_CARDS.index(key)))
                elif key == "u":
                    inputs.append(("undo",))
        return inputs

    def save(self, path: str) -> None:
        self.pg.image.save(self.canvas, path)

    def close(self) -> None:
        if self.sounds is not None:
            self.sounds.close()
        self.pg.display.quit()
