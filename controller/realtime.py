"""The loop of a real-time game (Crazy Kick): presses go through the arbiter, which
releases them to the table in press-time order once their window has passed.

    station frames ─► queue ─► arbiter (held ≤ window) ─► table ─► feedback, snapshot

Time comes from a clock the runner is given. At a real table it is the host's
monotonic clock. The headless demo uses :class:`SimulatedTime`: time stands still while
the stations' frames travel (the runner waits for every frame the bots sent), then
jumps to the next thing due (a bot's press, a held press's release, a sync ping). Bots
still draw human reaction times, nobody waits for them, and a whole match takes seconds.
"""

from __future__ import annotations

import logging
import math
import queue
import time
from typing import Any, Callable

from controller.arbiter import Arbiter
from controller.kickbots import KickBot, Plan, Reaction
from controller.runner import TableRunner
from controller.table import Table

log = logging.getLogger(__name__)


class SimulatedTime:
    """A clock that moves only when told to."""

    def __init__(self, start_ns: int | None = None) -> None:
        self.now = time.monotonic_ns() if start_ns is None else start_ns

    def __call__(self) -> int:
        return self.now

    def advance_to(self, when_ns: int) -> None:
        self.now = max(self.now, when_ns)


class KickBotDriver:
    """The bots of a Crazy Kick table. They see each new snapshot, plan a press with a
    human reaction time and make it at their simulated station when it is due."""

    def __init__(self, adapter: Any, stations: dict[int, Any], *, seed: int,
                 reaction: Reaction = Reaction()) -> None:
        self.adapter = adapter
        self.stations = stations                     # seat → SimulatedStation
        self.bots = {seat: KickBot(seat, seed, reaction) for seat in stations}
        self.plans: dict[int, Plan | None] = {seat: None for seat in stations}
        self._sent: dict[int, int] = {}               # seat → seq of the last frame it sent
        self._state: Any = None

    def observe(self, snapshot: Any, state: Any, now_ns: int) -> None:
        if snapshot.finished:
            self.plans = {seat: None for seat in self.plans}
            return
        changed = state is not self._state
        self._state = state
        now_ms = now_ns / 1e6
        for seat, bot in self.bots.items():
            station = self.stations[seat]
            if seat in self._sent and snapshot.processed.get(station.station_id) != self._sent[seat]:
                continue                              # the table has not had our last press yet
            plan = self.plans[seat]
            if plan is None or (changed and not bot.keeps(plan, state, now_ms)):
                self.plans[seat] = bot.plan(state, now_ms)

    def next_due_ns(self) -> int | None:
        times = [_ns(p) for p in self.plans.values() if p is not None]
        return min(times) if times else None

    def act(self, now_ns: int) -> list[Any]:
        """Make every press that is due; returns the stations that sent frames."""
        pressed = []
        for seat, plan in self.plans.items():
            if plan is None or _ns(plan) > now_ns:
                continue
            self.plans[seat] = None
            station = self.stations[seat]
            for step in self.adapter.inputs_for(self._state, seat, plan.action):
                self._sent[seat] = station.press(step.arg)
            pressed.append(station)
        return pressed

    def close(self) -> None:
        self.plans = {seat: None for seat in self.plans}


def _ns(plan: Plan) -> int:
    """A plan's time on the integer clock (rounded up, so it is due once the clock is there)."""
    return math.ceil(plan.at_ms * 1e6)


class RealtimeRunner(TableRunner):
    def __init__(self, table: Table, events: "queue.Queue", links: dict[str, Any], *,
                 screen: Any = None, bots: KickBotDriver | None = None,
                 keyboard: Callable[[Any], None] | None = None,
                 clock: Callable[[], int] = time.monotonic_ns, simulated: SimulatedTime | None = None,
                 arbiter: Arbiter | None = None, ping_interval_ns: int = 1_000_000_000,
                 panel: Any = None) -> None:
        super().__init__(table, events, links, screen=screen, bots=None, keyboard=keyboard,
                         clock=simulated or clock, panel=panel)
        self.kickbots = bots
        self.simulated = simulated
        self.arbiter = arbiter or Arbiter()
        self.ping_interval_ns = ping_interval_ns     # simulated time: the runner pings the stations
        self._next_ping = 0
        self._expected: dict[str, int] = {}          # station → seq of the last frame a bot sent
        self._seen: dict[str, int] = {}              # station → seq of the last frame that came in

    def run(self, *, until_finished: bool = True, timeout: float | None = None) -> dict[str, Any]:
        deadline = None if timeout is None else time.monotonic() + timeout
        if self.simulated is not None:
            for link in self.links.values():
                link.auto_ping = False
        self.send(self.table.initial_feedback())
        self._publish()
        while not self.stopped and not (until_finished and self.table.finished):
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"the game did not finish within {timeout} s")
            if self.kickbots is not None:
                for station in self.kickbots.act(self.clock()):
                    self._expected[station.station_id] = station.last_seq
            if self.simulated is not None:
                self._ping_if_due()
                batch = self._collect_simulated()
            else:
                batch = self._collect_real()
            for event in batch:
                self.accept(event)
            self.release()
            if self.screen is not None:
                for ui in self.screen.poll():
                    self._ui(ui)
            self._publish(idle=not batch)
            if self.simulated is not None and not batch:
                self._advance()
        self._publish()
        return self.table.result()

    # -- events in ----------------------------------------------------------------------------------
    def accept(self, event: Any) -> None:
        if type(event).__name__ == "ButtonEvent":
            self.arbiter.push(event, station=event.station, pressed_ns=event.pressed_ns,
                              arrived_ns=event.arrived_ns)
        else:
            self.handle(event)

    def release(self) -> None:
        now = self.clock()
        for event in self.arbiter.due(now):
            self.handle(event)

    def _collect_real(self) -> list[Any]:
        now = self.clock()
        poll = 1 / 60 if self.screen is not None and self.screen.interactive else 0.05
        wake = [t for t in (self.arbiter.next_deadline(),
                            self.kickbots.next_due_ns() if self.kickbots else None) if t is not None]
        return self._take(max(0.0, min([poll] + [(t - now) / 1e9 for t in wake])))

    # -- simulated time ------------------------------------------------------------------------------
    def _collect_simulated(self) -> list[Any]:
        """Everything the bots' presses and the sync pings sent, waiting (real time) for it."""
        batch: list[Any] = []
        give_up = time.monotonic() + 5.0
        while True:
            waiting = any(self._seen.get(s) != seq for s, seq in self._expected.items()) or \
                any(link.pending_pongs for link in self.links.values())
            try:
                # a PONG puts nothing on the queue: look again soon rather than block
                event = self.events.get(timeout=0.002) if waiting else self.events.get_nowait()
            except queue.Empty:
                if not waiting:
                    return batch
                if time.monotonic() > give_up:
                    log.error("simulated stations did not deliver their frames; going on")
                    self._expected.clear()
                    return batch
                continue
            batch.append(event)
            if getattr(event, "seq", None) is not None:
                self._seen[event.station] = event.seq

    def _ping_if_due(self) -> None:
        now = self.clock()
        if now >= self._next_ping:
            for link in self.links.values():
                link.ping()
            self._next_ping = now + self.ping_interval_ns

    def _advance(self) -> None:
        assert self.simulated is not None
        times = [t for t in (self.arbiter.next_deadline(),
                             self.kickbots.next_due_ns() if self.kickbots else None, self._next_ping)
                 if t is not None]
        self.simulated.advance_to(min(times))

    def _let_bots_see(self, snapshot: Any, changed: bool, idle: bool) -> None:
        if self.kickbots is not None:             # they look at every turn of the loop: plans fall due
            self.kickbots.observe(snapshot, self.table.state, self.clock())
