"""Station clock → host clock, from NTP-style ping/pong exchanges.

The host sends ``PING n`` at ``sent_ns`` (its monotonic clock), the station answers
``PONG n <received-µs> <sent-µs>`` stamped with its own microsecond clock when the PING
came and when the answer left, and the answer comes in at ``received_ns`` (the four
timestamps of NTP). Each exchange says two things for certain, whatever the wire did:
the PING reached the station after it left the host, and the PONG left the station
before it reached the host. So on a line that maps station time to host time,

* the point (station's received-µs, host's sent) lies on or below it, and
* the point (station's sent-µs, host's received) lies on or above it.

A slow way out only lowers the first point, a slow way back only raises the second: one
side's delay (a busy host that reads the answer late, a PING written late) loosens one
bound and never bends the line. The line kept is the one that leaves the most room on
both sides over the window, as the true one does: it is decided by the exchanges with the
quickest way out and the quickest way back, which need not be the same exchange. (Before:
the midpoint of the fastest round trip per slot, a weighted least-squares line; its error
was half a round trip where this one's is half the quickest one-way delays, a fifth of it
on the race bench: docs/crazy-kick.md, "Clock sync".)

* **per slot** (0.1 s) only the tightest bound of each side is kept, the rest thrown away;
* **the line** passes between the upper hull of the lower bounds and the lower hull of
  the upper bounds: once its slope (the drift: a crystal 200 ppm fast) is believed (the
  window spans a second and three slots, and the slopes that leave at least half the most
  room lie within ±2000 ppm: beyond is noise), it is the centre of every line that passes
  (their mean slope and mean value at the newest exchange), taken over drifts changing at
  five rates within what a wandering crystal can (``_centred_line``, since 2026-11-28);
  before, the middle of those slopes (the nominal one until believed), midway between the
  two hulls;
* **continuous resync**: old slots fall out of the window, new ones come in: it keeps 150
  slots (15 s at 50 exchanges a second) but at least 15 s and at most 150 s of them, so a
  station that answers one exchange a second is fitted over 150 of them, and more when
  its newest exchanges do not fill every slot (four a second: 375 over 94 s);
* **a bound on its own error whatever the delays** (``worst_error_ns``): how far any line
  that passes between the bounds, each moved outwards by what a crystal wandering
  WANDER_PER_S could bend the line over the window, at any slope they allow, is from the
  chosen one at the newest exchange; plus that bend, plus those slopes' spread times the
  time since, plus the bend since; and the same from the window's last 20-120 s alone, and
  from the line touching the crystal's curve at the newest exchange (each bound moved out
  by its own age's bend): the least of them;
* **a likely bound** (``error_ns``, since 2026-11-28): the same over the lines the
  exchanges make likely, the quickest delay of each way taken alike and lines that would
  need every quickest delay far from its floor left out (``_likely_extent``): a fifth of
  the worst with every exchange answered, three quarters with one a second;
* **wrap-around**: ``ticks_us`` wraps every 2^30 µs (17.9 min); stamps are unwrapped
  against the newest exchange with ``ticks_diff``, so any stamp within ±9 minutes of it
  maps correctly.

>>> sync = ClockSync()
>>> sync.add(sent_ns=1_000_000, station_ticks=500, received_ns=1_200_000)
>>> sync.to_host_ns(600)          # 100 µs after the pong's stamp
1200000
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from typing import NamedTuple, Sequence, TypeVar

from hardware.protocol import STATION_TICKS_MODULO, ticks_diff

NOMINAL = 1000                  # host ns per station µs: a perfect crystal
MAX_DRIFT = 0.002               # ±2000 ppm: a crystal is within a few hundred; beyond is noise
SLOPES = (NOMINAL * (1 - MAX_DRIFT), NOMINAL * (1 + MAX_DRIFT))   # the slopes a line may have (host ns per µs)
MIN_SPAN_US = 1_000_000         # a slope is believed once the window spans a second …
MIN_SLOTS = 3                   # … and three slots
# The window keeps its newest ``window_slots`` slots (15 s at 50 exchanges a second), but
# never less than the last MIN_WINDOW_NS nor more than MAX_WINDOW_NS: a station that
# answers one exchange a second keeps 150 of them, where 15 s would give 15 and an error
# p99 of 0.5 ms (docs/crazy-kick.md, "Clock sync"). A crystal whose drift changes at
# WANDER_PER_S leaves a straight line by tens of µs over 150 s: the line takes the bend as
# an unknown of its own (``_centred_line``), so 150 s serve it (90 s until 2026-11-28).
# A window whose newest slots are not all filled keeps more of them (since 2026-11-28):
# ``window_slots`` ÷ the share of the last FILL_SLOTS slots (5 s) that are filled. A station
# answering four exchanges a second (an unsure one, asked more often) keeps 375 over 94 s,
# not 150 over 37 s (one PING in fifty answered at random of 200 a second fills a third of
# the slots: some 450 over 140 s). In the model (``controller.bench.syncmodel.sync_errors(
# seed, stations=4, seconds=300, answered=50, link="pico", ping_ns=5_000_000)``, seeds 1-5)
# its likely bound went p50 / p99 0.091 / 0.207 → 0.065 / 0.120 ms, none beyond it; keeping
# ÷ √(the share filled), 238 slots, put 25 of 120,000 presses beyond it in one seed. Its
# fits cost more, a fit's cost growing with its slots and its span: 22 ms of fits a second
# at four a second (9.5 before; 15 with every exchange answered, this machine).
FILL_SLOTS = 50
MIN_WINDOW_NS = 15_000_000_000
MAX_WINDOW_NS = 150_000_000_000
# The fastest a crystal's drift is taken to change: 0.05 ppm a second (until 2026-11-28 0.11,
# the model's ±10 ppm over ten minutes, a swing of some 40 °C in five). What moves a drift at
# a table is temperature: an AT-cut crystal (a Pico's 12 MHz, a Pi's 54 MHz) changes at most
# some 0.3 ppm per °C near room temperature, and the quickest warming a table sees is the Pi's
# crystal beside its SoC when a load starts, a few °C a minute: 0.015 ppm a second. This is
# three times that, if those figures hold; the first real build measures it (docs/crazy-kick.md,
# "What the likely bound assumes"). The bound on the error counts what it could bend the line over the window
# and since the newest exchange (``error_ns``); the model's crystals wander ±10 ppm over one to
# three hours, 0.017 ppm a second at most (controller/bench/syncmodel.py).
WANDER_PER_S = 5e-8
# … and the drift's change itself turns no faster than a wander of that size over twenty
# minutes (per s²): a crystal's curve is smooth, not a parabola, and over a 150 s window what
# a parabola leaves of it is at most this times 150³/192 s³ (the cubic's best parabola): 4 µs.
WANDER_TURN_PER_S2 = WANDER_PER_S * 2 * math.pi / 1200
# The likely bound (``error_ns``, since 2026-11-28): of the lines the exchanges allow, those
# whose room is more than ln(1/UNLIKELY) delays' spacings short of the most room are left out
# (a line that needs every quickest delay that much further from its floor is that much less
# likely); each side's spacing near its floor from its NEAREST tightest bounds. Not a share
# of presses the bound is sure to keep: the rate is read from the bounds the line was fitted
# to (some 1.3 times the delays' own at its median: reviewer, 2026-11-28), and the furthest
# line left is further out than the errors' own tail. Measured in the model (every link, one
# exchange a second and fifty, 2026-11-28): no press of 144,000 beyond the bound with 1e-3
# nor with 1e-2, 719 with 1e-1; 1e-4 made the bounds a tenth wider for nothing.
UNLIKELY = 1e-3
NEAREST = 8
# The line's error is bounded again from the exchanges of these last seconds alone, when the
# window is longer (``ClockSync._fit``): the least bound holds, and a short window bends less.
# 90 and 120 since the window is up to 150 s: with one exchange a second the bound's p99
# 0.47 → 0.45 ms and none over 0.5 ms (0.6 % before; 2 seeds × 4 stations in the model).
SHORTER_BOUND_WINDOWS_S = (20, 30, 45, 60, 90, 120)
UNSYNCED_ERROR_NS = 5_000_000    # the bound before any exchange: a press then counts at its arrival
# The line's estimate (``_centred_line``): the centre of every line the exchanges allow, over
# this many rates of the drift's change spread evenly within ±WANDER_PER_S, once the window
# spans CURVED_SPAN_US (a shorter one bends by a few µs at most: one straight centre).
# Five: nine gave the same errors in the model (p99 over six seeds 0.116 / 0.119 ms median)
# at twice the cost, three worse (0.123).
CURVATURES = 5
CURVED_SPAN_US = 20_000_000


Y = TypeVar("Y", int, float)     # host ns of a bound: as stamped, or with a crystal's bend taken out


class Bounds(NamedTuple):
    """What a fit says of its own error (``ClockSync.error_ns``, ``worst_error_ns``)."""
    worst: list[tuple[float, float, float]]    # per window: at the newest exchange (ns), growth after (ns/µs), bend (ns)
    newest_ns: int                             # the newest exchange's host time
    likely: tuple[float, float] | None         # the likely bound at the newest exchange (ns) and its growth (ns/µs)


class Slot(NamedTuple):
    slot: int               # sent_ns // slot_ns
    low: tuple[int, int]    # (station µs unwrapped, host ns): the line is on or above it (the PING's way out)
    high: tuple[int, int]   # (station µs unwrapped, host ns): the line is on or below it (the PONG's way back)
    rtt_ns: int             # the slot's fastest round trip (wire only: the station's turnaround taken out)
    sent_ns: int            # when the slot's first exchange left


def _above(point: tuple[int, int]) -> int:
    """How far above the nominal line through the origin: the larger, the tighter a low bound."""
    return point[1] - NOMINAL * point[0]


def _upper_hull(points: list[tuple[int, Y]]) -> list[tuple[int, Y]]:
    """Of points sorted by x (one per x), those on the upper convex hull, left to right."""
    hull: list[tuple[int, Y]] = []
    pop, append = hull.pop, hull.append         # a fit makes some thirty hulls: kept lean
    for p in points:
        px, py = p
        while len(hull) >= 2:
            (ax, ay), (bx, by) = hull[-2], hull[-1]
            if (bx - ax) * (py - ay) - (by - ay) * (px - ax) < 0:
                break
            pop()
        append(p)
    return hull


def _lower_hull(points: list[tuple[int, Y]]) -> list[tuple[int, Y]]:
    """The lower hull: the upper hull of the points turned upside down, turned back."""
    return [(x, -y) for x, y in _upper_hull([(x, -y) for x, y in points])]


def _one_per_x(points: list[tuple[int, Y]], keep) -> list[tuple[int, Y]]:
    """Sorted by x, one point per x (``keep``: max for low bounds, min for high ones)."""
    best: dict[int, Y] = {}
    for x, y in points:
        best[x] = y if x not in best else keep(best[x], y)
    return sorted(best.items())


def _slopes(hull: Sequence[tuple[float, float]]) -> list[float]:
    return [(b[1] - a[1]) / (b[0] - a[0]) for a, b in zip(hull, hull[1:])]


def _middle_slope(upper: list[tuple[int, int]], lower: list[tuple[int, int]], room) -> float | None:
    """The middle of the slopes that leave at least half the most room there is, or None
    when that is at a bound of the drift (the data say more than a crystal does). Not the
    slope with the most room itself: over a few seconds of data that one leans on the two
    or three tightest bounds and wanders by some ppm (models: tools/sync_noise.py). ``room``
    is concave and linear between the hulls' edge slopes, so the band is one run of those
    slopes and its ends are found exactly. With no room at all (stamps that contradict),
    the slope that is least wrong; with a band that runs into a bound of the drift, the
    slope with the most room."""
    lo, hi = SLOPES
    slopes = sorted({lo, hi} | {min(max(b, lo), hi) for b in _slopes(upper) + _slopes(lower)})
    rooms = [room(b) for b in slopes]
    best = max(rooms)
    i = rooms.index(best)
    level = min(best, best / 2)             # half the most room; all of it when there is none
    band = [k for k, r in enumerate(rooms) if r >= level]
    left, right = band[0], band[-1]
    if slopes[left] == lo or slopes[right] == hi:
        # the band runs into a bound of the drift (a second of slow exchanges says little
        # of the slope): its middle would lean on the bound, the most room does not
        return slopes[i] if lo < slopes[i] < hi else None

    def crossing(inside: int, outside: int) -> float:
        """Where ``room`` falls to the level between two slopes (linear there)."""
        ri, ro = rooms[inside], rooms[outside]
        return slopes[inside] + (slopes[outside] - slopes[inside]) * (ri - level) / (ri - ro)

    return (crossing(left, left - 1) + crossing(right, right + 1)) / 2


def _feasible_slopes(upper: Sequence[tuple[int, float]], lower: Sequence[tuple[int, float]],
                     room) -> tuple[float, float] | None:
    """The slopes at which a line still passes between every low and every high (``room``
    at least 0), within the drift's bounds: one run (``room`` is concave), its ends found
    exactly (linear between the hulls' edge slopes). None when no slope leaves room."""
    lo, hi = SLOPES
    slopes = sorted({lo, hi} | {b for b in _slopes(upper) + _slopes(lower) if lo < b < hi})
    rooms = [room(b) for b in slopes]
    inside = [k for k, r in enumerate(rooms) if r >= 0]
    if not inside:
        return None
    left, right = inside[0], inside[-1]

    def crossing(k: int, out: int) -> float:
        return slopes[k] + (slopes[out] - slopes[k]) * rooms[k] / (rooms[k] - rooms[out])

    return (slopes[left] if left == 0 else crossing(left, left - 1),
            slopes[right] if right == len(slopes) - 1 else crossing(right, right + 1))


def _error_at(upper: Sequence[tuple[int, float]], lower: Sequence[tuple[int, float]], room, slope: float,
              through: float, x: int, believed: bool, bend: float = 0.0) -> tuple[float, float]:
    """How far a line the bounds allow can be from the chosen one (``slope``, through
    ``through`` at x = 0) at station time ``x`` (the newest exchange), and how fast that
    grows after it (ns per µs). Over the slopes the bounds allow (every slope within the
    drift's bounds while the slope is not yet believed) the highest such line at ``x`` is
    the least of the highs carried there, the lowest the most of the lows: concave and
    convex in the slope, so their extremes are at an edge slope of a hull or at an end.
    When no line fits (stamps that contradict: a clock that jumped, a crystal that bent
    more than the window's allowance), the overlap counts whole and the slope as unknown
    as before it was believed.

    ``bend``: how far the crystal's true curve may be from a straight line over the window
    (a wandering drift). The straight line nearest the curve is then within ``bend`` of
    every bound, not on its side of it, so the lines counted are those that pass between
    the bounds each moved ``bend`` outwards: more slopes, and each further out at ``x``.
    (Until 2026-11-28 the bend was added to the straight lines' spread alone; with one
    exchange a second over a USB-serial bridge's 0-4 ms, one press in a hundred was
    outside the bound, by up to twice it: T
    ``test_the_bound_holds_a_wandering_crystal_over_every_link_and_many_seeds``.)"""
    lo, hi = SLOPES

    def relaxed(b: float) -> float:
        return room(b) + 2 * bend

    feasible = _feasible_slopes(upper, lower, relaxed) if believed else (lo, hi)
    if feasible is None:
        overlap = max(y - slope * x_ for x_, y in upper) - min(y - slope * x_ for x_, y in lower)
        return overlap, max(slope - lo, hi - slope)
    left, right = feasible
    candidates = [left, right] + [b for b in _slopes(upper) + _slopes(lower) if left < b < right]
    highest = max(min(y + b * (x - x_) for x_, y in lower) for b in candidates) + bend
    lowest = min(max(y + b * (x - x_) for x_, y in upper) for b in candidates) - bend
    at = through + slope * x
    return max(highest - at, at - lowest, 0.0), max(slope - left, right - slope, 0.0)


def _centroid(upper: Sequence[tuple[float, float]], lower: Sequence[tuple[float, float]],
              at: float) -> tuple[float, float, float] | None:
    """Of the lines that pass on or above every low (``upper``: their upper hull) and on or
    below every high (``lower``: the highs' lower hull), within the drift's bounds: the
    area of the set of their (slope, value at ``at``), and its centre (the mean slope and
    the mean value at ``at``); an area of 0 when no line passes, and None when the set runs
    into a bound of the drift (a few exchanges say little of the slope: the bound would
    cut the set, and its centre lean towards the nominal slope). For a slope b the values run
    from the most of the lows carried to ``at`` to the least of the highs: both are linear
    in b between the hulls' edge slopes, so each piece's integrals are exact by Simpson's
    rule (products of two linear functions)."""
    lo, hi = SLOPES

    def between(b: float) -> tuple[float, float]:
        top = min(y + b * (at - x) for x, y in lower)
        bottom = max(y + b * (at - x) for x, y in upper)
        return top - bottom, (top + bottom) / 2

    slopes = sorted({lo, hi} | {b for b in _slopes(upper) + _slopes(lower) if lo < b < hi})
    rooms = [between(b)[0] for b in slopes]
    if rooms[0] > 0 or rooms[-1] > 0:
        return None
    area = slope_sum = value_sum = 0.0
    for k in range(len(slopes) - 1):
        (b0, r0), (b1, r1) = (slopes[k], rooms[k]), (slopes[k + 1], rooms[k + 1])
        if r0 <= 0 and r1 <= 0:
            continue
        if r0 < 0:                                  # the room is linear here: cut where it is 0
            b0 = b0 + (b1 - b0) * -r0 / (r1 - r0)
        elif r1 < 0:
            b1 = b0 + (b1 - b0) * r0 / (r0 - r1)
        weight = (b1 - b0) / 6
        for share, b in ((1, b0), (4, (b0 + b1) / 2), (1, b1)):
            room, middle = between(b)
            room = max(room, 0.0)
            area += weight * share * room
            slope_sum += weight * share * room * b
            value_sum += weight * share * room * middle
    if area <= 0:
        return 0.0, 0.0, 0.0
    return area, slope_sum / area, value_sum / area


def _bent(points: list[tuple[int, int]], at: int, curvature: float) -> list[tuple[int, float]]:
    """The bounds of a clock whose drift changes at ``curvature`` (ns per µs²) with that
    parabola taken out about ``at``: the lines through them are the tangents at ``at``."""
    return [(x, y - curvature / 2 * (x - at) ** 2) for x, y in points]


class Bent(NamedTuple):
    """The exchanges' bounds with a crystal's bend taken out (``_bent``; curvature 0: as
    stamped), and their hulls: lines between them are the tangents at the newest exchange."""
    curvature: float
    lows: Sequence[tuple[int, float]]
    highs: Sequence[tuple[int, float]]
    upper: Sequence[tuple[int, float]]          # the lows' upper hull
    lower: Sequence[tuple[int, float]]          # the highs' lower hull


def _bent_sets(lows: list[tuple[int, int]], highs: list[tuple[int, int]], hulls, at: int, span: int) -> list[Bent]:
    """The bounds over the drifts that change at CURVATURES rates spread evenly within
    ±WANDER_PER_S (a window under CURVED_SPAN_US bends a few µs at most: straight only),
    made once a fit for the centred line and the likely bound. ``hulls``: the straight
    ones, which the fit has made already."""
    if span < CURVED_SPAN_US:
        return [Bent(0.0, lows, highs, *hulls)]
    most = WANDER_PER_S * 1e-3                      # ns per µs²: the drift's fastest change
    sets = []
    for k in range(CURVATURES):
        curvature = most * (2 * k / (CURVATURES - 1) - 1)
        if curvature == 0.0:
            sets.append(Bent(0.0, lows, highs, *hulls))
        else:
            bent_lows, bent_highs = _bent(lows, at, curvature), _bent(highs, at, curvature)
            sets.append(Bent(curvature, bent_lows, bent_highs, _upper_hull(_one_per_x(bent_lows, max)),
                             _lower_hull(_one_per_x(bent_highs, min))))
    return sets


def _most_room(upper: Sequence[tuple[int, float]], lower: Sequence[tuple[int, float]]) -> tuple[float, float]:
    """The most room a line leaves between the lows (``upper``: their upper hull) and the
    highs (``lower``: their lower hull), within the drift's bounds, and its slope: ``room``
    is concave and linear between the hulls' edge slopes, so it is at one of them or at a
    bound of the drift."""
    lo, hi = SLOPES
    slopes = {lo, hi} | {b for b in _slopes(upper) + _slopes(lower) if lo < b < hi}
    return max((min(y - b * x for x, y in lower) - max(y - b * x for x, y in upper), b) for b in slopes)


def _spacing_rate(residuals: list[float]) -> float | None:
    """How many bounds per ns lie just above their floor: of the NEAREST tightest (their
    distances from the line), the count over their spread, the rate of evenly spread delays
    near the floor, whatever their shape further out. None when there are too few to tell or
    no spread (delays all alike: nothing says how far the tightest is from the floor)."""
    k = min(NEAREST, len(residuals) - 1)
    nearest = heapq.nsmallest(k + 1, residuals)
    if k < 2 or nearest[k] <= nearest[0]:
        return None
    return k / (nearest[k] - nearest[0])


def _likely_extent(sets: list[Bent], slope: float, through: float, at: int, span: int) -> tuple[float, float] | None:
    """How far from the chosen line (``slope``, through ``through`` at x = 0) at the newest
    exchange (``at``) a line can be that the exchanges make likely, and how fast that grows
    after it (ns per µs); None when no line passes (stamps that contradict).

    The quickest delay of each way is taken alike (as NTP and PTP take it for their offset;
    NTP's maximum error does not, and neither does ``worst_error_ns``): an offset cannot be
    told from a delay one way longer than the other, and stations whose links are of one kind
    share it, so what it moves, it moves for all of them alike (a table that mixes kinds is
    ordered on the worst bounds: controller/table/realtime.py); and
    delays to spread evenly near their floor, at a rate each side's NEAREST tightest bounds
    show (``_spacing_rate``). A line whose room (the two ways' delays it leaves, one floor
    each) is short of the most room by r then needs its quickest delays further from their
    floors by r in all, about e^(−rate·r) as likely (the floors unknown): lines short by more than
    ln(1/UNLIKELY)/rate are left out, and each side's bounds are moved inwards by half the
    room the rest keep (with no rate known, nothing is left out: the lines the bounds allow).
    For a curve: the same over the drifts that change at CURVATURES rates spread evenly
    within ±WANDER_PER_S, each bound relaxed by what a curve between two of them and a
    smooth turn of its change (WANDER_TURN_PER_S2) can leave of a parabola over the window.
    ``sets``: the bounds over those rates (``_bent_sets``)."""
    most = WANDER_PER_S * 1e-3                        # the drift's fastest change (ns per µs²)
    # what a curve can do that none of the rates looked at does: the straight line's own
    # bend, or a rate halfway between two of them
    unseen = most if len(sets) == 1 else most / (CURVATURES - 1)
    relax = unseen * span ** 2 / 16 + WANDER_TURN_PER_S2 * 1e-9 * span ** 3 / 192
    rooms = [_most_room(bent.upper, bent.lower) for bent in sets]
    (most_room, best), bent = max(zip(rooms, sets), key=lambda found: found[0][0])
    middle = (min(y - best * x for x, y in bent.lower) + max(y - best * x for x, y in bent.upper)) / 2
    rate_low = _spacing_rate([middle + best * x - y for x, y in bent.lows])
    rate_high = _spacing_rate([y - middle - best * x for x, y in bent.highs])
    inwards = 0.0
    if rate_low is not None and rate_high is not None:
        inwards = max(0.0, (most_room - math.log(1 / UNLIKELY) / min(rate_low, rate_high)) / 2)
    extent = growth = None
    for (its_most_room, _), bent in zip(rooms, sets):
        if its_most_room + 2 * relax - 2 * inwards < 0:
            continue                                  # no likely line bends this way
        upper_in = [(x, y + inwards) for x, y in bent.upper]
        lower_in = [(x, y - inwards) for x, y in bent.lower]

        def room(b: float, upper_in=upper_in, lower_in=lower_in) -> float:
            return min(y - b * x for x, y in lower_in) - max(y - b * x for x, y in upper_in)

        here, per_us = _error_at(upper_in, lower_in, room, slope, through, at, True, relax)
        extent, growth = max(extent or 0.0, here), max(growth or 0.0, per_us)
    if extent is None or growth is None:
        return None
    return extent, growth


class ClockSync:
    def __init__(self, *, slot_ns: int = 100_000_000, window_slots: int = 150,
                 min_window_ns: int = MIN_WINDOW_NS, max_window_ns: int = MAX_WINDOW_NS) -> None:
        # one pair of bounds per slot (the tightest of each side), over the last 15 to 150 s
        self.slot_ns = slot_ns
        self.window_slots = window_slots       # how many slots the fit keeps (more when not all filled) …
        self.min_window_slots = min_window_ns // slot_ns     # … beyond the last this many slots' time …
        self.max_window_slots = max_window_ns // slot_ns     # … and never older than this
        self.points: deque[Slot] = deque()
        self.exchanges = 0
        self._ref: tuple[int, int] | None = None     # the newest exchange's raw ticks and their unwrapped µs
        # the line: host ns per station µs, and the point it passes through (station µs, host ns)
        self._line: tuple[float, int, float] | None = None
        self.margin_ns: float | None = None    # the room the line leaves on each side (negative: no line fits)
        # bounds on the error: at the newest exchange (ns), how fast it grows since (ns per
        # station µs: the slopes the bounds still allow), and what the window's length could
        # bend the line (ns), for the whole window and shorter ones (the least holds); and
        # the newest exchange's host time (ns)
        self._error: Bounds | None = None
        self._stale = False                     # exchanges added since the last fit (``add(fit=False)``)
        # the hulls of every slot but the newest, and what they were made of: (key, origin, upper, lower)
        self._settled: tuple | None = None

    @property
    def ready(self) -> bool:
        """An exchange has come: stamps can be mapped."""
        return self._line is not None

    # -- feeding --------------------------------------------------------------------------------
    def unwrap(self, ticks: int) -> int:
        if self._ref is None:
            return ticks
        raw, unwrapped = self._ref
        return unwrapped + ticks_diff(ticks % STATION_TICKS_MODULO, raw)

    def add(self, sent_ns: int, station_ticks: int, received_ns: int, turnaround_us: int = 0,
            fit: bool = True) -> None:
        """One exchange: the host's send and receive times, the station's stamp when the
        PING came, and how long the station took to answer (its PONG's stamp − that).
        ``fit=False``: the line is fitted when it is next used (``refresh``, mapping a stamp),
        not now: a box that is not racing maps few stamps, and a fit over a window of 150
        exchanges takes two to three milliseconds (the first exchange is fitted at once)."""
        rtt = received_ns - sent_ns - turnaround_us * 1000
        if received_ns < sent_ns or rtt < 0:
            return
        unwrapped = self.unwrap(station_ticks)
        self._ref = (station_ticks % STATION_TICKS_MODULO, unwrapped)
        self.exchanges += 1
        low, high = (unwrapped, sent_ns), (unwrapped + turnaround_us, received_ns)
        points = self.points
        slot = sent_ns // self.slot_ns
        if points and points[-1].slot == slot:
            last = points[-1]                  # (on a tie the bound already kept stays)
            tighter = Slot(slot, max(last.low, low, key=_above), min(last.high, high, key=_above),
                           min(rtt, last.rtt_ns), last.sent_ns)
            if tighter == last:
                return          # no tighter bound (most exchanges of a slot): the same line
            points[-1] = tighter
        else:
            kept = self._kept_slots(slot)
            while points and (slot - points[0].slot >= self.max_window_slots or (
                    len(points) >= kept and slot - points[0].slot >= self.min_window_slots)):
                points.popleft()
            points.append(Slot(slot, low, high, rtt, sent_ns))
        if fit or self._line is None:
            self._fit()
        else:
            self._stale = True

    def _kept_slots(self, slot: int) -> int:
        """How many slots the window keeps when a new one (``slot``) comes: ``window_slots``
        while the last FILL_SLOTS slots are all filled, and as many more as they are not
        (÷ their share filled): judged over the newest few seconds, so a station that goes
        from one exchange a second to fifty (a race starts) is back at ``window_slots``
        within them, not fitting a sparse window's hundreds of slots for its whole span."""
        horizon = min(FILL_SLOTS, self.window_slots)   # (never more than the window holds filled)
        filled = 1                              # the new slot
        for point in reversed(self.points):
            if slot - point.slot >= horizon:
                break
            filled += 1
        return self.window_slots * horizon // filled

    def refresh(self) -> None:
        """Fit the exchanges added with ``fit=False`` (in the thread that adds them)."""
        if self._stale:
            self._fit()

    def _fit(self) -> None:
        """The line between the lows (under it) and the highs (over it) with the most room
        on both sides: for a slope b the room is min(high − b·x) − max(low − b·x), a concave
        function of b whose maximum is at the slope of a hull's edge (or the drift's bound).
        The hulls of the slots before the newest are kept until a slot comes or goes (ten
        times a second); the newest slot's bounds, which tighten as its exchanges come, are
        added to them at each fit: the hull of some points and one more is the hull of
        their hull's corners and that one, wherever it lies (a clock that went back)."""
        self._stale = False
        points = self.points
        settled = self._settled
        if settled is None or settled[0] != (points[0].slot, points[-1].slot, len(points)):
            origin = points[0].low
            lows = _one_per_x([(x - origin[0], y - origin[1]) for x, y in (p.low for p in list(points)[:-1])], max)
            highs = _one_per_x([(x - origin[0], y - origin[1]) for x, y in (p.high for p in list(points)[:-1])], min)
            settled = self._settled = ((points[0].slot, points[-1].slot, len(points)), origin,
                                       _upper_hull(lows), _lower_hull(highs))
        _, origin, settled_upper, settled_lower = settled
        newest = points[-1]
        low = (newest.low[0] - origin[0], newest.low[1] - origin[1])
        high = (newest.high[0] - origin[0], newest.high[1] - origin[1])
        upper = _upper_hull(_one_per_x(settled_upper + [low], max))
        lower = _lower_hull(_one_per_x(settled_lower + [high], min))

        def room(b: float) -> float:
            return min(y - b * x for x, y in lower) - max(y - b * x for x, y in upper)

        slope = float(NOMINAL)
        span = points[-1].high[0] - points[0].low[0]        # station µs: the oldest PING's to the newest PONG
        middle = None
        if len(points) >= MIN_SLOTS and span >= MIN_SPAN_US:
            middle = _middle_slope(upper, lower, room)
            if middle is not None:
                slope = middle
        top = min(y - slope * x for x, y in lower)
        bottom = max(y - slope * x for x, y in upper)
        self.margin_ns = (top - bottom) / 2
        through = (top + bottom) / 2
        believed = len(points) >= MIN_SLOTS and span >= MIN_SPAN_US     # (the slope is NOMINAL's until then)
        sets = None
        if believed:
            sets = _bent_sets([(p.low[0] - origin[0], p.low[1] - origin[1]) for p in points],
                              [(p.high[0] - origin[0], p.high[1] - origin[1]) for p in points],
                              (upper, lower), high[0], span)
        if middle is not None and sets is not None:
            # the slope is known from the data, not at a bound of the drift: the line is the
            # centre of every line they allow (and every bend a wandering crystal may give)
            centred = self._centred_line(sets, high[0])
            if centred is not None:
                slope, through = centred
        self._line = (slope, origin[0], origin[1] + through)
        bounds = [self._bound_over(upper, lower, room, slope, through, high[0], believed, span)]
        # The same line's error bounded again from the exchanges of the last few tens of
        # seconds alone: each is a bound (the true curve is near a line between those bounds
        # too), with less bend than the whole window's and fewer exchanges, and the least of
        # them holds. With one exchange a second the window is 150 s and its bend (155 µs) is
        # most of its bound; a window long enough for the line, a shorter one for its error.
        # (Not the likely bound: from those windows too, its p50 / p99 in the model over a
        # Pico's link with one exchange a second went 0.160 / 0.283 → 0.145 / 0.267 ms, at
        # twice a fit's cost, 2.4 → 5.0 ms; on the real path nothing it could tell from a
        # run's spread. 2026-11-28.)
        for seconds in SHORTER_BOUND_WINDOWS_S:
            since_us = high[0] - seconds * 1_000_000
            if span <= (seconds + 1) * 1_000_000:
                continue
            recent = [p for p in points if p.low[0] - origin[0] >= since_us]
            if len(recent) < MIN_SLOTS:
                continue
            upper_r = _upper_hull(_one_per_x([(p.low[0] - origin[0], p.low[1] - origin[1]) for p in recent], max))
            lower_r = _lower_hull(_one_per_x([(p.high[0] - origin[0], p.high[1] - origin[1]) for p in recent], min))

            def room_r(b: float, upper_r=upper_r, lower_r=lower_r) -> float:
                return min(y - b * x for x, y in lower_r) - max(y - b * x for x, y in upper_r)

            bounds.append(self._bound_over(upper_r, lower_r, room_r, slope, through, high[0], True,
                                           high[0] - recent[0].low[0] + origin[0]))
        if span > MIN_WINDOW_NS // 1000 + 1_000_000:        # a window longer than the least (few exchanges)
            bounds.append(self._bound_by_tangent(slope, through, high[0], origin))
        likely = None if sets is None else _likely_extent(sets, slope, through, high[0], span)
        self._error = Bounds(bounds, newest.high[1], likely)

    @staticmethod
    def _centred_line(sets: list[Bent], at: int) -> tuple[float, float] | None:
        """The line the exchanges place best at the newest one (station µs ``at`` from the
        origin): the centre of the set of every line that passes between the bounds, as
        (slope, value at ``at``), over drifts that change at CURVATURES rates spread evenly
        within ±WANDER_PER_S (each the set of the tangents at ``at`` of the curves that
        pass, weighed by its area: the mean over all of them). Not the line with the most
        room nor the middle of the slopes: those lean on the two or three tightest bounds,
        where the centre weighs every bound by how much it cuts off; and a wandering
        crystal's bend taken as one of the unknowns, not as the line's error, lets the
        window be 150 s (docs/crazy-kick.md, "Clock sync"). Returns (slope, value at 0),
        or None when no line passes (stamps that contradict) or the lines run into a bound
        of the drift (the old line then: the middle of the slopes with the most room).
        ``sets``: the bounds over those rates (``_bent_sets``)."""
        area = slope_sum = value_sum = 0.0
        for bent in sets:
            found = _centroid(bent.upper, bent.lower, at)
            if found is None:
                return None
            if found[0] > 0:
                area += found[0]
                slope_sum += found[0] * found[1]
                value_sum += found[0] * found[2]
        if area <= 0:
            return None
        slope = slope_sum / area
        return slope, value_sum / area - slope * at

    def _bound_by_tangent(self, slope: float, through: float, x: int, origin: tuple[int, int]) -> tuple[float, float, float]:
        """The line's error bounded from the line touching the crystal's curve at the newest
        exchange: it is within ½κ·age² of each bound (κ the drift's change, WANDER_PER_S),
        nothing at the newest, so each bound is moved outwards by its own age's share."""
        k = WANDER_PER_S * 1e-3 / 2                   # ns per µs² (half the drift's change)
        lows = [(p.low[0] - origin[0], p.low[1] - origin[1] - math.ceil(k * (x - p.low[0] + origin[0]) ** 2))
                for p in self.points]
        highs = [(p.high[0] - origin[0], p.high[1] - origin[1] + math.ceil(k * (x - p.high[0] + origin[0]) ** 2))
                 for p in self.points]
        upper = _upper_hull(_one_per_x(lows, max))
        lower = _lower_hull(_one_per_x(highs, min))

        def room(b: float) -> float:
            return min(y - b * x_ for x_, y in lower) - max(y - b * x_ for x_, y in upper)

        at_newest, per_us = _error_at(upper, lower, room, slope, through, x, True)
        return at_newest, per_us, 0.0

    @staticmethod
    def _bound_over(upper: list[tuple[int, int]], lower: list[tuple[int, int]], room, slope: float, through: float,
                    x: int, believed: bool, span: float) -> tuple[float, float, float]:
        """The line's error at the newest exchange from the bounds of a window ``span`` µs
        long, how fast it grows after (ns per µs), and the window's bend (ns)."""
        bend = WANDER_PER_S * 1e9 * (span / 1e6) ** 2 / 16
        at_newest, per_us = _error_at(upper, lower, room, slope, through, x, believed, bend)
        # after the newest exchange the curve leaves that nearest line at up to the rate its
        # drift changed over half the window (a parabola's chord), and bends on
        return at_newest, per_us + WANDER_PER_S * 1e3 * (span / 1e6) / 2, bend

    # -- using it -------------------------------------------------------------------------------
    def to_host_ns(self, station_ticks: int) -> int | None:
        """The host time of a station stamp, or None before the first exchange."""
        self.refresh()
        if self._line is None:
            return None
        slope, station_at, host_at = self._line
        return round(host_at + (self.unwrap(station_ticks) - station_at) * slope)

    def error_ns(self, at_host_ns: int) -> int:
        """A bound on the error of a stamp made at ``at_host_ns`` (host time), mapped now, that
        the exchanges make likely: how far a line they leave likely can be from this one at
        the newest exchange (``_likely_extent``: the quickest delay taken alike each way, and
        lines that would need every quickest delay far from its floor left out), plus what
        the slopes make of the time since and the bend since. Measured, not sure: in the model
        no press of the bench's 210,000 was beyond it, 10 of 36,000 in the first minute of
        syncs with every exchange answered (one station's moment, within the 0.2 ms floor of
        a tie); its assumptions, the quickest delays alike each way and spread evenly near
        their floor, are the model's own (docs/crazy-kick.md, "The likely bound"; T
        ``test_the_bound_holds_a_wandering_crystal_over_every_link_and_many_seeds``). Never
        more than ``worst_error_ns``; with too few exchanges to tell how near their floor the
        quickest are, the lines the bounds allow, none left out. UNSYNCED_ERROR_NS before the
        first exchange. As of the last fit (this may be asked from another thread than the one
        that adds: it never fits)."""
        error = self._error                     # once: another thread's fit may replace it
        worst = self._worst(error, at_host_ns)
        if error is None or error.likely is None:
            return worst
        at_newest, per_us = error.likely
        since_s = abs(at_host_ns - error.newest_ns) / 1e9
        return min(worst, round(at_newest + per_us * since_s * 1e6 + WANDER_PER_S * 1e9 * since_s * since_s / 2))

    @property
    def newest_exchange_ns(self) -> int | None:
        """The host time of the newest slot's tightest exchange as the last fit saw it (None
        before the first): how long the station has said nothing new of its clock."""
        error = self._error
        return None if error is None else error.newest_ns

    def worst_error_ns(self, at_host_ns: int) -> int:
        """A bound on the error whatever the delays each way (one way's always longer than the
        other's too): how far the true line can be from this one at the newest exchange,
        given every exchange's two bounds each moved outwards by what a wandering crystal
        (WANDER_PER_S) could bend the line over the window (the lines that pass between
        them, at every slope they allow), plus that bend, plus what the slopes they allow
        make of the time since, plus the bend since; the least of those over the whole
        window and its last SHORTER_BOUND_WINDOWS_S. It holds half the quickest round trip
        at least (a delay the same both ways cannot be told from an offset), and with one
        exchange a second half as much again as ``error_ns`` (docs/crazy-kick.md, "Clock sync").
        UNSYNCED_ERROR_NS before the first exchange."""
        return self._worst(self._error, at_host_ns)

    @staticmethod
    def _worst(error: Bounds | None, at_host_ns: int) -> int:
        if error is None:
            return UNSYNCED_ERROR_NS
        since_s = abs(at_host_ns - error.newest_ns) / 1e9
        return round(min(at_newest + per_us * since_s * 1e6 + bend for at_newest, per_us, bend in error.worst)
                     + WANDER_PER_S * 1e9 * since_s * since_s / 2)

    @property
    def drift_ppm(self) -> float | None:
        """How fast the station's crystal runs against the host's (positive: fast), or None
        before the first exchange."""
        self.refresh()
        return None if self._line is None else (NOMINAL / self._line[0] - 1.0) * 1e6

    @property
    def offset_ns(self) -> int | None:
        """Host time minus station time (µs → ns) at the newest exchange."""
        if self._line is None:
            return None
        raw, unwrapped = self._ref                 # type: ignore[misc]  # set with the line
        host = self.to_host_ns(raw)
        return None if host is None else host - unwrapped * 1000

    @property
    def round_trip_ns(self) -> int | None:
        """The fastest round trip in the window: how well this station is synchronised."""
        return min((p.rtt_ns for p in self.points), default=None)
