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


class SyncPoint(NamedTuple):
    station_us: int         # unwrapped station time
    host_ns: float          # midpoint of the round trip
    rtt_ns: int
    sent_ns: int


class ClockSync:
    def __init__(self, *, slot_ns: int = 500_000_000, window_slots: int = 30) -> None:
        self.slot_ns = slot_ns                 # one trusted point per slot (the fastest exchange)
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
            points[-1] = point                  # a faster exchange in the same slot replaces it
        else:
            points.append(point)
            while slot - points[0].sent_ns // self.slot_ns >= self.window_slots:
                points.popleft()
        self._fit()

    def _fit(self) -> None:
        points = self.points
        n = len(points)
        # weight the fast exchanges: a point's error is bounded by half its round trip
        weights = [(p.rtt_ns + 20_000.0) ** -2 for p in points]
        total = sum(weights)
        xs = [p.station_us for p in points]
        ys = [p.host_ns for p in points]
        x_mean = sum(w * x for w, x in zip(weights, xs)) / total
        y_mean = sum(w * y for w, y in zip(weights, ys)) / total
        slope = 1000.0
        if n >= 3:
            sxx = sum(w * (x - x_mean) ** 2 for w, x in zip(weights, xs))
            sxy = sum(w * (x - x_mean) * (y - y_mean) for w, x, y in zip(weights, xs, ys))
            # a real crystal is within a few hundred ppm; anything else is noise over a short span
            if sxx > 0 and abs(sxy / sxx / 1000.0 - 1.0) < 0.002:
                slope = sxy / sxx
        self._line = (slope, x_mean, y_mean)

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
