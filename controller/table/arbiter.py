"""The arbiter of a real-time game: the player who pressed first wins, even when their
frame arrives later, and a race is decided only once nothing that could change it can
still be on its way.

Each press carries its press time on the host clock (the station's stamp mapped by clock
sync) and the sync's bound on that mapping's error (``ClockSync.error_ns``). Each station
in the race answers the table's FENCE with a progress stamp: every event it stamped before
that moment was sent ahead of the answer, on a link that keeps order (a watermark;
docs/stations.md, "Progress"). The arbiter holds the earliest press until every station's
progress, less that station's error bound, has reached the press plus the tie window;
then no press that could come before it, or tie with it, can still be on its way, and it
is released with the presses tied to it, in press-time order. A late frame delays a
decision; it cannot make one wrong.

No press is held longer than ``bound_ns`` from its arrival, whatever a station does: a
station that has not spoken past a press by then (a hung or unplugged one, a firmware
that does not answer FENCE, a clock gone wrong) does not hold the race longer, and the
press goes with every press stamped before it (they are released in stamp order, so the
bound of the press that came first runs for all of them). A race decided without a
station is counted per station (``without_by_station``) and logged, and ``too_slow``
names a station that is often left out, for the screen.

Ties: two presses of different stations are ordered only when their stamps differ by more
than both stations' error bounds taken together (``together``: in quadrature, as two
independent errors add), and never closer than ``tie_ns`` (the stamps' own jitter); closer,
they cannot be told apart. A table whose stations' links are of different kinds sums the
bounds that hold whatever the delays instead (``alike_links``). The tie
goes to the station that has won fewer ties so far, then to the earlier arrival; so ties
take turns instead of always favouring one seat (see docs/crazy-kick.md).

>>> arbiter = Arbiter(stations={"A", "B"}, tie_ns=200_000, margin_ns=250_000)
>>> arbiter.push("B's press", station="B", pressed_ns=2_000_000, arrived_ns=2_100_000)
>>> arbiter.fences(2_100_000)     # whom to ask now: nobody before the press + tie + margin
[]
>>> arbiter.fences(2_451_000)     # then both (B itself: a press of B's may be on its way too)
['A', 'B']
>>> arbiter.progress("B", upto_ns=3_000_000, arrived_ns=3_100_000, asked_ns=2_451_000)
>>> arbiter.progress("A", upto_ns=2_449_999, arrived_ns=3_200_000, asked_ns=2_451_000)
>>> arbiter.due(3_200_000)        # A has not yet spoken past 2.45 ms: it may have pressed first
[]
>>> arbiter.push("A's press", station="A", pressed_ns=1_500_000, arrived_ns=3_300_000)
>>> arbiter.progress("A", upto_ns=3_350_000, arrived_ns=3_400_000, asked_ns=3_300_000)
>>> arbiter.due(3_400_000)
["A's press", "B's press"]
"""

from __future__ import annotations

import heapq
import itertools
import logging
import math
from collections import defaultdict, deque
from typing import Any, Iterable, NamedTuple

log = logging.getLogger(__name__)

# How long a race waits for a station that has not spoken past it, from the press's arrival.
# A healthy answer takes a round trip: under 2 ms on a Pico's USB, 0-8 ms on the race
# bench's simulated 0-4 ms each way, and a busy host adds its own delay (the bench's readers
# stamped frames 0.9-17 ms late at their 99th percentile with two CPU hogs beside them, one
# run in three 66 ms: docs/crazy-kick.md). Every ms less would leave healthy stations out of
# more races; a longer wait only matters for a dead station, and 15 ms is the issue's
# ceiling. A press held this long still gets its LED within the TV's next frame.
BOUND_NS = 15_000_000
TIE_NS = 200_000            # presses closer than this are a tie, whatever the bounds say
# A station's error bound when the arbiter has none from its clock sync (a test's fake
# link): the bound the sync was documented to keep before it said its own (issue 39). Each
# station's progress must reach past a press by its own bound too: that is also how far its
# mapping can move between a progress stamp and a press that came after it (a refit of the
# clock-sync line), so a press can never map before a progress stamp its station sent first.
MARGIN_NS = 250_000


def together(a_ns: int, b_ns: int) -> int:
    """Two stations' likely bounds on their stamps' errors as one bound on the difference of
    the two stamps: in quadrature (√(a² + b²)), as independent errors add; each station's
    sync has its own link and crystal. Not a sure bound: two errors each at 0.75 of its own
    bound, leaning against each other, pass it. What makes it safe is measured: in the model
    no pair of 864,000 (every link, one exchange a second and fifty) had errors differing by
    more than this, with the 0.2 ms floor (``syncmodel.SyncErrors.pairs_beyond_tie_window``,
    the race bench's ``ck_race_sync_pairs_beyond_…``), where the sum tied three pairs in a
    hundred 0.5 ms apart with one exchange a second whose errors never came near
    (docs/crazy-kick.md, "Ties"; 2026-11-28, issue 39)."""
    return round(math.hypot(a_ns, b_ns))


def tie_window_ns(a_ns: int, b_ns: int, tie_ns: int = TIE_NS, alike_links: bool = True) -> int:
    """How close two stations' presses must be to be a tie, their bounds ``a_ns`` and
    ``b_ns``: the bounds ``together`` while every station's link is of one kind (their likely
    bounds), summed on a table that mixes kinds (the bounds that hold whatever the delays,
    whose two errors may both be whole); never under ``tie_ns``."""
    return max(tie_ns, together(a_ns, b_ns) if alike_links else a_ns + b_ns)
# the stations are asked this long after a press + margins: a station's stamp counts whole µs, so
# an answer stamped at the very moment asked could fall short of it by a fraction of one
ASK_AFTER_NS = 1_000
SLOW_SHARE = 0.05           # a station is named when more of its races than this went without it
RECENT_RACES = 200          # over its last this many races


class Held(NamedTuple):
    pressed_ns: int
    order: int                 # arrival order, the last tie-break
    station: str
    item: Any
    arrived_ns: int
    error_ns: int              # the bound on its press time's error (its station's clock sync)


class Arbiter:
    def __init__(self, *, stations: Iterable[str] = (), bound_ns: int = BOUND_NS, tie_ns: int = TIE_NS,
                 margin_ns: int = MARGIN_NS, max_lead_ns: int = 50_000_000) -> None:
        self.stations: set[str] = set(stations)   # the stations in the race: each must speak past a press
        self.bound_ns = bound_ns
        self.tie_ns = tie_ns
        self.margin_ns = margin_ns                # a station's error bound until its sync says one
        # every station's link of one kind: the bounds are the likely ones, taken together in
        # quadrature; else the ones that hold whatever the delays, summed (the runner says which)
        self.alike_links = True
        self.errors: dict[str, int] = {}          # station → its clock sync's error bound now (ns)
        self.max_lead_ns = max_lead_ns            # a stamp further from its arrival than this is not believed
        self._held: list[Held] = []
        self._order = itertools.count()
        self._progress: dict[str, int] = {}      # station → the furthest it has spoken (host ns)
        self._asked: dict[str, int] = {}         # station → when its last FENCE left
        self._answered: set[str] = set()          # stations that have answered their last FENCE
        self.tie_wins: dict[str, int] = defaultdict(int)
        self.ties = 0
        self.late = 0                             # presses that arrived after a later press was released
        self.late_by_station: dict[str, int] = defaultdict(int)
        self.races = 0
        self.without = 0                          # races decided without some station's word
        self.without_by_station: dict[str, int] = defaultdict(int)
        self.lost_by_station: dict[str, int] = defaultdict(int)    # frames a station said it dropped
        self.bad_by_station: dict[str, int] = defaultdict(int)     # progress stamps not believed
        # per station: its last races, each whether it was decided without the station's word
        self._recent: dict[str, deque[bool]] = defaultdict(lambda: deque(maxlen=RECENT_RACES))
        self._recent_without: dict[str, int] = defaultdict(int)
        self._answers: dict[str, deque[int]] = defaultdict(lambda: deque(maxlen=RECENT_RACES))  # round trips
        self._races_since_answer: dict[str, int] = defaultdict(int)
        self._released_up_to: int | None = None   # the latest press released so far

    # -- who is in the race -------------------------------------------------------------------------
    def set_stations(self, stations: Iterable[str]) -> None:
        """The stations in the race now (a station unplugged leaves it, one plugged in joins)."""
        self.stations = set(stations)

    def forget(self, station: str) -> None:
        """A station came back rebooted: what it said before is no word about its new clock."""
        self._progress.pop(station, None)
        self._asked.pop(station, None)          # its last question: the answer died with the old clock

    def set_error(self, station: str, error_ns: int) -> None:
        """A station's clock-sync error bound now (``ClockSync.error_ns``)."""
        self.errors[station] = error_ns

    def _error(self, station: str) -> int:
        """The station's bound for its progress stamps (``margin_ns`` when its sync has said none)."""
        return self.errors.get(station, self.margin_ns)

    def tie_window(self, a: Held, b: Held) -> int:
        """Two presses closer than this cannot be told apart (``tie_window_ns``)."""
        return tie_window_ns(a.error_ns, b.error_ns, self.tie_ns, self.alike_links)

    # -- in ---------------------------------------------------------------------------------------
    def push(self, item: Any, *, station: str, pressed_ns: int | None, arrived_ns: int,
             looked_ns: int | None = None, error_ns: int | None = None) -> None:
        """Hold a press. A missing or implausible stamp (before sync, a station clock
        gone wrong) is clamped into [looked − max_lead, arrival]: a press cannot happen
        after its frame arrived, and a broken clock must not win every race. ``error_ns``:
        the bound on the press time's error (its station's bound now unless given). ``looked_ns``:
        when the station's reader last looked at its port before the frame (it came in
        after that; the arrival if not known): a reader held up between the two stamps the
        arrival late, and a stall of the host must not make honest stamps implausible."""
        if pressed_ns is None:
            pressed_ns = arrived_ns
        looked = arrived_ns if looked_ns is None else min(looked_ns, arrived_ns)
        pressed_ns = max(looked - self.max_lead_ns, min(pressed_ns, arrived_ns))
        if self._released_up_to is not None and pressed_ns < self._released_up_to:
            self.late += 1
            self.late_by_station[station] += 1
        error = self.errors.get(station, 0) if error_ns is None else error_ns     # 0: none known, the tie's floor
        heapq.heappush(self._held, Held(pressed_ns, next(self._order), station, item, arrived_ns, error))

    def progress(self, station: str, *, upto_ns: int, arrived_ns: int, asked_ns: int | None = None,
                 lost: int = 0, backwards: bool = False) -> None:
        """A station's answer: it has sent every press it stamped before ``upto_ns``.
        Clamped to its own arrival (nothing can have been said later than it came; a press
        stamped after it maps after it, however wrong the station's clock). Not believed:
        a stamp that went back on the station's own clock, or one further ahead of its
        arrival than ``max_lead_ns``; the race then waits for a believable one, at most
        the bound. ``lost``: frames the station dropped; what was lost cannot be waited for."""
        if asked_ns is not None:
            if station in self._asked and asked_ns >= self._asked[station]:
                self._answered.add(station)       # its answer to the latest question
            self._answers[station].append(arrived_ns - asked_ns)
            self._races_since_answer[station] = 0
        ahead = upto_ns - arrived_ns
        if backwards or ahead > self.max_lead_ns:
            self.bad_by_station[station] += 1
            log.warning("station %s: progress stamp %s: not believed", station,
                        "went back on its own clock" if backwards else f"{ahead / 1e6:.1f} ms ahead of its arrival")
            return
        if lost:
            self.lost_by_station[station] += lost
            log.warning("station %s dropped %d frame(s): a race is decided without what was lost", station, lost)
        upto = min(upto_ns, arrived_ns)
        self._progress[station] = max(upto, self._progress.get(station, upto))

    # -- asking -------------------------------------------------------------------------------------
    def _need(self, held: Held, station: str) -> int:
        """``station`` must have spoken past this (host ns) before ``held`` is decided: a
        press of its own tied with it would be stamped before the press plus the tie window
        with that station (both bounds ``together``), and its progress stamp may be off by
        its own bound."""
        return held.pressed_ns + tie_window_ns(held.error_ns, self.errors.get(station, 0), self.tie_ns,
                                               self.alike_links) + self._error(station)

    def _silent(self, held: Held) -> list[str]:
        progress = self._progress
        return sorted(s for s in self.stations if s not in progress or progress[s] < self._need(held, s))

    def fences(self, now_ns: int) -> list[str]:
        """The stations to ask (FENCE) now: those that have not spoken past a held press
        whose time (plus the margins) has come, and whose last question was asked before
        that (its answer cannot reach past it). A question is asked from the moment its
        answer can reach past the press, so one answer is enough; an answer that falls
        short (a clock-sync wobble) is asked again, and so is a question unanswered for
        the bound (lost on the wire). One question answers for every press before it: in
        a burst, each station is asked again only when its last answer fell short."""
        out = []
        for station in sorted(self.stations):
            target = max((need for need in (self._need(held, station) for held in self._held)
                          if need + ASK_AFTER_NS <= now_ns), default=None)
            if target is None or self._progress.get(station, target - 1) >= target:
                continue
            asked = self._asked.get(station)
            if asked is None or asked < target or station in self._answered or now_ns - asked >= self.bound_ns:
                self._asked[station] = now_ns
                self._answered.discard(station)
                out.append(station)
        return out

    def next_deadline(self) -> int | None:
        """When the loop must look again (host ns), or None: the end of the earliest held
        press's bound, or sooner the time to ask a station about a press its last question
        cannot reach past, or to ask again a question unanswered for the bound."""
        if not self._held:
            return None
        deadline = min(held.arrived_ns for held in self._held) + self.bound_ns
        # the loop asks this at every frame of a race: a station at a time, no list sorted
        for station in self.stations:
            spoken = self._progress.get(station)
            asked = self._asked.get(station)
            for need in (self._need(held, station) for held in self._held):
                if spoken is not None and spoken >= need:
                    continue                           # it has spoken past this one
                if asked is None or asked < need:
                    deadline = min(deadline, need + ASK_AFTER_NS)
                elif station not in self._answered:
                    deadline = min(deadline, asked + self.bound_ns)
        return deadline

    # -- out ----------------------------------------------------------------------------------------
    def due(self, now_ns: int) -> list[Any]:
        """Release, in press-time order, every press every station has spoken past; and once
        any held press's bound has passed, it and every press stamped before it (decided
        without the stations that stayed silent): a press stamped earlier that came later
        must not hold it past its bound."""
        released: list[Held] = []
        while self._held:
            first = self._held[0]
            silent = self._silent(first)
            if silent and now_ns < min(held.arrived_ns for held in self._held) + self.bound_ns:
                break
            heapq.heappop(self._held)
            self._count_race(first, silent)
            released.append(first)
            # presses within the tie window of it go with it: every station has spoken past
            # them (the need includes the tie window), so they have all come
            while self._held and self._held[0].pressed_ns - first.pressed_ns < self.tie_window(first, self._held[0]):
                released.append(heapq.heappop(self._held))
        if not released:
            return []
        last = released[-1].pressed_ns
        self._released_up_to = last if self._released_up_to is None else max(self._released_up_to, last)
        return [h.item for h in self._break_ties(released)]

    def _count_race(self, first: Held, silent: list[str]) -> None:
        self.races += 1
        if silent:
            self.without += 1
            log.warning("a race (press of %s at %d ns) decided without %s: no word within %s ms",
                        first.station, first.pressed_ns, ", ".join(silent), f"{self.bound_ns / 1e6:g}")
        for station in self.stations:
            left_out = station in silent
            recent = self._recent[station]
            if len(recent) == recent.maxlen and recent[0]:
                self._recent_without[station] -= 1
            recent.append(left_out)
            self._races_since_answer[station] += 1
            if left_out:
                self._recent_without[station] += 1
                self.without_by_station[station] += 1

    def too_slow(self, samples: int = 20) -> dict[str, int | None]:
        """Stations left out of more than one race in twenty (``SLOW_SHARE``, over at least
        ``samples`` of their last ``RECENT_RACES``): their presses can lose races they won.
        Station → the 95th percentile of its answers' round trips (ns), None when it did
        not answer during any of those races (a firmware that does not answer FENCE, a
        station that hangs). A USB adapter at its default 16 ms latency timer is one: its
        answers come after the bound. Not named for a few: a busy
        host's hiccup delays an answer now and then whatever the station, and naming a
        station for it would send its owner after the wrong thing (docs/crazy-kick.md)."""
        slow: dict[str, int | None] = {}
        for station, recent in self._recent.items():
            if len(recent) >= samples and self._recent_without[station] > len(recent) * SLOW_SHARE:
                answers = sorted(self._answers[station])
                silent = not answers or self._races_since_answer[station] >= len(recent)
                slow[station] = None if silent else answers[int(len(answers) * 0.95)]
        return slow

    def _break_ties(self, released: list[Held]) -> list[Held]:
        out: list[Held] = []
        i = 0
        while i < len(released):
            group = [released[i]]
            while i + len(group) < len(released) and \
                    released[i + len(group)].pressed_ns - group[0].pressed_ns < \
                    self.tie_window(group[0], released[i + len(group)]):
                group.append(released[i + len(group)])
            i += len(group)
            if len({h.station for h in group}) > 1:
                self.ties += 1
                group.sort(key=lambda h: (self.tie_wins[h.station], h.order))
                self.tie_wins[group[0].station] += 1
            out.extend(group)
        return out

    def __len__(self) -> int:
        return len(self._held)
