"""The arbiter of a real-time game: the player who pressed first wins, even when their
frame arrives later.

Each press carries its press time on the host clock (the station's stamp mapped by
clock sync). The arbiter holds a press until ``pressed + window`` and then releases
everything due in press-time order. The window is sized from the link delays it
measures (press → arrival), so a press delayed by USB is still in time to be ordered
before a later press that happened to arrive first; it never exceeds ``max_window_ns``,
the delay a player would notice.

Ties: two presses of different stations closer than the clock-sync accuracy
(``tie_ns``) cannot be told apart. The tie goes to the station that has won fewer
ties so far, then to the earlier arrival; so ties take turns instead of always
favouring one seat (see docs/crazy-kick.md).

>>> arbiter = Arbiter(min_window_ns=2_000_000, measured_after=0)   # (by default, 20 presses first)
>>> arbiter.push("late frame, early press", station="A", pressed_ns=1_000_000, arrived_ns=3_500_000)
>>> arbiter.push("early frame, later press", station="B", pressed_ns=2_000_000, arrived_ns=2_100_000)
>>> arbiter.window_ns            # A's measured link delay (2.5 ms) + the tie margin
2700000
>>> arbiter.due(3_600_000)        # nothing is due before its press + window
[]
>>> arbiter.due(4_700_000)
['late frame, early press', 'early frame, later press']
"""

from __future__ import annotations

import bisect
import heapq
import itertools
from collections import defaultdict, deque
from typing import Any, NamedTuple


SLOW_SHARE = 0.05           # a station is named slow when more of its presses than this came too late


class Held(NamedTuple):
    pressed_ns: int
    order: int                 # arrival order, the last tie-break
    station: str
    item: Any


class Arbiter:
    def __init__(self, *, min_window_ns: int = 1_000_000, max_window_ns: int = 5_000_000,
                 tie_ns: int = 200_000, max_lead_ns: int = 50_000_000, measured_after: int = 20) -> None:
        self.min_window_ns = min_window_ns
        self.max_window_ns = max_window_ns
        self.tie_ns = tie_ns                      # presses closer than this are a tie
        self.max_lead_ns = max_lead_ns            # a stamp further back than this is not believed
        # a station's link counts as measured after this many presses; until then the
        # window is the longest (a few delays say little of the slowest one in a hundred)
        self.measured_after = measured_after
        self._held: list[Held] = []
        self._order = itertools.count()
        self._delays: dict[str, deque[int]] = defaultdict(deque)       # per station, the last 200
        self._sorted: dict[str, list[int]] = defaultdict(list)         # the same, in order
        self._p99: dict[str, int] = {}            # per station: 99th percentile of press → arrival
        self.tie_wins: dict[str, int] = defaultdict(int)
        self.ties = 0
        self.late = 0                             # presses that arrived after their window had passed
        self.late_by_station: dict[str, int] = defaultdict(int)
        self._unmeasured: set[str] = set()        # stations with fewer than measured_after presses
        self._window = max_window_ns if measured_after > 0 else min_window_ns
        self._released_up_to: int | None = None   # the latest press released so far

    @property
    def window_ns(self) -> int:
        """The hold: the slowest station's 99th-percentile link delay plus the tie
        margin, within [min_window_ns, max_window_ns]; the longest while any station has
        pressed fewer than ``measured_after`` times (a match's first presses, a station
        plugged in during a match)."""
        return self._window

    def push(self, item: Any, *, station: str, pressed_ns: int | None, arrived_ns: int) -> None:
        """Hold a press. A missing or implausible stamp (before sync, a station clock
        gone wrong) is clamped into [arrival − max_lead, arrival]: a press cannot happen
        after its frame arrived, and a broken clock must not win every race."""
        if pressed_ns is None:
            pressed_ns = arrived_ns
        pressed_ns = max(arrived_ns - self.max_lead_ns, min(pressed_ns, arrived_ns))
        delay = arrived_ns - pressed_ns
        delays, ordered = self._delays[station], self._sorted[station]
        delays.append(delay)
        bisect.insort(ordered, delay)
        if len(delays) > 200:
            del ordered[bisect.bisect_left(ordered, delays.popleft())]
        self._p99[station] = ordered[int(len(ordered) * 0.99)]      # within the list: n·0.99 < n
        if len(delays) < self.measured_after:
            self._unmeasured.add(station)
        else:
            self._unmeasured.discard(station)
        measured = max(self.min_window_ns, min(self.max_window_ns, max(self._p99.values()) + self.tie_ns))
        self._window = self.max_window_ns if self._unmeasured else measured
        if self._released_up_to is not None and pressed_ns < self._released_up_to:
            self.late += 1
            self.late_by_station[station] += 1
        heapq.heappush(self._held, Held(pressed_ns, next(self._order), station, item))

    def too_slow(self, samples: int = 20) -> dict[str, int]:
        """Stations more than one of whose presses in twenty (``SLOW_SHARE``, over at least
        ``samples``) arrived too late for the longest window: those presses can lose races
        they won. Station → its 95th-percentile delay (ns). A USB-serial adapter at its
        default 16 ms latency timer is one. Not named for a few late frames: a busy host's
        hiccup delays one press now and then whatever the station, and naming a station
        for it would send its owner after the wrong thing (docs/crazy-kick.md)."""
        fits = self.max_window_ns - self.tie_ns
        slow = {}
        for station, ordered in self._sorted.items():
            count = len(ordered)
            late = count - bisect.bisect_right(ordered, fits)
            if count >= samples and late > count * SLOW_SHARE:
                slow[station] = ordered[int(count * (1 - SLOW_SHARE))]
        return slow

    def next_deadline(self) -> int | None:
        """When the earliest held press becomes due (host ns), or None."""
        return self._held[0].pressed_ns + self._window if self._held else None

    def due(self, now_ns: int) -> list[Any]:
        """Release every press whose window has passed, in press-time order."""
        released: list[Held] = []
        while self._held and self._held[0].pressed_ns + self._window <= now_ns:
            first = heapq.heappop(self._held)
            released.append(first)
            # presses within the tie margin of it go with it, their own deadline passed or
            # not: a tie must not depend on how late the loop woke (the window has room for
            # them: it includes the tie margin)
            while self._held and self._held[0].pressed_ns - first.pressed_ns < self.tie_ns:
                released.append(heapq.heappop(self._held))
        if not released:
            return []
        last = released[-1].pressed_ns
        self._released_up_to = last if self._released_up_to is None else max(self._released_up_to, last)
        return [h.item for h in self._break_ties(released)]

    def _break_ties(self, released: list[Held]) -> list[Held]:
        out: list[Held] = []
        i = 0
        while i < len(released):
            group = [released[i]]
            while i + len(group) < len(released) and \
                    released[i + len(group)].pressed_ns - group[0].pressed_ns < self.tie_ns:
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
