"""How fast one emulated station runs here (docs/rp2040.md, "Time"): a station on rp2040js from
the prepared flash, unpaced (its clock runs as fast as the host lets it), idle (the reader
polls, no card), ``runs`` slices of ``ms`` emulated milliseconds each; per slice the emulated
milliseconds per second of wall time and per second of CPU time of its two processes (the
Node emulator and the PN532 model), and the share of the time the core slept (WFE).

    python tools/rp2040_speed.py [runs] [ms]        (default: 7 slices of 1000 ms)

The wall figure depends on the machine's load; the CPU figure much less."""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

from hardware.sim.rp2040_station import rp2040_stations


def cpu_seconds(pid: int) -> float:
    """User and system time of a running process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def spread(values: list[float]) -> str:
    return f"median {statistics.median(values):.0f} (min {min(values):.0f}, max {max(values):.0f})"


def main(runs: int = 7, ms: float = 1000.0) -> None:
    (station,) = rp2040_stations(["speed-1"], paced=False)
    pids = (station._process.pid, station._chip.pid)
    try:
        station.run_for(500)                              # past the boot's set-up of the reader
        before = station.stats()
        walls, cpus = [], []
        for _ in range(runs):
            wall, cpu = time.monotonic(), sum(map(cpu_seconds, pids))
            station.run_for(ms)
            walls.append(ms / (time.monotonic() - wall))
            cpus.append(ms / max(0.01, sum(map(cpu_seconds, pids)) - cpu))
        after = station.stats()
    finally:
        station.close()
    slept = (after.get("asleep_ns", 0) - before.get("asleep_ns", 0)) / (after["emulated_ns"] - before["emulated_ns"])
    print(f"emulated ms per wall second: {spread(walls)}")
    print(f"emulated ms per CPU second:  {spread(cpus)}")
    print(f"the core slept {100 * slept:.0f} % of the time; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(int(args[0]) if args else 7, float(args[1]) if len(args) > 1 else 1000.0)
