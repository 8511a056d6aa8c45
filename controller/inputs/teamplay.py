"""Teamplay at the table: number cards are tapped, the rest is on the buttons.

Soft keys while on turn (buttons 0-2 top row, 3-5 bottom row)::

    [ draw pile ] [ next mission ] [   give   ]      give: games of teams only
    [   back    ] [      OK      ] [ end turn ]

- **Drawing**: a card from the pile is the top-left button; a card of the bank is tapped
  (with physical cards, then the card laid into the bank from the pile is tapped too).
- **A mission**: choose it with "next mission" (the screen marks it), tap the cards shown,
  OK. The cards go on the discard pile; a new mission replaces the one fulfilled.
- **Put back**: right after an own mission was replaced, "back" puts the new one back
  (once) for the next, which must be kept.
- **Give**: "give", tap one or two cards, OK.
- **Over the hand limit** at the start of a turn: tap the cards to discard; the last tap
  discards them.
- **Setup** with an even count: OK keeps the mission dealt, the bottom-right button takes a
  new one instead (once). With physical cards the dealer taps the three bank cards first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.games.core import IllegalAction
from controller.games.teamplay import (
    BANK_SIZE, DrawBank, DrawDeck, Discard, EndTurn, Fulfil, Give, KeepMission, LayBank, PutBack, RefillBank,
    Teamplay, TeamplayState, missions_open_to, check_hand_card, check_unseen, partner,
)
from controller.inputs.base import InputAdapter, SoftKey, Step

DRAW, NEXT_MISSION, GIVE, BACK, OK, END = 0, 1, 2, 3, 4, 5
KEEP, EXCHANGE = OK, END


@dataclass(frozen=True)
class Taps:
    """What a seat has tapped so far: ``what`` is ``show`` (for the chosen mission), ``give``,
    ``discard``, ``lay`` (the bank at setup) or ``refill``."""

    what: str
    cards: tuple[str, ...] = ()


class TeamplayInput(InputAdapter):
    game = "teamplay"
    back_button = BACK                 # held for a second: asks to undo the last move

    def __init__(self, rules: Teamplay) -> None:
        super().__init__(rules)
        self._taps: dict[int, Taps] = {}
        self._chosen: dict[int, int] = {}          # seat → index of the mission chosen (own ones, then general)

    def reset(self) -> None:
        self._taps.clear()

    def chosen_mission(self, state: TeamplayState, seat: int) -> str | None:
        choices = missions_open_to(state, seat)
        return choices[self._chosen.get(seat, 0) % len(choices)] if choices else None

    def taps(self, state: TeamplayState, seat: int) -> Taps | None:
        if state.to_act != seat:
            return None
        mode = {"lay_bank": "lay", "refill": "refill"}.get(state.phase) or ("discard" if state.must_discard else None)
        current = self._taps.get(seat)
        if mode is not None:
            return current if current is not None and current.what == mode else Taps(mode)
        return current

    # -- buttons ---------------------------------------------------------------------------------------
    def button(self, state: TeamplayState, seat: int, button: int) -> Any:
        if state.phase == "over":
            raise IllegalAction("game_over")
        if seat != state.to_act:
            raise IllegalAction("not_your_turn", player=seat, expected=state.to_act)
        if state.phase == "choose_missions":
            if button in (KEEP, EXCHANGE):
                return KeepMission(seat, button == EXCHANGE)
            raise IllegalAction("teamplay_button_unused")
        if state.phase in ("lay_bank", "refill") or state.must_discard:
            if button == BACK and self._taps.get(seat):
                self._taps.pop(seat)
                return None
            raise IllegalAction("teamplay_tap_cards", n=self._needed(state, seat))
        taps = self._taps.get(seat)
        if button == BACK:                        # forget the taps; with none, put the new mission back
            if taps is not None:
                self._taps.pop(seat)
                return None
            if state.fresh is not None:
                return PutBack(seat)
            raise IllegalAction("teamplay_nothing_to_cancel")
        if button == DRAW:
            return DrawDeck(seat)
        if button == NEXT_MISSION:
            self._chosen[seat] = self._chosen.get(seat, 0) + 1
            return None
        if button == GIVE:
            if partner(state, seat) is None:
                raise IllegalAction("teamplay_no_partner")
            self._taps[seat] = Taps("give", taps.cards if taps is not None else ())
            return None
        if button == OK:
            if taps is None or not taps.cards:
                raise IllegalAction("teamplay_tap_first")
            if taps.what == "give":
                return Give(seat, taps.cards)
            return Fulfil(seat, self.chosen_mission(state, seat) or "", taps.cards)
        if button == END:
            return EndTurn(seat)
        raise IllegalAction("teamplay_button_unused")

    def _needed(self, state: TeamplayState, seat: int) -> int:
        if state.phase == "lay_bank":
            return BANK_SIZE
        if state.phase == "refill":
            return 1
        return state.must_discard

    # -- taps ------------------------------------------------------------------------------------------
    def card(self, state: TeamplayState, seat: int, card: str) -> Any:
        if state.phase == "over":
            raise IllegalAction("game_over")
        if seat != state.to_act:
            raise IllegalAction("not_your_turn", player=seat, expected=state.to_act)
        if state.phase == "choose_missions":
            raise IllegalAction("teamplay_phase_choose_missions", player=seat)
        taps = self.taps(state, seat)
        if taps is not None and taps.what == "refill":   # one card: the rules check it (after a reshuffle)
            return RefillBank(seat, card)
        if taps is not None and taps.what in ("lay", "discard"):
            if card in taps.cards:
                raise IllegalAction("teamplay_card_twice", card=card)
            if taps.what == "lay":                      # each tap is checked as it comes
                check_unseen(state, card)
            else:
                check_hand_card(state, seat, card)
            cards = taps.cards + (card,)
            if len(cards) < self._needed(state, seat):
                self._taps[seat] = Taps(taps.what, cards)
                return None
            return (LayBank if taps.what == "lay" else Discard)(seat, cards)
        if card in state.bank:
            return DrawBank(seat, card)
        check_hand_card(state, seat, card)
        what = taps.what if taps is not None else "show"
        cards = taps.cards if taps is not None else ()
        if card in cards:
            raise IllegalAction("teamplay_card_twice", card=card)
        self._taps[seat] = Taps(what, cards + (card,))
        return None

    # -- what the screen shows for a seat -------------------------------------------------------------
    def soft_keys(self, state: TeamplayState, seat: int) -> tuple[SoftKey | None, ...]:
        if state.phase == "over" or seat != state.to_act:
            return (None,) * 6
        if state.phase == "choose_missions":
            return (None, None, None, None, SoftKey("teamplay_key_keep"), SoftKey("teamplay_key_exchange"))
        taps = self._taps.get(seat)
        back = SoftKey("key_back") if taps is not None else None
        if state.phase in ("lay_bank", "refill") or state.must_discard:
            return (None, None, None, back, None, None)
        if back is None and state.fresh is not None:
            back = SoftKey("teamplay_key_put_back")
        draw = SoftKey("teamplay_key_draw") if state.draws < 2 else None
        give = SoftKey("teamplay_key_give") if partner(state, seat) is not None and not state.gave else None
        ok = SoftKey("key_ok") if taps is not None and taps.cards else None
        return (draw, SoftKey("teamplay_key_next_mission"), give, back, ok, SoftKey("teamplay_key_end"))

    def prompt(self, state: TeamplayState, seat: int) -> tuple[str, dict[str, Any]] | None:
        if seat != state.to_act or state.phase == "over":
            return None
        taps = self.taps(state, seat)
        if state.phase == "choose_missions":
            return "teamplay_prompt_choose", {}
        if state.phase == "lay_bank":
            return "teamplay_prompt_lay_bank", {"n": len(taps.cards) if taps else 0}
        if state.phase == "refill":
            return "teamplay_prompt_refill", {}
        if state.must_discard:
            return "teamplay_prompt_discard", {"n": state.must_discard - (len(taps.cards) if taps else 0)}
        if taps is not None and taps.what == "give":
            return "teamplay_prompt_give", {"n": len(taps.cards)}
        if taps is not None:
            return "teamplay_prompt_show", {"n": len(taps.cards)}
        if state.draws < 2:
            return "teamplay_prompt_draw", {"n": 2 - state.draws}
        if partner(state, seat) is None or state.gave:      # alone (3 or 5 players), or given already
            return "teamplay_prompt_missions_no_give", {}
        return "teamplay_prompt_missions", {}

    def pending(self, state: TeamplayState, seat: int) -> dict[str, Any] | None:
        if seat != state.to_act:
            return None
        taps = self.taps(state, seat)
        out: dict[str, Any] = {"mission": self.chosen_mission(state, seat)}
        if taps is not None:
            out.update(what=taps.what, cards=list(taps.cards))
        return out

    # -- how a bot (or a test) makes an action with its hands --------------------------------------------
    def inputs_for(self, state: TeamplayState, seat: int, action: Any) -> list[Step]:
        if isinstance(action, KeepMission):
            return [Step("press", EXCHANGE if action.exchange else KEEP)]
        if isinstance(action, (LayBank, Discard)):
            return [Step("tap", c) for c in action.cards]
        if isinstance(action, RefillBank):
            return [Step("tap", action.card)]
        if isinstance(action, DrawDeck):
            return [Step("press", DRAW)]
        if isinstance(action, DrawBank):
            return [Step("tap", action.card)]
        if isinstance(action, PutBack):
            return [Step("press", BACK)]
        if isinstance(action, EndTurn):
            return [Step("press", END)]
        steps = [Step("press", BACK)] if self._taps.get(seat) else []     # start from nothing tapped
        if isinstance(action, Give):
            return steps + [Step("press", GIVE)] + [Step("tap", c) for c in action.cards] + [Step("press", OK)]
        if isinstance(action, Fulfil):
            choices = missions_open_to(state, seat)
            now = self._chosen.get(seat, 0) % len(choices)
            presses = (choices.index(action.mission) - now) % len(choices)
            return steps + [Step("press", NEXT_MISSION)] * presses + [Step("tap", c) for c in action.cards] + \
                [Step("press", OK)]
        raise IllegalAction("unknown_action", text=str(action))


INPUT = TeamplayInput
