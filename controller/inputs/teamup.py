"""Team UP! at the table: the player on turn builds with a ghost package on the screen.

Soft keys (buttons 0-2 top row, 3-5 bottom row) while a card waits for its package::

    [ move → ] [ move ↑ ] [  turn   ]
    [ package] [ place  ] [ more... ]          more: [ hint ] [ next spot ] [ turn view ]
                                                     [ back ] [  place    ] [ face down ]

- **Moving**: the ghost package moves one cell along the pallet in the direction the
  arrow shows on the screen (whichever way the view is turned), and wraps round at the
  edge; its floor follows the stack under it, on the fifth floor and above it too. **Turn**
  gives it a quarter turn.
- **Package** cycles the packages the card allows that are still in the supply (the card's
  colour with each shape, or the card's shapes in each colour).
- **Place** places it; where it may not go the screen says why and nothing changes. When
  nothing the card allows fits anywhere, the same button turns the card face down.
- **More** opens the second row of keys: the hint moves the ghost to a placement the bot
  would make; "next spot" jumps to the next place the package fits; "face down" is refused
  with the place that still fits when one does.
- **Before drawing**: OK draws the card (with physical order cards: tap the card drawn);
  the bottom-right button stops the game, after a second press to confirm.
- **Any time**: a seat that is not on turn turns the view with its top-left button. At the
  end, the top row steps through the best line the cards allowed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

from controller.games.core import IllegalAction
from controller.games.teamup import (
    X, Y, Draw, card_wants, FaceDown, Package, Place, Stop, TeamUp, TeamupState, card_to_place, colour_of, current_card, drawn_cards,
    fitting, kind_of_card, lowest_fit, orientations, pallet_of, placement_problem, resting_floor, screen_steps,
)
from controller.games.teamup_hints import suggest_placement
from controller.games.teamup_solver import solve
from controller.inputs.base import InputAdapter, SoftKey, Step

# The best line at the end is searched for this many solver steps (about a second on the
# development machine; a game's own cards need a few hundred), so that every machine shows
# the same figure; the seconds are only a safety bound for a machine far too slow for it.
HINDSIGHT_STEPS = 6000
HINDSIGHT_SAFETY_SECONDS = 10.0

MOVE_RIGHT, MOVE_UP, TURN, PACKAGE, PLACE, MORE = 0, 1, 2, 3, 4, 5
HINT, NEXT_SPOT, TURN_VIEW, BACK, FACE_DOWN = 0, 1, 2, 3, 5
DRAW, STOP = 4, 5
SOLUTION_BACK, SOLUTION_NEXT = 1, 2


@dataclass(frozen=True)
class Ghost:
    """The package the player on turn is about to place: which, how turned, where."""

    shape: str
    colour: str
    turn: int
    x: int
    y: int


class TeamUpInput(InputAdapter):
    game = "team-up"
    back_button = BACK                 # held for a second: asks to undo the last move

    def __init__(self, rules: TeamUp) -> None:
        super().__init__(rules)
        self._ghost: dict[int, Ghost] = {}
        self._more: set[int] = set()
        self._stopping: set[int] = set()
        self.view_turn = 0                    # the screen's quarter turns: shared by the table
        self.solution_step = 0                # at the end: how much of the best line is shown
        self.hindsight: Any = None            # at the end: the best line, once worked out
        self._hint_cache: tuple[Any, Package | None] | None = None

    def reset(self) -> None:
        self._ghost.clear()
        self._more.clear()
        self._stopping.clear()

    # -- the ghost -------------------------------------------------------------------------------------
    def options(self, state: TeamupState) -> list[tuple[str, str]]:
        """(shape, colour) the card allows and the supply still has."""
        card = current_card(state)
        if card is None:
            return []
        kind = kind_of_card(card)
        pallet = pallet_of(state.placed)
        return [(s, c) for s in kind.shapes for c in kind.colours if pallet.left(s, c) > 0]

    def ghost(self, state: TeamupState, seat: int) -> Ghost | None:
        if state.phase != "place" or seat != state.to_act:
            return None
        options = self.options(state)
        if not options:
            return None
        ghost = self._ghost.get(seat)
        if ghost is None or (ghost.shape, ghost.colour) not in options:
            first = lowest_fit(pallet_of(state.placed), kind_of_card(card_to_place(state)))
            if first is not None:
                turn = orientations(first.shape).index((first.dx, first.dy, first.dz))
                ghost = Ghost(first.shape, colour_of(first), turn, first.x, first.y)
            else:
                ghost = Ghost(options[0][0], options[0][1], 0, 0, 0)
            self._ghost[seat] = ghost
        return ghost

    def ghost_package(self, state: TeamupState, seat: int) -> Package | None:
        ghost = self.ghost(state, seat)
        return None if ghost is None else package_of(state, ghost)

    # -- buttons ---------------------------------------------------------------------------------------
    def button(self, state: TeamupState, seat: int, button: int) -> Any:
        if state.phase == "over":
            return self._after_the_end(button)
        if seat != state.to_act:
            if button == TURN_VIEW or button == 0:
                self.view_turn = (self.view_turn + 1) % 4
                return None
            raise IllegalAction("not_your_turn", player=seat, expected=state.to_act)
        if state.phase == "draw":
            return self._before_drawing(state, seat, button)
        ghost = self.ghost(state, seat)
        if seat in self._more:
            return self._second_row(state, seat, button, ghost)
        if ghost is None or (button == PLACE and not any(fitting(pallet_of(state.placed), kind_of_card(card_to_place(state))))):
            if button == PLACE:
                return FaceDown(seat)
            if button == MORE:
                self._more.add(seat)
                return None
            raise IllegalAction("teamup_nothing_fits")
        if button in (MOVE_RIGHT, MOVE_UP, TURN, PACKAGE):
            self._ghost[seat] = self._moved(state, ghost, button)
            return None
        if button == PLACE:
            return Place.of(seat, package_of(state, ghost))
        self._more.add(seat)
        return None

    def _moved(self, state: TeamupState, ghost: Ghost, button: int) -> Ghost:
        """Where a press of a moving key takes the ghost."""
        if button in (MOVE_RIGHT, MOVE_UP):
            step_x, step_y = screen_steps(self.view_turn)[0 if button == MOVE_RIGHT else 1]
            dx, dy, _ = orientations(ghost.shape)[ghost.turn]
            return replace(ghost, x=(ghost.x + step_x) % (X - dx + 1), y=(ghost.y + step_y) % (Y - dy + 1))
        if button == TURN:
            turns = orientations(ghost.shape)
            turn = (ghost.turn + 1) % len(turns)
            dx, dy, _ = turns[turn]
            return replace(ghost, turn=turn, x=min(ghost.x, X - dx), y=min(ghost.y, Y - dy))
        options = self.options(state)
        shape, colour = options[(options.index((ghost.shape, ghost.colour)) + 1) % len(options)]
        turn = ghost.turn % len(orientations(shape))
        dx, dy, _ = orientations(shape)[turn]
        return Ghost(shape, colour, turn, min(ghost.x, X - dx), min(ghost.y, Y - dy))

    def _second_row(self, state: TeamupState, seat: int, button: int, ghost: Ghost | None) -> Any:
        if button == BACK:
            self._more.discard(seat)
            return None
        if button == TURN_VIEW:
            self.view_turn = (self.view_turn + 1) % 4
            return None
        if button == FACE_DOWN:
            return self._face_down(state, seat)
        if button == PLACE:
            if ghost is None:
                return FaceDown(seat)
            return Place.of(seat, package_of(state, ghost))
        if ghost is None:
            raise IllegalAction("teamup_nothing_fits")
        if button == HINT:
            hint = self.hint(state)
            if hint is None:
                raise IllegalAction("teamup_nothing_fits")
            self._ghost[seat] = ghost_of(hint)
            self._more.discard(seat)
            return None
        spots = list(fitting(pallet_of(state.placed), kind_of_card(card_to_place(state))))
        spots = [p for p in spots if (p.shape, p.colour) == (ghost.shape, ghost.colour)] or spots
        if not spots:
            raise IllegalAction("teamup_nothing_fits")
        here = package_of(state, ghost)
        later = [p for p in spots if (p.z, p.y, p.x, p.dx) > (here.z, here.y, here.x, here.dx)]
        self._ghost[seat] = ghost_of((later or spots)[0])
        return None

    def _face_down(self, state: TeamupState, seat: int) -> FaceDown:
        """Turning the card face down; when a package still fits, the ghost goes there to
        show it, and the rules refuse with the reason."""
        fits = lowest_fit(pallet_of(state.placed), kind_of_card(card_to_place(state)))
        if fits is not None:
            self._ghost[seat] = ghost_of(fits)
        return FaceDown(seat)

    def _before_drawing(self, state: TeamupState, seat: int, button: int) -> Any:
        if seat in self._stopping:
            self._stopping.discard(seat)
            if button == STOP:
                return Stop(seat)
            return None                                          # any other button: keep playing
        if button == DRAW:
            if state.mode == "physical" and len(state.deck) == len(state.moves):
                raise IllegalAction("teamup_tap_card")
            return Draw(seat)
        if button == STOP:
            self._stopping.add(seat)
            return None
        if button == 0:
            self.view_turn = (self.view_turn + 1) % 4
            return None
        raise IllegalAction("teamup_draw_or_stop")

    def _after_the_end(self, button: int) -> Any:
        if button == 0:
            self.view_turn = (self.view_turn + 1) % 4
        elif button == SOLUTION_NEXT:
            self.solution_step += 1
        elif button == SOLUTION_BACK:
            self.solution_step = max(0, self.solution_step - 1)
        else:
            raise IllegalAction("game_over")
        return None

    # -- taps ------------------------------------------------------------------------------------------
    def card(self, state: TeamupState, seat: int, card: str) -> Any:
        if state.phase == "over":
            raise IllegalAction("game_over")
        if seat != state.to_act:
            raise IllegalAction("not_your_turn", player=seat, expected=state.to_act)
        if state.mode != "physical":
            raise IllegalAction("teamup_table_draws")
        if state.phase != "draw":
            raise IllegalAction("teamup_card_waiting", card=current_card(state))
        if not str(card).isdigit():
            raise IllegalAction("teamup_unknown_card", text=str(card))
        return Draw(seat, int(card))

    # -- help ------------------------------------------------------------------------------------------
    def hint(self, state: TeamupState) -> Package | None:
        """A placement for the card drawn that the bot would make (it does not look at the
        cards still face down)."""
        if self._hint_cache is not None and self._hint_cache[0] is state:
            return self._hint_cache[1]
        found = suggest_placement(self.rules.seat_view(state, 0))     # cooperative: every seat sees the same
        self._hint_cache = (state, found)
        return found

    def best_line(self, state: TeamupState) -> dict[str, Any]:
        """At the end: the best score the cards the team drew allowed from this start, and its
        line (worked out once, in ``HINDSIGHT_STEPS`` solver steps: about a second, where most
        take a tenth; the same figure on a busy machine). The cards drawn, not the whole
        shuffled pile: they are what a challenge plays again, and all a table with real cards
        knows."""
        drawn = drawn_cards(state)
        if self.hindsight is None or self.hindsight[0] != (drawn, state.placed[0]):
            found = solve(drawn, state.placed[0], HINDSIGHT_SAFETY_SECONDS, clock=time.monotonic,
                          nodes=HINDSIGHT_STEPS)
            self.hindsight = ((drawn, state.placed[0]), {
                "score": found.score, "proven": found.proven,
                "line": [None if p is None else list(p) for p in found.moves]})
        return self.hindsight[1]

    # -- what the screen shows for a seat -------------------------------------------------------------
    def soft_keys(self, state: TeamupState, seat: int) -> tuple[SoftKey | None, ...]:
        if state.phase == "over":
            return (SoftKey("teamup_key_turn_view"), SoftKey("teamup_key_step_back"),
                    SoftKey("teamup_key_step_next"), None, None, None)
        if seat != state.to_act:
            return (SoftKey("teamup_key_turn_view"), None, None, None, None, None)
        if state.phase == "draw":
            if seat in self._stopping:
                return (None, None, None, SoftKey("teamup_key_keep_playing"), None, SoftKey("teamup_key_confirm_stop"))
            draw = None if state.mode == "physical" and len(state.deck) == len(state.moves) else \
                SoftKey("teamup_key_draw")
            return (SoftKey("teamup_key_turn_view"), None, None, None, draw, SoftKey("teamup_key_stop"))
        nothing_fits = not any(fitting(pallet_of(state.placed), kind_of_card(card_to_place(state))))
        place = SoftKey("teamup_key_face_down") if nothing_fits else SoftKey("teamup_key_place")
        if seat in self._more:
            return (SoftKey("teamup_key_hint"), SoftKey("teamup_key_next_spot"), SoftKey("teamup_key_turn_view"),
                    SoftKey("key_back"), place, SoftKey("teamup_key_face_down"))
        if nothing_fits:
            return (None, None, None, None, place, SoftKey("teamup_key_more"))
        return (SoftKey("teamup_key_right"), SoftKey("teamup_key_up"), SoftKey("teamup_key_turn"),
                SoftKey("teamup_key_package"), place, SoftKey("teamup_key_more"))

    def prompt(self, state: TeamupState, seat: int) -> tuple[str, dict[str, Any]] | None:
        if seat != state.to_act or state.phase == "over":
            return None
        if state.phase == "draw":
            if seat in self._stopping:
                return "teamup_prompt_confirm_stop", {}
            if state.mode == "physical" and len(state.deck) == len(state.moves):
                return "teamup_prompt_tap_card", {}
            return "teamup_prompt_draw", {}
        if not any(fitting(pallet_of(state.placed), kind_of_card(card_to_place(state)))):
            return "teamup_prompt_face_down", {}
        return "teamup_prompt_place", {}

    def pending(self, state: TeamupState, seat: int) -> dict[str, Any] | None:
        out: dict[str, Any] = {"view_turn": self.view_turn}
        if state.phase == "over":
            out["solution_step"] = self.solution_step
            out["hindsight"] = self.best_line(state)
            return out
        package = self.ghost_package(state, seat)
        if package is None:
            return out if seat == state.to_act else {"view_turn": self.view_turn}
        problem = placement_problem(pallet_of(state.placed), package)
        out.update(ghost=list(package), problem=list(problem) if problem else None, more=seat in self._more)
        return out

    # -- how a bot (or a test) makes an action with its hands --------------------------------------------
    def inputs_for(self, state: TeamupState, seat: int, action: Any) -> list[Step]:
        if isinstance(action, Draw):
            if state.mode == "physical":
                return [Step("tap", str(action.card))]
            return [Step("press", BACK)] * (seat in self._stopping) + [Step("press", DRAW)]
        if isinstance(action, Stop):
            return [Step("press", STOP), Step("press", STOP)] if seat not in self._stopping else [Step("press", STOP)]
        steps = [Step("press", BACK)] if seat in self._more else []
        if isinstance(action, FaceDown):
            return steps + [Step("press", MORE), Step("press", FACE_DOWN)]
        if not isinstance(action, Place):
            raise IllegalAction("unknown_action", text=str(action))
        target = action.package
        ghost = self.ghost(state, seat)
        if ghost is None or (target.shape, target.colour) not in self.options(state):
            raise card_wants(card_to_place(state))
        # press as a hand would, watching the ghost: the package, the turn, then each way
        for button, done in ((PACKAGE, lambda g: (g.shape, g.colour) == (target.shape, target.colour)),
                             (TURN, lambda g: orientations(g.shape)[g.turn][:2] == (target.dx, target.dy)),
                             (MOVE_RIGHT, None), (MOVE_UP, None)):
            if done is None:
                axis = 0 if screen_steps(self.view_turn)[0 if button == MOVE_RIGHT else 1][0] else 1
                done = (lambda a: lambda g: (g.x, g.y)[a] == (target.x, target.y)[a])(axis)
            for _ in range(X * Y):
                if done(ghost):
                    break
                ghost = self._moved(state, ghost, button)
                steps.append(Step("press", button))
        return steps + [Step("press", PLACE)]


def package_of(state: TeamupState, ghost: Ghost) -> Package:
    dx, dy, dz = orientations(ghost.shape)[ghost.turn % len(orientations(ghost.shape))]
    z = resting_floor(pallet_of(state.placed), ghost.x, ghost.y, dx, dy)
    return Package(ghost.shape, ghost.colour, ghost.x, ghost.y, z, dx, dy, dz)


def ghost_of(p: Package) -> Ghost:
    return Ghost(p.shape, colour_of(p), orientations(p.shape).index((p.dx, p.dy, p.dz)), p.x, p.y)


INPUT = TeamUpInput
