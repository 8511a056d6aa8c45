"""The clock sync in virtual time: a station's crystal that drifts and wanders, a link that
delays each way (and stalls), a station that answers every PING or one in fifty, and the
host's ``ClockSync`` fed with the exchanges that came back. Everything runs on the model's
own clock (host ns), so the figures are the same on any machine and with any load.

    >>> errors = sync_errors(seed=1, stations=2, seconds=30, answered=1)
    >>> len(errors.errors_ns) > 0 and errors.exchanges > 0
    True

A press is made at a random moment between exchanges; its error is the host time its stamp
maps to minus the true one, and beside it the sync's own bound on that error at that moment
(``ClockSync.error_ns``). Used by ``spieltisch bench`` (fairness, race) and the tests.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Callable

from hardware.clocksync import ClockSync
from hardware.protocol import STATION_TICKS_MODULO

PING_NS = 20_000_000                 # the link's exchange interval while racing (StationLink)
BASE_PPM = 50.0                      # the crystal: 50 ppm fast …
WANDER_PPM = 10.0                    # … wandering ±10 ppm
# … over one to three hours: a room and the box warming through an evening, 0.017 ppm a
# second at the fastest. A crystal near room temperature changes some 0.3 ppm per °C, so
# ±10 ppm is a swing of tens of °C; over ten to thirty minutes (the model until 2026-11-28)
# that was a swing of some 40 °C in five minutes, a hair dryer, not a table. The sync takes
# 0.05 ppm a second as the fastest (hardware/clocksync.py, WANDER_PER_S), three times what a
# Pi's crystal beside its warming SoC sees; the tests also run a crystal at exactly that
# (``sync_errors(period_s=…)``).
WANDER_PERIOD_S = (3600.0, 10800.0)


class WanderingCrystal:
    """A station's ``ticks_us`` against host time: an offset, a base drift and a wander
    ``wander_ppm·sin(2πt/period + phase)``, integrated exactly (the ticks are the integral
    of the crystal's rate), wrapping at 2^30 µs as MicroPython's do.

    >>> crystal = WanderingCrystal(offset_us=0, base_ppm=100, wander_ppm=0)
    >>> crystal.ticks(1_000_000_000)
    1000100
    """

    def __init__(self, offset_us: int, base_ppm: float = BASE_PPM, wander_ppm: float = WANDER_PPM,
                 period_s: float = 600.0, phase: float = 0.0) -> None:
        self.offset_us = offset_us
        self.base = base_ppm * 1e-6
        self.wander = wander_ppm * 1e-6
        self.omega = 2 * math.pi / (period_s * 1e9)     # per host ns
        self.phase = phase

    def drift_ppm(self, host_ns: float) -> float:
        return (self.base + self.wander * math.sin(self.omega * host_ns + self.phase)) * 1e6

    def elapsed_us(self, host_ns: float) -> float:
        """Station µs since host time 0 (unwrapped, not rounded)."""
        wander = self.wander * (math.cos(self.phase) - math.cos(self.omega * host_ns + self.phase)) / self.omega
        return (host_ns * (1 + self.base) + wander) / 1000

    def ticks(self, host_ns: float) -> int:
        return (int(self.elapsed_us(host_ns)) + self.offset_us) % STATION_TICKS_MODULO


# -- links: one way's delay (ns) for a frame at host time t -------------------------------------------
Way = Callable[[random.Random, float], float]


def uniform(low_ns: float, high_ns: float) -> Way:
    return lambda rng, t: rng.uniform(low_ns, high_ns)


@dataclass
class StalledBursts:
    """A link whose frames now and then stall in bursts: a USB hub or a station's loop held
    up by a card read. ``chance`` a frame starts a burst of ``frames`` stalled frames, each
    ``stall_ns`` later on top of the ``base`` delay."""
    base: Way
    chance: float = 0.01
    frames: int = 5
    stall_ns: float = 8_000_000
    _left: int = 0

    def __call__(self, rng: random.Random, t: float) -> float:
        delay = self.base(rng, t)
        if self._left == 0 and rng.random() < self.chance:
            self._left = self.frames
        if self._left:
            self._left -= 1
            delay += rng.uniform(0, self.stall_ns)
        return delay


@dataclass
class HostStalls:
    """The host stalls (every station at once): every ``every_ns`` (from ``start_ns``) its
    readers read nothing for ``length_ns``; what came in meanwhile is stamped at the stall's
    end. Shared by every station's way back, so it hits them all at the same moments."""
    every_ns: float = 2_000_000_000
    length_ns: float = 30_000_000
    start_ns: float = 0

    def late_by(self, arrival_ns: float) -> float:
        into = (arrival_ns - self.start_ns) % self.every_ns
        return self.length_ns - into if into < self.length_ns else 0.0


@dataclass
class Link:
    """One station's link: a way out (PING), a way back (PONG) and the host's stalls."""
    down: Way
    up: Way
    host: HostStalls | None = None

    def exchange(self, rng: random.Random, sent_ns: float) -> tuple[float, float]:
        """When the PING reaches the station and when its PONG is read (host ns)."""
        at_station = sent_ns + self.down(rng, sent_ns)
        back = at_station + self.up(rng, at_station)
        if self.host is not None:
            back += self.host.late_by(back)
        return at_station, back


ADAPTER = (0.0, 4_000_000.0)         # a USB-serial adapter, each way (controller/bench/fairness.py)
PICO = (100_000.0, 1_800_000.0)      # a Pico's own USB


def link_model(name: str) -> Callable[[], Link]:
    """The links the figures name: ``adapter``, ``pico``, ``bursts`` (the Pico's link, 2 % of
    its frames starting a burst of five stalled up to 8 ms), ``host`` (the Pico's link and a
    host that stalls 30 ms every 2 s, every station at once)."""
    shared = HostStalls()
    models: dict[str, Callable[[], Link]] = {
        "adapter": lambda: Link(uniform(*ADAPTER), uniform(*ADAPTER)),
        "pico": lambda: Link(uniform(*PICO), uniform(*PICO)),
        "bursts": lambda: Link(StalledBursts(uniform(*PICO), chance=0.02), StalledBursts(uniform(*PICO), chance=0.02)),
        "host": lambda: Link(uniform(*PICO), uniform(*PICO), shared),
    }
    return models[name]


@dataclass
class SyncErrors:
    errors_ns: list[float] = field(default_factory=list)    # mapped − true, signed
    bounds_ns: list[float] = field(default_factory=list)    # the sync's bound at the same moment
    # the same per station, each station's presses at the same moments of the model's clock
    by_station: list[tuple[list[float], list[float]]] = field(default_factory=list)
    exchanges: int = 0

    @property
    def outside(self) -> int:
        """Presses whose error was beyond the sync's own bound."""
        return sum(1 for e, b in zip(self.errors_ns, self.bounds_ns, strict=True) if abs(e) > b)

    def pairs_beyond_tie_window(self) -> tuple[int, int]:
        """Of every two stations' presses made in the same exchange interval, how many pairs'
        errors differ by more than the arbiter's tie window for them (their bounds together
        in quadrature, at least the 0.2 ms floor: controller/table/arbiter.py), and of how
        many pairs: a pair beyond it is ordered wrongly and sure of it when its presses are
        that close. Quadrature is safe as long as this stays 0, whatever the shape of the
        errors (a bound that is only a tail of them would not keep it so)."""
        from controller.table.arbiter import tie_window_ns
        beyond = pairs = 0
        for a, (errors_a, bounds_a) in enumerate(self.by_station):
            for errors_b, bounds_b in self.by_station[a + 1:]:
                for ea, ba, eb, bb in zip(errors_a, bounds_a, errors_b, bounds_b):
                    pairs += 1
                    beyond += abs(ea - eb) > tie_window_ns(round(ba), round(bb))
        return beyond, pairs


def sync_errors(seed: int = 1, stations: int = 20, seconds: float = 120.0, answered: int = 1,
                link: str = "adapter", measure_from_s: float | None = None,
                make: Callable[[], ClockSync] = ClockSync, wander_ppm: float = WANDER_PPM,
                ping_ns: int = PING_NS, period_s: tuple[float, float] = WANDER_PERIOD_S) -> SyncErrors:
    """``stations`` stations, each synced for ``seconds`` of virtual time with a PING every
    ``ping_ns``, one in ``answered`` of them answered (1: every one); from ``measure_from_s``
    (half the time unless told) one press between each two PINGs. Each station's crystal:
    a random offset, BASE_PPM ± 150 ppm, wandering ±``wander_ppm`` over a period drawn from
    ``period_s``."""
    rng = random.Random(f"syncmodel:{seed}:{link}:{answered}")
    make_link = link_model(link)
    out = SyncErrors()
    start = 1_000_000_000
    measure_from = start + (seconds / 2 if measure_from_s is None else measure_from_s) * 1e9
    for _ in range(stations):
        crystal = WanderingCrystal(rng.randrange(1 << 30), BASE_PPM + rng.uniform(-150, 150), wander_ppm,
                                   rng.uniform(*period_s), rng.uniform(0, 2 * math.pi))
        wire = make_link()
        sync = make()
        mine: tuple[list[float], list[float]] = ([], [])
        out.by_station.append(mine)
        t = start
        k = rng.randrange(answered)
        while t < start + seconds * 1e9:
            at_station, back = wire.exchange(rng, t)
            if k % answered == 0:
                sync.add(t, crystal.ticks(at_station), int(back))
                out.exchanges += 1
            k += 1
            if t >= measure_from and sync.ready:
                press = t + rng.uniform(0, ping_ns)
                mapped = sync.to_host_ns(crystal.ticks(press))
                assert mapped is not None
                out.errors_ns.append(mapped - press)
                out.bounds_ns.append(sync.error_ns(int(press)))
                mine[0].append(out.errors_ns[-1])
                mine[1].append(out.bounds_ns[-1])
            t += ping_ns
    return out
