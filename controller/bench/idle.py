"""What a box waiting on a shelf costs: the box at its menu with eight simulated stations
plugged in (and with two), and a turn-based game (Partout, six seats, the table dealing)
waiting for its first move, nobody pressing anything; headless, and with a window (on an
X display: the bench starts an Xvfb of its own when none is set, as a TV's window is what a
box has; until 2026-11-28 only headless, where a turn-based game with a TV looked at its
keys 60 times a second and cost 2.5 times as much: reviewer 2, finding 2). The CPU of the
box's own processes (the menu's, and any it starts: the screen's), not of the stations'
simulators, which run in a process of their own as stations are devices of their own.
After ``SETTLE_S`` (the menu drawn, the links synced; with a window also the screen's
``QUIET_AFTER_S``), ``SAMPLES`` consecutive windows of ``MEASURE_S / SAMPLES``: their median
as a share of one core, and their spread (the highest less the lowest)."""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Iterator

from controller.bench.app import _descendants
from controller.bench.measure import Target

SETTLE_S = 4.0
MEASURE_S = 10.0
SAMPLES = 5

TARGETS: dict[str, Target] = {
    "idle_menu_cpu_pct_8": (1.0, "max", "% of a core", "the box at its menu, eight simulated stations, nobody "
                            "pressing (headless): the box's processes' CPU, not the simulators'; median of 5 windows "
                            "of 2 s"),
    "idle_menu_cpu_pct_2": (float("nan"), "info", "% of a core", "the same with two stations"),
    "idle_game_cpu_pct_6": (1.0, "max", "% of a core", "`spieltisch play partout` with six simulated stations, "
                            "the table dealing, waiting for the first move (headless): the box's processes' CPU"),
    "idle_menu_cpu_pct_8_window": (1.0, "max", "% of a core", "the menu with eight stations, with a window (Xvfb "
                                   "unless DISPLAY is set): the box's processes', the screen's included; NaN without "
                                   "an X server"),
    "idle_game_cpu_pct_6_window": (1.0, "max", "% of a core", "`play partout`, six stations, waiting for the first "
                                   "move, with a window: the table's and the screen's processes"),
}
for _key in list(TARGETS):
    TARGETS[_key + "_spread"] = (float("nan"), "info", "% of a core", "the highest of its windows less the lowest")


def _cpu_seconds(pid: int) -> float:
    """The CPU time of ``pid`` and its descendants, in seconds: from each thread's scheduler
    statistics (ns) where the kernel keeps them; a window of 2 s in clock ticks (10 ms each)
    would count only in steps of half a per cent of a core."""
    total = 0
    for p in _descendants(pid):
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/schedstat") as stat:
                    total += int(stat.read().split()[0])
        except (OSError, IndexError, ValueError):
            return _cpu_ticks(pid) / os.sysconf("SC_CLK_TCK")
    return total / 1e9


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


def menu_cpu_shares(stations: int = 8, seconds: float = MEASURE_S, game: str | None = None,
                    display: str | None = None, samples: int = SAMPLES) -> list[float]:
    """The box's processes' CPU seconds a second at the menu, or with ``game`` that game
    waiting for its first move (0.01: 1 % of a core), in ``samples`` consecutive windows of
    ``seconds / samples``. ``display``: an X display to open a window on; headless without."""
    from display.screen_process import QUIET_AFTER_S
    side = subprocess.Popen([sys.executable, "-m", "controller.bench.idle", str(stations)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    box = None
    try:
        assert side.stdout is not None
        ports = json.loads(side.stdout.readline())
        with tempfile.TemporaryDirectory() as data:
            env = dict(os.environ, SDL_AUDIODRIVER="dummy", SPIELTISCH_DATA=data)
            if display is None:
                env["SDL_VIDEODRIVER"] = "dummy"
            else:
                env["DISPLAY"] = display
                env.pop("SDL_VIDEODRIVER", None)
            settle = SETTLE_S + (QUIET_AFTER_S if display is not None else 0.0)
            if game is None:
                command = ["-c", "import sys, json; from controller.app.box import run_box; "
                           f"run_box(json.loads(sys.argv[1]), lang='en', headless={display is None}, "
                           f"fullscreen=False, timeout={settle + seconds + 5})", json.dumps(ports)]
            else:
                command = ["-m", "controller.app.cli", "play", game, "--players", str(stations), "--virtual", "--new",
                           *[arg for port in ports for arg in ("--port", port)]]
            box = subprocess.Popen([sys.executable, *command], env=env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(settle)
            shares = []
            for _ in range(samples):
                start, cpu = time.monotonic(), _cpu_seconds(box.pid)
                time.sleep(seconds / samples)
                shares.append((_cpu_seconds(box.pid) - cpu) / (time.monotonic() - start))
            box.kill()
            box.wait()
            return shares
    finally:
        if box is not None and box.poll() is None:
            box.kill()
        if side.stdin is not None:
            side.stdin.close()
        side.wait(timeout=10)


def menu_cpu_share(stations: int = 8, seconds: float = MEASURE_S, game: str | None = None) -> float:
    """The median of ``menu_cpu_shares``, headless."""
    return statistics.median(menu_cpu_shares(stations, seconds, game))


@contextlib.contextmanager
def x_display() -> Iterator[str | None]:
    """The X display to measure a window on: DISPLAY when set, else an Xvfb started for the
    bench (and stopped after); None when there is neither (the windowed figures are then NaN)."""
    if os.environ.get("DISPLAY"):
        yield os.environ["DISPLAY"]
        return
    from controller.bench.app import virtual_display
    with virtual_display() as display:
        if display is None:
            print("bench: idle: no DISPLAY and no Xvfb: the windowed figures need one (apt install xvfb)",
                  file=sys.stderr)
        yield display


def figures(quick: bool = False) -> dict[str, float]:
    seconds = 5.0 if quick else MEASURE_S
    samples = 3 if quick else SAMPLES
    out: dict[str, float] = {}

    def measured(key: str, shares: list[float]) -> None:
        out[key] = 100 * statistics.median(shares)
        out[key + "_spread"] = 100 * (max(shares) - min(shares))

    measured("idle_menu_cpu_pct_8", menu_cpu_shares(8, seconds, samples=samples))
    measured("idle_menu_cpu_pct_2", menu_cpu_shares(2, seconds, samples=samples))
    measured("idle_game_cpu_pct_6", menu_cpu_shares(6, seconds, game="partout", samples=samples))
    with x_display() as display:
        for key, stations, game in (("idle_menu_cpu_pct_8_window", 8, None), ("idle_game_cpu_pct_6_window", 6,
                                                                                "partout")):
            if display is None:
                out[key] = out[key + "_spread"] = float("nan")
            else:
                measured(key, menu_cpu_shares(stations, seconds, game=game, display=display, samples=samples))
    return out


if __name__ == "__main__":
    _stations(int(sys.argv[1]))
