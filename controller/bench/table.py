"""The live table's figures: a station's frame arriving → the action durably in the event
log, through real StationLinks and simulated stations on pseudo-terminals."""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time

from controller.bench.measure import Target, percentile
from controller.games import find_game

TARGETS: dict[str, Target] = {
    "frame_to_commit_ms_median": (0.2, "max", "ms", "station bytes arriving → action durably in the log (fsync)"),
    "frame_to_commit_ms_p99": (1.0, "max", "ms", "the same, 99th percentile"),
    "frame_to_applied_ms_median": (0.2, "max", "ms", "bytes arriving → action applied, log without fsync"),
    "frame_to_applied_ms_p99": (1.0, "max", "ms", "the same, 99th percentile"),
    "fsync_commit_ms_median": (float("nan"), "info", "ms", "one durable SQLite commit on this disk"),
}


def frame_latencies_ms(durable: bool, games: int = 2) -> list[float]:
    """Whole games at 4 simulated stations behind real StationLinks, one input at a time
    as people make them: each accepted action timed from the arrival of its last frame's
    bytes (taken by the reader thread) to the moment it is committed to the event log."""
    import queue as queue_module
    from controller.bots.driver import perform
    from controller.bots.partout import PartoutBot
    from controller.table import Table
    from controller.table.eventlog import EventLog
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
    from controller.table.eventlog import EventLog
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


def figures(quick: bool = False) -> dict[str, float]:
    out: dict[str, float] = {}
    durable = frame_latencies_ms(True, games=1 if quick else 3)
    out["frame_to_commit_ms_median"] = statistics.median(durable)
    out["frame_to_commit_ms_p99"] = percentile(durable, 99)
    fast = frame_latencies_ms(False, games=1 if quick else 3)
    out["frame_to_applied_ms_median"] = statistics.median(fast)
    out["frame_to_applied_ms_p99"] = percentile(fast, 99)
    out["fsync_commit_ms_median"] = fsync_commit_ms()
    return out
