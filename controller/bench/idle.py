"""What a box waiting on a shelf costs: the box at its menu with eight simulated stations
plugged in (and with two), and a turn-based game (Partout, six seats, the table dealing)
waiting for its first move, nobody pressing anything, headless; the CPU of the box's own
processes (the menu's and any it starts), not of the stations' simulators, which run in a
process of their own as stations are devices of their own. After ``SETTLE_S`` (the menu
drawn, the links synced), ``MEASURE_S`` of it, as a share of one core."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

from controller.bench.app import _descendants
from controller.bench.measure import Target

SETTLE_S = 4.0
MEASURE_S = 10.0

TARGETS: dict[str, Target] = {
    "idle_menu_cpu_pct_8": (1.0, "max", "% of a core", "the box at its menu, eight simulated stations, nobody "
                            "pressing (headless): the box's processes' CPU, not the simulators'"),
    "idle_menu_cpu_pct_2": (float("nan"), "info", "% of a core", "the same with two stations"),
    "idle_game_cpu_pct_6": (1.0, "max", "% of a core", "`spieltisch play partout` with six simulated stations, "
                            "the table dealing, waiting for the first move (headless): the box's processes' CPU"),
}


def _cpu_ticks(pid: int) -> int:
    total = 0
    for p in _descendants(pid):
        try:
            with open(f"/proc/{p}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])       # utime, stime
        except (OSError, IndexError, ValueError):
            pass
    return total


def _stations(count: int) -> None:
    """The simulators' side (``python -m controller.bench.idle N``): N stations on ptys,
    their ports on one line, plugged in until the input closes."""
    from hardware.sim.station import SimulatedStation
    sims = [SimulatedStation(f"idle{os.getpid()}x{i}").start() for i in range(count)]
    try:
        print(json.dumps([sim.port for sim in sims]), flush=True)
        sys.stdin.read()
    finally:
        for sim in sims:
            sim.close()


def menu_cpu_share(stations: int = 8, seconds: float = MEASURE_S, game: str | None = None) -> float:
    """The box's processes' CPU seconds a second at the menu, or with ``game`` that game
    waiting for its first move (0.01: 1 % of a core)."""
    side = subprocess.Popen([sys.executable, "-m", "controller.bench.idle", str(stations)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    box = None
    try:
        assert side.stdout is not None
        ports = json.loads(side.stdout.readline())
        with tempfile.TemporaryDirectory() as data:
            env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", SPIELTISCH_DATA=data)
            if game is None:
                command = ["-c", "import sys, json; from controller.app.box import run_box; "
                           f"run_box(json.loads(sys.argv[1]), lang='en', headless=True, "
                           f"timeout={SETTLE_S + seconds + 5})", json.dumps(ports)]
            else:
                command = ["-m", "controller.app.cli", "play", game, "--players", str(stations), "--virtual", "--new",
                           *[arg for port in ports for arg in ("--port", port)]]
            box = subprocess.Popen([sys.executable, *command], env=env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(SETTLE_S)
            start, ticks = time.monotonic(), _cpu_ticks(box.pid)
            time.sleep(seconds)
            used = (_cpu_ticks(box.pid) - ticks) / os.sysconf("SC_CLK_TCK")
            share = used / (time.monotonic() - start)
            box.kill()
            box.wait()
            return share
    finally:
        if box is not None and box.poll() is None:
            box.kill()
        if side.stdin is not None:
            side.stdin.close()
        side.wait(timeout=10)


def figures(quick: bool = False) -> dict[str, float]:
    seconds = 5.0 if quick else MEASURE_S
    return {"idle_menu_cpu_pct_8": 100 * menu_cpu_share(8, seconds),
            "idle_menu_cpu_pct_2": 100 * menu_cpu_share(2, seconds),
            "idle_game_cpu_pct_6": 100 * menu_cpu_share(6, seconds, game="partout")}


if __name__ == "__main__":
    _stations(int(sys.argv[1]))
