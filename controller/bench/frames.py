"""A full frame on the shared screen: each game at its largest player count, drawn on the
1920×1080 canvas the way the table draws it (``Screen.render``), one new snapshot per
move, median and 95th percentile over every frame.

How it is kept fast (display/draw.py): a text's image is made once and copied after
(``rendered``), and so are rounded panels (``rounded``) and a seat's six soft keys
(``soft_keys``); a view draws only from the snapshot, so a frame after one move is mostly
copies. The caches warm as a game goes on, as they do at the table; each game's frames
here come after one game of warm-up with another seed.

The goal, ≤ 1.5 ms here, leaves a Raspberry Pi 4 (several times slower per core) within
a 60 fps frame (16.7 ms) with room for the table's own work. It is not met yet: the caches
took a fifth off (interleaved A/B on one machine, 3 games each: Partout 3.4-3.7 → 2.7-3.0
ms, Crazy Kick 4.2 → 3.4 ms), filling the canvas alone costs 0.36-0.39 ms, and caching
whole seat panels gained nothing (a move changes two or three of six seats). What is left
is Python drawing some fifty texts and panels a frame; a screen that redraws only the
regions whose part of the snapshot changed is the next step."""

from __future__ import annotations

import os
import random
import statistics
import time
from typing import Any

from controller.bench.measure import Target, percentile
from controller.games import GAMES

NAMES = ["Anna", "Ben", "Clara", "David", "Eva", "Felix", "Greta", "Hugo"]
MOVES = 80

TARGETS: dict[str, Target] = {}
for _name in sorted(GAMES):
    _players = max(GAMES[_name].player_counts)
    TARGETS[f"frame_{_name}_ms_median"] = (1.5, "max", "ms", f"{GAMES[_name].title}, {_players} players: "
                                            "a full 1920×1080 frame after a move, median")
    TARGETS[f"frame_{_name}_ms_p95"] = (float("nan"), "info", "ms", "… 95th percentile")


def snapshots(game: str, seed: int, moves: int = MOVES) -> list[Any]:
    """The snapshots of a game played by random legal moves, one per move."""
    from controller.table.table import Table
    rules = GAMES[game]
    players = max(rules.player_counts)
    table = Table(rules, config={"players": players, "mode": "virtual"}, seed=seed,
                  stations=[f"s{i}" for i in range(players)], names=NAMES[:players])
    rng = random.Random(seed)
    shots = [table.snapshot()]
    for _ in range(moves):
        if table.finished:
            break
        seats = range(players) if rules.realtime else [rules.to_act(table.state)]
        legal = [a for seat in seats for a in rules.legal_actions(table.state, seat)]
        if not legal:
            break
        table.apply(rng.choice(legal))
        shots.append(table.snapshot())
    return shots


def frame_times(game: str, seeds: range) -> list[float]:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    from display.app import Screen
    screen = Screen(headless=True, lang="de")
    for snap in snapshots(game, seed=999):           # warm-up: fonts loaded, the usual texts made
        screen.render(snap)
    times = []
    for seed in seeds:
        for snap in snapshots(game, seed):
            start = time.perf_counter()
            screen.render(snap)
            times.append((time.perf_counter() - start) * 1000)
    screen.close()
    return times


def figures(quick: bool = False) -> dict[str, float]:
    out: dict[str, float] = {}
    for game in sorted(GAMES):
        times = frame_times(game, range(2 if quick else 5))
        out[f"frame_{game}_ms_median"] = statistics.median(times)
        out[f"frame_{game}_ms_p95"] = percentile(times, 95)
    return out
