"""Station clock → host clock, from NTP-style ping/pong exchanges.

The host sends ``PING n`` at ``sent_ns`` (its monotonic clock), the station answers
``PONG n <received-µs> <sent-µs>`` stamped with its own microsecond clock when the PING
came and when the answer left, and the answer comes in at ``received_ns``. As in NTP, the
station's own delay between its two stamps is taken out of the round trip, and the middle
of its two stamps is matched with the middle of the host's; what is left of the round trip
is the wire, and the midpoint is wrong by at most half of that. (Firmware before 1.1 sent
one stamp: a delay of zero.) So:

* **minimum round-trip filtering**: only the fastest exchange of each time slot is
  trusted (its midpoint error is smallest), the rest are thrown away;
* **offset and drift fit**: a least-squares line through those points maps station
  time to host time, so a crystal running 200 ppm fast does not walk away between
  exchanges;
* **continuous resync**: old slots fall out of the window, new ones come in;
* **wrap-around**: ``ticks_us`` wraps every 2^30 µs (17.9 min); stamps are unwrapped
  against the newest exchange with ``ticks_diff``, so any stamp within ±9 minutes of it
  maps correctly.

>>> sync = ClockSync()
>>> sync.add(sent_ns=1_000_000, station_ticks=500, received_ns=1_200_000)
>>> sync.to_host_ns(600)          # 100 µs after the pong's stamp
1200000
"""

from __future__ import annotations

from collections import deque
from typing import NamedTuple

from hardware.protocol import STATION_TICKS_MODULO, ticks_diff


# a point's weight in the fit is 1/(rtt + 20 µs)^3. With 0.1 s slots the cube, not the
# square, keeps a few seconds of slow exchanges (a busy host) from pulling the line: in the
# model it is as good as 0.5 s slots with the square on a quiet link and better under every
# kind of noise tried (docs/crazy-kick.md, "Clock sync")
RTT_WEIGHT_POWER = 3


class SyncPoint(NamedTuple):
    station_us: int         # unwrapped station time
    host_ns: float          # midpoint of the round trip
    rtt_ns: int
    sent_ns: int


class ClockSync:
    # the fit's weighted sums (Σw, Σwx, Σwy, Σwx², Σwxy), kept as points come and go so a fit
    # costs the same whatever the window holds; x and y are taken from an origin near the
    # points, so their magnitudes stay small (set with the first point, by ``_recount``)
    _sums: list[float]
    _origin: tuple[float, float]
    weight_power = RTT_WEIGHT_POWER

    def __init__(self, *, slot_ns: int = 100_000_000, window_slots: int = 150) -> None:
        # one trusted point per slot (the fastest exchange), over the last 15 s: five times
        # the points of 0.5 s slots average the wire's jitter out (docs/crazy-kick.md)
        self.slot_ns = slot_ns
        self.window_slots = window_slots       # how many slots the fit looks back
        self.points: deque[SyncPoint] = deque()
        self.exchanges = 0
        self._ref: tuple[int, int] | None = None     # the newest exchange's raw ticks and their unwrapped µs
        # the fitted line: host ns per station µs, and the point it passes through (station µs, host ns)
        self._line: tuple[float, float, float] | None = None

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

    def add(self, sent_ns: int, station_ticks: int, received_ns: int, turnaround_us: int = 0) -> None:
        """One exchange: the host's send and receive times, the station's stamp when the
        PING came, and how long the station took to answer."""
        rtt = received_ns - sent_ns - turnaround_us * 1000
        if received_ns < sent_ns or rtt < 0:
            return
        unwrapped = self.unwrap(station_ticks)
        station_us = unwrapped + turnaround_us / 2
        self._ref = (station_ticks % STATION_TICKS_MODULO, unwrapped)
        point = SyncPoint(station_us, (sent_ns + received_ns) / 2, rtt, sent_ns)
        self.exchanges += 1
        points = self.points
        slot = sent_ns // self.slot_ns
        if points and points[-1].sent_ns // self.slot_ns == slot:
            if point.rtt_ns >= points[-1].rtt_ns:
                return          # a slower exchange of the slot (most are): the same points, the same line
            self._count(points.pop(), -1)       # a faster exchange in the same slot replaces it
        else:
            while points and slot - points[0].sent_ns // self.slot_ns >= self.window_slots:
                self._count(points.popleft(), -1)
        points.append(point)
        # the origin is the oldest point when it is set: a window later it has left, and two
        # windows after it was set, it is set again (about every 15 s)
        if not self._line or point.sent_ns - self._origin[1] > 2 * self.slot_ns * self.window_slots:
            self._recount()
        else:
            self._count(point, +1)
        self._fit()

    def _count(self, point: SyncPoint, sign: int) -> None:
        """Put a point into the fit's sums (sign +1) or take it out (-1)."""
        # weight the fast exchanges: a point's error is bounded by half its round trip
        w = sign * (point.rtt_ns + 20_000.0) ** -self.weight_power
        x, y = point.station_us - self._origin[0], point.host_ns - self._origin[1]
        sums = self._sums
        sums[0] += w
        sums[1] += w * x
        sums[2] += w * y
        sums[3] += w * x * x
        sums[4] += w * x * y

    def _recount(self) -> None:
        """The sums afresh from the points, from an origin at the oldest: the rounding of a
        window's additions and removals goes with the old origin."""
        self._origin = (self.points[0].station_us, self.points[0].host_ns)
        self._sums = [0.0] * 5
        for point in self.points:
            self._count(point, +1)

    def _fit(self) -> None:
        total, wx, wy, wxx, wxy = self._sums
        x_mean, y_mean = wx / total, wy / total
        slope = 1000.0
        if len(self.points) >= 3:
            sxx = wxx - wx * x_mean
            sxy = wxy - wx * y_mean
            # a real crystal is within a few hundred ppm; anything else is noise over a short span
            if sxx > 0 and abs(sxy / sxx / 1000.0 - 1.0) < 0.002:
                slope = sxy / sxx
        self._line = (slope, x_mean + self._origin[0], y_mean + self._origin[1])

    # -- using it -------------------------------------------------------------------------------
    def to_host_ns(self, station_ticks: int) -> int | None:
        """The host time of a station stamp, or None before the first exchange."""
        if self._line is None:
            return None
        slope, station_mean, host_mean = self._line
        return round(host_mean + (self.unwrap(station_ticks) - station_mean) * slope)

    @property
    def drift_ppm(self) -> float | None:
        """How fast the station's crystal runs against the host's (positive: fast), or None
        before the first exchange."""
        return None if self._line is None else (1000.0 / self._line[0] - 1.0) * 1e6

    @property
    def offset_ns(self) -> int | None:
        """Host time minus station time (µs → ns) at the newest exchange."""
        if self._line is None:
            return None
        raw, unwrapped = self._ref                 # type: ignore[misc]  # set with the line
        return self.to_host_ns(raw) - unwrapped * 1000

    @property
    def round_trip_ns(self) -> int | None:
        """The fastest round trip in the window: how well this station is synchronised."""
        return min((p.rtt_ns for p in self.points), default=None)
