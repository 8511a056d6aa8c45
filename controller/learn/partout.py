"""Partout's learning hints (docs/partout.md, "Learning hints").

- naming the trumps: the numbers and colours that may be named;
- bidding: the bids allowed (the partner's bid named when it limits them), and what the
  trumps just named make the highest cards;
- playing: any card may be played (the book: "es muss weder Farbe bekannt noch mit Trumpf
  gestochen werden"); leading, that the card led sets the colour led; else which cards would
  take the trick for the player's team if played now; with the hand known, of the player's own cards, else of every card not played yet
  this round ("if you hold one"); and when the partner leads the trick already, that.

"Would take the trick now" is the rules' own ranking (``resolve_trick``) of the trick with the
card added; a special card counts when one of its choices (whom the Dungeon locks, the
number or colour named) gives the team the lead.
"""

from __future__ import annotations

from controller.games.partout import (
    ALL_CARDS, Bid, NameTrumpColour, NameTrumpNumber, Partout, PartoutState, Play, max_bid, resolve_trick,
)
from controller.learn import Hint


def hints(rules: Partout, state: PartoutState, seat: int, hand_known: bool) -> list[Hint]:
    if state.to_act != seat:
        return []
    legal = rules.legal_actions(state, seat)
    if state.phase == "trump_number":
        numbers = sorted({a.number for a in legal if isinstance(a, NameTrumpNumber)})
        return [Hint("learn_partout_number", {"low": numbers[0], "high": numbers[-1]})]
    if state.phase == "trump_colour":
        return [Hint("learn_partout_colour", {"colours": [a.colour for a in legal if isinstance(a, NameTrumpColour)]})]
    if state.phase == "bidding":
        high = max(a.tricks for a in legal if isinstance(a, Bid))
        out = [Hint("learn_partout_bid", {"high": high})]
        partners = state.setup.tricks - max_bid(state, seat)
        if partners:
            out.append(Hint("learn_partout_bid_partner", {"bid": partners, "tricks": state.setup.tricks}))
        out.append(Hint("learn_partout_ranking", {"number": state.trump_number, "colour": state.trump_colour}))
        return out
    if state.phase != "playing":
        return []
    plays = [a for a in legal if isinstance(a, Play)]
    out = []
    leader = _leading_seat(state)
    if leader is not None and leader != seat and _team(state, leader) == _team(state, seat):
        out.append(Hint("learn_partout_partner_leads", {"player": leader}))
    if hand_known:
        cards = list(dict.fromkeys(a.card for a in plays))
        out.append(Hint("learn_partout_any_of_yours", {"n": len(cards), "cards": cards}))
        if not state.trick:                          # every card would lead: nothing to tell apart
            return out + [Hint("learn_partout_lead")]
        winners = [c for c in cards if _takes(state, seat, [a for a in plays if a.card == c])]
        out.append(Hint("learn_partout_take", {"cards": winners}) if winners else Hint("learn_partout_take_none"))
        return out
    # the hand is not known: every card not played this round may be in it
    out.append(Hint("learn_partout_any_card"))
    if not state.trick:
        return out + [Hint("learn_partout_lead")]
    ways = _every_card(rules, state, seat)
    winners = [c for c in ways if _takes(state, seat, ways[c])]
    out.append(Hint("learn_partout_take_if_held", {"cards": winners}) if winners else
               Hint("learn_partout_take_none_any"))
    return out


def _team(state: PartoutState, seat: int) -> int:
    return state.setup.team_of[seat]


def _leading_seat(state: PartoutState) -> int | None:
    """Whose card leads the trick so far (None before its first card)."""
    if not state.trick:
        return None
    plays = [(ALL_CARDS[c], ch) for _, c, ch in state.trick]
    return state.trick[resolve_trick(plays, state.trump_number, state.trump_colour).winner][0]  # type: ignore[arg-type]


def _takes(state: PartoutState, seat: int, ways: list[Play]) -> bool:
    """Whether one of these ways to play a card gives the seat's team the lead in the trick."""
    plays = [(ALL_CARDS[c], ch) for _, c, ch in state.trick]
    owners = [p for p, _, _ in state.trick] + [seat]
    for way in ways:
        result = resolve_trick(plays + [(ALL_CARDS[way.card], way.choice)], state.trump_number,  # type: ignore[arg-type]
                               state.trump_colour)  # type: ignore[arg-type]
        if _team(state, owners[result.winner]) == _team(state, seat):
            return True
    return False


def _every_card(rules: Partout, state: PartoutState, seat: int) -> dict[str, list[Play]]:
    """Every card not played this round, with every way to play it now as the rules list
    them (its choices): the hand the seat may hold, whoever deals."""
    if state.hands is not None:                      # the table dealt: as if the seat held them all
        unplayed = tuple(c for c in rules.card_names() if c in state.setup.deck and c not in state.played)
        state = state._replace(hands=state.hands[:seat] + (unplayed,) + state.hands[seat + 1:])
    ways: dict[str, list[Play]] = {}
    for action in rules.legal_actions(state, seat):
        if isinstance(action, Play):
            ways.setdefault(action.card, []).append(action)
    return ways
