"""Rules-core figures: how fast each game's rules run on their own, and whether Crazy Kick's
decks play lively (bots on a simulated clock)."""

from __future__ import annotations

import random
import statistics
import time

from controller.bench.measure import Target, median_of
from controller.games import find_game

TARGETS: dict[str, Target] = {
    "partout_rounds_per_s": (2000, "min", "rounds/s", "random legal play, rules core alone, slowest of 3/4/6 players"),
    "partout_rounds_per_s_3p": (2000, "min", "rounds/s", "3 players"),
    "partout_rounds_per_s_4p": (2000, "min", "rounds/s", "4 players"),
    "partout_rounds_per_s_6p": (2000, "min", "rounds/s", "6 players"),
    "ck_match_core_ms": (50, "max", "ms", "a whole 4-player bot match in the rules core, simulated clock"),
    "ck_match_core_ms_8p": (50, "max", "ms", "the same with 8 players"),
    "ck_attack_plays_mean": (float("nan"), "info", "cards", "cards played from kick-off to goal (bots, 4 players)"),
    "ck_goal_seconds_median": (float("nan"), "info", "s", "kick-off → goal, bots reacting in 250-600 ms"),
    "ck_goal_seconds_mean": (float("nan"), "info", "s", "the same, mean"),
    "ck_match_minutes_median": (float("nan"), "info", "min", "a whole bot match to 5 goals"),
}


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


def crazykick_matches(players: int, seeds: range) -> tuple[list[float], list]:
    from controller.bots.crazykick import simulate_match
    times, stats = [], []
    for seed in seeds:
        start = time.perf_counter()
        stats.append(simulate_match({"players": players}, seed))
        times.append((time.perf_counter() - start) * 1000)
    return times, stats


def figures(quick: bool = False) -> dict[str, float]:
    runs = 3 if quick else 5
    out: dict[str, float] = {}
    for players in (3, 4, 6):
        out[f"partout_rounds_per_s_{players}p"] = median_of(runs, lambda: partout_rounds_per_s(players))
    out["partout_rounds_per_s"] = min(out[f"partout_rounds_per_s_{p}p"] for p in (3, 4, 6))
    seeds = range(10 if quick else 30)
    times, stats = crazykick_matches(4, seeds)
    out["ck_match_core_ms"] = statistics.median(times)
    out["ck_match_core_ms_8p"] = statistics.median(crazykick_matches(8, seeds)[0])
    plays = [n for s in stats for n in s.attack_plays]
    seconds = [x for s in stats for x in s.attack_seconds]
    out["ck_attack_plays_mean"] = statistics.mean(plays)
    out["ck_goal_seconds_median"] = statistics.median(seconds)
    out["ck_goal_seconds_mean"] = statistics.mean(seconds)
    out["ck_match_minutes_median"] = statistics.median(s.match_seconds for s in stats) / 60
    return out
