"""Partout's bot: it sees its own hand and the public table, and plays through its station."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from controller.bots.base import RandomBot
from controller.games import partout as partout_rules
from controller.games.core import GameRules


class PartoutBot(RandomBot):
    """Names the trumps it holds most of, bids its strong cards, plays legally at random."""

    def decide(self, rules: GameRules, view: Any, seat: int, rng: random.Random) -> Any:
        hand = view.hands[seat] if view.hands is not None else ()
        cards = [partout_rules.ALL_CARDS[c] for c in hand]
        if view.phase == "trump_number" and cards:
            numbers = Counter(c.value for c in cards if c.value is not None and c.value in view.setup.numbers)
            if numbers:
                return partout_rules.NameTrumpNumber(seat, numbers.most_common(1)[0][0])
        if view.phase == "trump_colour" and cards:
            colours = Counter(c.colour for c in cards if c.colour)
            if colours:
                return partout_rules.NameTrumpColour(seat, colours.most_common(1)[0][0])
        if view.phase == "bidding" and cards:
            strong = sum(1 for c in cards if c.name in ("king", "queen")
                         or c.value == view.trump_number
                         or (c.colour == view.trump_colour and (c.value or 0) >= 5))
            bid = min(partout_rules.max_bid(view, seat), round(strong * 0.6))
            return partout_rules.Bid(seat, bid)
        return super().decide(rules, view, seat, rng)


BOT = PartoutBot
