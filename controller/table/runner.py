"""The table's loop: wait for an event (waking at once when one arrives), hand every
waiting event to the table, send the feedback, then let the bots and the screen see
the new snapshot. The screen redraws only when the snapshot changed."""

from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Any, Callable

from controller.table.table import Command, Table
from hardware.events import EventQueue, InputEvent, PanelEvent
from hardware.hostclock import now_ns

log = logging.getLogger(__name__)


def event_queue() -> queue.SimpleQueue[Any]:
    """The queue the stations' readers (and the panel, and the bots) put events on and the
    table's loop takes them from. A SimpleQueue: its put and its wake-up are one C call
    each, where a ``queue.Queue`` runs a Python condition around both, under the
    interpreter's lock that eight readers and the loop share while a race's answers come
    in (docs/crazy-kick.md, "Where the rest of the delay comes from")."""
    return queue.SimpleQueue()


class Wake:
    """Put on the queue to make the loop look again (a bot finished its inputs)."""

    station = None


class TableStopped(RuntimeError):
    """The loop cannot go on: the bots are stuck, or an unattended table cannot save."""


SAVE_RETRY_S = 1.0          # while the log refuses writes, try again this often
# Set by the command's Ctrl-C handler. A KeyboardInterrupt raised while the table starts up
# was, about once in 40 Ctrl-Cs, swallowed on the way (the table then ran on): the loop also
# looks at this, which nothing can swallow.
INTERRUPTED = threading.Event()


class TableRunner:
    def __init__(self, table: Table, events: EventQueue, links: dict[str, Any], *,
                 screen: Any = None, bots: Any = None, keyboard: Callable[[Any], None] | None = None,
                 clock: Callable[[], int] = now_ns, panel: Any = None,
                 give_up_unsaved_s: float | None = None) -> None:
        self.table = table
        self.events = events
        self.links = links                 # station id → StationLink
        self.screen = screen
        self.bots = bots
        self.keyboard = keyboard           # takes the screen's key inputs
        self.panel = panel                 # the Pi's own buttons and lights, if any
        self.clock = clock
        self.latencies_ns: list[int] = []  # frame arrival → action durably committed
        self._uncommitted: list[int] | None = None   # in a batch: arrivals of actions not committed yet
        self.first_frame_ns: int | None = None
        self.stopped = False
        self._last_revision = -1          # the snapshot the bots saw last
        self._drawn_revision = -1         # and the one the screen drew last
        self.give_up_unsaved_s = give_up_unsaved_s   # an unattended table (the demo) ends instead of waiting
        self._unsaved_since: float | None = None
        self._save_retried = 0.0

    def send(self, commands: list[Command]) -> None:
        for command in commands:
            link = self.links.get(command.station)
            if link is None:
                continue
            try:
                link.send(command.kind, *command.args)
            except Exception:                # one station's trouble must not stop the table
                log.exception("sending %s to %s failed", command.kind, command.station)

    def run(self, *, until_finished: bool = True, timeout: float | None = None) -> dict[str, Any]:
        deadline = None if timeout is None else time.monotonic() + timeout
        self.send(self.table.initial_feedback())
        self._publish()
        # Station input wakes the loop at once through the queue, and so do the keys of a
        # screen in a process of its own (``wake_on_input``); a window drawn in this process
        # has its own events (keys, closing) looked at 60 times a second. Otherwise the loop
        # looks four times a second (saving retried, the bots' stuck): with a TV, a waiting
        # turn-based game looked 60 times a second and took 0.7 % of a core (reviewer 2).
        wakes = self.screen is not None and hasattr(self.screen, "wake_on_input")
        if wakes:
            self.screen.wake_on_input(lambda: self.events.put(Wake()))
        poll = 1 / 60 if self.screen is not None and self.screen.interactive and not wakes else 0.25
        while not self.stopped:
            if INTERRUPTED.is_set():
                raise KeyboardInterrupt
            if until_finished and self.table.finished:
                break
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"the game did not finish within {timeout} s")
            batch = self._take(poll)
            for event in batch:
                self.handle(event)
            if self.screen is not None:
                for ui in self.screen.poll():
                    self._ui(ui)
            self._watch()
            self._publish(idle=not batch)
        self._publish()
        return self.table.result()

    def _watch(self) -> None:
        """Between inputs: retry saving while the log refuses writes; stop with a reason when
        the bots are stuck or an unattended table could not save for too long."""
        now = time.monotonic()
        if self.table.cannot_save is None:
            self._unsaved_since = None
        else:
            if self._unsaved_since is None:
                self._unsaved_since = now
            if now - self._save_retried >= SAVE_RETRY_S:
                self._save_retried = now
                self.table.check_saving()
            if self.table.cannot_save is not None and self.give_up_unsaved_s is not None and \
                    now - self._unsaved_since > self.give_up_unsaved_s:
                raise TableStopped(self.table.cannot_save)
        stuck = getattr(self.bots, "stuck", None)
        if stuck:
            raise TableStopped(stuck)

    def _take(self, timeout: float) -> list[Any]:
        """Wait up to ``timeout`` s for an event, then take everything else already waiting."""
        batch = []
        try:
            batch.append(self.events.get(timeout=timeout))
        except queue.Empty:
            pass
        while True:
            try:
                batch.append(self.events.get_nowait())
            except queue.Empty:
                return batch

    def handle(self, event: InputEvent | Wake) -> None:
        if isinstance(event, Wake):
            return                           # it only made the loop look again: nothing for the table
        before = len(self.table.actions)
        commands = self.table.handle(event)
        if isinstance(event, PanelEvent):
            if event.button == "menu_held":
                self.stopped = True          # the game is in the log: `spieltisch play` resumes it
            elif self.panel is not None:
                self.panel.beep()
        if len(self.table.actions) > before:
            arrived = getattr(event, "arrived_ns", None)
            if arrived is not None and self._uncommitted is not None:
                self._uncommitted.append(arrived)            # durable at the batch's commit
            elif arrived is not None:
                self.latencies_ns.append(self.clock() - arrived)
        self.send(commands)

    def key(self, ui: tuple) -> None:
        """A key of the screen's keyboard (``display.app.Screen.poll``), read by someone else
        (the how-to pages before the game): the game takes it as its own."""
        self._ui(ui)

    def _ui(self, ui: tuple) -> None:
        if ui[0] == "quit":
            self.stopped = True
        elif ui[0] == "undo":
            self.send(self.table.host_undo())
        elif self.keyboard is not None:
            self.keyboard(ui)

    def _bots_look(self, changed: bool, idle: bool) -> bool:
        """Whether the bots look at the table now (at a change, or when nothing came in)."""
        return (changed or idle) and self.bots is not None

    def _let_bots_see(self, snapshot: Any, changed: bool, idle: bool) -> None:
        assert self.bots is not None
        self.bots.observe(snapshot, self.table.state)

    def _may_draw(self) -> bool:
        """Whether the screen may draw now (a real-time table holds it back while presses wait)."""
        return True

    def _publish(self, idle: bool = False) -> None:
        # The snapshot is made only for whoever looks at it: a real-time table's loop comes
        # here at every frame of a race, and making one takes up to 0.25 ms (Crazy Kick at
        # eight seats) that the next station's answer would wait for (docs/crazy-kick.md).
        if self.panel is not None:
            self.panel.show_status("waiting" if self.table.paused_for else "ready")
        revision = self.table.revision
        changed = revision != self._last_revision
        self._last_revision = revision
        if self._bots_look(changed, idle):
            self._let_bots_see(self.table.snapshot(), changed, idle)
        if self.screen is None or not self._may_draw():
            return
        if revision != self._drawn_revision or self.screen.wants_redraw():
            self.screen.show(self.table.snapshot())
            self._drawn_revision = revision
            if self.first_frame_ns is None:
                self.first_frame_ns = self.clock()
