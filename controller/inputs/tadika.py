"""Tadika at the table: the cards are tapped on the seat's reader, the rest is on the
buttons.

Soft keys (buttons 0-2 top row, 3-5 bottom row)::

    [  pass  ] [ swap all ] [ I win! ]
    [  back  ] [new middle] [take wish]

- **A swap** is two taps: the card put down and the card taken, in either order (the table
  knows which cards lie in the middle). Tapping a wish card from the hand plays it; to
  give a wish card away (for the wish card in the middle), tap the middle card first.
- **Swap all** and **I win!** then take the seven cards of the hand tapped one by one
  (physical cards); with virtual cards the table knows the hand and the button is enough.
- **The middle** (physical cards): at the start of a round the dealer taps the seven cards
  laid in the middle, and after a renewal the player who renewed taps the new ones.
- **Back** forgets the taps made so far; **take wish** is the same as tapping the wish
  card lying in the middle.

Every tap is checked against the rules core at once, so a wrong card is refused when it
is tapped, not after the seventh.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.games.core import IllegalAction
from controller.games.tadika import (
    HAND_SIZE, MIDDLE_SIZE, WISH_CARDS, Card, Claim, LayMiddle, Pass, PlayWish, Renew, Swap, SwapAll, Tadika,
    TadikaState, check_hand_card, check_new_middle_card, check_wish_open, may_renew, wish_open,
)
from controller.inputs.base import InputAdapter, SoftKey, Step

PASS, SWAP_ALL, CLAIM, BACK, RENEW, TAKE_WISH = 0, 1, 2, 3, 4, 5


@dataclass(frozen=True)
class Taps:
    """What a seat has tapped so far: ``what`` is ``swap`` (a card to put down or to take),
    ``swap_all``, ``claim`` or ``lay`` (the middle)."""

    what: str
    cards: tuple[str, ...] = ()


class TadikaInput(InputAdapter):
    game = "tadika"
    back_button = BACK                 # held for a second: asks to undo the last move

    def __init__(self, rules: Tadika) -> None:
        super().__init__(rules)
        self._taps: dict[int, Taps] = {}

    def reset(self) -> None:
        self._taps.clear()

    def taps(self, state: TadikaState, seat: int) -> Taps | None:
        if state.phase == "lay_middle" and state.to_act == seat:
            return self._taps.get(seat) if seat in self._taps and self._taps[seat].what == "lay" else Taps("lay")
        return self._taps.get(seat)

    # -- buttons -------------------------------------------------------------------------------------
    def button(self, state: TadikaState, seat: int, button: int) -> Any:
        if state.phase == "over":
            raise IllegalAction("game_over")
        if button == BACK:
            taps = self.taps(state, seat)
            if taps is None or not taps.cards:
                raise IllegalAction("tadika_nothing_to_cancel")
            self._taps.pop(seat, None)
            return None
        if button == CLAIM:
            return self._collect(state, seat, "claim", Claim)
        if state.phase == "lay_middle":
            raise IllegalAction("tadika_lay_middle_first", player=state.to_act)
        if seat != state.to_act:
            raise IllegalAction("not_your_turn", player=seat, expected=state.to_act)
        if button == PASS:
            return Pass(seat)
        if button == RENEW:
            return Renew(seat)
        if button == SWAP_ALL:
            return self._collect(state, seat, "swap_all", SwapAll)
        if button == TAKE_WISH:
            wish = next((c for c in state.middle if c in WISH_CARDS), None)
            if wish is None:
                raise IllegalAction("tadika_no_wish_to_take")
            return self.card(state, seat, wish)
        raise IllegalAction("tadika_button_unused")

    def _collect(self, state: TadikaState, seat: int, what: str, action: type) -> Any:
        """Swap all / claim: with virtual cards the hand is known; with physical cards the
        seven taps that follow are the hand. The rules core refuses out-of-turn first."""
        if state.phase != "turn":
            raise IllegalAction("tadika_lay_middle_first", player=state.to_act)
        if state.mode == "virtual":
            return action(seat, state.hands[seat])
        if what == "claim" and seat not in (state.to_act, state.just_moved):
            raise IllegalAction("tadika_claim_not_now", player=seat)
        if what == "swap_all" and seat != state.to_act:
            raise IllegalAction("not_your_turn", player=seat, expected=state.to_act)
        self._taps[seat] = Taps(what)
        return None

    # -- taps ----------------------------------------------------------------------------------------
    def card(self, state: TadikaState, seat: int, card: str) -> Any:
        if state.phase == "over":
            raise IllegalAction("game_over")
        name = Card.parse(card).name
        taps = self.taps(state, seat)
        if taps is not None and taps.what in ("lay", "swap_all", "claim"):
            return self._gather(state, seat, taps, name)
        if state.phase == "lay_middle":
            raise IllegalAction("tadika_lays_middle", player=seat, expected=state.to_act)
        if seat != state.to_act:
            raise IllegalAction("not_your_turn", player=seat, expected=state.to_act)
        held = taps.cards[0] if taps is not None and taps.cards else None
        if name in state.middle:
            if held is not None and held not in state.middle:
                return Swap(seat, held, name)
            if name in WISH_CARDS:
                check_wish_open(state)
            self._taps[seat] = Taps("swap", (name,))
            return None
        check_hand_card(state, seat, name)
        if held is not None and held in state.middle:
            return Swap(seat, name, held)
        if name in WISH_CARDS:
            return PlayWish(seat, name)
        self._taps[seat] = Taps("swap", (name,))
        return None

    def _gather(self, state: TadikaState, seat: int, taps: Taps, card: str) -> Any:
        if card in taps.cards:
            raise IllegalAction("tadika_tapped_twice", card=card)
        if taps.what == "lay":
            check_new_middle_card(state, card)
            size = MIDDLE_SIZE
        else:
            check_hand_card(state, seat, card)
            size = HAND_SIZE
        cards = taps.cards + (card,)
        if len(cards) < size:
            self._taps[seat] = Taps(taps.what, cards)
            return None
        return {"lay": LayMiddle, "swap_all": SwapAll, "claim": Claim}[taps.what](seat, cards)

    # -- what the screen shows for a seat -----------------------------------------------------------
    def soft_keys(self, state: TadikaState, seat: int) -> tuple[SoftKey | None, ...]:
        if state.phase == "over":
            return (None,) * 6
        taps = self.taps(state, seat)
        back = SoftKey("key_back") if taps is not None and taps.cards else None
        claim = SoftKey("tadika_key_claim") if state.phase == "turn" and seat in (state.to_act, state.just_moved) \
            else None
        if state.phase != "turn" or seat != state.to_act:
            return (None, None, claim, back, None, None)
        renew = SoftKey("tadika_key_renew") if may_renew(state) else None
        wish = SoftKey("tadika_key_take_wish") if wish_open(state) and \
            any(c in WISH_CARDS for c in state.middle) else None
        return (SoftKey("tadika_key_pass"), SoftKey("tadika_key_swap_all"), claim, back, renew, wish)

    def prompt(self, state: TadikaState, seat: int) -> tuple[str, dict[str, Any]] | None:
        taps = self.taps(state, seat)
        if taps is not None:
            if taps.what == "lay":
                return "tadika_prompt_lay", {"n": len(taps.cards)}
            if taps.what in ("swap_all", "claim"):
                return f"tadika_prompt_{taps.what}", {"n": len(taps.cards)}
            held = taps.cards[0]
            return ("tadika_prompt_give" if held in state.middle else "tadika_prompt_take"), {"card": held}
        if state.phase == "turn" and seat == state.to_act:
            return "tadika_prompt_turn", {}
        # with real cards only the player knows whether the hand wins, so the table asks; with
        # dealt cards it knows (a bot shows a winning hand by itself, the keyboard has the key)
        if state.phase == "turn" and seat == state.just_moved and state.mode == "physical":
            return "tadika_prompt_may_claim", {}
        return None

    def pending(self, state: TadikaState, seat: int) -> dict[str, Any] | None:
        taps = self.taps(state, seat)
        return None if taps is None else {"what": taps.what, "cards": list(taps.cards)}

    # -- how a bot (or a test) makes an action with its hands ------------------------------------------
    def inputs_for(self, state: TadikaState, seat: int, action: Any) -> list[Step]:
        if isinstance(action, Swap):
            if action.give in WISH_CARDS:          # a wish tapped first from the hand would be played
                return [Step("tap", action.take), Step("tap", action.give)]
            return [Step("tap", action.give), Step("tap", action.take)]
        if isinstance(action, PlayWish):
            return [Step("tap", action.card)]
        if isinstance(action, LayMiddle):
            return [Step("tap", c) for c in action.cards]
        if isinstance(action, (SwapAll, Claim)):
            press = Step("press", SWAP_ALL if isinstance(action, SwapAll) else CLAIM)
            if state.mode == "virtual":
                return [press]
            return [press] + [Step("tap", c) for c in action.hand]
        if isinstance(action, Pass):
            return [Step("press", PASS)]
        if isinstance(action, Renew):
            return [Step("press", RENEW)]
        raise IllegalAction("unknown_action", text=str(action))


INPUT = TadikaInput
