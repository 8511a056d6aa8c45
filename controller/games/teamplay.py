"""Teamplay (Schmidt Spiele): partners fulfil missions with number cards. This module holds
the missions: whether the cards shown fulfil one (``fulfills``), every way a hand can
(``ways``), and what the cards miss when they do not (``shortfall``), each read from the
missions' data in ``controller/games/data/teamplay.json``.

Cards are written by colour and value, ``red3``, ``blue7``; a physical card's copy may
follow (``red3-2``: the second red 3), which the missions do not look at.

>>> fulfills("pair", ["red3", "blue3"])
True
>>> fulfills("three-pairs", ["red3", "blue3", "red5", "blue5", "red3", "blue3"])
False
>>> fulfills("red-three-sum-7", ["red3", "red2", "red2"])
True
>>> shortfall("red-three-sum-7", ["red3", "red2", "red3"])
('teamplay_needs_sum', {'sum': 7, 'total': 8})
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import combinations, permutations
from typing import Any, Iterable, Sequence

from controller.games.core import IllegalAction, load_data

DATA = load_data("teamplay")
COLOURS: tuple[str, ...] = tuple(DATA["colours"])
VALUES: tuple[int, ...] = tuple(DATA["values"])
COPIES = DATA["copies_per_colour"]


@dataclass(frozen=True, slots=True)
class Card:
    colour: str
    value: int

    @classmethod
    def parse(cls, text: str) -> "Card":
        name = str(text).strip().lower()
        base, dash, copy = name.partition("-")
        card = _CARDS.get(base)
        if card is None or (dash and not (copy.isdigit() and 1 <= int(copy) <= COPIES)):
            raise IllegalAction("teamplay_unknown_card", text=str(text))
        return card

    def notation(self) -> str:
        return f"{self.colour}{self.value}"


_CARDS = {f"{c}{v}": Card(c, v) for c in COLOURS for v in VALUES}
NUMBER_CARDS: tuple[str, ...] = tuple(f"{c}{v}-{k}" for c in COLOURS for v in VALUES for k in range(1, COPIES + 1))


@dataclass(frozen=True)
class Mission:
    """One mission type, as the data file describes it."""

    id: str
    points: int
    copies: int
    cards: int | None = None
    colour: str | None = None
    values: frozenset[int] | None = None
    exact_values: tuple[int, ...] | None = None
    groups: tuple[int, ...] | None = None
    sum: int | None = None
    sum_of_two: bool = False
    run: bool = False
    parity: str | None = None


def _mission(data: dict[str, Any]) -> Mission:
    return Mission(
        data["id"], data["points"], data["copies"], data.get("cards"), data.get("colour"),
        frozenset(data["values"]) if "values" in data else None,
        tuple(sorted(data["exact_values"])) if "exact_values" in data else None,
        tuple(sorted(data["groups"], reverse=True)) if "groups" in data else None,
        data.get("sum"), bool(data.get("sum_of_two")), bool(data.get("run")), data.get("parity"))


MISSIONS: dict[str, Mission] = {m["id"]: _mission(m) for m in DATA["missions"]}


def mission(mission_id: str) -> Mission:
    found = MISSIONS.get(mission_id)
    if found is None:
        raise IllegalAction("teamplay_unknown_mission", text=str(mission_id))
    return found


def shortfall(mission_id: str, cards: Sequence[str]) -> tuple[str, dict[str, Any]] | None:
    """None when ``cards`` fulfil the mission exactly; else the first thing they miss, as a
    text key and its parameters ("needs exactly 3 red cards summing to 7; these sum to 8")."""
    m = mission(mission_id)
    parsed = [Card.parse(c) for c in cards]
    values = [c.value for c in parsed]
    if not parsed:
        return "teamplay_needs_cards", {"n": m.cards or 1, "shown": 0}
    if m.cards is not None and len(parsed) != m.cards:
        return "teamplay_needs_cards", {"n": m.cards, "shown": len(parsed)}
    if m.colour in COLOURS:
        other = next((c for c in parsed if c.colour != m.colour), None)
        if other is not None:
            return "teamplay_needs_colour", {"colour": m.colour, "card": other.notation()}
    elif m.colour == "same" and len({c.colour for c in parsed}) > 1:
        return "teamplay_needs_one_colour", {}
    if m.values is not None:
        wrong = next((v for v in values if v not in m.values), None)
        if wrong is not None:
            return "teamplay_needs_values", {"values": ", ".join(map(str, sorted(m.values))), "value": wrong}
    if m.exact_values is not None and tuple(sorted(values)) != m.exact_values:
        return "teamplay_needs_exact_values", {"values": ", ".join(map(str, m.exact_values))}
    if m.groups is not None:
        shape = tuple(sorted(Counter(values).values(), reverse=True))
        if shape != m.groups:
            return "teamplay_needs_groups", {"groups": " + ".join(map(str, m.groups)),
                                             "shown": " + ".join(map(str, shape))}
    if m.sum is not None and sum(values) != m.sum:
        return "teamplay_needs_sum", {"sum": m.sum, "total": sum(values)}
    if m.sum_of_two and not any(a + b == c for a, b, c in permutations(values, 3)):
        return "teamplay_needs_sum_of_two", {}
    if m.run:
        ordered = sorted(values)
        if any(b - a != 1 for a, b in zip(ordered, ordered[1:])):
            return "teamplay_needs_run", {"n": len(values)}
    if m.parity == "same" and len({v % 2 for v in values}) > 1:
        return "teamplay_needs_parity", {}
    return None


def _parsed(cards: Iterable[str]) -> list[Card]:
    return [_BY_NAME.get(c) or Card.parse(c) for c in cards]


_BY_NAME: dict[str, Card] = {**_CARDS, **{n: _CARDS[n.partition("-")[0]] for n in NUMBER_CARDS}}


def _fits(m: Mission, parsed: Sequence[Card]) -> bool:
    """``shortfall(...) is None`` without building a reason: the search's inner loop."""
    n = len(parsed)
    if not n or (m.cards is not None and n != m.cards):
        return False
    values = [c.value for c in parsed]
    if m.colour is not None:
        colours = {c.colour for c in parsed}
        if (m.colour == "same" and len(colours) > 1) or (m.colour != "same" and colours != {m.colour}):
            return False
    if m.values is not None and not m.values.issuperset(values):
        return False
    if m.exact_values is not None and tuple(sorted(values)) != m.exact_values:
        return False
    if m.groups is not None and tuple(sorted(Counter(values).values(), reverse=True)) != m.groups:
        return False
    if m.sum is not None and sum(values) != m.sum:
        return False
    if m.sum_of_two and not any(a + b == c for a, b, c in permutations(values, 3)):
        return False
    if m.run:
        ordered = sorted(values)
        if any(b - a != 1 for a, b in zip(ordered, ordered[1:])):
            return False
    if m.parity == "same" and len({v % 2 for v in values}) > 1:
        return False
    return True


def fulfills(mission_id: str, cards: Sequence[str]) -> bool:
    """Whether the cards shown form the mission's combination exactly, no card left over."""
    return _fits(mission(mission_id), _parsed(cards))


def ways(mission_id: str, hand: Iterable[str]) -> list[tuple[str, ...]]:
    """Every part of ``hand`` that fulfils the mission (each as the hand's own cards, one per
    combination of colours and values). Cards the mission cannot use are left out first
    (its colour, its values), and sums are searched with the running total pruned, so all
    sixteen missions in an eight-card hand take well under a millisecond."""
    m = mission(mission_id)
    names = list(hand)
    parsed = _parsed(names)
    usable = [(card, name) for card, name in zip(parsed, names)
              if (m.colour not in COLOURS or card.colour == m.colour) and (m.values is None or card.value in m.values)
              and (m.exact_values is None or card.value in m.exact_values)]
    if m.groups is not None:                     # only values with enough cards can form the groups
        counts = Counter(card.value for card, _ in usable)
        usable = [cn for cn in usable if counts[cn[0].value] >= m.groups[-1]]
        have = sorted((counts[v] for v in {card.value for card, _ in usable}), reverse=True)
        if len(have) < len(m.groups) or any(h < g for h, g in zip(have, m.groups)):
            return []
    usable.sort(key=lambda cn: (cn[0].colour, cn[0].value, cn[1]))
    found: dict[tuple[Card, ...], tuple[str, ...]] = {}
    if m.cards is None:                          # any number of cards: a sum, searched with pruning
        target = m.sum if m.sum is not None else 0

        def extend(start: int, chosen: list[int], total: int) -> None:
            if total == target and chosen:
                key = tuple(usable[i][0] for i in chosen)
                if key not in found and _fits(m, key):
                    found[key] = tuple(usable[i][1] for i in chosen)
            for i in range(start, len(usable)):
                value = usable[i][0].value
                if total + value <= target:
                    chosen.append(i)
                    extend(i + 1, chosen, total + value)
                    chosen.pop()
        extend(0, [], 0)
        return list(found.values())
    for part in combinations(usable, m.cards):
        key = tuple(card for card, _ in part)
        if key not in found and _fits(m, key):
            found[key] = tuple(name for _, name in part)
    return list(found.values())
