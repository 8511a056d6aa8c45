"""Team UP!'s bot team. It sees what the players see: the pallet, the card drawn, the cards
already played (so it knows which kinds are still in the pile, not their order).

- **Placing**: every placement the card allows is ranked by what it leaves: how far up
  the floors can still all be completed (the solver's ways to fill each floor, see
  ``controller/games/teamup_solver.py``), how many ways each open floor keeps, then low and
  snug. The best few are tried with the solver on one guessed order of the cards still in
  the pile, with a small budget of steps (the same on every machine, so a game replays as
  it was played), and the one leading to the best score is placed.
- **Known order** (puzzle, challenge): the solver plans with the real order of the cards.
- **Drawing or stopping**: it stops when more than half of the kinds still in the pile
  would find no place on the pallet as it stands (a card drawn then costs a point).
"""

from __future__ import annotations

import random
from typing import Any

from controller.bots.base import RandomBot
from controller.games.core import GameRules
from controller.games.teamup import (
    CARD_KIND, CARD_NUMBERS, KINDS, Draw, FaceDown, Package, Place, Stop, TeamupState, current_card, fitting,
    kind_of_card, pallet_of,
)
from controller.games.teamup_solver import COLOUR_INDEX, FOOTPRINT_AT, SHAPE_INDEX, _Search, solve

TRIED = 3                  # placements tried with the solver
SOLVER_NODES = 250         # its budget for each
KNOWN_ORDER_NODES = 3000   # the budget when the order of the cards is known


def unseen_kinds(state: TeamupState) -> list[str]:
    """The kinds of the cards not drawn yet (public: the discards lie open)."""
    drawn = set(state.deck[:len(state.moves) + (1 if state.phase == "place" else 0)])
    return [CARD_KIND[n] for n in CARD_NUMBERS if n not in drawn]


def _rank(state: TeamupState, candidates: list[Package]) -> list[Package]:
    """The placements, best first, by what they leave of the floors."""
    search = _Search([], state.placed[0], float("inf"))
    for p in state.placed[1:]:
        search.add(p)
    scored = []
    for p in candidates:
        f = FOOTPRINT_AT[(SHAPE_INDEX[p.shape], p.x, p.y, p.dx, p.dy)]
        search.place(f, p.z, COLOUR_INDEX[p.colour])
        open_ways = sum(bin(search.open[z]).count("1") for z in range(search.floors(), search.lost))
        snug = sum(1 for c in f.rim if c < 0 or search.heights[c] > p.z + 1)
        scored.append(((-search.lost, -min(open_ways, 400), p.z, -snug, p), p))
        search.remove(f, p.z, COLOUR_INDEX[p.colour])
    scored.sort(key=lambda t: t[0][:4] + (tuple(t[1]),))
    return [p for _, p in scored]


def choose_placement(state: TeamupState, rng: random.Random | None = None) -> Package | None:
    """The package the bot places for the card drawn; None when nothing the card allows fits."""
    candidates = list(fitting(pallet_of(state.placed), kind_of_card(current_card(state))))
    if not candidates:
        return None
    face_down = sum(1 for m in state.moves if m < 0)
    if state.order_known and len(state.deck) == len(CARD_NUMBERS):
        # puzzle and challenge: the cards' order is no secret, so the solver plans with it
        found = solve(state.deck[len(state.moves):], state.placed[0], 0.0, placed=state.placed[1:],
                      face_down=face_down, nodes=KNOWN_ORDER_NODES)
        if found.moves and found.moves[0] is not None and found.moves[0] in candidates:
            return found.moves[0]
    ranked = _rank(state, candidates)
    rng = rng or random.Random(f"teamup-hint:{state.seed}:{len(state.moves)}")
    future = unseen_kinds(state)
    rng.shuffle(future)
    best, best_score = ranked[0], None
    for p in ranked[:TRIED]:
        found = solve(future, state.placed[0], 0.0, placed=list(state.placed[1:]) + [p], face_down=face_down,
                      nodes=SOLVER_NODES)
        if best_score is None or found.score > best_score:
            best, best_score = p, found.score
    return best


def should_stop(state: TeamupState) -> bool:
    pallet = pallet_of(state.placed)
    kinds = unseen_kinds(state)
    if not kinds:
        return True
    stuck = sum(1 for name in kinds if next(fitting(pallet, KINDS[name]), None) is None)
    return stuck * 2 > len(kinds)


class TeamUpBot(RandomBot):
    def choose(self, rules: GameRules, state: TeamupState, seat: int, rng: random.Random) -> Any:
        if state.phase == "draw":
            if should_stop(state):
                return Stop(seat)
            if state.mode == "physical" and len(state.deck) == len(state.moves):
                drawn = set(state.deck)
                return Draw(seat, rng.choice([n for n in CARD_NUMBERS if n not in drawn]))
            return Draw(seat)
        p = choose_placement(state, rng)
        return FaceDown(seat) if p is None else Place.of(seat, p)


BOT = TeamUpBot
