"""The colour a team is marked in: on the TV (its shape beside each member's name, its score
column) and, in a game with teams, the line under each member's name and their station's LED.

A person picks a colour at seating; in a game with teams that colour gave way to two: a
person who chose blue played for the purple ■ team while the blue ● team was other people
(issue 40). So in a game with teams (``has_teams``: more than one team, and a team of more
than one person: Partout with 4 or 6, Teamplay, Crazy Kick) a seat is shown in its team's
colour and the colour chosen at seating rests until the next game; in a game without
(Tadika, everyone alone; Team UP!, everyone together) each keeps their own.

Pure data and small functions: the table (LEDs) and the display (underlines, marks) read
the same colours from here."""

from __future__ import annotations

from typing import Any, Sequence

# orange ▲, blue ●, purple ■, green ◆ (``display.draw.TEAM_SHAPE``), as "rrggbb"
TEAM_COLOURS = ("e67828", "3ca0e6", "be5ac8", "78c85a")


def has_teams(team_of: Sequence[int]) -> bool:
    """Whether the game is played in teams: more than one, and at least one with two people."""
    return 1 < len(set(team_of)) < len(team_of)


def team_colour(view: dict[str, Any], team: int) -> str:
    """A team's colour as "rrggbb": the deck's own where the game has one (Crazy Kick's red
    and black), else the table's."""
    own = view.get("team_colours")
    if own:
        return str(own[team]).lstrip("#").lower()
    return TEAM_COLOURS[team % len(TEAM_COLOURS)]


def seat_colours(view: dict[str, Any], chosen: Sequence[str | None]) -> list[str | None]:
    """The colour each seat is shown in: its team's in a game with teams, else the one its
    person chose at seating (None: none chosen)."""
    team_of = view.get("team_of") or []
    if not has_teams(team_of):
        return list(chosen)
    return [team_colour(view, team_of[seat]) if seat < len(team_of) else None for seat in range(len(chosen))]
