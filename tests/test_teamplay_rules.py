"""Teamplay's missions: the rule book's overview example for every mission type (and its
"not 3,3 5,5 3,3"), the refusal that says what is missing, and the search for every way a
hand fulfils a mission held against a brute force over all of its parts."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given, settings, strategies as st

from controller.games import IllegalAction
from controller.games.teamplay import MISSIONS, NUMBER_CARDS, Card, fulfills, shortfall, ways


def test_the_missions_are_the_rule_books_sixteen_types_on_46_cards():
    assert len(MISSIONS) == 16 and sum(m.copies for m in MISSIONS.values()) == 46
    assert MISSIONS["pair"].points == 1                         # confirmed: a single pair is 1
    # "more cards needed, more points": the least a mission of each size is worth never falls
    # (the reconstructed 5-card red run, 6, outranks the 6-card three pairs, 5)
    least = [min(m.points for m in MISSIONS.values() if m.cards == n) for n in (2, 3, 4, 5, 6)]
    assert least == sorted(least) and least[0] == 1
    assert len(NUMBER_CARDS) == 64 and len(set(NUMBER_CARDS)) == 64


# the overview of the rule book: its example for each mission ("z.B.")
@pytest.mark.parametrize("mission, cards", [
    ("red-three-sum-7", ["red3", "red2", "red2"]),
    ("odd-triple", ["red3", "blue3", "red3"]),
    ("sum-12", ["red4", "blue3", "blue4", "red1"]),
    ("two-odd-pairs", ["red3", "blue3", "red7", "blue7"]),
    ("red-sum-of-two", ["red1", "red5", "red6"]),
    ("three-pairs-same-parity", ["red7", "blue7", "red5", "blue5", "red1", "blue1"]),
    ("pair", ["red3", "blue3"]),
    ("red-run-5", ["red2", "red3", "red4", "red5", "red6"]),
    ("full-house", ["red7", "blue7", "red7", "blue5", "red5"]),
    ("low-three", ["red1", "blue3", "red3"]),
    ("even-triple", ["red4", "blue4", "blue4"]),
    ("one-three-five-seven", ["red1", "blue3", "red5", "blue7"]),
    ("two-red-pairs", ["red2", "red2", "red5", "red5"]),
    ("four-odd-one-colour", ["blue1", "blue5", "blue5", "blue7"]),
    ("three-pairs", ["red3", "blue3", "red5", "blue5", "red8", "blue8"]),
    ("four-high-blue", ["blue6", "blue6", "blue7", "blue8"]),
])
def test_the_rule_books_example_of_every_mission(mission, cards):
    assert fulfills(mission, cards)
    assert fulfills(mission, [f"{c}-{k % 4 + 1}" for k, c in enumerate(cards)])    # physical copies too
    assert not fulfills(mission, cards + ["red8"])                  # no card left over
    assert not fulfills(mission, cards[:-1])


@pytest.mark.parametrize("mission, cards, key, params", [
    ("three-pairs", ["red3", "blue3", "red5", "blue5", "red3", "blue3"], "teamplay_needs_groups",
     {"groups": "2 + 2 + 2", "shown": "4 + 2"}),                    # "not 3,3 5,5 3,3": two pairs only
    ("red-three-sum-7", ["red3", "red2", "red3"], "teamplay_needs_sum", {"sum": 7, "total": 8}),
    ("red-three-sum-7", ["red3", "blue2", "red2"], "teamplay_needs_colour", {"colour": "red", "card": "blue2"}),
    ("red-three-sum-7", ["red3", "red2"], "teamplay_needs_cards", {"n": 3, "shown": 2}),
    ("four-odd-one-colour", ["red1", "blue5", "blue5", "blue7"], "teamplay_needs_one_colour", {}),
    ("odd-triple", ["red4", "blue4", "red4"], "teamplay_needs_values", {"values": "1, 3, 5, 7", "value": 4}),
    ("one-three-five-seven", ["red1", "blue3", "red5", "blue5"], "teamplay_needs_exact_values", {"values": "1, 3, 5, 7"}),
    ("red-sum-of-two", ["red1", "red2", "red6"], "teamplay_needs_sum_of_two", {}),
    ("red-run-5", ["red2", "red3", "red4", "red5", "red7"], "teamplay_needs_run", {"n": 5}),
    ("three-pairs-same-parity", ["red7", "blue7", "red4", "blue4", "red1", "blue1"], "teamplay_needs_parity", {}),
    ("sum-12", [], "teamplay_needs_cards", {"n": 1, "shown": 0}),
])
def test_a_shortfall_names_what_the_cards_miss(mission, cards, key, params):
    assert shortfall(mission, cards) == (key, params)


def test_unknown_cards_and_missions_are_refused():
    for text in ("green3", "red9", "red3-5", "red3-x"):
        with pytest.raises(IllegalAction) as caught:
            Card.parse(text)
        assert caught.value.key == "teamplay_unknown_card"
    with pytest.raises(IllegalAction) as caught:
        fulfills("four-of-a-kind", ["red3"] * 4)
    assert caught.value.key == "teamplay_unknown_mission"


def test_ways_lists_each_combination_once_with_the_hands_own_cards():
    hand = ["red3-1", "blue3-2", "red3-3", "red5-1", "blue7-4"]
    assert sorted(ways("pair", hand)) == [("blue3-2", "red3-1"), ("red3-1", "red3-3")]
    assert ways("full-house", hand) == []
    found = ways("sum-12", ["red5-1", "blue7-1", "red4-1", "red3-1"])
    assert sorted(sorted(part) for part in found) == [["blue7-1", "red5-1"], ["red3-1", "red4-1", "red5-1"]]


def _brute_force(mission, hand):
    found = set()
    for size in range(1, len(hand) + 1):
        for part in combinations(hand, size):
            if fulfills(mission, part):
                found.add(tuple(sorted(Card.parse(c).notation() for c in part)))
    return found


@settings(max_examples=150, deadline=None)
@given(hand=st.lists(st.sampled_from(NUMBER_CARDS), min_size=0, max_size=9, unique=True),
       mission=st.sampled_from(sorted(MISSIONS)))
def test_ways_finds_exactly_what_a_brute_force_finds(hand, mission):
    found = ways(mission, hand)
    assert all(fulfills(mission, part) and set(part) <= set(hand) for part in found)
    shapes = {tuple(sorted(Card.parse(c).notation() for c in part)) for part in found}
    assert len(shapes) == len(found)
    assert shapes == _brute_force(mission, hand)


@given(st.text(max_size=12))
def test_parsing_any_text_is_a_card_or_a_refusal(text):
    try:
        card = Card.parse(text)
    except IllegalAction as refusal:
        assert refusal.key == "teamplay_unknown_card"
    else:
        assert Card.parse(card.notation()) == card
