"""Tadika's bot. It sees its own hand and the open middle, as a person does, and plays
as the rule page's tips advise: it follows the goal its hand is closest to (a colour, a
times-table row, four of a number) while keeping the next best in view ("mehrgleisig"),
prefers swaps that match twice (they keep it on turn, the stepping stones of the tips),
swaps all seven cards when the middle is closer to a win than its hand, uses wish cards
to bring new cards when nothing helps, and shows a win as soon as it holds one.
"""

from __future__ import annotations

import random
from typing import Any

from controller.bots.base import RandomBot
from controller.games.core import GameRules
from controller.games.tadika import (
    ALL_CARDS, COLOURS, HAND_SIZE, POINTS, ROWS, WISH_CARDS, Claim, Pass, PlayWish, Renew, Swap, SwapAll,
    TadikaState, barred_rows, row_points, swap_match,
)

FOURS = tuple(range(2, 11))
# the goals a hand can grow towards, with the cards each needs and the points it wins
GOALS: tuple[tuple[str, Any, int, int], ...] = (
    tuple(("one_colour", c, HAND_SIZE, POINTS["one_colour"]) for c in COLOURS)
    + tuple(("row", n, HAND_SIZE, row_points(n)) for n in ROWS)
    + tuple(("four_of_a_number", v, 4, POINTS["four_of_a_number"]) for v in FOURS)
)
SECOND_GOAL_WEIGHT = 0.3        # keep several goals open, as the rule page advises
DOUBLE_MATCH_BONUS = 0.02       # a swap that keeps the bot on turn is worth a little more
FRESH_CARD = 0.5 / HAND_SIZE    # what a card from the pile is worth on average, roughly


def _contributions(name: str) -> tuple[float, ...]:
    """How much one card brings to each goal (a joker fits every row and number)."""
    card = ALL_CARDS[name]
    out = []
    for kind, what, need, _ in GOALS:
        if card.value is None:
            fits = False
        elif kind == "one_colour":
            fits = card.colour == what
        elif kind == "row":
            fits = what in card.rows
        else:
            fits = card.value == what or card.is_joker
        out.append(1.0 / need if fits else 0.0)
    return tuple(out)


CONTRIBUTION = {name: _contributions(name) for name in ALL_CARDS}
TIE_BREAK = tuple(points / 1000 for _, _, _, points in GOALS)


def progress(cards: Any) -> list[float]:
    """Per goal, the share of the needed cards the hand holds (1.0: complete)."""
    totals = [0.0] * len(GOALS)
    for name in cards:
        for g, c in enumerate(CONTRIBUTION[name]):
            totals[g] += c
    return totals


def value(totals: list[float]) -> float:
    """A hand's worth: its best goal, plus some of its second best."""
    ranked = sorted((min(t, 1.0) + b for t, b in zip(totals, TIE_BREAK)), reverse=True)
    return ranked[0] + SECOND_GOAL_WEIGHT * ranked[1]


class TadikaBot(RandomBot):
    def decide(self, rules: GameRules, view: TadikaState, seat: int, rng: random.Random) -> Any:
        legal = rules.legal_actions(view, seat)
        claims = [a for a in legal if isinstance(a, Claim)]
        if claims:
            return claims[0]
        if not legal:
            return None
        hand = view.hands[seat]
        base = progress(hand)
        now = value(base)
        scored: list[tuple[float, float, Any]] = []
        for action in legal:
            scored.append((self._worth(action, view, hand, base, now), rng.random(), action))
        scored.sort(key=lambda s: (s[0], s[1]), reverse=True)
        return scored[0][2]

    def _worth(self, action: Any, view: TadikaState, hand: tuple[str, ...], base: list[float],
               now: float) -> float:
        if isinstance(action, Swap):
            after = [b - g + t for b, g, t in zip(base, CONTRIBUTION[action.give], CONTRIBUTION[action.take])]
            if action.take in WISH_CARDS:            # played at once: a fresh card and a new middle
                if action.give in WISH_CARDS:
                    return now - 1.0                 # a wish for a wish changes nothing
                return value(after) + FRESH_CARD
            worth = value(after)
            if worth <= now:                         # never swap for nothing: it could go round in circles
                return worth - 1.0
            doubles = len(swap_match(action.give, action.take, barred_rows(view.middle))) == 2
            return worth + (DOUBLE_MATCH_BONUS if doubles else 0.0)
        if isinstance(action, SwapAll):
            worth = value(progress(view.middle))
            return worth if worth > now else worth - 1.0
        if isinstance(action, PlayWish):
            return value([b - c for b, c in zip(base, CONTRIBUTION[action.card])]) + FRESH_CARD
        if isinstance(action, Renew):
            return now + 0.001                       # new cards are better than none
        if isinstance(action, Pass):
            return now
        return -1.0


BOT = TadikaBot
