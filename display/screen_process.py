"""The table's screen, drawn in a process of its own.

    table's loop ── snapshot ──► pipe ──► screen process: Screen.show, its sounds, the keyboard
                 ◄── keys, "seen" ─────┘

Why a process: the table's loop used to draw each frame itself, and a frame takes 1-5 ms
on a PC (a whole one up to 30, and three to four times that on a Pi). While it was
drawn, the loop could release no held press, and the stations' reader threads, which
share the interpreter's lock with the loop, stamped arrivals late. In a process of its
own the screen shares no lock with the table: the loop hands over each new snapshot
(pickled, about 4 KB and 0.2 ms) and goes on (docs/architecture.md, "The screen").

A :class:`ScreenProcess` answers as :class:`display.app.Screen` does, so the runners and
the app's screens take either. Flow control: at most ``MAX_UNSEEN`` snapshots wait in the
pipe; beyond that only the newest waits here, so a screen that stalls never stalls the
table, and it is sent once the screen has caught up. A screen process that dies is
started again, at most once every ``RESTART_S``, and shown the newest snapshot.
"""

from __future__ import annotations

import collections
import logging
import multiprocessing
import multiprocessing.connection
import threading
import time
from typing import Any, Callable

log = logging.getLogger(__name__)


class ScreenUnavailable(RuntimeError):
    """The screen's process could not open the screen (no display, no video driver)."""


class ScreenProcess:
    MAX_UNSEEN = 8           # snapshots in the pipe not yet taken by the screen (≈ 32 KB)
    START_TIMEOUT_S = 60.0   # pygame's import on a Pi's SD card takes seconds; a first boot longer
    REPLY_TIMEOUT_S = 10.0   # a screenshot saved
    RESTART_S = 5.0          # a screen process that died is started again at most this often
    WATCH_S = 0.25           # wake_on_input's thread looks at a pipe being replaced this often

    def __init__(self, *, preload: tuple[str, ...] = (), **options: Any) -> None:
        """``options`` are :class:`display.app.Screen`'s; raises :class:`ScreenUnavailable`
        when the screen cannot be opened. ``preload``: the modules the snapshots' classes
        live in, imported before the screen says it is ready; else the first snapshot waits
        while unpickling imports them (0.4 s on this machine, and a Crazy Kick race's first
        frames with it)."""
        self.preload = tuple(preload)
        self.options = options
        self.lang = options.get("lang", "en")
        self.headless = bool(options.get("headless", False))
        self.interactive = not self.headless
        self.sounds = None                     # they play in the screen's process
        self.frames = 0                        # frames the screen has drawn
        self.frame_ns: collections.deque[int] = collections.deque(maxlen=4096)   # how long each took
        self.restarts = 0
        self._closed = False
        self._crash: str | None = None         # what the screen's process said went wrong, if it did
        self._conn: Any = None
        self._process: Any = None
        self._started_at = 0.0
        self._unseen = 0
        self._waiting: Any = None              # the newest snapshot, when the pipe is full
        self._last: Any = None                 # the newest snapshot given: a restarted screen shows it
        self._inputs: list[tuple] = []
        self._replies: list[tuple] = []
        self._wake: Callable[[], None] | None = None    # wake_on_input's
        self._watcher: threading.Thread | None = None
        self._taken = threading.Event()
        self._start(wait=True)

    # -- as display.app.Screen ----------------------------------------------------------------------
    def show(self, snapshot: Any) -> None:
        self._last = snapshot
        self._take_replies()
        if self._conn is not None and self._unseen < self.MAX_UNSEEN:
            self._waiting = None
            self._unseen += 1
            self._send(("show", snapshot))
        else:
            self._waiting = snapshot

    def wants_redraw(self) -> bool:
        """A snapshot waits for room in the pipe and now has it (the screen's own held-back
        frames and animations are its process's business)."""
        self._take_replies()
        return self._waiting is not None and self._conn is not None and self._unseen < self.MAX_UNSEEN

    def poll(self) -> list[tuple]:
        self._take_replies()
        inputs, self._inputs = self._inputs, []
        return inputs

    def wake_on_input(self, wake: Callable[[], None]) -> None:
        """Call ``wake`` (from a thread of its own) when the screen's process has sent
        something (a key, a frame drawn), once until the table's loop has taken it
        (``poll``): the loop then waits on its own queue, not on a look at the pipe 60 times
        a second while nothing changes (reviewer 2, finding 2)."""
        self._wake = wake
        if self._watcher is None:
            self._watcher = threading.Thread(target=self._watch_pipe, name="screen keys", daemon=True)
            self._watcher.start()

    def _watch_pipe(self) -> None:
        while not self._closed:
            conn = self._conn
            try:
                ready = conn is not None and bool(multiprocessing.connection.wait([conn], timeout=self.WATCH_S))
            except (OSError, ValueError):
                ready = False                      # closed under the wait: the table starts it again
            if not ready:
                if conn is None:
                    time.sleep(self.WATCH_S)
                continue
            if self._wake is not None:
                self._wake()
            self._taken.wait(self.WATCH_S)         # until the loop took it (or a look again)
            self._taken.clear()

    def flush(self) -> None:
        """The newest snapshot drawn now, whatever the frame rate held back (a game's end)."""
        if self._waiting is not None:
            self._unseen += 1
            self._send(("show", self._waiting))
            self._waiting = None
        self._send(("flush",))

    def render(self, snapshot: Any) -> None:
        """Draw ``snapshot`` now, for a screenshot (``save``)."""
        self._last = snapshot
        self._send(("render", snapshot))

    def save(self, path: str) -> None:
        """The screen's last frame as an image file; raises OSError when it cannot be written."""
        self._send(("save", str(path)))
        reply = self._reply("saved")
        if reply[1] is not None:
            raise OSError(reply[1])

    def settle(self, timeout: float = 2.0) -> bool:
        """Wait until the screen has taken every snapshot sent and said how long it drew
        them (a bench's last frames); False when it has not within ``timeout`` s."""
        give_up = time.monotonic() + timeout
        while True:
            self._take_replies()
            if self._unseen == 0 or self._conn is None:
                return self._unseen == 0
            if time.monotonic() > give_up:
                return False
            time.sleep(0.005)

    def set_lang(self, lang: str) -> None:
        self.lang = lang
        self.options["lang"] = lang
        self._send(("lang", lang))

    def close(self) -> None:
        self._closed = True                    # from now on nothing starts it again
        self._take_replies()                   # the frames drawn so far, counted
        process, conn, self._process, self._conn = self._process, self._conn, None, None
        if conn is not None:
            try:
                conn.send(("close",))
            except (OSError, ValueError):
                pass
        if process is not None:
            process.join(timeout=5.0)
            if process.is_alive():
                process.terminate()
                process.join(timeout=1.0)
        if conn is not None:
            conn.close()

    # -- the pipe -----------------------------------------------------------------------------------
    def _start(self, wait: bool) -> None:
        context = multiprocessing.get_context("spawn")      # the table's threads do not survive a fork
        parent, child = context.Pipe()
        process = context.Process(target=serve, args=(child, dict(self.options), self.preload),
                                  name="spieltisch screen", daemon=True)
        process.start()
        child.close()
        self._conn, self._process, self._started_at = parent, process, time.monotonic()
        self._unseen = 0
        if not wait:
            return
        reply = self._reply("ready", "failed", timeout=self.START_TIMEOUT_S)
        if reply[0] == "failed":
            self.close()
            raise ScreenUnavailable(reply[1])

    def _send(self, message: tuple) -> None:
        if self._conn is None:
            self._restart_if_due()
            if self._conn is None:
                return
        try:
            self._conn.send(message)
        except (OSError, ValueError):
            self._lost()

    def _take_replies(self) -> None:
        if self._conn is None:
            self._restart_if_due()
        try:
            while self._conn is not None and self._conn.poll():
                self._note(self._conn.recv())
        except (EOFError, OSError):
            self._lost()
        self._taken.set()

    def _note(self, message: tuple) -> None:
        kind = message[0]
        if kind == "seen":
            _, seen, frames_ns = message
            self._unseen = max(0, self._unseen - seen)
            self.frames += len(frames_ns)
            self.frame_ns.extend(frames_ns)
        elif kind == "input":
            self._inputs.append(message[1])
        elif kind == "failed":                               # a restarted screen that could not open
            log.error("the screen cannot be opened again: %s", message[1])
        elif kind == "crashed":
            self._crash = message[1]
        elif kind != "ready":
            self._replies.append(message)

    def _reply(self, *kinds: str, timeout: float | None = None) -> tuple:
        """Wait for the screen's answer of one of ``kinds``."""
        give_up = time.monotonic() + (timeout or self.REPLY_TIMEOUT_S)
        while True:
            for message in self._replies:
                if message[0] in kinds:
                    self._replies.remove(message)
                    return message
            conn = self._conn
            left = give_up - time.monotonic()
            if conn is None or left <= 0:
                raise ScreenUnavailable("the screen did not answer")
            try:
                if not conn.poll(left):
                    continue
                message = conn.recv()
            except (EOFError, OSError):
                self._lost()
                raise ScreenUnavailable("the screen's process ended") from None
            if message[0] in kinds:
                return message
            self._note(message)

    def _lost(self) -> None:
        """The screen's process is gone (it crashed, or was killed): the table goes on, and
        the screen is started again soon."""
        process, conn, self._process, self._conn = self._process, self._conn, None, None
        if process is not None:
            process.join(timeout=0.2)              # its exit code, when it has one
        why = self._crash or f"exit code {process.exitcode if process is not None else None}"
        self._crash = None
        log.error("the screen's process ended (%s); it is started again", why)
        if conn is not None:
            conn.close()
        self._restart_if_due()

    def _restart_if_due(self) -> None:
        if self._closed or self._conn is not None or time.monotonic() - self._started_at < self.RESTART_S:
            return
        self.restarts += 1
        self._start(wait=False)
        if self._last is not None:
            self._waiting = None
            self._unseen = 1
            self._send(("show", self._last))


# -- the screen's process --------------------------------------------------------------------------
# The screen's loop looks at the pipe, its keys and its held-back frames 60 times a second
# while something happens, and ten times a second once nothing has for QUIET_AFTER_S (no
# message, no key, nothing held back or animating): a waiting turn-based game's screen took
# 0.6 % of a core looking 60 times a second (reviewer 2, finding 2). SDL gives no wait for
# the window's events and a pipe together (pygame's event.wait looks every millisecond
# itself: 1.8 % of a core), so it stays a look, a slower one: a key pressed at a quiet
# screen is read within 0.1 s, and the next ones at once.
POLL_S = 1 / 60
IDLE_POLL_S = 0.1
QUIET_AFTER_S = 5.0


def serve(conn: Any, options: dict[str, Any], preload: tuple[str, ...] = ()) -> None:
    """The screen process's whole life: open the screen, then draw what comes."""
    import os
    import signal
    # Ctrl-C at the terminal reaches every process of the table: the table's process stops
    # the game and closes the screen; here it would only print a traceback
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # SDL turns SIGTERM into a window-close event, which would leave this process running
    # when the table's process ends without closing it (its exit terminates it)
    os.environ["SDL_NO_SIGNAL_HANDLERS"] = "1"
    try:
        import importlib
        from display.app import Screen
        screen = Screen(**options)             # the window opens saying it is starting (Screen.starting)
        for module in preload:
            importlib.import_module(module)
    except Exception as exc:                   # noqa: BLE001 - said to the table, which says it to the owner
        conn.send(("failed", f"{type(exc).__name__}: {exc}"))
        return
    try:
        conn.send(("ready",))
        draw(conn, screen)
    except (EOFError, OSError):                # the table is gone
        pass
    except Exception as exc:                   # noqa: BLE001 - a bug in drawing: one line to the table, no traceback
        try:
            conn.send(("crashed", _one_line(exc)))
        except (OSError, ValueError):
            pass
    finally:
        screen.close()


def _one_line(exc: BaseException) -> str:
    """What went wrong and where, for the table's log: a developer finds the line from it."""
    import traceback
    where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    at = f" at {where.filename}:{where.lineno}" if where is not None else ""
    return f"{type(exc).__name__}: {exc}{at}"


def draw(conn: Any, screen: Any) -> None:
    """Take everything the table sent, draw, answer how many snapshots were taken and how
    long each frame took, pass on the keyboard; until told to close."""
    next_redraw_s = getattr(screen, "next_redraw_s", lambda: 0.0)
    active = time.monotonic()
    while True:
        seen = 0
        frames_before = screen.frames
        quiet = time.monotonic() - active > QUIET_AFTER_S and next_redraw_s() is None
        if conn.poll(IDLE_POLL_S if quiet else POLL_S):
            active = time.monotonic()
            while conn.poll():
                message = conn.recv()
                kind = message[0]
                if kind == "close":
                    return
                if kind == "show":
                    screen.show(message[1])
                    seen += 1
                elif kind == "render":
                    screen.render(message[1])
                elif kind == "flush":
                    screen.flush()
                elif kind == "lang":
                    screen.set_lang(message[1])
                elif kind == "save":
                    conn.send(("saved", _saved(screen, message[1])))
        if screen.wants_redraw():
            screen.redraw()
        drawn = screen.frames - frames_before
        if seen or drawn:
            # the newest durations only (the deque's end, no copy of all of it per frame)
            conn.send(("seen", seen, [screen.frame_ns[k] for k in range(-drawn, 0)]))
        for ui in screen.poll():
            active = time.monotonic()
            conn.send(("input", ui))


def _saved(screen: Any, path: str) -> str | None:
    try:
        screen.save(path)
    except Exception as exc:                   # noqa: BLE001 - pygame.error and OSError: said to the caller
        return f"{path}: {exc}"
    return None
