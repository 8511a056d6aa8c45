"""Clock sync in a model with a host that stalls: the table in docs/crazy-kick.md ("Clock
sync"), for the slot length and the round trip's weight.

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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.bench.fairness import LINK_DELAY_NS, PING_NS  # noqa: E402  (the sync model's own link)
from controller.bench.measure import percentile  # noqa: E402
from hardware import clocksync  # noqa: E402
from hardware.sim import StationClock  # noqa: E402
STALLS = {                      # name: (chance a ping starts a stall, its length ns, its extra delay ms)
    "quiet (0-4 ms each way)": (0.0, 0, 0),
    "short stalls (5 % of pings start 0.2 s of up to 5 ms more)": (0.05, 200_000_000, 5),
    "2 s stalls of up to 20 ms": (0.005, 2_000_000_000, 20),
    "3 s stalls of up to 50 ms": (0.01, 3_000_000_000, 50),
}


def variant(slot_ns: int, power: int):
    """ClockSync with another slot length (over the same 15 s) and weight power."""
    class Variant(clocksync.ClockSync):
        weight_power = power

        def __init__(self) -> None:
            super().__init__(slot_ns=slot_ns, window_slots=15_000_000_000 // slot_ns)
    return Variant


VARIANTS = {"0.5 s, square (before)": variant(500_000_000, 2), "0.1 s, square": variant(100_000_000, 2),
            "0.1 s, cube (now)": variant(100_000_000, 3)}


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
