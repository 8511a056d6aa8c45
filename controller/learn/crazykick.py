"""Crazy Kick's learning hints (docs/crazy-kick.md, "Learning hints").

Everybody plays at once, so there is no player on turn: every seat sees which of its piles
may go to the centre now (a pass to a team-mate, a tackle, a goal, or the keeper who kicks
off), the same piles the rules would accept from its top buttons. Nothing else: flipping is
always allowed, and an empty hand, a ball out are already said at the seat.
"""

from __future__ import annotations

from controller.games.crazykick import CrazyKick, CrazyKickState, Play
from controller.learn import Hint


def hints(rules: CrazyKick, state: CrazyKickState, seat: int, hand_known: bool) -> list[Hint]:
    piles = sorted(a.pile + 1 for a in rules.legal_actions(state, seat) if isinstance(a, Play))
    return [Hint("learn_ck_pile" if len(piles) == 1 else "learn_ck_piles", {"piles": piles})] if piles else []
