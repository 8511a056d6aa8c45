"""Teamplay's learning hints (docs/teamplay.md, "Learning hints").

With the hand known: the missions the hand fulfils now (with the cards of one way), the
missions one card from done (which cards would do it, and a bank card that would), the
draws left, giving, putting a new mission back, ending the turn. With real cards the table
does not know the hand: the missions open to the player in words (their icons read out:
"an odd triple"), and the moves without cards.
"""

from __future__ import annotations

from functools import lru_cache

from controller.games.teamplay import (
    COLOURS, VALUES, DrawBank, DrawDeck, EndTurn, Fulfil, Give, KeepMission, PutBack, Teamplay, TeamplayState,
    card_of, hand_limit, mission_type, missions_open_to, partner, ways,
)
from controller.learn import Hint

KINDS = tuple(f"{c}{v}" for c in COLOURS for v in VALUES)     # a card as a mission sees it


def hints(rules: Teamplay, state: TeamplayState, seat: int, hand_known: bool) -> list[Hint]:
    if state.to_act != seat or state.phase not in ("choose_missions", "turn"):
        return []
    legal = rules.legal_actions(state, seat)
    if state.phase == "choose_missions":
        return [Hint("learn_teamplay_keep")] if any(isinstance(a, KeepMission) for a in legal) else []
    if state.must_discard:
        return [Hint("learn_teamplay_discard", {"n": state.must_discard, "limit": hand_limit(state.players)})]
    out: list[Hint] = []
    draws = any(isinstance(a, (DrawDeck, DrawBank)) for a in legal)
    if hand_known:
        hand = state.hands[seat]
        done: dict[str, tuple[str, ...]] = {}
        for action in legal:
            if isinstance(action, Fulfil):
                done.setdefault(action.mission, action.cards)
        for card, cards in done.items():
            out.append(Hint("learn_teamplay_fulfil", {"mission": mission_type(card).id, "cards": list(cards)}))
        for card in missions_open_to(state, seat):
            if card in done:
                continue
            mission = mission_type(card).id
            wanted = one_card_from_done(mission, tuple(sorted(card_of(c).notation() for c in hand)))
            if not wanted:
                continue
            out.append(Hint("learn_teamplay_near", {"mission": mission, "takes": list(wanted)}))
            bank = [c for c in state.bank if card_of(c).notation() in wanted]
            if bank and any(isinstance(a, DrawBank) for a in legal):
                out.append(Hint("learn_teamplay_near_bank", {"mission": mission, "card": bank[0]}))
    else:
        own = [mission_type(c).id for c in state.missions[seat]]
        out.append(Hint("learn_teamplay_missions", {"missions": own, "mission": mission_type(state.general).id})
                   if state.general else Hint("learn_teamplay_missions_own", {"missions": own}))
    if draws:
        out.append(Hint("learn_teamplay_draw", {"n": 2 - state.draws}))
    if state.fresh is not None and any(isinstance(a, PutBack) for a in legal):     # (a fresh mission to put back)
        out.append(Hint("learn_teamplay_put_back", {"mission": mission_type(state.fresh).id}))
    # giving takes cards, which the rules list only when they know the hand
    if any(isinstance(a, Give) for a in legal) or (not hand_known and partner(state, seat) is not None
                                                    and not state.gave and state.hand_sizes[seat] > 0):
        out.append(Hint("learn_teamplay_give", {"player": partner(state, seat)}))
    if any(isinstance(a, EndTurn) for a in legal):
        out.append(Hint("learn_teamplay_end"))
    return out


@lru_cache(maxsize=4096)
def one_card_from_done(mission: str, hand: tuple[str, ...]) -> tuple[str, ...]:
    """The cards (as the mission sees them: "red3") that would let ``hand`` fulfil the
    mission, which it cannot yet: one more card from done."""
    if ways(mission, hand):
        return ()
    return tuple(kind for kind in KINDS if ways(mission, hand + (kind,)))
