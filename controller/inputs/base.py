"""What every game's input adapter offers the table: raw presses and taps in, actions
(or a changed choice) out, and the soft-key legend the display shows for each seat."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from controller.games.core import GameRules

# Button numbers on a station: top row 0 1 2, bottom row 3 4 5 (left to right).
BACK, MINUS, OK, PLUS = 0, 3, 4, 5


@dataclass(frozen=True)
class SoftKey:
    """A label for one button: a text key and its parameters."""

    key: str
    params: dict[str, Any] = field(default_factory=dict)


class Step(NamedTuple):
    """One thing a hand does at a station: ``("tap", card)`` or ``("press", button)``."""

    kind: str
    arg: Any


class InputAdapter:
    """Subclass per game. ``button`` and ``card`` return an action for the rules core, or
    ``None`` when only a choice in progress changed; they raise ``IllegalAction`` with a
    readable reason and leave everything as it was when the input makes no sense now."""

    game = ""
    back_button: int | None = None    # the button that takes back a choice; held, it asks to undo

    def __init__(self, rules: GameRules) -> None:
        self.rules = rules
        # whether the game's idle hint (rules.idle_hint) is being said: set by the table from
        # the press's own time stamp, so the adapter knows time as the presses tell it
        self.hint_due = False

    def reset(self) -> None:
        """Forget choices in progress (after an accepted action or an undo)."""

    def button(self, state: Any, seat: int, button: int) -> Any:
        raise NotImplementedError

    def card(self, state: Any, seat: int, card: str) -> Any:
        raise NotImplementedError

    def soft_keys(self, state: Any, seat: int) -> tuple[SoftKey | None, ...]:
        return (None,) * 6

    def prompt(self, state: Any, seat: int) -> tuple[str, dict[str, Any]] | None:
        return None

    def pending(self, state: Any, seat: int) -> dict[str, Any] | None:
        return None

    def inputs_for(self, state: Any, seat: int, action: Any) -> list[Step]:
        """The taps and presses that make ``action`` at ``seat`` from where things stand."""
        raise NotImplementedError
