"""The loop of a real-time game (Crazy Kick): presses go through the arbiter, which
releases them to the table in press-time order once every station in the race has said
it sent everything up to past them (its answer to a FENCE), or the bound has passed.

    station frames ─► queue ─► arbiter (held until every station spoke past it, ≤ bound) ─► table
                                  │ FENCE to the stations that have not ▲ UPTO / LOST

Time comes from a clock the runner is given. At a real table it is the host's
raw monotonic clock (``hardware.hostclock``: NTP does not slew it). The headless demo uses :class:`SimulatedTime`: time stands still while
the stations' frames travel (the runner waits for every frame the bots sent), then
jumps to the next thing due (a bot's press, a held press's release, a sync ping). Bots
still draw human reaction times, nobody waits for them, and a whole match takes seconds.
"""

from __future__ import annotations

import dataclasses
import gc
import heapq
import itertools
import logging
import os
import queue
import random
import sys
import threading
import time
from typing import Any, Callable, NamedTuple

from controller.games import texts
from controller.table.arbiter import Arbiter
from controller.table.runner import TableRunner
from controller.table.table import Table
from hardware.events import ButtonEvent, EventQueue, InputEvent, StationHello, StationLost, StationProgress
from hardware.hostclock import now_ns
from hardware.link import UNSURE_ERROR_NS
from hardware.sim.station import is_simulated

log = logging.getLogger(__name__)


# the interpreter's thread switch interval while a real-time game runs (docs/crazy-kick.md:
# 0.2 ms against 0.5 ms halved the presses stamped over 1 ms late; 0.1 ms was no better)
REALTIME_SWITCH_S = 0.0002
# While a real-time game runs on the real clock, the table's loop and its stations' readers
# run as real-time threads (round robin, a low priority) where the system lets them (root,
# CAP_SYS_NICE, or an RLIMIT_RTPRIO of 10: the Pi's unit sets LimitRTPRIO), else at nice
# −10 where it lets that. A Python thread that holds the interpreter and is put aside for
# another program holds every station's reader up with it: with two CPU hogs beside the race
# bench, half the races waited their full bound for an answer read 20 ms late, at nice −10
# still a third; as real-time threads none did (docs/crazy-kick.md, "Two CPU hogs").
# Processes they start (the screen's) begin as ordinary ones (SCHED_RESET_ON_FORK).
REALTIME_PRIORITY = 10
REALTIME_NICE = -10
# A station whose clock sync's bound stays above UNSURE_ERROR_NS (hardware/link.py: it keeps
# its presses 0.5 ms apart from another's from being told apart) this long, while the game
# runs and the link asks it for exchanges as often as still helps, is named on the screen.
POOR_CLOCK_NS = 10_000_000_000
CLOCKS_LOOKED_AT_NS = 1_000_000_000      # how often the runner looks at the bounds for that


class Raised(NamedTuple):
    tid: int
    policy: int
    param: Any
    nice: int


def raise_threads(tids: list[int], *, reset_on_fork: bool = True) -> list[Raised]:
    """Threads (native ids) made real-time, or else given a higher priority, as far as the
    system lets this process; what each had, for ``restore_threads``. ``reset_on_fork``:
    what they start begins as ordinary (threads included: leave it off in a process whose
    threads, started later, must be raised too)."""
    flag = getattr(os, "SCHED_RESET_ON_FORK", 0) if reset_on_fork else 0
    raised = []
    for tid in tids:
        try:
            before = Raised(tid, os.sched_getscheduler(tid), os.sched_getparam(tid),
                            os.getpriority(os.PRIO_PROCESS, tid))
        except (OSError, AttributeError):      # gone, or not Linux
            continue
        try:
            os.sched_setscheduler(tid, os.SCHED_RR | flag, os.sched_param(REALTIME_PRIORITY))
        except OSError:
            try:
                os.setpriority(os.PRIO_PROCESS, tid, min(before.nice, REALTIME_NICE))
                if flag:
                    os.sched_setscheduler(tid, os.SCHED_OTHER | flag, os.sched_param(0))
            except OSError:
                continue                        # not allowed: as it was
        raised.append(before)
    if tids and not raised:
        log.info("the table's threads keep their priority: the system lets this user raise none")
    return raised


def restore_threads(raised: list[Raised]) -> None:
    for before in raised:
        try:
            os.sched_setscheduler(before.tid, before.policy, before.param)
        except OSError:
            pass
        try:
            os.setpriority(os.PRIO_PROCESS, before.tid, before.nice)
        except OSError:
            pass


def freeze_for_the_game() -> bool:
    """What lives when a real-time game starts (the rules, the table, the links, the texts:
    most of the process) is set aside from the garbage collector for the game (``gc.freeze``;
    the caller gives it back with ``gc.unfreeze``), after one collection of what is garbage
    already. A full collection holds the interpreter, and so every station's reader and the
    loop, for as long as it goes over every object: 12-25 ms in the race bench's table, 200 ms
    in a process put aside by two CPU hogs. Frozen, it goes over what the game made since
    (docs/crazy-kick.md, "Two CPU hogs"). False when something froze already (not ours to
    give back)."""
    if gc.get_freeze_count():
        return False
    gc.collect()
    gc.freeze()
    return True


class SimulatedTime:
    """A clock that moves only when told to. It starts at a fixed moment unless told
    another: a seeded demo then plays the same whatever the host's clock reads. (From the
    host's clock, the clock sync's slots and the stations' µs stamps fell differently in
    each run, and so did the sync's bounds; since close presses tie by two bounds
    together, that changed which presses tied.)"""

    START_NS = 1_000_000_000_000

    def __init__(self, start_ns: int | None = None) -> None:
        self.now = self.START_NS if start_ns is None else start_ns

    def __call__(self) -> int:
        return self.now

    def advance_to(self, when_ns: int) -> None:
        self.now = max(self.now, when_ns)


class SimulatedWire:
    """USB's delay on simulated time: a station's presses reach the table ``delay_ns`` (drawn
    between its bounds) after the station sent them, in order, as USB keeps them. Each
    station draws from its own dice, so a demo plays the same whichever station's frame the
    host happened to read first. (On the real clock, ``SimulatedStation(link_delay_ms=…)``
    delays the bytes themselves.)"""

    def __init__(self, delay_ns: tuple[int, int] = (0, 4_000_000), seed: Any = 0) -> None:
        self.low, self.high = delay_ns
        self.seed = seed
        self._dice: dict[str, random.Random] = {}
        self._last: dict[str, int] = {}                  # station → when its latest frame arrives
        self._in_flight: list[tuple[int, int, Any]] = []
        self._order = itertools.count()

    def send(self, event: Any) -> None:
        """A press the station sent at its ``arrived_ns`` (the still simulated clock)."""
        dice = self._dice.setdefault(event.station, random.Random(f"wire:{self.seed}:{event.station}"))
        arrives = max(self._last.get(event.station, 0), event.arrived_ns + round(dice.uniform(self.low, self.high)))
        self._last[event.station] = arrives
        heapq.heappush(self._in_flight, (arrives, next(self._order), dataclasses.replace(event, arrived_ns=arrives)))

    def arrived(self, now_ns: int) -> list[Any]:
        out = []
        while self._in_flight and self._in_flight[0][0] <= now_ns:
            out.append(heapq.heappop(self._in_flight)[2])
        return out

    def next_arrival_ns(self) -> int | None:
        return self._in_flight[0][0] if self._in_flight else None


class RealtimeRunner(TableRunner):
    def __init__(self, table: Table, events: EventQueue, links: dict[str, Any], *,
                 screen: Any = None, bots: Any = None,
                 keyboard: Callable[[Any], None] | None = None,
                 clock: Callable[[], int] = now_ns, simulated: SimulatedTime | None = None,
                 arbiter: Arbiter | None = None, ping_interval_ns: int = 1_000_000_000,
                 panel: Any = None, give_up_unsaved_s: float | None = None,
                 wire: SimulatedWire | None = None) -> None:
        super().__init__(table, events, links, screen=screen, bots=None, keyboard=keyboard,
                         clock=simulated or clock, panel=panel, give_up_unsaved_s=give_up_unsaved_s)
        self.realtime_bots = bots
        self.simulated = simulated
        self.wire = wire                             # simulated time: USB's delay for the presses
        self.arbiter = arbiter if arbiter is not None else Arbiter()   # an empty arbiter is falsy
        self.ping_interval_ns = ping_interval_ns     # simulated time: the runner pings the stations
        self._next_ping = 0
        self._expected: dict[str, int] = {}          # station → seq of the last frame a bot sent
        self._seen: dict[str, int] = {}              # station → seq of the last frame that came in
        self._warned_slow: set[str] = set()          # stations the screen has warned about
        self._poor_since: dict[str, int] = {}       # station → since when its bound is above UNSURE_ERROR_NS
        self._clocks_looked_at: int | None = None
        self._held_feedback: list[Any] | None = None  # a batch's feedback, until it is durable
        table.late_presses = self.arbiter.late_by_station   # the arbiter's own counts: the result (the log) has them
        table.decided_without = self.arbiter.without_by_station
        self._expected_answers: dict[str, int] = {}  # simulated time: station → answers still to come
        self._in_race()
        for station, link in self.links.items():
            if self._races(link) and not link.fences:
                log.warning("station %s (firmware %s) does not answer FENCE: each race waits %.0f ms for it "
                            "and is decided without it; update its firmware (firmware/README.md)", station,
                            getattr(link, "firmware", "?"), self.arbiter.bound_ns / 1e6)

    @staticmethod
    def _races(link: Any) -> bool:
        """A station whose presses race: one with buttons that can be asked (a StationLink;
        not a bare card reader, not a fake without a clock)."""
        return callable(getattr(link, "fence", None)) and getattr(link, "capabilities", {}).get("buttons", "0") != "0"

    def _in_race(self) -> None:
        """The arbiter waits for the stations that are plugged in now."""
        self.arbiter.set_stations(s for s, link in self.links.items()
                                  if self._races(link) and getattr(link, "connected", True))

    def run(self, *, until_finished: bool = True, timeout: float | None = None) -> dict[str, Any]:
        deadline = None if timeout is None else time.monotonic() + timeout
        # a station's reader thread waiting for the interpreter gets it within 0.2 ms, not
        # the default 5 ms: a press's arrival stamp and its release wait on it
        switch = sys.getswitchinterval()
        sys.setswitchinterval(min(switch, REALTIME_SWITCH_S))
        # on the real clock only: a headless match on simulated time runs flat out, and as a
        # real-time thread it would take a core from everything else for seconds
        raised = [] if self.simulated is not None else raise_threads(
            [threading.get_native_id()] + [tid for tid in (getattr(link, "thread_id", None)
                                                           for link in self.links.values()) if tid])
        # the rules' texts are read before the first race, not in the middle of one: a refusal
        # names its sentence, and reading a catalogue holds the interpreter for tens of ms
        for lang in texts.LANGUAGES:
            texts.table(lang)
        frozen = self.simulated is None and freeze_for_the_game()
        racing = [link for link in self.links.values() if getattr(link, "racing", None) is False]
        for link in racing:
            link.racing = True          # the sync exchanges 50 a second while the game runs
        try:
            return self._run(until_finished, deadline, timeout)
        finally:
            for link in racing:
                link.racing = False
            if frozen:
                gc.unfreeze()
            sys.setswitchinterval(switch)
            restore_threads(raised)

    def _run(self, until_finished: bool, deadline: float | None, timeout: float | None) -> dict[str, Any]:
        if self.simulated is not None:
            for link in self.links.values():
                link.auto_ping = False
        self.send(self.table.initial_feedback())
        self._publish()
        while not self.stopped and not (until_finished and self.table.finished):
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"the game did not finish within {timeout} s")
            if self.realtime_bots is not None:
                for station in self.realtime_bots.act(self.clock()):
                    self._expected[station.station_id] = station.last_seq
            if self.simulated is not None:
                self._ping_if_due()
                batch = self._collect_simulated()
            else:
                batch = self._collect_real()
            for event in batch:
                self.accept(event)
            self.release()
            for ui in self._screen_keys():
                self._ui(ui)
            self._watch()
            self._publish(idle=not batch)
            if self.simulated is not None and not batch and not any(self._expected_answers.values()):
                self._advance()                 # (the answers to this turn's FENCEs first: they are on their way)
        self._publish()
        return self.table.result()

    # -- events in ----------------------------------------------------------------------------------
    def accept(self, event: InputEvent) -> None:
        if isinstance(event, ButtonEvent):
            self._errors_now()
            self.arbiter.push(event, station=event.station, pressed_ns=event.pressed_ns,
                              arrived_ns=event.arrived_ns, looked_ns=getattr(event, "looked_ns", None))
        elif isinstance(event, StationProgress):
            self.arbiter.progress(event.station, upto_ns=event.upto_ns, arrived_ns=event.arrived_ns,
                                  asked_ns=event.asked_ns, lost=event.lost, backwards=event.backwards)
        else:
            if isinstance(event, StationHello):
                self.arbiter.forget(event.station)    # a rebooted station: a new clock
            if isinstance(event, (StationHello, StationLost)):
                self._in_race_after(event)
            self.handle(event)

    def _errors_now(self) -> None:
        """Each station's clock-sync error bound now, for the arbiter's tie windows and needs
        (a link without a clock sync, a test's fake, leaves the arbiter's default)."""
        now = self.clock()
        alike = self.arbiter.alike_links = self._alike_links()
        for station, link in self.links.items():
            sync = getattr(link, "sync", None)
            if sync is not None:
                self.arbiter.set_error(station, self._bound(sync, now, alike))

    def _alike_links(self) -> bool:
        """Whether every racing station's link is of one kind (``hardware.link.link_kind``):
        then they share their quickest delay each way, which no sync can see, and their
        presses are ordered on their likely bounds; a Pico's own USB beside a USB-serial
        bridge may differ by hundreds of µs one way, and a table that mixes them is ordered
        on the bounds that hold whatever the delays (docs/crazy-kick.md, "Ties")."""
        return len({getattr(link, "kind", "serial") for link in self.links.values() if self._races(link)}) <= 1

    @staticmethod
    def _bound(sync: Any, now: int, alike: bool) -> int:
        """A station's bound as the arbiter takes it (``alike``: ``_alike_links``, looked at
        once for every station, not once for each)."""
        return sync.error_ns(now) if alike else sync.worst_error_ns(now)

    def _in_race_after(self, event: StationHello | StationLost) -> None:
        """A station lost leaves the race (the table pauses anyway); one back joins it. The
        link says so by the time its event is read, but a test's fake may not."""
        stations = set(self.arbiter.stations)
        link = self.links.get(event.station)
        if isinstance(event, StationLost):
            stations.discard(event.station)
        elif link is not None and self._races(link):
            stations.add(event.station)
        self.arbiter.set_stations(stations)

    def release(self) -> None:
        now = self.clock()
        self.send(self.table.whistle_if_due(now))
        self.table.hint_if_due(now)
        due = self.arbiter.due(now)
        if due:
            self._release_batch(due)
        self._ask(now)
        self._watch_clocks(now)
        for station, delay_ns in self.arbiter.too_slow().items():
            if station not in self._warned_slow:
                self._warned_slow.add(station)
                link = self.links.get(station)
                self.table.warn_slow_link(station, delay_ns, simulated=is_simulated(getattr(link, "firmware", None)))

    def _watch_clocks(self, now: int) -> None:
        """Once a second: a station whose sync's bound has stayed above UNSURE_ERROR_NS for
        POOR_CLOCK_NS is named on the screen, once (a real clock's link only: simulated time
        pings the stations itself, and a test's fake has no sync)."""
        if self.simulated is not None or (self._clocks_looked_at is not None and
                                          now - self._clocks_looked_at < CLOCKS_LOOKED_AT_NS):
            return
        self._clocks_looked_at = now
        alike = self._alike_links()
        for station, link in self.links.items():
            sync = getattr(link, "sync", None)
            if sync is None or station not in self.arbiter.stations:
                continue
            error = self._bound(sync, now, alike)
            if error <= UNSURE_ERROR_NS:
                self._poor_since.pop(station, None)
                continue
            since = self._poor_since.setdefault(station, now)
            if now - since >= POOR_CLOCK_NS and station not in self._warned_slow:
                self._warned_slow.add(station)
                self.table.warn_poor_clock(station, error, sync.exchanges, getattr(link, "pings_sent", sync.exchanges))

    def _ask(self, now: int) -> None:
        """FENCE to every station the arbiter still needs a word from (a station that does
        not answer FENCE is not asked: the race waits its bound for it)."""
        for station in self.arbiter.fences(now):
            link = self.links.get(station)
            if link is not None and link.fences and link.fence() and self.simulated is not None:
                self._expected_answers[station] = self._expected_answers.get(station, 0) + 1

    def _release_batch(self, due: list[Any]) -> None:
        """The presses the arbiter released together, in one durable commit; their feedback
        goes out once it is durable (or, should the commit fail, the refusals instead)."""
        feedback: list[Any] = []
        arrivals: list[int] = []
        self._held_feedback, self._uncommitted = feedback, arrivals
        self.table.begin_batch()
        try:
            for event in due:
                self.handle(event)
        finally:
            self._held_feedback = self._uncommitted = None
            refusals = self.table.end_batch()
        if not refusals:
            now = self.clock()
            self.latencies_ns.extend(now - arrived for arrived in arrivals)
        self.send(refusals or feedback)

    def send(self, commands: list[Any]) -> None:
        if self._held_feedback is not None:
            self._held_feedback.extend(commands)
        else:
            super().send(commands)

    def _collect_real(self) -> list[Any]:
        now = self.clock()
        poll = 1 / 60 if self.screen is not None and self.screen.interactive else 0.05
        wake = [t for t in (self.arbiter.next_deadline(), self.table.paused_until_ns, self._hint_wake(now),
                            self.realtime_bots.next_due_ns() if self.realtime_bots else None) if t is not None]
        return self._take(max(0.0, min([poll] + [(t - now) / 1e9 for t in wake])))

    # -- simulated time ------------------------------------------------------------------------------
    def _collect_simulated(self) -> list[Any]:
        """Everything the bots' presses and the sync pings sent, waiting (real time) for it."""
        batch: list[Any] = []
        give_up = time.monotonic() + 5.0
        while True:
            waiting = any(self._seen.get(s) != seq for s, seq in self._expected.items()) or \
                any(link.pending_pongs for link in self.links.values()) or any(self._expected_answers.values())
            try:
                # a PONG puts nothing on the queue: look again soon rather than block
                event = self.events.get(timeout=0.002) if waiting else self.events.get_nowait()
            except queue.Empty:
                if not waiting:
                    return batch + (self.wire.arrived(self.clock()) if self.wire is not None else [])
                if time.monotonic() > give_up:
                    log.error("simulated stations did not deliver their frames; going on")
                    self._expected.clear()
                    self._expected_answers.clear()
                    return batch
                continue
            if getattr(event, "seq", None) is not None:
                self._seen[event.station] = event.seq
            if isinstance(event, StationProgress) and self._expected_answers.get(event.station):
                self._expected_answers[event.station] -= 1
            if self.wire is not None and isinstance(event, (ButtonEvent, StationProgress)):
                # on its way: it arrives in simulated time, in order with the station's presses
                # (an answer must not overtake a press it promises came first)
                self.wire.send(event)
            else:
                batch.append(event)

    def _ping_if_due(self) -> None:
        now = self.clock()
        if now >= self._next_ping:
            for link in self.links.values():
                link.ping()
            self._next_ping = now + self.ping_interval_ns

    def _advance(self) -> None:
        assert self.simulated is not None
        times = [t for t in (self.arbiter.next_deadline(), self.table.paused_until_ns,
                             self._hint_wake(self.simulated.now),
                             self.realtime_bots.next_due_ns() if self.realtime_bots else None, self._next_ping,
                             self.wire.next_arrival_ns() if self.wire is not None else None)
                 if t is not None]
        self.simulated.advance_to(min(times))

    def _may_draw(self) -> bool:
        """Not while presses are held: a frame takes milliseconds to draw (a whole one up
        to 30), and a press whose last answer comes meanwhile would be released that much
        later (the hold). The frame is drawn once the arbiter has let them go, a few ms
        later (the bound, 15 ms, at most)."""
        return len(self.arbiter) == 0

    def _screen_keys(self) -> list[tuple]:
        """The screen's keys. While presses are held they wait, as the frames do
        (``_may_draw``): asking the screen's pipe lets go of the interpreter, and an
        answer's reader takes it; a menu key read a few ms later is nothing anyone notices.
        Not so a keyboard player's (the demo's ``--seat``): their keys are presses, stamped
        when read, and in a race against held presses they must be read at once."""
        if self.screen is None or (self.keyboard is None and not self._may_draw()):
            return []
        return self.screen.poll()

    def _hint_wake(self, now: int) -> int | None:
        """When the loop must wake to say the table's idle hint; None once it is past (it
        has been said, and is said again at the next turn of the loop that finds it gone)."""
        due = self.table.hint_due_ns()
        return due if due is not None and due > now else None

    def _bots_look(self, changed: bool, idle: bool) -> bool:
        return self.realtime_bots is not None          # they look at every turn of the loop: plans fall due

    def _let_bots_see(self, snapshot: Any, changed: bool, idle: bool) -> None:
        assert self.realtime_bots is not None
        # during a pause they wait for the whistle, as people do
        now = max(self.clock(), self.table.paused_until_ns or 0)
        self.realtime_bots.observe(snapshot, self.table.state, now)
