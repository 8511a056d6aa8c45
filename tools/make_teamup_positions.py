"""Writes tests/vectors/teamup_positions.json: the Team UP! positions the solver is tested
against a search of every line from (tests/test_teamup_rules.py).

One-player games played by the bots' placement (``suggest_placement`` with
``random.Random(seed)``, never stopping), seeds 0-21, each looked at with 12, 14 and 16
cards left (in that order); a position is kept where the best line gains at least 3 points
on the pallet as it stands and a search of every line visits fewer than 20,000 pallets
(so that the test stays quick), the first of the three per seed, ten in all. The best
scores are not written: the test works them out.

Renew it when the rules or the bots change what these games look like:

    python tools/make_teamup_positions.py          (from the repository's root)
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.games import find_game  # noqa: E402
from controller.games.teamup import (  # noqa: E402
    Draw, FaceDown, Place, cards_left, face_down_count, fitting, kind_of_card, pallet_of, score,
)
from controller.games.teamup_hints import suggest_placement  # noqa: E402

OUT = ROOT / "tests" / "vectors" / "teamup_positions.json"
SEEDS = range(22)
CARDS_LEFT = (12, 14, 16)
GAIN = 3
PALLETS = 20_000
WANTED = 10


class TooBig(Exception):
    pass


def best_by_every_line(placed, cards, face_down: int) -> int:
    """The best score by trying every line, as tests/test_teamup_rules.py's every_line_best
    does; TooBig past PALLETS pallets."""
    best, seen = -10 ** 9, set()

    def go(placed, i, down):
        nonlocal best
        pallet = pallet_of(tuple(placed))
        best = max(best, score(pallet, down))
        if i == len(cards) or (frozenset(placed), i, down) in seen:
            return
        seen.add((frozenset(placed), i, down))
        if len(seen) >= PALLETS:
            raise TooBig
        fits = list(fitting(pallet, kind_of_card(cards[i])))
        for p in fits:
            go(placed + [p], i + 1, down)
        if not fits:
            go(placed, i + 1, down + 1)

    go(list(placed), 0, face_down)
    return best


def snapshots(seed: int) -> dict[int, object]:
    """The bots' one-player game with this seed, before each draw with CARDS_LEFT cards left."""
    rules, rng = find_game("team-up"), random.Random(seed)
    state, out = rules.new_game({"players": 1}, seed), {}
    while state.phase != "over":
        if state.phase == "draw":
            if cards_left(state) in CARDS_LEFT:
                out[cards_left(state)] = state
            state = rules.apply(state, Draw(0))
            continue
        p = suggest_placement(state, rng)
        state = rules.apply(state, FaceDown(0) if p is None else Place.of(0, p))
    return out


def as_text(about: str, positions: list[dict]) -> str:
    """The file as JSON, a package or the cards on a line each (short lines to read and diff)."""
    entries = []
    for p in positions:
        placed = ",\n".join("    " + json.dumps(q) for q in p["placed"])
        entries.append(f'  {{\n   "seed": {p["seed"]},\n   "cards_left": {p["cards_left"]},\n'
                       f'   "placed": [\n{placed}\n   ],\n   "face_down": {p["face_down"]},\n'
                       f'   "cards": {json.dumps(p["cards"])}\n  }}')
    return '{\n "_about": ' + json.dumps(about, ensure_ascii=False) + ',\n "positions": [\n' + \
        ",\n".join(entries) + "\n ]\n}\n"


def main() -> None:
    positions = []
    for seed in SEEDS:
        states = snapshots(seed)
        for left in CARDS_LEFT:
            state = states.get(left)
            if state is None:
                continue
            cards = list(state.deck[len(state.moves):])
            now = score(pallet_of(state.placed), face_down_count(state))
            try:
                best = best_by_every_line(state.placed, cards, face_down_count(state))
            except TooBig:
                continue
            if best - now >= GAIN:
                positions.append({"seed": seed, "cards_left": left, "placed": [list(p) for p in state.placed],
                                  "face_down": face_down_count(state), "cards": cards})
                print(f"seed {seed}: {left} cards left, {now} → {best}")
                break
        if len(positions) == WANTED:
            break
    about = ("Team UP! positions for testing the solver against a search of every line (tests/test_teamup_rules.py): "
             "one-player games played by the bots (suggest_placement, random.Random(seed)) with seeds 0-21, stopped "
             "with 12, 14 or 16 cards left, kept where the best line gains at least 3 points and a search of every "
             "line visits fewer than 20,000 pallets. placed: the neutral first, then the packages (shape, colour, x, "
             "y, z, dx, dy, dz); cards: the card numbers still to come, in order. Only positions: the best score of "
             "each is worked out by the test. Written by tools/make_teamup_positions.py.")
    OUT.write_text(as_text(about, positions), encoding="utf-8")
    print(f"wrote {OUT} ({len(positions)} positions)")


if __name__ == "__main__":
    main()
