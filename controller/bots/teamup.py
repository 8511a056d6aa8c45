"""Team UP!'s bot team. It sees what the players see (``TeamUp.seat_view``): the pallet, the
card drawn, the cards already played (so it knows which kinds are still in the pile, not
their order).

- **Placing**: the solver's suggestion (``suggest_placement`` in
  ``controller/games/teamup_hints.py``, also the players' hint): the placements ranked by
  what they leave of the floors, the best few tried on three guessed orders of the cards
  still in the pile; in puzzle and challenge games, planned with the real order.
- **Drawing or stopping**: it stops when more than half of the kinds still in the pile
  would find no place on the pallet as it stands (a card drawn then costs a point).
"""

from __future__ import annotations

import random
from typing import Any

from controller.bots.base import RandomBot
from controller.games.core import GameRules
from controller.games.teamup import CARD_NUMBERS, KINDS, Draw, FaceDown, Place, Stop, TeamupState, fitting, pallet_of
from controller.games.teamup_hints import suggest_placement, unseen_kinds

def should_stop(state: TeamupState) -> bool:
    pallet = pallet_of(state.placed)
    kinds = unseen_kinds(state)
    if not kinds:
        return True
    stuck = sum(1 for name in kinds if next(fitting(pallet, KINDS[name]), None) is None)
    return stuck * 2 > len(kinds)


class TeamUpBot(RandomBot):
    def decide(self, rules: GameRules, view: TeamupState, seat: int, rng: random.Random) -> Any:
        if view.phase == "draw":
            if should_stop(view):
                return Stop(seat)
            if view.mode == "physical" and len(view.deck) == len(view.moves):
                drawn = set(view.deck)
                return Draw(seat, rng.choice([n for n in CARD_NUMBERS if n not in drawn]))
            return Draw(seat)
        p = suggest_placement(view, rng)
        return FaceDown(seat) if p is None else Place.of(seat, p)


BOT = TeamUpBot
