"""Clock sync in a model with a host that stalls: the table in docs/crazy-kick.md ("Clock
sync"), the estimator of today (bounds: the line between the exchanges' two one-way
bounds) beside the one before it (the midpoints of the fastest round trips, weighted by
the cube of the round trip) and the bounds' line at the slope with the most room.

    python tools/sync_noise.py            # eight seeds, about a minute

Each station: a crystal up to ±200 ppm off, pings every 20 ms over 0-4 ms each way, 10 s
of sync, then a press per ping for 5 s, its error the mapped press time minus the true
one. Stalls: now and then the host reads the answers late for a while (each answer up to
the stall's extra delay later), as a busy host does.
"""

from __future__ import annotations

import random
import statistics
import sys
from collections import deque
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.bench.fairness import LINK_DELAY_NS, PING_NS
from controller.bench.measure import percentile
from hardware import clocksync
from hardware.sim.station import StationClock

STALLS = {                      # name: (chance a ping starts a stall, its length ns, its extra delay ms)
    "quiet (0-4 ms each way)": (0.0, 0, 0),
    "short stalls (5 % of pings start 0.2 s of up to 5 ms more)": (0.05, 200_000_000, 5),
    "2 s stalls of up to 20 ms": (0.005, 2_000_000_000, 20),
    "3 s stalls of up to 50 ms": (0.01, 3_000_000_000, 50),
}


class Midpoints:
    """The estimator before (until 2026-11-24): per 0.1 s slot the exchange with the fastest
    round trip, its midpoint a point of a least-squares line weighted by 1/(rtt + 20 µs)³
    over 15 s; a slope from three points, within ±2000 ppm."""

    def __init__(self) -> None:
        self.sync = clocksync.ClockSync()          # only for unwrapping the station's ticks
        self.points: deque[tuple[int, float, float, int]] = deque()   # slot, station µs, host ns, rtt

    def add(self, sent_ns: int, station_ticks: int, received_ns: int, turnaround_us: int = 0) -> None:
        self.sync.add(sent_ns, station_ticks, received_ns, turnaround_us)
        rtt = received_ns - sent_ns - turnaround_us * 1000
        point = (sent_ns // 100_000_000, self.sync.unwrap(station_ticks) + turnaround_us / 2,
                 (sent_ns + received_ns) / 2, rtt)
        if self.points and self.points[-1][0] == point[0]:
            if rtt >= self.points[-1][3]:
                return
            self.points.pop()
        while self.points and point[0] - self.points[0][0] >= 150:
            self.points.popleft()
        self.points.append(point)

    def to_host_ns(self, station_ticks: int) -> int:
        weights = [(p[3] + 20_000.0) ** -3 for p in self.points]
        total = sum(weights)
        x0, y0 = self.points[0][1], self.points[0][2]
        xm = sum(w * (p[1] - x0) for w, p in zip(weights, self.points)) / total
        ym = sum(w * (p[2] - y0) for w, p in zip(weights, self.points)) / total
        slope = 1000.0
        if len(self.points) >= 3:
            sxx = sum(w * (p[1] - x0 - xm) ** 2 for w, p in zip(weights, self.points))
            sxy = sum(w * (p[1] - x0 - xm) * (p[2] - y0 - ym) for w, p in zip(weights, self.points))
            if sxx > 0 and abs(sxy / sxx / 1000.0 - 1.0) < 0.002:
                slope = sxy / sxx
        return round(y0 + ym + (self.sync.unwrap(station_ticks) - x0 - xm) * slope)


def most_room(upper, lower, room):
    """The bounds' line at the slope with the most room (not the middle of the band)."""
    lo, hi = clocksync.NOMINAL * (1 - clocksync.MAX_DRIFT), clocksync.NOMINAL * (1 + clocksync.MAX_DRIFT)
    slopes = [lo, hi] + [b for b in clocksync._slopes(upper) + clocksync._slopes(lower) if lo < b < hi]
    best = max(slopes, key=room)
    return best if lo < best < hi else None


class MostRoom(clocksync.ClockSync):
    def _fit(self) -> None:
        saved = clocksync._middle_slope
        clocksync._middle_slope = most_room
        try:
            super()._fit()
        finally:
            clocksync._middle_slope = saved


VARIANTS = {"midpoints, cube weights (before)": Midpoints, "bounds, the slope with the most room": MostRoom,
            "bounds, the middle of the band (now)": clocksync.ClockSync}


def errors_ms(make, seed: int, stall: tuple[float, int, float], stations: int = 20) -> list[float]:
    chance, length, extra_ms = stall
    rng = random.Random(seed)
    errors = []
    for _ in range(stations):
        clock = StationClock(rng.randrange(1 << 30), rng.uniform(-200, 200))
        sync = make()
        t, stalled_until, extra = 1_000_000_000, 0, 0.0
        pressing_from = t + 10_000_000_000
        while t < pressing_from + 5_000_000_000:
            if t > stalled_until and rng.random() < chance:
                stalled_until, extra = t + length, rng.uniform(0, extra_ms * 1e6)
            down, up = rng.uniform(0, LINK_DELAY_NS), rng.uniform(0, LINK_DELAY_NS)
            if t < stalled_until:
                up += extra * rng.random()
            sync.add(t, clock.ticks(int(t + down)), int(t + down + up))
            if t > pressing_from:
                press = t + rng.uniform(0, PING_NS)
                errors.append(abs(sync.to_host_ns(clock.ticks(int(press))) - press) / 1e6)
            t += PING_NS
    return errors


def main() -> None:
    print("| link | " + " | ".join(VARIANTS) + " |")
    print("|---|" + "---|" * len(VARIANTS))
    for name, stall in STALLS.items():
        cells = []
        for make in VARIANTS.values():
            p99s = [percentile(errors_ms(make, seed, stall), 99) for seed in range(1, 9)]
            cells.append(f"{statistics.median(p99s):.2f} / {max(p99s):.2f}")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
