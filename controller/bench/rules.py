"""Rules-core figures: how fast each game's rules run on their own, and whether Crazy Kick's
decks play lively (bots on a simulated clock).

Every time here is this process's CPU time (``time.process_time``), not the wall clock: on
a shared machine a busy minute stretched the wall clock, and with it a rate (Partout's 6
players once came out faster than its 3). A rules core waits on nothing, so on a quiet
machine the two agree."""

from __future__ import annotations

import random
import statistics
import time

from controller.bench.measure import Target, median_of, percentile
from controller.games import find_game

TARGETS: dict[str, Target] = {
    "teamplay_fulfills_per_s": (100_000, "min", "checks/s", "Teamplay: fulfills, random missions and 2-6 cards"),
    "teamplay_ways_ms": (1.0, "max", "ms", "Teamplay: all 16 mission types searched in an 8-card hand (median)"),
    "teamplay_ways_ms_p90": (float("nan"), "info", "ms", "the same, 90th percentile"),
    "teamplay_game_core_ms": (20, "max", "ms", "Teamplay: a whole bot game in the rules core, 4 players (median)"),
    "teamplay_game_core_ms_6p": (float("nan"), "info", "ms", "the same with 6 players"),
    "tadika_swap_match_per_s": (500_000, "min", "checks/s", "Tadika: swap_match on random pairs of the deck"),
    "tadika_hand_score_per_s": (100_000, "min", "hands/s", "Tadika: hand_score on random seven-card hands"),
    "tadika_round_core_ms": (10, "max", "ms", "Tadika: a whole bot round in the rules core, 4 players (median)"),
    "tadika_round_core_ms_p90": (float("nan"), "info", "ms", "the same, 90th percentile"),
    "tadika_rounds_per_match": (float("nan"), "info", "rounds", "bot rounds to 50 points, 4 players (median)"),
    "partout_rounds_per_s": (2000, "min", "rounds/s", "random legal play, rules core alone, slowest of 3/4/6 players (per CPU second)"),
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
    """Rounds of random legal play per second of CPU time, over ``seconds`` of it."""
    rules = find_game("partout")
    rng = random.Random(players)
    rounds, seed = 0, 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = rules.new_game({"players": players}, seed)
        seed += 1
        while state.to_act is not None:
            state = rules.apply(state, rng.choice(rules.legal_actions(state, state.to_act)))
        rounds += len(state.history)
    return rounds / (time.process_time() - start)


def crazykick_matches(players: int, seeds: range) -> tuple[list[float], list]:
    from controller.bots.crazykick import simulate_match
    times, stats = [], []
    for seed in seeds:
        start = time.process_time()
        stats.append(simulate_match({"players": players, "handicap": False}, seed))
        times.append((time.process_time() - start) * 1000)
    return times, stats


def tadika_swap_match_per_s(checks: int = 200_000) -> float:
    from controller.games.tadika import deck, swap_match
    rng = random.Random(1)
    cards = deck(True)
    pairs = [(a, b) for a, b in ((rng.choice(cards), rng.choice(cards)) for _ in range(checks)) if a != b]
    start = time.process_time()
    for give, take in pairs:
        swap_match(give, take)
    return len(pairs) / (time.process_time() - start)


def tadika_hand_score_per_s(hands: int = 50_000) -> float:
    from controller.games.tadika import deck, hand_score
    rng = random.Random(2)
    cards = deck(True)
    sample = [rng.sample(cards, 7) for _ in range(hands)]
    start = time.process_time()
    for hand in sample:
        hand_score(hand)
    return hands / (time.process_time() - start)


def tadika_bot_rounds(players: int, seeds: range) -> tuple[list[float], list[int]]:
    """Per round, the milliseconds the bots and the rules core take to play it (bot
    decisions included); and per match, its rounds."""
    from controller.bots.tadika import TadikaBot
    rules = find_game("tadika")
    bot = TadikaBot()
    round_ms, rounds = [], []
    for seed in seeds:
        state = rules.new_game({"players": players}, seed)
        rng = random.Random(seed)
        start = time.process_time()
        while state.phase != "over":
            before = len(state.history)
            state = rules.apply(state, bot.choose(rules, state, state.to_act, rng))
            if len(state.history) != before:
                round_ms.append((time.process_time() - start) * 1000)
                start = time.process_time()
        rounds.append(len(state.history))
    return round_ms, rounds


def teamplay_fulfills_per_s(checks: int = 50_000) -> float:
    from controller.games.teamplay import MISSIONS, NUMBER_CARDS, fulfills
    rng = random.Random(4)
    sample = [(rng.choice(list(MISSIONS)), rng.sample(NUMBER_CARDS, rng.randint(2, 6))) for _ in range(checks)]
    start = time.process_time()
    for mission_id, cards in sample:
        fulfills(mission_id, cards)
    return checks / (time.process_time() - start)


def teamplay_ways_ms(hands: int = 300) -> list[float]:
    from controller.games.teamplay import MISSIONS, NUMBER_CARDS, ways
    rng = random.Random(5)
    times = []
    for _ in range(hands):
        hand = rng.sample(NUMBER_CARDS, 8)
        start = time.process_time()
        for mission_id in MISSIONS:
            ways(mission_id, hand)
        times.append((time.process_time() - start) * 1000)
    return times


def teamplay_games_ms(players: int, seeds: range) -> list[float]:
    from controller.bots.teamplay import TeamplayBot
    rules, bot = find_game("teamplay"), TeamplayBot()
    times = []
    for seed in seeds:
        state, rng = rules.new_game({"players": players}, seed), random.Random(seed)
        start = time.process_time()
        while state.phase != "over":
            state = rules.apply(state, bot.choose(rules, state, state.to_act, rng))
        times.append((time.process_time() - start) * 1000)
    return times


def figures(quick: bool = False) -> dict[str, float]:
    runs = 3 if quick else 5
    out: dict[str, float] = {}
    out["teamplay_fulfills_per_s"] = median_of(runs, teamplay_fulfills_per_s)
    searched = teamplay_ways_ms(100 if quick else 300)
    out["teamplay_ways_ms"] = statistics.median(searched)
    out["teamplay_ways_ms_p90"] = percentile(searched, 90)
    seeds = range(10 if quick else 30)
    out["teamplay_game_core_ms"] = statistics.median(teamplay_games_ms(4, seeds))
    out["teamplay_game_core_ms_6p"] = statistics.median(teamplay_games_ms(6, seeds))
    out["tadika_swap_match_per_s"] = median_of(runs, tadika_swap_match_per_s)
    out["tadika_hand_score_per_s"] = median_of(runs, tadika_hand_score_per_s)
    round_ms, rounds = tadika_bot_rounds(4, range(10 if quick else 30))
    out["tadika_round_core_ms"] = statistics.median(round_ms)
    out["tadika_round_core_ms_p90"] = percentile(round_ms, 90)
    out["tadika_rounds_per_match"] = statistics.median(rounds)
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
