"""Partout at the table: cards are tapped on the seat's reader; trump number, trump
colour, bids and the special cards' choices are made on the six buttons.

Soft keys (buttons 0-2 top row, 3-5 bottom row)::

    [ back ]  [      ]  [      ]      back: only while a special card waits for its choice
    [  −   ]  [  OK  ]  [  +   ]      step the value shown at the seat, OK commits it

Every step is checked by asking the rules core whether the value would be accepted,
so a refusal here reads exactly like the rule it comes from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.games.core import IllegalAction
from controller.games.partout import (
    ALL_CARDS, COLOURS, Bid, Card, NameTrumpColour, NameTrumpNumber, Partout, PartoutState, Play,
    max_bid, resolve_trick,
)
from controller.inputs.base import BACK, MINUS, OK, PLUS, InputAdapter, Step, SoftKey


@dataclass(frozen=True)
class Picker:
    """The value a seat is choosing: ``what`` is a phase (trump_number, trump_colour, bid)
    or the special card being played (dungeon, mathematician, alchemist)."""

    what: str
    value: Any


class PartoutInput(InputAdapter):
    game = "partout"
    back_button = BACK                 # held for a second: asks to undo the last move

    def __init__(self, rules: Partout) -> None:
        super().__init__(rules)
        self._special: dict[int, Picker] = {}    # a tapped special waiting for its choice
        self._values: dict[int, Picker] = {}     # a phase picker moved off its start value

    def reset(self) -> None:
        self._special.clear()
        self._values.clear()

    # -- what each seat is choosing ----------------------------------------------------------------
    def picker(self, state: PartoutState, seat: int) -> Picker | None:
        if seat in self._special:
            return self._special[seat]
        if state.to_act != seat or state.phase not in ("trump_number", "trump_colour", "bidding"):
            return None
        if seat in self._values and self._values[seat].what == state.phase:
            return self._values[seat]
        start = {"trump_number": state.setup.numbers[0], "trump_colour": COLOURS[0], "bidding": 0}
        return Picker(state.phase, start[state.phase])

    def _action(self, state: PartoutState, seat: int, picker: Picker) -> Any:
        if picker.what == "trump_number":
            return NameTrumpNumber(seat, picker.value)
        if picker.what == "trump_colour":
            return NameTrumpColour(seat, picker.value)
        if picker.what == "bidding":
            return Bid(seat, picker.value)
        return Play(seat, picker.what, picker.value)

    # -- inputs -------------------------------------------------------------------------------------
    def button(self, state: PartoutState, seat: int, button: int) -> Any:
        picker = self.picker(state, seat)
        if picker is None:
            if state.to_act is None:
                raise IllegalAction("game_over")
            if state.to_act != seat:
                raise IllegalAction("not_your_turn", player=seat, expected=state.to_act)
            # with real cards a card is tapped on the reader; dealt by the table, nobody has one
            raise IllegalAction("tap_a_card" if state.mode == "physical" else "play_a_card")
        if button == OK:
            return self._action(state, seat, picker)
        if button == BACK and seat in self._special:
            del self._special[seat]
            return None
        if button not in (MINUS, PLUS):
            raise IllegalAction("button_unused")
        step = 1 if button == PLUS else -1
        moved = Picker(picker.what, self._step(state, seat, picker, step))
        if seat in self._special:
            self._special[seat] = moved
        else:
            self._values[seat] = moved
        return None

    def _step(self, state: PartoutState, seat: int, picker: Picker, step: int) -> Any:
        if picker.what in ("trump_colour", "alchemist"):
            return COLOURS[(COLOURS.index(picker.value) + step) % len(COLOURS)]
        if picker.what == "dungeon":
            return (picker.value + step) % len(state.trick)
        candidate = Picker(picker.what, picker.value + step)
        self.rules.apply(state, self._action(state, seat, candidate))   # raises the rule's refusal
        return candidate.value

    def card(self, state: PartoutState, seat: int, card: str) -> Any:
        parsed = Card.parse(card)
        kind = parsed.choice_kind
        if kind is None or (kind == "target" and not state.trick):
            self._special.pop(seat, None)
            return Play(seat, parsed.name)
        start = self._choice_start(state, parsed)
        self.rules.apply(state, Play(seat, parsed.name, start))   # refuses out of turn, played twice, ...
        self._special[seat] = Picker(parsed.name, start)
        return None

    @staticmethod
    def _choice_start(state: PartoutState, card: Card) -> Any:
        """Start where the player most likely wants to be: the Dungeon on the card that is
        winning the trick, the Mathematician and Alchemist on the trumps in force."""
        plays = [(ALL_CARDS[c], ch) for _, c, ch in state.trick]
        number: int | None
        colour: str | None
        if card.choice_kind == "target":
            return resolve_trick(plays, state.trump_number, state.trump_colour).winner  # type: ignore[arg-type]
        if plays:
            result = resolve_trick(plays, state.trump_number, state.trump_colour)  # type: ignore[arg-type]
            number, colour = result.trump_number, result.trump_colour
        else:
            number, colour = state.trump_number, state.trump_colour
        return number if card.choice_kind == "number" else colour

    # -- what the screen shows for a seat -----------------------------------------------------------
    def soft_keys(self, state: PartoutState, seat: int) -> tuple[SoftKey | None, ...]:
        picker = self.picker(state, seat)
        if picker is None:
            return (None,) * 6
        back = SoftKey("key_back") if seat in self._special else None
        return (back, None, None, SoftKey("key_minus"), SoftKey("key_ok"), SoftKey("key_plus"))

    def prompt(self, state: PartoutState, seat: int) -> tuple[str, dict[str, Any]] | None:
        picker = self.picker(state, seat)
        if picker is not None:
            value = picker.value
            if picker.what == "dungeon":
                return "prompt_dungeon", {"card": state.trick[value][1], "owner": state.trick[value][0]}
            if picker.what == "bidding":
                return "prompt_bid", {"value": value, "high": max_bid(state, seat)}
            key = {"trump_number": "prompt_trump_number", "trump_colour": "prompt_trump_colour",
                   "mathematician": "prompt_mathematician", "alchemist": "prompt_alchemist"}[picker.what]
            return key, {"value": value, "colour": value}
        if state.phase == "playing" and state.to_act == seat:
            return ("prompt_tap_card" if state.mode == "physical" else "prompt_play_card"), {}
        return None

    def pending(self, state: PartoutState, seat: int) -> dict[str, Any] | None:
        picker = self.picker(state, seat)
        return None if picker is None else {"what": picker.what, "value": picker.value}

    # -- how a bot (or a test) makes an action with its hands ------------------------------------------
    def inputs_for(self, state: PartoutState, seat: int, action: Any) -> list[Step]:
        if isinstance(action, Play):
            card = ALL_CARDS[action.card]
            if action.choice is None:
                return [Step("tap", action.card)]
            start = self._choice_start(state, card)
            return [Step("tap", action.card), *self._presses(state, card.name, start, action.choice)]
        picker = self.picker(state, seat)
        if picker is None:
            return []
        target = action.number if isinstance(action, NameTrumpNumber) else (
            action.colour if isinstance(action, NameTrumpColour) else action.tricks)
        return self._presses(state, picker.what, picker.value, target)

    def _presses(self, state: PartoutState, what: str, start: Any, target: Any) -> list[Step]:
        if what in ("trump_colour", "alchemist"):
            steps = (COLOURS.index(target) - COLOURS.index(start)) % len(COLOURS)
            return [Step("press", PLUS)] * steps + [Step("press", OK)]
        if what == "dungeon":
            steps = (target - start) % len(state.trick)
            return [Step("press", PLUS)] * steps + [Step("press", OK)]
        delta = target - start
        return [Step("press", PLUS if delta > 0 else MINUS)] * abs(delta) + [Step("press", OK)]


INPUT = PartoutInput
