"""Crazy Kick on the button boxes: every card lives in the table, so six buttons do it all.

Soft keys with three piles (buttons 0-2 top row, 3-5 bottom row)::

    [ play 1 ] [ play 2 ] [ play 3 ]     the top card of that pile to the centre
    [ flip 1 ] [ flip 2 ] [ flip 3 ]     the next hand card face up onto that pile

Two piles use the first two buttons of each row. Four piles (the lone player of a
three-player game) play with buttons 0-3 and flip with button 4 onto the pile chosen
with button 5 (shown on the screen), so every play stays one press. Until button 5 is
pressed, button 4 flips onto an empty pile while there is one, so the four piles are laid
with four presses as three are with three; once they are laid, a pile chosen with button 5
takes the next flip whatever lies elsewhere (the book: "Sobald die drei Karten offen
ausliegen, … auf einen beliebigen seiner offenen Stapel").

With an empty hand a flip button takes the piles back and shuffles them. In a stall (no
open card fits the centre) a play button stays a play, refused like any card that does not
fit, until the stall has lasted STALL_HINT_S and the table asks whether the ball is out
(``hint_due``, set by the table from the press's time stamp). From then on a top button
says "out?": the seat's team says the ball is out, and once a player of each team has,
the ball-out follows. A press that lost a race, or a wrong card pressed in haste, is so
refused and casts no vote: the book's ball-out is a lasting situation ("Es kann passieren,
dass keine Karte mehr gespielt werden kann"), agreed on, not a reflex.
"""

from __future__ import annotations

from typing import Any

from controller.games.core import IllegalAction
from controller.games.crazykick import (
    BallOut, CrazyKick, CrazyKickState, Flip, Play, Reshuffle, agreed_teams, load_deck, stalled,
)
from controller.inputs.base import InputAdapter, SoftKey, Step

FLIP, NEXT_PILE = 4, 5          # the four-pile layout's flip and choose buttons


class CrazyKickInput(InputAdapter):
    game = "crazy-kick"

    def __init__(self, rules: CrazyKick) -> None:
        super().__init__(rules)
        self._flip_target: dict[int, int] = {}      # four-pile layout: the pile a flip goes to
        self._chosen: set[int] = set()              # … chosen with button 5 since the last flip

    def reset(self) -> None:
        """Other players' actions do not move a seat's chosen pile: nothing to forget."""

    def flip_target(self, state: CrazyKickState, seat: int) -> int:
        """The pile button 4 flips onto: while the starting piles are being laid (the rule,
        ``may_flip_onto``), an empty one, the chosen if it is, else the next, so laying four
        piles takes four presses, as three take three at the other stations. Once laid, the
        one chosen with button 5 since the last flip; else, while a pile is empty, an empty
        one (a convenience of the buttons, not a rule: any pile may then take any flip)."""
        piles = state.pile_count[seat]
        chosen = self._flip_target.get(seat, 0) % piles
        if not state.hands[seat] or (seat in self._chosen and state.laid[seat]):
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
        piles = state.pile_count[seat]
        if piles == 4:
            if button <= 3:
                return self._top_button(state, seat, button)
            if button == NEXT_PILE:
                self._flip_target[seat] = (self.flip_target(state, seat) + 1) % piles
                self._chosen.add(seat)
                return None
            target = self.flip_target(state, seat)
            self._chosen.discard(seat)
            return self._flip(state, seat, target)
        row, column = divmod(button, 3)
        if column >= piles:
            raise IllegalAction("ck_button_unused", button=button + 1)
        if row == 0:
            return self._top_button(state, seat, column)
        return self._flip(state, seat, column)

    def _top_button(self, state: CrazyKickState, seat: int, pile: int) -> Any:
        """A play; in a stall the table has asked about (``hint_due``), the seat's team
        saying the ball is out."""
        if self.asks_ball_out(state):
            return BallOut(seat)
        return Play(seat, pile)

    def asks_ball_out(self, state: CrazyKickState) -> bool:
        """Whether the top buttons say "out?": a stall that has lasted until the table's
        hint asks whether the ball is out."""
        return self.hint_due and stalled(state)

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
        piles = state.pile_count[seat]
        flip = (lambda k: SoftKey("ck_key_flip", {"pile": k + 1})) if state.hands[seat] else \
            (lambda k: SoftKey("ck_key_reshuffle"))
        # a top button plays its pile's card; in a stall it says (or has said) the ball is out
        said = None if not self.asks_ball_out(state) else \
            "ck_key_agreed" if state.team_of[seat] in agreed_teams(state) else "ck_key_ball_out"

        def play(k: int) -> SoftKey:
            return SoftKey("ck_key_play", {"pile": k + 1}) if said is None else SoftKey(said)
        if piles == 4:
            target = self.flip_target(state, seat)
            return (*(play(k) for k in range(4)), flip(target), SoftKey("ck_key_next_pile"))
        top = tuple(play(k) if k < piles else None for k in range(3))
        bottom = tuple(flip(k) if k < piles else None for k in range(3))
        return top + bottom

    def prompt(self, state: CrazyKickState, seat: int) -> tuple[str, dict[str, Any]] | None:
        if state.winner is not None:
            return None
        agreed = agreed_teams(state) if stalled(state) else frozenset()
        if agreed:
            team = state.team_of[seat]
            other = load_deck(state.edition).team_names[1 - team]
            # own team said it: waiting for the other's word; the other said it: agree or flip on
            return ("ck_prompt_agreed" if team in agreed else "ck_prompt_ball_out", {"team": other})
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
        if isinstance(action, BallOut):             # a play button, once the table asks
            return [Step("press", 0)]
        if isinstance(action, Play):
            return [Step("press", action.pile)]
        pile = action.pile if isinstance(action, Flip) else self.flip_target(state, seat)
        if piles == 4:
            moves = (pile - self.flip_target(state, seat)) % piles
            return [Step("press", NEXT_PILE)] * moves + [Step("press", FLIP)]
        return [Step("press", 3 + pile)]


INPUT = CrazyKickInput
