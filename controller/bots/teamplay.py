"""Teamplay's bot. It sees its own hand, the bank, every mission on the table and what its
partner was given, as a person does, and plays for the points: it fulfils the mission worth
most (own or general) whenever it can, draws from the bank a card that helps its missions
(else from the pile), keeps over the limit the cards that serve its missions, and gives
its partner, without a word, a card that serves the partner's missions more than its own.
"""

from __future__ import annotations

import random
from typing import Any

from controller.bots.base import RandomBot
from controller.games.core import GameRules
from controller.games.teamplay import (
    Discard, DrawBank, DrawDeck, EndTurn, Fulfil, Give, KeepMission, Mission, PutBack, TeamplayState, card_of,
    mission_type, missions_open_to, partner, ways,
)


def usefulness(card: str, missions: list[Mission], hand: tuple[str, ...]) -> float:
    """How much one card helps towards these missions, given the rest of the hand."""
    c = card_of(card)
    values = [card_of(h).value for h in hand if h != card]
    worth = 0.0
    for m in missions:
        if m.colour in ("red", "blue") and c.colour != m.colour:
            continue
        if m.values is not None and c.value not in m.values:
            continue
        if m.exact_values is not None and c.value not in m.exact_values:
            continue
        fit = 1.0
        if m.groups is not None:                         # pairs and triples grow from equal values,
            have = values.count(c.value)                 # but a card beyond the largest group is surplus
            fit = 0.0 if have >= m.groups[0] else 1.0 + have
        if m.run:
            fit += sum(1 for v in values if abs(v - c.value) == 1)
        if m.sum is not None and m.cards is None:
            fit = 0.5 if c.value < m.sum else 0.0
        worth += fit * m.points / max(1, m.cards or 3)
    return worth


class TeamplayBot(RandomBot):
    """Chooses among the moves it would consider, all of them legal (it does not list every
    way to give cards: that is most of the legal moves and none it would make)."""

    def choose(self, rules: GameRules, state: TeamplayState, seat: int, rng: random.Random) -> Any:
        hand = state.hands[seat]
        mine = [mission_type(m) for m in missions_open_to(state, seat)]
        if state.phase == "choose_missions":            # keep a mission that needs few cards
            return KeepMission(seat, mine[0].cards is None or mine[0].cards >= 5)
        if state.must_discard:                          # never the cards of a mission it could fulfil now
            ready = {c for m in missions_open_to(state, seat) for way in ways(mission_type(m).id, hand) for c in way}
            keep = sorted(hand, key=lambda c: (c in ready, usefulness(c, mine, hand), c))
            return Discard(seat, tuple(keep[:state.must_discard]))
        fulfils = [Fulfil(seat, m, way) for m in missions_open_to(state, seat) for way in ways(mission_type(m).id, hand)]
        if fulfils:
            return max(fulfils, key=lambda a: (mission_type(a.mission).points, -len(a.cards), a.mission, a.cards))
        if state.fresh is not None:
            fresh = mission_type(state.fresh)
            if fresh.cards is not None and fresh.cards >= 5 and fresh.points < 5 and state.mission_pile:
                return PutBack(seat)
        if state.draws < 2 and (state.bank or state.deck_left + len(state.discard) > 0):
            best = max(((usefulness(c, mine, hand), c) for c in state.bank), default=(0.0, None))
            if best[1] is not None and (best[0] >= 1.0 or state.deck_left + len(state.discard) == 0):
                return DrawBank(seat, best[1])
            return DrawDeck(seat)
        mate = partner(state, seat)
        if mate is not None and not state.gave and hand:
            theirs = [mission_type(m) for m in missions_open_to(state, mate)]
            gift = max(hand, key=lambda c: (usefulness(c, theirs, state.hands[mate]) - usefulness(c, mine, hand), c))
            if usefulness(gift, theirs, state.hands[mate]) - usefulness(gift, mine, hand) > 0.5:
                return Give(seat, (gift,))
        return EndTurn(seat)


BOT = TeamplayBot
