"""A frame on the shared screen after a move: each game at its largest player count, one new
snapshot per move, median and 95th percentile over every frame, three ways:

- ``frame_<game>_ms_*``: drawn on the 1920×1080 canvas the way the table draws it
  (``Screen.render``): only the regions the move changed; no blit to the window, no flip;
- ``frame_<game>_whole_ms_median``: the same frames drawn whole on the canvas;
- ``frame_<game>_shown_ms_*``: what showing it costs: the changed regions drawn, then the
  whole canvas blitted to a full-screen 1920×1080 window and flipped (``Screen.present``),
  on a virtual X display (Xvfb: the window's pixels go to the X server through shared
  memory). Left out without Xvfb. A Pi's console flips through GL ES instead.

How it is kept fast: dirty rectangles and cached drawing (display/draw.py). A view draws
its screen as regions (``draw.Regions``: a seat, the middle, the score table), each with a
key holding what it shows; after a move only the regions whose key changed are painted
again, the canvas keeps the rest (tests/test_regions.py: pixel for pixel the frame drawn
whole). A text's image is made once and copied after (``rendered``), and so are rounded
panels (``rounded``) and a seat's six soft keys (``soft_keys``). Beside each figure: the
same frames drawn whole. The caches warm as a game goes on, as at the table; each game's
frames here come after one game of warm-up with another seed.

Card faces (``face``) and seat panels, Team UP!'s prompt, soft keys and card
(``Regions.paint_kept``) are kept by what they show. Team UP!'s pallet image gets a new
package drawn onto it only where it changes the picture, and only that and where the ghost
was are copied to the canvas; its counts are a part per line.

The goal, ≤ 1.5 ms here for the median, leaves a Raspberry Pi 4 (several times slower per
core) within a 60 fps frame (16.7 ms) with room for the table's own work. Measured on
2026-11-22, three runs of ``spieltisch bench --only frames --json``, lowest-highest median
(p95; drawn whole): Crazy Kick 0.73-0.79 ms (2.6-2.7; 2.7-3.0), Partout 1.08-1.28 (1.9-2.1;
2.5-3.1), Tadika 0.72-0.87 (1.2-1.4; 2.1), Teamplay 1.14-1.29 (3.1-3.3; 3.1-3.7), Team UP!
0.84-0.98 (3.4-3.9; 3.0-3.3). The 95th percentiles are the frames after which most of the
screen changes (a new round, Team UP!'s pallet turned or a floor complete, drawn whole):
one frame late on a Pi after such a move, not a stutter in play."""

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
    TARGETS[f"frame_{_name}_ms_median"] = (1.5, "max", "ms", f"{GAMES[_name].title}, {_players} players: after a "
                                            "move, the regions it changed drawn on the 1920×1080 canvas (no blit, "
                                            "no flip), median")
    TARGETS[f"frame_{_name}_ms_p95"] = (float("nan"), "info", "ms", "… 95th percentile")
    TARGETS[f"frame_{_name}_whole_ms_median"] = (float("nan"), "info", "ms", "… the same frames drawn whole "
                                                  "on the canvas (no region kept; no blit, no flip), median")
    TARGETS[f"frame_{_name}_shown_ms_median"] = (float("nan"), "info", "ms", "… shown: the changed regions drawn, "
                                                  "the whole canvas blitted to a full-screen window and flipped "
                                                  "(Xvfb), median")
    TARGETS[f"frame_{_name}_shown_ms_p95"] = (float("nan"), "info", "ms", "… shown, 95th percentile")


def snapshots(game: str, seed: int, moves: int = MOVES, players: int | None = None,
              options: dict[str, Any] | None = None) -> list[Any]:
    """The snapshots of a game played by random legal moves (one that does not end the game
    at once where there is one), one per move; ``options``: the game's (``{"learn": True}``)."""
    from controller.table.table import Table
    rules = GAMES[game]
    players = players or max(rules.player_counts)
    table = Table(rules, config={"players": players, "mode": "virtual", **(options or {})}, seed=seed,
                  stations=[f"s{i}" for i in range(players)], names=NAMES[:players])
    rng = random.Random(seed)
    shots = [table.snapshot()]
    for _ in range(moves):
        if table.finished:
            break
        to_act = rules.to_act(table.state)
        seats = range(players) if rules.realtime else [] if to_act is None else [to_act]
        legal = [a for seat in seats for a in rules.legal_actions(table.state, seat)]
        if not legal:
            break
        rng.shuffle(legal)
        # a move that goes on rather than one that ends the game at once (Team UP!'s "stop")
        going_on = next((a for a in legal if rules.outcome(rules.apply(table.state, a)) is None), legal[0])
        table.apply(going_on)
        shots.append(table.snapshot())
    return shots


def frame_times(game: str, seeds: range, whole: bool = False) -> list[float]:
    """ms per frame, one frame per move; ``whole``: each drawn afresh, as after another screen."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    from display.app import Screen
    screen = Screen(headless=True, lang="de")
    for snap in snapshots(game, seed=999):           # warm-up: fonts loaded, the usual texts made
        screen.render(snap)
    times = []
    for seed in seeds:
        for snap in snapshots(game, seed):
            if whole:
                screen._drawn_by = None
            start = time.perf_counter()
            screen.render(snap)
            times.append((time.perf_counter() - start) * 1000)
    screen.close()
    return times


def shown_times(game: str, seeds: range) -> list[float]:
    """ms per frame shown: drawn (the changed regions) and presented in a full-screen window.
    Run in a process whose display is a real one (``$DISPLAY``)."""
    from display.app import Screen
    screen = Screen(lang="de", fullscreen=True, volume=0)
    for snap in snapshots(game, seed=999):
        screen.render(snap)
    screen.present()
    times = []
    for seed in seeds:
        for snap in snapshots(game, seed):
            start = time.perf_counter()
            screen.render(snap)
            screen.present()
            times.append((time.perf_counter() - start) * 1000)
    screen.close()
    return times


def shown_times_on(display: str, game: str, seeds: range) -> list[float]:
    """``shown_times`` in a process of its own on the X display ``display``."""
    import json
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k != "SDL_VIDEODRIVER"}
    code = ("import json, sys; from controller.bench.frames import shown_times; "
            f"print(json.dumps(shown_times({game!r}, range({seeds.start}, {seeds.stop}))))")
    out = subprocess.run([sys.executable, "-c", code], env=dict(env, DISPLAY=display), capture_output=True, text=True,
                         timeout=600)
    if out.returncode != 0:
        raise RuntimeError(f"the shown frames of {game} failed: {out.stderr[-400:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def figures(quick: bool = False) -> dict[str, float]:
    from controller.bench.app import virtual_display
    out: dict[str, float] = {}
    seeds = range(2 if quick else 5)
    for game in sorted(GAMES):
        times = frame_times(game, seeds)
        out[f"frame_{game}_ms_median"] = statistics.median(times)
        out[f"frame_{game}_ms_p95"] = percentile(times, 95)
        out[f"frame_{game}_whole_ms_median"] = statistics.median(frame_times(game, seeds, True))
    with virtual_display() as display:
        if display is None:
            import sys
            print("bench: no Xvfb, so the frames shown in a window are not measured (apt-get install xvfb)",
                  file=sys.stderr)
            return out
        for game in sorted(GAMES):
            shown = shown_times_on(display, game, seeds)
            out[f"frame_{game}_shown_ms_median"] = statistics.median(shown)
            out[f"frame_{game}_shown_ms_p95"] = percentile(shown, 95)
    return out
