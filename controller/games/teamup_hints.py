"""Team UP!'s hint and the bots' placement: the solver (``teamup_solver.py``) asked about a
game under way, from what the players see: the pallet, the card drawn, the cards already
played (the discards lie open), so which cards are still in the pile but not their order,
except in the puzzle and a challenge, where the team knows it."""

from __future__ import annotations

import random

from controller.games.core import HIDDEN_NUMBER
from controller.games.teamup import TeamupState, card_to_place, face_down_count
from controller.games.teamup_pallet import (
    CARD_KIND, CARD_NUMBERS, FLOORS, Package, as_package, colour_of, fitting, kind_of_card, pallet_of,
)
from controller.games.teamup_solver import COLOUR_INDEX, FOOTPRINT_AT, SHAPE_INDEX, _Search, solve

TRIED = 4                  # placements tried with the solver
GUESSES = 3                # orders of the cards left guessed for each (bots: mean 15 points, was 10 with one)
SOLVER_NODES = 200         # the solver's budget for each
KNOWN_ORDER_NODES = 3000   # the budget when the order of the cards is known


def unseen_kinds(state: TeamupState) -> list[str]:
    """The kinds of the cards still in the pile, by card number, not in their order
    (public: the discards lie open, and a challenge's pile is the cards its game drew). A
    seat's view hides the order of a shuffled pile (``HIDDEN_NUMBER``): its cards are the
    whole deck."""
    drawn = set(state.deck[:len(state.moves) + (1 if state.phase == "place" else 0)])
    known = len(state.deck) == state.pile and HIDDEN_NUMBER not in state.deck
    pile = sorted(state.deck) if known else CARD_NUMBERS
    return [CARD_KIND[n] for n in pile if n not in drawn]


def _rank(state: TeamupState, candidates: list[Package]) -> list[Package]:
    """The placements, best first, by what they leave of the floors: how far up all floors
    can still be completed, then a place in the five floors before one above them, then
    how many ways the open floors keep, then low and snug."""
    search = _Search([], as_package(state.placed[0]), float("inf"))
    for p in state.placed[1:]:
        search.add(p)
    scored = []
    for p in candidates:
        f = FOOTPRINT_AT[(SHAPE_INDEX[p.shape], p.x, p.y, p.dx, p.dy)]
        search.place(f, p.z, COLOUR_INDEX[colour_of(p)])
        open_ways = sum(bin(search.open[z]).count("1") for z in range(search.floors(), search.lost))
        snug = sum(1 for c in f.rim if c < 0 or search.heights[c] > p.z + 1)
        above = p.z >= FLOORS          # completes nothing, though it leaves every way open: after the rest
        scored.append((-search.lost, above, -open_ways, p.z, -snug, p))
        search.remove(f, p.z, COLOUR_INDEX[colour_of(p)])
    scored.sort()
    return [t[-1] for t in scored]


def suggest_placement(state: TeamupState, rng: random.Random | None = None) -> Package | None:
    """A good package for the card drawn (the bots' move and the players' hint), from what
    the players see: the placements ranked by what they leave of the floors (``_rank``),
    the best few tried with the solver on a few guessed orders of the cards still in the pile
    (in puzzle and challenge games, where the order is known, planned with it), each with a
    budget of steps, the same on every machine, so a game replays as it was played. None
    when nothing the card allows fits."""
    candidates = list(fitting(pallet_of(state.placed), kind_of_card(card_to_place(state))))
    if not candidates:
        return None
    face_down = face_down_count(state)
    if state.order_known and len(state.deck) == state.pile:
        # puzzle and challenge: the cards' order is no secret, so the solver plans with it
        found = solve(state.deck[len(state.moves):], state.placed[0], 0.0, placed=state.placed[1:],
                      face_down=face_down, nodes=KNOWN_ORDER_NODES)
        if found.moves and found.moves[0] is not None and found.moves[0] in candidates:
            return found.moves[0]
    ranked = _rank(state, candidates)
    rng = rng or random.Random(f"teamup-hint:{state.seed}:{len(state.moves)}")
    futures = []
    for _ in range(GUESSES):
        future = unseen_kinds(state)
        rng.shuffle(future)
        futures.append(future)
    best, best_score = ranked[0], None
    for p in ranked[:TRIED]:
        total = sum(solve(future, state.placed[0], 0.0, placed=list(state.placed[1:]) + [p], face_down=face_down,
                          nodes=SOLVER_NODES).score for future in futures)
        if best_score is None or total > best_score:
            best, best_score = p, total
    return best
