"""Teamplay's bot. It decides from its seat's view (``Teamplay.seat_view``), as a person
does: its own hand, the bank, every mission on the table, and of its partner's hand only
the cards it saw go there (taken from the bank, or given by this bot). It plays for the
points: it fulfils the mission worth most (own or general) whenever it can, draws from the
bank a card that helps its missions (else from the pile), keeps over the limit the cards
that serve its missions, and gives its partner, without a word, a card that serves the
partner's missions (as far as it knows the partner's hand) more than its own.
"""

from __future__ import annotations

import random
from typing import Any

from controller.bots.base import RandomBot
from controller.games.core import HIDDEN, GameRules
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

    def decide(self, rules: GameRules, view: TeamplayState, seat: int, rng: random.Random) -> Any:
        hand = view.hands[seat]
        mine = [mission_type(m) for m in missions_open_to(view, seat)]
        if view.phase == "choose_missions":            # keep a mission that needs few cards
            return KeepMission(seat, mine[0].cards is None or mine[0].cards >= 5)
        if view.must_discard:                          # never the cards of a mission it could fulfil now
            ready = {c for m in missions_open_to(view, seat) for way in ways(mission_type(m).id, hand) for c in way}
            keep = sorted(hand, key=lambda c: (c in ready, usefulness(c, mine, hand), c))
            return Discard(seat, tuple(keep[:view.must_discard]))
        fulfils = [Fulfil(seat, m, way) for m in missions_open_to(view, seat) for way in ways(mission_type(m).id, hand)]
        if fulfils:
            return max(fulfils, key=lambda a: (mission_type(a.mission).points, -len(a.cards), a.mission, a.cards))
        if view.fresh is not None:
            fresh = mission_type(view.fresh)
            if fresh.cards is not None and fresh.cards >= 5 and fresh.points < 5 and view.mission_pile:
                return PutBack(seat)
        if view.draws < 2 and (view.bank or view.deck_left + len(view.discard) > 0):
            best = max(((usefulness(c, mine, hand), c) for c in view.bank), default=(0.0, None))
            if best[1] is not None and (best[0] >= 1.0 or view.deck_left + len(view.discard) == 0):
                return DrawBank(seat, best[1])
            return DrawDeck(seat)
        mate = partner(view, seat)
        if mate is not None and not view.gave and hand:
            theirs = [mission_type(m) for m in missions_open_to(view, mate)]
            seen = tuple(c for c in view.hands[mate] if c != HIDDEN)     # what it saw go to the partner
            gift = max(hand, key=lambda c: (usefulness(c, theirs, seen) - usefulness(c, mine, hand), c))
            if usefulness(gift, theirs, seen) - usefulness(gift, mine, hand) > 0.5:
                return Give(seat, (gift,))
        return EndTurn(seat)


BOT = TeamplayBot
