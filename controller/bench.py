"""``spieltisch bench``: the speed and memory figures the issues ask for, as medians over
repeated runs (this machine is shared and noisy; nothing here is a pass/fail test).
Each figure is one entry of a flat name → value mapping, so later issues add theirs."""

from __future__ import annotations

import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Callable

from controller.games import find_game

# name → (target, "min" or "max", unit, what it measures)
TARGETS: dict[str, tuple[float, str, str, str]] = {
    "partout_rounds_per_s": (2000, "min", "rounds/s", "random legal play, rules core alone, slowest of 3/4/6 players"),
    "partout_rounds_per_s_3p": (2000, "min", "rounds/s", "3 players"),
    "partout_rounds_per_s_4p": (2000, "min", "rounds/s", "4 players"),
    "partout_rounds_per_s_6p": (2000, "min", "rounds/s", "6 players"),
    "frame_to_commit_ms_median": (0.2, "max", "ms", "station bytes arriving → action durably in the log (fsync)"),
    "frame_to_commit_ms_p99": (1.0, "max", "ms", "the same, 99th percentile"),
    "frame_to_applied_ms_median": (0.2, "max", "ms", "bytes arriving → action applied, log without fsync"),
    "frame_to_applied_ms_p99": (1.0, "max", "ms", "the same, 99th percentile"),
    "fsync_commit_ms_median": (float("nan"), "info", "ms", "one durable SQLite commit on this disk"),
    "demo_first_frame_s": (1.5, "max", "s", "`spieltisch demo partout --headless`: start → first frame"),
    "demo_peak_mb": (150, "max", "MB", "its peak resident memory"),
}


def median_of(runs: int, measure: Callable[[], float]) -> float:
    return statistics.median(measure() for _ in range(runs))


# --- rules core ---------------------------------------------------------------------------------

def partout_rounds_per_s(players: int, seconds: float = 0.5) -> float:
    rules = find_game("partout")
    rng = random.Random(players)
    rounds, seed = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = rules.new_game({"players": players}, seed)
        seed += 1
        while state.to_act is not None:
            state = rules.apply(state, rng.choice(rules.legal_actions(state, state.to_act)))
        rounds += len(state.history)
    return rounds / (time.perf_counter() - start)


# --- station to commit --------------------------------------------------------------------------------

def frame_latencies_ms(durable: bool, games: int = 2) -> list[float]:
    """Whole games at 4 simulated stations behind real StationLinks, one input at a time
    as people make them: each accepted action timed from the arrival of its last frame's
    bytes (taken by the reader thread) to the moment it is committed to the event log."""
    import queue as queue_module
    from controller.bots import PartoutBot, perform
    from controller.eventlog import EventLog
    from controller.table import Table
    from hardware.link import StationLink
    from hardware.sim import SimulatedStation

    rules = find_game("partout")
    samples: list[float] = []
    with tempfile.TemporaryDirectory(dir=os.path.expanduser("~")) as data_dir:
        store = EventLog(os.path.join(data_dir, "bench.db"), durable=durable)
        sims = [SimulatedStation(f"bench-{i}").start() for i in range(4)]
        events: queue_module.Queue = queue_module.Queue()
        links = [StationLink(sim.port, events).open() for sim in sims]
        try:
            for game in range(games):
                table = Table(rules, config={"players": 4}, seed=game, stations=[s.station_id for s in sims],
                              log_store=store)
                bot = PartoutBot()
                while not table.finished:
                    seat = table.state.to_act
                    action = bot.choose(rules, table.state, seat, random.Random(len(table.actions)))
                    for step in table.adapter.inputs_for(table.state, seat, action):
                        perform(sims[seat], "partout", step, release=False)
                        before = len(table.actions)
                        while True:
                            event = events.get(timeout=5)
                            table.handle(event)
                            if getattr(event, "seq", None) == sims[seat].last_seq:
                                break
                        if len(table.actions) > before:
                            samples.append((time.monotonic_ns() - event.arrived_ns) / 1e6)
        finally:
            for link in links:
                link.close()
            for sim in sims:
                sim.close()
            store.close()
    return samples


def fsync_commit_ms(n: int = 200) -> float:
    from controller.eventlog import EventLog
    with tempfile.TemporaryDirectory(dir=os.path.expanduser("~")) as data_dir:
        store = EventLog(os.path.join(data_dir, "b.db"))
        gid = store.start_game("partout", {}, 0, [])
        times = []
        for i in range(n):
            t = time.perf_counter_ns()
            store.append(gid, {"type": "bid", "player": 0, "tricks": i})
            times.append((time.perf_counter_ns() - t) / 1e6)
        store.close()
    return statistics.median(times)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


# --- the demo as a user starts it --------------------------------------------------------------------

def demo_start(seed: int) -> tuple[float, float]:
    """(seconds from launch to the first frame drawn, peak RSS in MB) of a headless demo."""
    with tempfile.TemporaryDirectory(dir=os.path.expanduser("~")) as data_dir:
        env = dict(os.environ, SPIELTISCH_DATA=data_dir, SPIELTISCH_REPORT_FIRST_FRAME="1")
        start = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "demo", "partout", "--headless",
                                 "--seed", str(seed)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _, err = proc.communicate(timeout=120)
        # Peak RSS of the largest child so far; the figure reported is the max over runs anyway.
        peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        first = None
        for line in err.decode().splitlines():
            if line.startswith("first-frame "):
                first = float(line.split()[1]) - start
        if proc.returncode != 0 or first is None:
            raise RuntimeError(f"demo failed ({proc.returncode}): {err.decode()[-400:]}")
        return first, peak_kb / 1024


def run(quick: bool = False) -> dict[str, float]:
    runs = 3 if quick else 5
    figures: dict[str, float] = {}
    for players in (3, 4, 6):
        figures[f"partout_rounds_per_s_{players}p"] = median_of(runs, lambda: partout_rounds_per_s(players))
    figures["partout_rounds_per_s"] = min(figures[f"partout_rounds_per_s_{p}p"] for p in (3, 4, 6))
    durable = frame_latencies_ms(True, games=1 if quick else 3)
    figures["frame_to_commit_ms_median"] = statistics.median(durable)
    figures["frame_to_commit_ms_p99"] = percentile(durable, 99)
    fast = frame_latencies_ms(False, games=1 if quick else 3)
    figures["frame_to_applied_ms_median"] = statistics.median(fast)
    figures["frame_to_applied_ms_p99"] = percentile(fast, 99)
    figures["fsync_commit_ms_median"] = fsync_commit_ms()
    starts = [demo_start(seed) for seed in range(runs)]
    figures["demo_first_frame_s"] = statistics.median(s for s, _ in starts)
    # the largest peak seen: memory is a limit, not an average
    figures["demo_peak_mb"] = max(m for _, m in starts)
    return {k: round(v, 4) for k, v in figures.items()}


def table(figures: dict[str, float]) -> str:
    rows = [("figure", "value", "target", "", "what")]
    for name, value in figures.items():
        target, kind, unit, what = TARGETS.get(name, (float("nan"), "info", "", ""))
        if kind == "min":
            verdict, shown = ("ok" if value >= target else "MISSED"), f"≥ {target:g} {unit}"
        elif kind == "max":
            verdict, shown = ("ok" if value <= target else "MISSED"), f"≤ {target:g} {unit}"
        else:
            verdict, shown = "", unit
        rows.append((name, f"{value:g}", shown, verdict, what))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)


def main(as_json: bool, quick: bool) -> int:
    figures = run(quick=quick)
    print(json.dumps(figures) if as_json else table(figures))
    return 0
