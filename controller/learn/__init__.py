"""Learning hints: what a player may do now, in a player's words (the ``learn`` option).

Each game's hints live in ``controller/learn/<game>.py``, a function ``hints(rules, state,
seat, hand_known)`` that reads the rules core (``legal_actions`` and its public helpers)
and never decides a rule itself: a hint names exactly the moves the rules allow. The
table puts them in the seat's snapshot (``SeatSnapshot.hints``); the screen only draws
them (``display/draw.py``: ``hints_box``).

``hand_known``: the table may say what is in the seat's hand. That is so when the table
deals (virtual cards) and the hand is the keyboard player's own, or when a game hides
nothing (Crazy Kick's piles lie open; Team UP! has no hands). Otherwise (real cards, or a
bot's hand on the shared screen) a hint says only what is public plus the rules: "any card
may be played; these take the trick now, if you hold one".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import import_module
from typing import Any

from controller.games.core import GameRules


@dataclass(frozen=True)
class Hint:
    """One sentence of a hint: a text key of the catalogues and its parameters (lists of
    cards, piles, packages are said as lists: ``controller.games.texts``)."""

    key: str
    params: dict[str, Any] = field(default_factory=dict)


def hints_for(rules: GameRules, state: Any, seat: int, hand_known: bool) -> tuple[Hint, ...]:
    """The game's hints for ``seat`` now (none when it has nothing to do)."""
    return tuple(import_module(f"{__name__}.{rules.module}").hints(rules, state, seat, hand_known))


def seats_to_hint(rules: GameRules, state: Any, seats: int) -> tuple[int, ...]:
    """Who gets hints: the seats that may act (the seat the game waits for, and one that
    may act out of turn: ``GameRules.may_act``); in a game everybody plays at once, every
    seat (each sees what it may do)."""
    if rules.realtime:
        return tuple(range(seats)) if rules.outcome(state) is None else ()
    return rules.may_act(state)


__all__ = ["Hint", "hints_for", "seats_to_hint"]
