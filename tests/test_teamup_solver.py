"""Team UP!'s hint and bots (``suggest_placement`` in ``controller/games/teamup_hints.py``)
as a player sees them, and the search's signature.

The solver's answers (best score, proven, legal moves) are checked against an independent
search in ``test_teamup_rules.py``. What is checked here is what the table shows: the hint
is a package the card may take, follows the known order in the puzzle to its best score,
keeps the floors that can still be completed, and is the same every time the same game
reaches the same point.

**The signature.** How the search spends its steps (the order it tries places in, the
restarts, the share of the budget each score gets) decides the bots' play and the hints
under a step budget, not whether a finished answer is right. Like a chess engine's bench
node count, the scores, steps, lines and bounds computed of fixed searches are written in
``tests/vectors/teamup_search_signature.json``: any change to how the search goes changes
them and fails here, on purpose. A change meant to change the search renews the file
(``python tests/test_teamup_solver.py --write``) after ``spieltisch bench --only teamup``
shows the bots score no worse (docs/team-up.md, "The solver").
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections import Counter
from pathlib import Path

import pytest

if __name__ == "__main__":                          # --write: run from the repository's root
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.games import find_game
from controller.games.teamup import (
    CARD_KIND, CARD_NUMBERS, Draw, FaceDown, Place, as_package, current_card, fitting, kind_of_card, pallet_of,
    puzzle_neutral, score,
)
from controller.games.teamup_hints import _rank, suggest_placement, unseen_kinds
from controller.games.teamup_solver import FOOTPRINT_AT, SHAPE_INDEX, STEPS_PER_SECOND, _Search, solve

RULES = find_game("team-up")
VECTORS = Path(__file__).parent / "vectors"
SIGNATURE = VECTORS / "teamup_search_signature.json"


def positions():
    return json.loads((VECTORS / "teamup_positions.json").read_text(encoding="utf-8"))["positions"]


def played_to(seed: int, moves: int, config=None):
    """A one-player game after ``moves`` cards, each placed low at random (as people build),
    with the next card drawn (phase "place"), or over if it ended first."""
    state, rng = RULES.new_game(config or {"players": 1}, seed), random.Random(seed)
    while state.phase != "over":
        if state.phase == "draw":
            if len(state.moves) == moves:
                return RULES.apply(state, Draw(0))
            state = RULES.apply(state, Draw(0))
            continue
        fits = sorted(fitting(pallet_of(state.placed), kind_of_card(current_card(state))))
        low = [p for p in fits if p.z == min(q.z for q in fits)]
        state = RULES.apply(state, Place.of(0, rng.choice(low)) if low else FaceDown(0))
    return state


def shuffled_deck(seed: int) -> list[int]:
    deck = list(CARD_NUMBERS)
    random.Random(seed).shuffle(deck)
    return deck


# --- what the players see ---------------------------------------------------------------------------------

def test_the_cards_not_seen_yet_are_those_still_in_the_pile():
    """The bots and the hint know which kinds are still to come (the discards lie open),
    never their order: before a draw, the pile; after it, the pile without the card drawn."""
    state = RULES.new_game({"players": 1}, 7)
    assert Counter(unseen_kinds(state)) == Counter(CARD_KIND[n] for n in CARD_NUMBERS)
    later = played_to(7, 5)                                   # five cards dealt with, the sixth drawn
    assert later.phase == "place"
    assert Counter(unseen_kinds(later)) == Counter(CARD_KIND[n] for n in later.deck[6:])
    placed = RULES.apply(later, Place.of(0, sorted(fitting(pallet_of(later.placed),
                                                           kind_of_card(current_card(later))))[0]))
    assert placed.phase == "draw" and Counter(unseen_kinds(placed)) == Counter(CARD_KIND[n] for n in later.deck[6:])
    # with physical cards the pile is not known, only the cards tapped so far
    tapped = RULES.apply(RULES.new_game({"players": 1, "mode": "physical"}, 7), Draw(0, 33))
    assert len(unseen_kinds(tapped)) == len(CARD_NUMBERS) - 1
    assert Counter(unseen_kinds(tapped)) + Counter([CARD_KIND[33]]) == Counter(CARD_KIND[n] for n in CARD_NUMBERS)


def test_in_a_challenge_the_cards_to_come_are_those_of_its_pile():
    """A challenge's pile is the cards the game before drew: the hint and the bots count
    on those still in it, not on the whole deck (and not on their order but by number)."""
    pile = [12, 3, 30, 7, 21]
    state = RULES.new_game({"players": 1, "deck": pile, "neutral": list(puzzle_neutral())}, 0)
    assert unseen_kinds(state) == [CARD_KIND[n] for n in sorted(pile)]
    state = RULES.apply(state, Draw(0))
    assert unseen_kinds(state) == [CARD_KIND[n] for n in sorted(pile[1:])]


def test_the_hint_goes_to_the_sixth_floor_when_only_that_fits():
    """On the sixth-floor pallet (tests/vectors/teamup_high.json) a white card's package,
    the last A, fits only on top of the five-floor tower: the hint is a place up there (and
    the bots place it there), never "nothing fits"."""
    high = json.loads((VECTORS / "teamup_high.json").read_text(encoding="utf-8"))["sixth_floor"]
    placed = tuple(as_package(p) for p in high["placed"])
    state = RULES.new_game({"players": 1}, 4)
    drawn = [n for n in state.deck if CARD_KIND[n] != "W"][:14] + [next(n for n in state.deck if CARD_KIND[n] == "W")]
    state = state._replace(placed=placed, moves=tuple(range(1, 15)), deck=tuple(drawn) + tuple(
        n for n in state.deck if n not in drawn), phase="place")
    fits = list(fitting(pallet_of(placed), kind_of_card(current_card(state))))
    assert fits and {p.z for p in fits} == {5}
    hint = suggest_placement(state)
    assert hint in fits


@pytest.mark.parametrize("seed, moves", [(1, 0), (2, 8), (3, 8), (3, 16), (5, 12)])
def test_the_hint_is_a_package_the_card_drawn_may_take(seed, moves):
    state = played_to(seed, moves)
    fits = list(fitting(pallet_of(state.placed), kind_of_card(current_card(state))))
    assert fits and suggest_placement(state) in fits


def test_there_is_no_hint_when_nothing_the_card_allows_fits():
    state = played_to(1, 16)
    assert state.phase == "place" and not list(fitting(pallet_of(state.placed), kind_of_card(current_card(state))))
    assert suggest_placement(state) is None


def test_when_only_one_place_fits_the_hint_is_that_place():
    state = played_to(1, 13)
    fits = list(fitting(pallet_of(state.placed), kind_of_card(current_card(state))))
    assert len(fits) == 1 and suggest_placement(state) == fits[0]


def test_the_same_point_of_the_same_game_gets_the_same_hint():
    """A hint asked twice (or on a replay) is the same: the guessed orders of the pile come
    from the game's seed and the card reached, not from the clock; a bot's own dice give
    it other guesses."""
    state = played_to(6, 4)
    hint = suggest_placement(state)
    assert suggest_placement(state) == hint
    assert suggest_placement(played_to(6, 4)) == hint
    guesses = {suggest_placement(state, random.Random(n)) for n in range(4)}
    assert len(guesses) > 1                                   # the guesses do decide among good places


def test_following_the_hint_in_the_puzzle_builds_its_perfect_pallet():
    """In the puzzle the order of the cards is known, so the hint plans with it: a team
    that does what the hint says reaches 25, the best the puzzle allows."""
    state = RULES.new_game({"players": 2, "puzzle": True}, 0)
    while state.phase != "over":
        if state.phase == "draw":
            state = RULES.apply(state, Draw(state.to_act))
            continue
        hint = suggest_placement(state)
        assert hint is not None
        state = RULES.apply(state, Place.of(state.to_act, hint))
    assert score(pallet_of(state.placed), 0) == 25 and RULES.outcome(state).scores[0] == 25


def test_in_a_challenge_the_hint_is_the_best_lines_next_package():
    """A challenge repeats a game's order and start, so the hint is the solver's best line's
    next package, card after card."""
    deck, neutral = shuffled_deck(3), ("N", None, 0, 0, 0, 2, 2, 3)
    state = RULES.new_game({"players": 1, "deck": deck, "neutral": neutral}, 0)
    for _ in range(3):
        state = RULES.apply(state, Draw(0))
        best = solve(state.deck[len(state.moves):], state.placed[0], 0.0, placed=state.placed[1:], nodes=3000)
        assert best.moves[0] is not None and suggest_placement(state) == best.moves[0]
        state = RULES.apply(state, Place.of(0, best.moves[0]))


def floors_still_possible(state, package) -> int:
    """How many floors could still be completed after this package (the search's count of
    floors with a way left to fill them, checked against the rules in test_teamup_rules)."""
    search = _Search([], as_package(state.placed[0]), float("inf"))
    for p in state.placed[1:]:
        search.add(p)
    search.place(FOOTPRINT_AT[(SHAPE_INDEX[package.shape], package.x, package.y, package.dx, package.dy)],
                 package.z, 0)
    return search.lost


@pytest.mark.parametrize("seed, moves", [(1, 0), (2, 8), (3, 8), (3, 16), (5, 12), (6, 4)])
def test_the_hints_first_choices_keep_the_most_floors_possible(seed, moves):
    """Before any guess at the pile, the places are ranked: those that keep most floors
    completable first."""
    state = played_to(seed, moves)
    fits = list(fitting(pallet_of(state.placed), kind_of_card(current_card(state))))
    ranked = _rank(state, fits)
    assert sorted(ranked) == sorted(fits)
    floors = [floors_still_possible(state, p) for p in ranked]
    assert floors == sorted(floors, reverse=True)


def test_a_hint_that_would_leave_a_hole_no_package_fills_is_ranked_last():
    """Beside the upright neutral in the corner, a package standing one cell away from the
    wall leaves a row of single cells no package can fill: the first floor could never be
    completed. Every place that keeps it possible comes first."""
    neutral = ("N", None, 0, 0, 0, 2, 2, 3)
    state = RULES.new_game({"players": 1, "deck": list(CARD_NUMBERS), "neutral": neutral}, 0)
    state = RULES.apply(state, Draw(0))                        # card 1: the kind of the puzzle's first
    fits = list(fitting(pallet_of(state.placed), kind_of_card(current_card(state))))
    ranked = _rank(state, fits)
    floors = [floors_still_possible(state, p) for p in ranked]
    assert 0 in floors and floors[0] > 0 and floors == sorted(floors, reverse=True)


# --- the search's geometry ---------------------------------------------------------------------------------

def test_each_place_knows_the_cells_around_it():
    """The search's footprints, against the pallet's grid cell by cell: the columns under a
    package, each unit of its outline with the column outside it (−1 at the pallet's edge),
    the columns it touches, and per side the first neighbouring column, the side's axis and
    where the side lies (for the clone rule)."""
    from controller.games.teamup import X, Y
    from controller.games.teamup_solver import FOOTPRINTS
    from collections import Counter as Bag
    assert len(FOOTPRINTS) == len({(f.shape, f.x, f.y, f.dx, f.dy) for f in FOOTPRINTS})
    for n, f in enumerate(FOOTPRINTS):
        cells = {(i, j) for i in range(f.x, f.x + f.dx) for j in range(f.y, f.y + f.dy)}
        assert f.index == n and sorted(f.columns) == sorted(i + X * j for i, j in cells)
        outline = Bag()
        for i, j in cells:
            for di, dj in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                a, b = i + di, j + dj
                if (a, b) not in cells:
                    outline[a + X * b if 0 <= a < X and 0 <= b < Y else -1] += 1
        assert Bag(f.rim) == outline and len(f.rim) == 2 * (f.dx + f.dy)
        assert Bag(f.around) == Bag(c for c in f.rim if c >= 0)
        sides = []
        if f.x > 0:
            sides.append((f.x - 1 + X * f.y, 0, f.x))
        if f.x + f.dx < X:
            sides.append((f.x + f.dx + X * f.y, 1, f.x + f.dx))
        if f.y > 0:
            sides.append((f.x + X * (f.y - 1), 2, f.y))
        if f.y + f.dy < Y:
            sides.append((f.x + X * (f.y + f.dy), 3, f.y + f.dy))
        assert list(f.sides) == sides


def test_every_floor_around_every_neutral_the_game_allows_can_be_filled():
    """Each floor's ways to fill it, around the neutral package in each corner and each
    orientation the rules allow: 58 for a floor above it, fewer beside it (15 beside the
    upright one), never none (a floor with no way is lost from the start), each way
    covering the free cells once."""
    from controller.games.teamup import NEUTRAL_ORIENTATIONS, X, Y
    from controller.games.teamup_solver import FLOORS, FOOTPRINTS, tilings_for
    for dx, dy, dz in NEUTRAL_ORIENTATIONS:
        for x in (0, X - dx):
            for y in (0, Y - dy):
                neutral = as_package(("N", None, x, y, 0, dx, dy, dz))
                blocked = {i + X * j for i in range(x, x + dx) for j in range(y, y + dy)}
                for z, floor in enumerate(tilings_for(neutral)):
                    assert len(floor.tilings) == 58 if z >= dz else 0 < len(floor.tilings) < 58, (dx, dy, x, y, z)
                    assert dx * dy != 4 or z >= dz or len(floor.tilings) == 15
                    free = sorted(set(range(X * Y)) - (blocked if z < dz else set()))
                    for tiling in floor.tilings:
                        assert sorted(c for i in tiling for c in FOOTPRINTS[i].columns) == free
                assert z == FLOORS - 1


def fewest_cards_by_trying(kinds, need, fixed):
    """How many of ``kinds`` (in order) must be drawn before they can take ``need`` packages
    per shape (each card one package its kind allows, a colour card's only while fewer than
    3 of that shape and colour are fixed), by trying every way; None when they never can."""
    from controller.games.teamup import COLOURS, KINDS, COPIES
    from controller.games.teamup_solver import COLOUR_INDEX, SHAPE_INDEX
    seen = set()

    def can(i, need, fixed, m):
        if not any(need):
            return True
        if i == m or (i, need, fixed) in seen:
            return False
        seen.add((i, need, fixed))
        kind = KINDS[kinds[i]]
        if can(i + 1, need, fixed, m):                                  # this card brings none of them
            return True
        for shape in kind.shapes:
            s = SHAPE_INDEX[shape]
            if not need[s]:
                continue
            fewer = need[:s] + (need[s] - 1,) + need[s + 1:]
            if len(kind.colours) == 1:
                slot = s * len(COLOURS) + COLOUR_INDEX[kind.colours[0]]
                if fixed[slot] >= COPIES:
                    continue
                if can(i + 1, fewer, fixed[:slot] + (fixed[slot] + 1,) + fixed[slot + 1:], m):
                    return True
            elif can(i + 1, fewer, fixed, m):
                return True
        return False

    for m in range(len(kinds) + 1):
        seen.clear()
        if can(0, tuple(need), tuple(fixed), m):
            return m
    return None


def test_the_bound_counts_the_fewest_cards_that_bring_the_packages_a_floor_needs():
    """The search's count of cards to draw before the packages a floor needs can all be
    placed, against trying every way, from the start of shuffled decks and part way, with
    colour cards' packages already fixed, for needs the cards can meet and needs they
    cannot (then the count is past the cards left)."""
    from controller.games.teamup_solver import _kinds
    rng = random.Random(5)
    checked = impossible = 0
    for seed in range(1, 7):
        kinds = _kinds(shuffled_deck(seed))
        for k in (0, 12, 24, 31):
            search = _Search(kinds, puzzle_neutral(), float("inf"))
            search.fixed = [rng.choice((0, 1, 2, 3)) for _ in range(9)]
            for need in [(0, 0, 0)] + [tuple(rng.randrange(0, 5) for _ in range(3)) for _ in range(6)]:
                expected = fewest_cards_by_trying(kinds[k:], need, search.fixed)
                got = search._cards_for(k, need)
                if expected is None:
                    impossible += 1
                    assert got > len(kinds) - k, (seed, k, need)
                else:
                    assert got == expected, (seed, k, need)
                checked += 1
    assert checked == 168 and 10 < impossible < 150


def test_the_gain_after_each_number_of_cards_is_the_best_of_drawing_that_many_or_more():
    """``_gain_after(k)[m]``, as its docstring defines it: the most 2·q − m' for any m' ≥ m
    cards drawn, q the packages the first m' can take (read from the fewest cards each q
    needs), at every card of games near their end, where the last cards may take nothing."""
    from controller.games.teamup_solver import _kinds
    checked = 0
    for seed in range(1, 9):
        state = played_to(seed, 24)
        if state.phase != "place":
            continue
        search = _Search(_kinds(state.deck[len(state.moves):]), state.placed[0], float("inf"))
        for p in state.placed[1:]:
            search.add(p)
        for k in range(len(search.kinds) + 1):
            profile, cards = search._cards_needed(k), len(search.kinds) - k
            taken = [max(q for q, need in enumerate(profile) if need <= m) for m in range(cards + 1)]
            expected = [max(2 * taken[n] - n for n in range(m, cards + 1)) for m in range(cards + 1)]
            assert search._gain_after(k) == expected, (seed, k)
            checked += 1
    assert checked > 40


def snapshot(search):
    return (list(search.heights), list(search.owner), list(search.boxes), list(search.open), search.lost,
            list(search.total), list(search.fixed), [list(f) for f in search.on_floor], search.placed,
            search.hash, list(search.undo))


def test_a_package_placed_and_taken_back_leaves_the_search_as_it_was():
    """At every step of games, and of the towers above the fifth floor
    (tests/vectors/teamup_high.json), each place the card allows is put on and taken off
    the search's pallet: after it, the search is exactly as before; while it stands, the
    lowest floor lost is the lowest with no way left to fill it."""
    from controller.games.teamup import Draw, FaceDown, KINDS, cards_left
    from controller.games.teamup_solver import FLOORS
    tried, above = 0, 0

    def try_each_place(placed):
        nonlocal tried, above
        search = _Search([], placed[0], float("inf"))
        for p in placed[1:]:
            search.add(p)
        before = snapshot(search)
        for name in ("R", "A/B", "A/C"):
            for _, f, h, colour in search.candidates(KINDS[name]):
                search.place(f, h, colour)
                assert search.lost == min([FLOORS] + [z for z in range(FLOORS) if not search.open[z]])
                search.remove(f, h, colour)
                assert snapshot(search) == before
                tried, above = tried + 1, above + (h >= FLOORS)

    for seed in (2, 5, 9):
        state, rng = RULES.new_game({"players": 1}, seed), random.Random(seed)
        while state.phase != "over" and cards_left(state) > 0:
            try_each_place(state.placed)
            state = RULES.apply(state, Draw(0))
            fits = sorted(fitting(pallet_of(state.placed), kind_of_card(current_card(state))))
            low = [p for p in fits if p.z == min(q.z for q in fits)]
            state = RULES.apply(state, Place.of(0, rng.choice(low)) if low else FaceDown(0))
    high = json.loads((VECTORS / "teamup_high.json").read_text(encoding="utf-8"))
    for tower in (high["sixth_floor"]["placed"], high["ten_floors"]["placed"]):
        tower = [as_package(p) for p in tower]
        for i in range(2, len(tower) + 1):
            try_each_place(tower[:i])
    assert tried > 1000 and above > 0


def test_with_no_card_left_the_best_is_the_pallet_as_it_stands_face_downs_counted():
    """The end of the pile: the answer is the score standing, each card turned face down a
    point off (here one package placed and five cards turned down)."""
    neutral = puzzle_neutral()
    first = solve(CARD_NUMBERS, neutral, 0.0, nodes=5000).moves[:1]
    found = solve([], neutral, 0.0, placed=first, face_down=5, nodes=10)
    assert (found.score, found.moves, found.proven) == (score(pallet_of((neutral, *first)), 5), [], True)
    assert found.score == 5 * 0 - 26 - 5


def test_the_bound_is_never_below_stopping_where_one_stands():
    """Stopping is always allowed, so no bound may promise less than the score now: at
    each card of the best lines of shuffled decks, with the cards still to come."""
    from controller.games.teamup_solver import _kinds
    for seed in range(1, 7):
        deck = shuffled_deck(seed)
        line = solve(deck, puzzle_neutral(), 0.0, nodes=3000).moves
        search = _Search(_kinds(deck), puzzle_neutral(), float("inf"))
        for k, move in enumerate(line):
            assert search.bound(k) >= search.now(), (seed, k)
            if move is None:
                search.face_down += 1
            else:
                search.add(move)


# --- the search's signature ---------------------------------------------------------------------------------

def digest(moves) -> str:
    text = json.dumps([None if m is None else list(m) for m in moves])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def fake_clock(step: float):
    now = [0.0]

    def clock() -> float:
        now[0] += step
        return now[0]
    return clock


def search_runs() -> dict[str, tuple]:
    """Fixed searches by name: (the search, its budget of steps or None)."""
    runs: dict[str, tuple] = {}
    for position in positions():
        placed = [as_package(p) for p in position["placed"]]
        runs[f"position {position['seed']}"] = (
            lambda placed=placed, position=position: solve(position["cards"], placed[0], 0.0, placed=placed[1:],
                                                          face_down=position["face_down"], nodes=20_000), 20_000)
    runs["puzzle"] = (lambda: solve(CARD_NUMBERS, puzzle_neutral(), 0.0, nodes=5000), 5000)
    # (deck 1 at 1,500 and deck 2 at 4,000: a score given up on is searched again with what is left)
    for seed, steps in ((2, 200), (2, 1000), (4, 200), (4, 1000), (1, 1500), (2, 4000)):
        runs[f"deck {seed}, {steps} steps"] = (
            lambda seed=seed, steps=steps: solve(shuffled_deck(seed), puzzle_neutral(), 0.0, nodes=steps), steps)
    runs["deck 4, 0.5 s in steps"] = (lambda: solve(shuffled_deck(4), puzzle_neutral(), 0.5), STEPS_PER_SECOND // 2)
    for steps in (60, 130):                        # budgets where each score's least share counts
        runs[f"deck 4, {steps} steps"] = (
            lambda steps=steps: solve(shuffled_deck(4), puzzle_neutral(), 0.0, nodes=steps), steps)
    runs["deck 4, no time at all"] = (lambda: solve(shuffled_deck(4), puzzle_neutral(), 0.0), 1)
    runs["deck 2, a time below zero by a clock"] = (
        lambda: solve(shuffled_deck(2), puzzle_neutral(), -1.0, clock=fake_clock(0.001)), None)
    runs["deck 2, 0.05 s by a clock"] = (
        lambda: solve(shuffled_deck(2), puzzle_neutral(), 0.05, clock=fake_clock(0.0005)), None)
    runs["deck 4, 0.1 s by a clock"] = (
        lambda: solve(shuffled_deck(4), puzzle_neutral(), 0.1, clock=fake_clock(0.002)), None)
    return runs


def searched(name: str) -> dict:
    """One fixed search answered with its score, proof, steps, its line's digest and the
    digest of every bound it computed on the way (a bound changed anywhere in the tree
    shows here even when the answer happens not to change)."""
    run, budget = search_runs()[name]
    bounds, computed = [], _Search.bound

    def bound(search, k):
        value = computed(search, k)
        bounds.append((k, value))
        return value
    _Search.bound = bound
    try:
        found = run()
    finally:
        _Search.bound = computed
    return {"score": found.score, "proven": found.proven, "steps": found.nodes, "budget": budget,
            "moves": digest(found.moves), "bounds": digest(bounds)}


HINT_POINTS = [(1, 0), (2, 8), (3, 16), (6, 4), (7, 2)]


def hints() -> dict[str, list]:
    """The hint and the first places of the ranking at fixed points of fixed games."""
    out = {}
    for seed, moves in HINT_POINTS:
        state = played_to(seed, moves)
        fits = list(fitting(pallet_of(state.placed), kind_of_card(current_card(state))))
        out[f"game {seed}, card {moves + 1}"] = {
            "hint": list(suggest_placement(state)),
            "ranked": [list(p) for p in _rank(state, fits)[:6]],
        }
    return out


def written() -> dict:
    return json.loads(SIGNATURE.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", list(search_runs()))
def test_the_searches_go_as_written(name):
    """Scores, proofs, steps and lines of fixed searches, as the signature file has them
    (see the module's docstring for when to renew it)."""
    assert written()["steps_per_second"] == STEPS_PER_SECOND
    assert searched(name) == written()["searches"][name]


def test_the_hints_go_as_written():
    assert hints() == written()["hints"]


def test_the_signature_holds_what_a_player_relies_on():
    """The file is renewed by hand, so what it says must still be right: every search
    within its budget of steps (one more to notice it is spent), every position proven,
    the puzzle perfect."""
    found = written()["searches"]
    assert found["puzzle"]["score"] == 25 and found["puzzle"]["proven"]
    assert all(entry["proven"] for name, entry in found.items() if name.startswith("position"))
    for name, entry in found.items():
        if entry["budget"] is not None:
            assert entry["steps"] <= entry["budget"] + 1, name


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_teamup_solver.py --write   (renews the search's signature)")
    SIGNATURE.write_text(json.dumps({
        "_about": "The Team UP! search's signature: see tests/test_teamup_solver.py. Renew with "
                  "`python tests/test_teamup_solver.py --write` only for a change meant to change the search.",
        "steps_per_second": STEPS_PER_SECOND,
        "searches": {name: searched(name) for name in search_runs()},
        "hints": hints(),
    }, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {SIGNATURE}")
