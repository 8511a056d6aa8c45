"""Crazy Kick's balance: with bots of equal skill, does either team, the team that kicks
off, or either side of an uneven table win more than chance allows? Whole matches of
bots on the rules core (simulated clock), and random walks through the decks alone.

The bots are the same for every seat (``controller/bots/crazykick.py``), so a share far
from half comes from the decks, the rules or the buttons, not from the players. With
2,000 matches a share's standard error is about 1.1 points; the goals leave room for it
(with fewer, as ``--quick`` plays, a share misses its goal by chance alone).

The matches are pure CPU work (about 12 ms each, two minutes of CPU in all), shared out
over every core the bench may use, each worker a process of its own: a minute on two
cores. The run that "stalled at 18 % CPU" was waiting for a core, not for anything of its
own (17,551 involuntary context switches against 19 voluntary ones in a run like it): it
played on one core of a machine others kept busy. The bench prints each area's time and
CPU time on stderr.
"""

from __future__ import annotations

import os
import random
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

from controller.bench.measure import Target

# matches per figure: the first team's wins (4 players), each uneven layout, and the stalls
MATCHES = {"quick": 200, "default": 2000}
LAYOUT_MATCHES = {"quick": 100, "default": 1000}
STALL_MATCHES = {"quick": 100, "default": 500}
WALKS = 20_000

TARGETS: dict[str, Target] = {}
for _edition in ("schmidt", "dlp"):
    TARGETS.update({
        f"ck_team0_wins_pct_{_edition}": ((48, 52), "range", "%",
                                          f"Crazy Kick ({_edition}), 4 players: matches the first team wins "
                                          f"(of {MATCHES['default']:,})"),
        f"ck_team0_walk_goals_pct_{_edition}": ((47, 53), "range", "%",
                                                f"({_edition}) random-walk attacks through the deck: the first team's goals"),
        f"ck_kickoff_goal_pct_{_edition}": ((50, 100), "range", "%",
                                            f"({_edition}) goals scored by the team that kicked off"),
    })
for _players in (2, 4):
    TARGETS[f"ck_stall_matches_over_hint_pct_{_players}p"] = (
        float("nan"), "info", "%", f"Crazy Kick, {_players} players: matches with a stall long enough for the hint "
                                   f"(of {STALL_MATCHES['default']})")
    TARGETS[f"ck_stall_longest_s_{_players}p"] = (
        float("nan"), "info", "s", "the longest stall of those matches (bots flip every 180-380 ms)")
for _players in (3, 5, 7):
    TARGETS[f"ck_larger_side_wins_pct_{_players}p"] = (
        (45, 55), "range", "%", f"Crazy Kick, {_players} players (schmidt): matches the larger team wins, "
                                "with the handicap variant (--handicap: uneven_goals, uneven_goal_cards_kept; "
                                f"of {LAYOUT_MATCHES['default']:,})")
for _players in (3, 7):
    TARGETS[f"ck_larger_side_wins_book_pct_{_players}p"] = (
        float("nan"), "info", "%", f"the same, {_players} players, as the book prints (the default)")


def workers() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


_POOL: ProcessPoolExecutor | None = None        # while ``figures`` runs: one worker per core


def _shared_out(work, count: int, *args) -> list:
    """``work(seeds, *args)`` for the seeds 0..count-1, split among the workers (in this
    process when there is no pool). Each seed is one match whoever plays it, so the figures
    are those of one process playing them all."""
    parts = workers() if _POOL is not None else 1
    seeds = [range(k, count, parts) for k in range(parts)]
    if _POOL is None:
        return [work(seeds[0], *args)]
    return list(_POOL.map(work, seeds, *([a] * parts for a in args)))


def _match_counts(seeds: range, players: int, edition: str, handicap: bool) -> tuple[int, int, int, int]:
    from controller.bots.crazykick import simulate_match
    wins = decided = kickoff_goals = goals = 0
    for seed in seeds:
        stats = simulate_match({"players": players, "edition": edition, "handicap": handicap},
                               seed)
        if stats.result["winner"] is not None:
            decided += 1
            wins += stats.result["winner"] == 0
        goals += len(stats.attack_teams)
        kickoff_goals += sum(1 for kicked, scored in stats.attack_teams if kicked == scored)
    return wins, decided, kickoff_goals, goals


def matches(players: int, edition: str, count: int, handicap: bool = False) -> tuple[float, float]:
    """(% of matches team 0 wins, % of goals scored by the team that kicked off)."""
    wins, decided, kickoff_goals, goals = (sum(part) for part in zip(*_shared_out(
        _match_counts, count, players, edition, handicap)))
    return 100 * wins / decided, 100 * kickoff_goals / goals


def _longest_stalls(seeds: range, players: int) -> list[float]:
    from controller.bots.crazykick import simulate_match
    return [max(simulate_match({"players": players, "handicap": False}, seed).stalls, default=0.0) for seed in seeds]


def stalls(players: int, count: int) -> tuple[float, float]:
    """(% of matches with a stall of at least the hint's delay, the longest stall in s): a
    stall is a stretch with no open card fitting the centre while some in hands do."""
    from controller.games.crazykick import STALL_HINT_S
    longest = [s for part in _shared_out(_longest_stalls, count, players) for s in part]
    return 100 * sum(1 for s in longest if s >= STALL_HINT_S) / count, max(longest)


def walk_goals(edition: str, walks: int = WALKS) -> float:
    """% of random-walk attacks the first team scores: from a keeper of either team (half
    each), each next card drawn at random from the deck's cards that may follow, until a goal
    card. No hands or piles: the decks alone."""
    from controller.games.crazykick import load_deck
    deck = load_deck(edition)
    rng = random.Random(f"walk:{edition}")
    keepers = [sorted(c.id for c in deck if c.keeper and c.team_index == t) for t in (0, 1)]
    follows = [sorted(f) for f in deck.follows]
    scored = [0, 0]
    for k in range(walks):
        card = rng.choice(keepers[k % 2])
        while not deck[card].goal:
            card = rng.choice(follows[card])
        scored[deck[card].team_index] += 1
    return 100 * scored[0] / walks


def figures(quick: bool = False) -> dict[str, float]:
    global _POOL
    # spawned, not forked: the bench's earlier areas may have left threads behind
    _POOL = ProcessPoolExecutor(workers(), mp_context=get_context("spawn")) if workers() > 1 else None
    try:
        return _figures("quick" if quick else "default")
    finally:
        if _POOL is not None:
            _POOL.shutdown()
        _POOL = None


def _figures(pace: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for edition in ("schmidt", "dlp"):
        wins, kickoff = matches(4, edition, MATCHES[pace])
        out[f"ck_team0_wins_pct_{edition}"] = wins
        out[f"ck_kickoff_goal_pct_{edition}"] = kickoff
        out[f"ck_team0_walk_goals_pct_{edition}"] = walk_goals(edition)
    for players in (2, 4):
        over, longest = stalls(players, STALL_MATCHES[pace])
        out[f"ck_stall_matches_over_hint_pct_{players}p"] = over
        out[f"ck_stall_longest_s_{players}p"] = longest
    for players in (3, 5, 7):
        # seats alternate between the teams, so team 0 is the larger with an odd count
        out[f"ck_larger_side_wins_pct_{players}p"] = matches(
            players, "schmidt", LAYOUT_MATCHES[pace], handicap=True)[0]
    for players in (3, 7):
        out[f"ck_larger_side_wins_book_pct_{players}p"] = matches(
            players, "schmidt", LAYOUT_MATCHES[pace])[0]
    return out
