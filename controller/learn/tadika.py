"""Tadika's learning hints (docs/tadika.md, "Learning hints").

With the hand known: every swap the rules allow (the book's "er tauscht eine Karte derselben
Farbe / mit demselben Teiler"), those that match twice first ("passen in Farbe und Teiler":
the player stays on turn), then the others by the card given; a winning hand to show; the wish cards;
renewing; swapping all or passing. With real cards the table does not know the hand: how a
swap matches, which times table a forbidden card bars, and the moves without cards.
"""

from __future__ import annotations

from controller.games.tadika import (
    WISH_CARDS, Claim, PlayWish, Renew, Swap, Tadika, TadikaState, barred_rows, claim_points, swap_match, wish_open,
)
from controller.learn import Hint


def hints(rules: Tadika, state: TadikaState, seat: int, hand_known: bool) -> list[Hint]:
    if state.phase != "turn" or seat not in rules.may_act(state):
        return []
    legal = rules.legal_actions(state, seat)
    if state.to_act != seat:
        # the swap that ended the turn completed a winning hand: it may still be shown, until
        # the next player moves (the seat's line says so whatever the hand; this says it wins)
        return [Hint("learn_tadika_claim_still", {"n": claim_points(state, seat, state.hands[seat])})
                for a in legal if isinstance(a, Claim) and hand_known]
    out: list[Hint] = []
    if hand_known and any(isinstance(a, Claim) for a in legal):    # else it would tell the table a hand
        out.append(Hint("learn_tadika_claim", {"n": claim_points(state, seat, state.hands[seat])}))
    if any(isinstance(a, Renew) for a in legal):
        # the rules allow it for a wish card in the middle, or when everybody passed
        wish = any(c in WISH_CARDS for c in state.middle)
        out.append(Hint("learn_tadika_renew_wish" if wish else "learn_tadika_renew_passed"))
    # "eine beliebige seiner Handkarte gegen die Wunschkarte tauschen": with real cards the
    # rules list no swaps (the hand is unknown), but this one takes any card
    wish_to_take = wish_open(state) and any(c in WISH_CARDS for c in state.middle)
    if any(isinstance(a, Swap) and a.take in WISH_CARDS for a in legal) or (wish_to_take and state.mode != "virtual"):
        out.append(Hint("learn_tadika_take_wish"))
    if hand_known:
        out += _swaps(state, [a for a in legal if isinstance(a, Swap) and a.take not in WISH_CARDS])
        if any(isinstance(a, PlayWish) for a in legal):
            out.append(Hint("learn_tadika_play_wish"))
    else:
        out.append(Hint("learn_tadika_how_to_swap"))
    barred = sorted(barred_rows(state.middle))
    if barred:
        out.append(Hint("learn_tadika_barred", {"rows": barred}))
    out.append(Hint("learn_tadika_all_or_pass"))      # always allowed (with real cards too)
    return out


def _swaps(state: TadikaState, swaps: list[Swap]) -> list[Hint]:
    """The swaps that match twice first (they keep the turn: the book's stepping stones),
    then per card of the hand (in the hand's order) the middle cards it may take otherwise."""
    if not swaps:
        return [Hint("learn_tadika_no_swap")]
    barred = barred_rows(state.middle)
    twice = [a for a in swaps if len(swap_match(a.give, a.take, barred)) == 2]
    out = [Hint("learn_tadika_again", {"swaps": [f"{a.give}>{a.take}" for a in twice]})] if twice else []
    once = [a for a in swaps if a not in twice]
    for give in dict.fromkeys(a.give for a in once):
        out.append(Hint("learn_tadika_swap", {"card": give, "takes": [a.take for a in once if a.give == give]}))
    return out
