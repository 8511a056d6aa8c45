"""Crazy Kick on the button boxes: every card lives in the table, so six buttons do it all.

Soft keys with three piles (buttons 0-2 top row, 3-5 bottom row)::

    [ play 1 ] [ play 2 ] [ play 3 ]     the top card of that pile to the centre
    [ flip 1 ] [ flip 2 ] [ flip 3 ]     the next hand card face up onto that pile

Two piles use the first two buttons of each row. Four piles (the lone player of a
three-player game) play with buttons 0-3 and flip with button 4 onto the pile chosen
with button 5 (shown on the screen), so every play stays one press; while a pile is
empty, button 4 fills it (the rules want it filled first), so no press is lost choosing.

With an empty hand a flip button takes the piles back and shuffles them. While the
ball is out (no card anywhere fits), every button says "agreed".
"""

from __future__ import annotations

from typing import Any

from controller.games.core import IllegalAction
from controller.games.crazykick import BallOut, CrazyKick, CrazyKickState, Flip, Play, Reshuffle
from controller.inputs.base import InputAdapter, SoftKey, Step

FLIP, NEXT_PILE = 4, 5          # the four-pile layout's flip and choose buttons


class CrazyKickInput(InputAdapter):
    game = "crazy-kick"

    def __init__(self, rules: CrazyKick) -> None:
        super().__init__(rules)
        self._flip_target: dict[int, int] = {}      # four-pile layout: the pile a flip goes to

    def reset(self) -> None:
        """Other players' actions do not move a seat's chosen pile: nothing to forget."""

    def flip_target(self, state: CrazyKickState, seat: int) -> int:
        """The pile button 5 flips onto: the chosen one; while a pile is empty, an empty one
        (the chosen if it is, else the next), since a flip must fill an empty pile first: so
        laying four piles takes four presses, as three take three at the other stations."""
        piles = state.pile_count[seat]
        chosen = self._flip_target.get(seat, 0) % piles
        if not state.hands[seat]:
            return chosen
        for k in range(piles):
            pile = (chosen + k) % piles
            if not state.piles[seat][pile]:
                return pile
        return chosen

    # -- presses → actions ---------------------------------------------------------------------------
    def button(self, state: CrazyKickState, seat: int, button: int) -> Any:
        if state.winner is not None:
            raise IllegalAction("game_over")
        if state.stuck:
            return BallOut(seat)
        piles = state.pile_count[seat]
        if piles == 4:
            if button <= 3:
                return Play(seat, button)
            if button == NEXT_PILE:
                self._flip_target[seat] = (self.flip_target(state, seat) + 1) % piles
                return None
            return self._flip(state, seat, self.flip_target(state, seat))
        row, column = divmod(button, 3)
        if column >= piles:
            raise IllegalAction("ck_button_unused", button=button + 1)
        return Play(seat, column) if row == 0 else self._flip(state, seat, column)

    def _flip(self, state: CrazyKickState, seat: int, pile: int) -> Any:
        if not state.hands[seat] and any(state.piles[seat]):
            return Reshuffle(seat)
        return Flip(seat, pile)

    def card(self, state: CrazyKickState, seat: int, card: str) -> Any:
        raise IllegalAction("ck_no_tags")

    # -- what the screen shows at each seat ----------------------------------------------------------
    def soft_keys(self, state: CrazyKickState, seat: int) -> tuple[SoftKey | None, ...]:
        if state.winner is not None:
            return (None,) * 6
        if state.stuck:
            key = SoftKey("ck_key_agreed") if seat in state.votes else SoftKey("ck_key_ball_out")
            return (key,) * 6
        piles = state.pile_count[seat]
        flip = (lambda k: SoftKey("ck_key_flip", {"pile": k + 1})) if state.hands[seat] else \
            (lambda k: SoftKey("ck_key_reshuffle"))
        if piles == 4:
            target = self.flip_target(state, seat)
            return (*(SoftKey("ck_key_play", {"pile": k + 1}) for k in range(4)), flip(target),
                    SoftKey("ck_key_next_pile"))
        top = tuple(SoftKey("ck_key_play", {"pile": k + 1}) if k < piles else None for k in range(3))
        bottom = tuple(flip(k) if k < piles else None for k in range(3))
        return top + bottom

    def prompt(self, state: CrazyKickState, seat: int) -> tuple[str, dict[str, Any]] | None:
        if state.winner is not None:
            return None
        if state.stuck:
            waiting = len(state.team_of) - len(state.votes)
            return ("ck_prompt_agreed", {"missing": waiting}) if seat in state.votes else ("ck_prompt_ball_out", {})
        if not state.hands[seat] and any(state.piles[seat]):
            return ("ck_prompt_reshuffle", {})
        if not state.centre:
            return ("ck_prompt_kickoff", {})
        return None

    def pending(self, state: CrazyKickState, seat: int) -> dict[str, Any] | None:
        if state.pile_count[seat] == 4:
            return {"flip_target": self.flip_target(state, seat)}
        return None

    def inputs_for(self, state: CrazyKickState, seat: int, action: Any) -> list[Step]:
        piles = state.pile_count[seat]
        if isinstance(action, BallOut):
            return [Step("press", 0)]
        if isinstance(action, Play):
            return [Step("press", action.pile)]
        pile = action.pile if isinstance(action, Flip) else self.flip_target(state, seat)
        if piles == 4:
            moves = (pile - self.flip_target(state, seat)) % piles
            return [Step("press", NEXT_PILE)] * moves + [Step("press", FLIP)]
        return [Step("press", 3 + pile)]


INPUT = CrazyKickInput
