"""Team UP! figures: how fast placements are checked, how fast the solver finds the best
line for a card order (the puzzle deck's perfect pallet; random orders, with how many were
proven the best), and what a bot game costs in the rules core.

Times are this process's CPU time, and the solver's budgets are CPU seconds too
(``time.process_time``): on a busy machine a wall-clock budget left the solver less work,
and fewer orders came out proven."""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from controller.bench.measure import Target, median_of
from controller.games import find_game

# seeded random card orders for the solver, and its CPU seconds for each: (orders, seconds)
RANDOM_SEARCH = {"quick": (5, 2.0), "default": (8, 5.0), "long": (20, 10.0)}
BOT_GAMES = {"quick": 3, "default": 3, "long": 12}     # whole bot games: about 9 s each, the bots thinking

TARGETS: dict[str, Target] = {
    "teamup_placement_per_s": (100_000, "min", "checks/s",
                               "Team UP!: placement_error, random packages on mid-game pallets (one pallet per turn)"),
    "teamup_placement_per_s_cold": (float("nan"), "info", "checks/s",
                                    "the same with a new pallet for every check (nothing shared)"),
    "teamup_puzzle_perfect_s": (2.0, "max", "s", "Team UP!: the solver's perfect pallet for the puzzle deck (median)"),
    "teamup_puzzle_perfect_s_max": (float("nan"), "info", "s", "the same, slowest of the runs"),
    "teamup_random_best_median": (float("nan"), "info", "points",
                                  "best score of seeded random orders, each searched for at most {} CPU s (median of {}; "
                                  "--long: {} × {} s)".format(RANDOM_SEARCH["default"][1], RANDOM_SEARCH["default"][0],
                                                              *RANDOM_SEARCH["long"])),
    "teamup_random_best_min": (float("nan"), "info", "points", "the same, lowest"),
    "teamup_random_perfect": (float("nan"), "info", "orders", "of those, orders allowing a perfect pallet (25)"),
    "teamup_random_proven": (float("nan"), "info", "orders", "of those, best score proven (the search ran to its end)"),
    "teamup_random_seconds_median": (float("nan"), "info", "s", "solver time per order (median)"),
    "teamup_random_seconds_max": (float("nan"), "info", "s", "the same, slowest"),
    "teamup_game_core_ms": (float("nan"), "info", "ms", "Team UP!: a whole bot game in the rules core, 2 players (median "
                            "of 3 games; --long: 12)"),
    "teamup_bot_score_median": (float("nan"), "info", "points", "the bots' score in those games (median)"),
    "teamup_bot_score_min": (float("nan"), "info", "points", "the same, lowest"),
    "teamup_bot_score_max": (float("nan"), "info", "points", "the same, highest"),
}


def pallets(count: int, seed: int = 3) -> list[tuple]:
    """Mid-game pallets (about 14 packages) from bot-free random play."""
    from controller.games.teamup import Draw, Place, card_to_place, fitting, kind_of_card, pallet_of
    rules, rng = find_game("team-up"), random.Random(seed)
    out: list[tuple[Any, ...]] = []
    while len(out) < count:
        state = rules.new_game({"players": 1}, rng.randrange(1 << 30))
        while len(state.placed) < 15 and state.phase != "over":
            state = rules.apply(state, Draw(0))
            options = list(fitting(pallet_of(state.placed), kind_of_card(card_to_place(state))))
            if not options:
                break
            state = rules.apply(state, Place.of(0, rng.choice(options)))
        out.append(state.placed)
    return out


def candidates(rng: random.Random, count: int) -> list[tuple]:
    """Packages anywhere on or just off the pallet, any turn, legal or not."""
    from controller.games.teamup import COLOURS, SHAPES, orientations
    out = []
    for _ in range(count):
        shape = rng.choice(list(SHAPES))
        dx, dy, dz = rng.choice(orientations(shape))
        out.append((shape, rng.choice(COLOURS), rng.randint(-1, 6 - dx), rng.randint(-1, 4 - dy), rng.randint(0, 4),
                    dx, dy, dz))
    return out


def placement_per_s(cold: bool = False, checks: int = 40_000) -> float:
    from controller.games.teamup import placement_error
    rng = random.Random(7)
    boards = pallets(40)
    packages = candidates(rng, checks)
    sample: list[tuple[Any, Any]]
    if cold:                        # every check on its own copy: the pallet is indexed every time
        boards = [tuple(list(b)) for b in boards]
        sample = [(list(boards[i % len(boards)]), p) for i, p in enumerate(packages)]
    else:
        sample = [(boards[(i * len(boards)) // checks], p) for i, p in enumerate(packages)]
    start = time.process_time()
    if cold:
        from controller.games.teamup import _pallet
        for placed, package in sample:
            _pallet.cache_clear()
            placement_error(placed, package)
    else:
        for placed, package in sample:
            placement_error(placed, package)
    return checks / (time.process_time() - start)


def puzzle_seconds() -> tuple[float, int]:
    from controller.games.teamup import CARD_NUMBERS, puzzle_neutral
    from controller.games.teamup_solver import solve
    found = solve(CARD_NUMBERS, puzzle_neutral(), 10.0, clock=time.process_time)
    return found.seconds if found.seconds is not None else 0.0, found.score       # (timed: it has seconds)


def random_orders(count: int, seconds: float) -> list:
    from controller.games.teamup import CARD_NUMBERS, random_neutral
    from controller.games.teamup_solver import solve
    out = []
    for seed in range(count):
        rng = random.Random(f"bench:{seed}")
        deck = list(CARD_NUMBERS)
        rng.shuffle(deck)
        out.append(solve(deck, random_neutral(rng), seconds, clock=time.process_time))
    return out


def bot_games(seeds: range) -> tuple[list[float], list[int]]:
    """Whole bot games in the rules core: their times (ms) and scores."""
    from controller.bots.teamup import TeamUpBot
    rules, bot = find_game("team-up"), TeamUpBot()
    times, scores = [], []
    for seed in seeds:
        state, rng = rules.new_game({"players": 2}, seed), random.Random(seed)
        start = time.process_time()
        while state.phase != "over":
            state = rules.apply(state, bot.choose(rules, state, state.to_act, rng))
        times.append((time.process_time() - start) * 1000)
        scores.append(rules.outcome(state).scores[0])  # type: ignore[union-attr]  # (over: it has an outcome)
    return times, scores


def figures(quick: bool = False, long: bool = False) -> dict[str, float]:
    runs = 3 if quick else 5
    out: dict[str, float] = {}
    out["teamup_placement_per_s"] = median_of(runs, placement_per_s)
    out["teamup_placement_per_s_cold"] = median_of(runs, lambda: placement_per_s(cold=True, checks=10_000))
    puzzle = [puzzle_seconds() for _ in range(runs)]
    out["teamup_puzzle_perfect_s"] = statistics.median(s for s, score in puzzle) if all(
        score == 25 for _, score in puzzle) else float("inf")
    out["teamup_puzzle_perfect_s_max"] = max(s for s, _ in puzzle)
    pace = "quick" if quick else "long" if long else "default"
    found = random_orders(*RANDOM_SEARCH[pace])
    scores = [f.score for f in found]
    out["teamup_random_best_median"] = statistics.median(scores)
    out["teamup_random_best_min"] = min(scores)
    out["teamup_random_perfect"] = sum(1 for s in scores if s == 25)
    out["teamup_random_proven"] = sum(1 for f in found if f.proven)
    out["teamup_random_seconds_median"] = statistics.median(f.seconds for f in found)
    out["teamup_random_seconds_max"] = max(f.seconds for f in found)
    times, scores = bot_games(range(BOT_GAMES[pace]))
    out["teamup_game_core_ms"] = statistics.median(times)
    out["teamup_bot_score_median"] = statistics.median(scores)
    out["teamup_bot_score_min"] = min(scores)
    out["teamup_bot_score_max"] = max(scores)
    return out

