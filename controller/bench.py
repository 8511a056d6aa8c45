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
    "ck_order_arbiter_pct": (99.9, "min", "%", "Crazy Kick: pairs of presses ordered right by the arbiter "
                             "(8 stations, 1 ms apart, 0-4 ms link delay, ±200 ppm)"),
    "ck_order_arrival_pct": (float("nan"), "info", "%", "the same pairs in plain arrival order"),
    "ck_decision_delay_ms_max": (5.0, "max", "ms", "the arbiter's hold: frame arrival → release, worst press"),
    "ck_decision_delay_ms_median": (float("nan"), "info", "ms", "the same, median"),
    "clock_sync_error_ms_p99": (0.5, "max", "ms", "press time on the host clock vs truth after 10 s of sync "
                                "(0-4 ms asymmetric delay, ±200 ppm)"),
    "clock_sync_error_ms_median": (float("nan"), "info", "ms", "the same, median"),
    "ck_press_ms_p99": (0.5, "max", "ms", "host processing per press: arbiter + input adapter + rules + table"),
    "ck_press_ms_median": (float("nan"), "info", "ms", "the same, median"),
    "ck_match_core_ms": (50, "max", "ms", "a whole 4-player bot match in the rules core, simulated clock"),
    "ck_match_core_ms_8p": (50, "max", "ms", "the same with 8 players"),
    "ck_attack_plays_mean": (float("nan"), "info", "cards", "cards played from kick-off to goal (bots, 4 players)"),
    "ck_goal_seconds_median": (float("nan"), "info", "s", "kick-off → goal, bots reacting in 250-600 ms"),
    "ck_goal_seconds_mean": (float("nan"), "info", "s", "the same, mean"),
    "ck_match_minutes_median": (float("nan"), "info", "min", "a whole bot match to 5 goals"),
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
        links = [StationLink(sim.port, events, flood_limit=False).open() for sim in sims]
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


# --- Crazy Kick: clock sync, arbiter, processing, the decks' liveliness -----------------------------

LINK_DELAY_NS = 4_000_000        # each way, uniform from 0
PING_NS = 40_000_000             # the link's sync exchange interval


def _synced_station(rng: random.Random, seconds: float = 10.0):
    """A station clock with a random offset and up to ±200 ppm drift, and a ClockSync that
    has exchanged pings with it for ``seconds`` over a 0-4 ms each-way random link."""
    from hardware.clocksync import ClockSync
    from hardware.sim import StationClock
    clock = StationClock(rng.randrange(1 << 30), rng.uniform(-200, 200))
    sync = ClockSync()
    end = _keep_syncing(rng, clock, sync, 1_000_000_000, 1_000_000_000 + int(seconds * 1e9))
    return clock, sync, end


def _keep_syncing(rng, clock, sync, start: int, end: int) -> int:
    """Exchanges every PING_NS from ``start`` until ``end``; returns the time after the last."""
    t = start
    while t < end:
        down, up = rng.uniform(0, LINK_DELAY_NS), rng.uniform(0, LINK_DELAY_NS)
        sync.add(t, clock.ticks(int(t + down)), int(t + down + up))
        t += PING_NS
    return t


def clock_sync_errors_ms(stations: int = 40, presses: int = 50, seed: int = 1) -> list[float]:
    """Press time mapped to the host clock minus the true press time, after 10 s of sync."""
    rng = random.Random(seed)
    errors = []
    for _ in range(stations):
        clock, sync, t = _synced_station(rng)
        for _ in range(presses):
            press = t + rng.uniform(0, PING_NS)
            errors.append(abs(sync.to_host_ns(clock.ticks(int(press))) - press) / 1e6)
            _keep_syncing(rng, clock, sync, t, t + PING_NS)
            t += PING_NS
    return errors


def ordering_accuracy(bursts: int = 400, seed: int = 1, stations: int = 8) -> dict[str, float]:
    """Bursts of presses 1 ms apart at 8 stations; each frame reaches the host 0-4 ms later.
    The share of pairs the arbiter puts in true order, the same for arrival order, and
    the arbiter's hold (arrival → release)."""
    import itertools
    from controller.arbiter import Arbiter
    rng = random.Random(seed)
    synced = [_synced_station(rng) for _ in range(stations)]
    t = max(s[2] for s in synced)
    arbiter = Arbiter()
    right = right_by_arrival = 0
    holds: list[float] = []
    for _ in range(bursts):
        order = list(range(stations))
        rng.shuffle(order)
        start = t + rng.uniform(0, 20e6)
        arrivals = sorted((press + rng.uniform(0, LINK_DELAY_NS), press, s)
                          for press, s in ((start + k * 1e6, s) for k, s in enumerate(order)))
        released: list[tuple] = []

        def release(now: float) -> None:
            for item in arbiter.due(int(now)):
                holds.append((now - item[0]) / 1e6)
                released.append(item)
        for arrived, press, s in arrivals:
            # the runner wakes at each hold's deadline, and at each frame
            while len(arbiter) and arbiter.next_deadline() <= arrived:
                release(arbiter.next_deadline())
            release(arrived)
            clock, sync, _ = synced[s]
            arbiter.push((arrived, s), station=str(s), pressed_ns=sync.to_host_ns(clock.ticks(int(press))),
                         arrived_ns=int(arrived))
        while len(arbiter):
            release(arbiter.next_deadline())
        rank = {s: k for k, s in enumerate(order)}
        right += sum(rank[a[1]] < rank[b[1]] for a, b in itertools.combinations(released, 2))
        right_by_arrival += sum(rank[a[2]] < rank[b[2]] for a, b in itertools.combinations(arrivals, 2))
        t = start + 100e6
        for clock, sync, _ in synced:
            _keep_syncing(rng, clock, sync, int(start), int(t))
    pairs = bursts * stations * (stations - 1) // 2
    return {"arbiter": right / pairs, "arrival": right_by_arrival / pairs,
            "hold_ms_max": max(holds), "hold_ms_median": statistics.median(holds)}


def press_processing_ms(seed: int = 1) -> list[float]:
    """Host time per press in a bot match: arbiter push and release, input adapter, rules
    core, table feedback (the durable log write is measured on its own above)."""
    from controller.games.crazykick import RULES
    from controller.kickbots import KickBot
    from controller.realtime import RealtimeRunner
    from controller.table import Table
    from hardware.events import ButtonEvent

    class NoLink:
        def send(self, *args):
            return True

    stations = [f"s{i}" for i in range(4)]
    table = Table(RULES, config={"players": 4}, seed=seed, stations=stations)
    runner = RealtimeRunner(table, None, {s: NoLink() for s in stations})  # type: ignore[arg-type]
    bots = [KickBot(seat, seed) for seat in range(4)]
    costs: list[float] = []
    now, seq = 1_000_000_000, 0
    while not table.finished and seq < 20_000:
        plans = [(p.at_ms, seat, p) for seat, bot in enumerate(bots) if (p := bot.plan(table.state, now / 1e6))]
        if not plans:
            break
        at_ms, seat, plan = min(plans)
        now = max(now, int(at_ms * 1e6))
        for step in table.adapter.inputs_for(table.state, seat, plan.action):
            event = ButtonEvent(stations[seat], seq, step.arg, True, 0, now, now)
            seq += 1
            start = time.perf_counter_ns()
            runner.accept(event)
            runner.clock = lambda: now + 10_000_000      # past the hold
            runner.release()
            costs.append((time.perf_counter_ns() - start) / 1e6)
    return costs


def crazykick_matches(players: int, seeds: range) -> tuple[list[float], list]:
    from controller.kickbots import simulate_match
    times, stats = [], []
    for seed in seeds:
        start = time.perf_counter()
        stats.append(simulate_match({"players": players}, seed))
        times.append((time.perf_counter() - start) * 1000)
    return times, stats


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
    figures.update(crazykick_figures(quick))
    from controller import bench_stations
    figures.update(bench_stations.figures(quick))
    return {k: round(v, 4) for k, v in figures.items()}


def crazykick_figures(quick: bool = False) -> dict[str, float]:
    figures: dict[str, float] = {}
    order = ordering_accuracy(bursts=150 if quick else 400)
    figures["ck_order_arbiter_pct"] = 100 * order["arbiter"]
    figures["ck_order_arrival_pct"] = 100 * order["arrival"]
    figures["ck_decision_delay_ms_max"] = order["hold_ms_max"]
    figures["ck_decision_delay_ms_median"] = order["hold_ms_median"]
    errors = clock_sync_errors_ms(stations=20 if quick else 40)
    figures["clock_sync_error_ms_p99"] = percentile(errors, 99)
    figures["clock_sync_error_ms_median"] = statistics.median(errors)
    costs = [c for seed in range(2 if quick else 5) for c in press_processing_ms(seed)]
    figures["ck_press_ms_p99"] = percentile(costs, 99)
    figures["ck_press_ms_median"] = statistics.median(costs)
    seeds = range(10 if quick else 30)
    times, stats = crazykick_matches(4, seeds)
    figures["ck_match_core_ms"] = statistics.median(times)
    figures["ck_match_core_ms_8p"] = statistics.median(crazykick_matches(8, seeds)[0])
    plays = [n for s in stats for n in s.attack_plays]
    seconds = [x for s in stats for x in s.attack_seconds]
    figures["ck_attack_plays_mean"] = statistics.mean(plays)
    figures["ck_goal_seconds_median"] = statistics.median(seconds)
    figures["ck_goal_seconds_mean"] = statistics.mean(seconds)
    figures["ck_match_minutes_median"] = statistics.median(s.match_seconds for s in stats) / 60
    return figures


def table(figures: dict[str, float]) -> str:
    from controller.bench_stations import TARGETS as STATION_TARGETS
    targets = {**TARGETS, **STATION_TARGETS}
    rows = [("figure", "value", "target", "", "what")]
    for name, value in figures.items():
        target, kind, unit, what = targets.get(name, (float("nan"), "info", "", ""))
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
