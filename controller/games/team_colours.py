"""The colour a team is marked in: on the TV (its shape beside each member's name, its score
column) and, in a game with teams, the line under each member's name and their station's LED.

A person picks a colour at seating; in a game with teams that colour gave way to two: a
person who chose blue played for the purple ■ team while the blue ● team was other people
(issue 40). So wherever the screen marks each seat with its team's shape in its team's
colour (``has_teams``: Partout, Teamplay and Crazy Kick, with more than one team, a team of
one person too: Partout with 3 plays "3 Teams", Crazy Kick with 2 one against one, Teamplay
with 3 or 5 everyone alone) a seat is shown in its team's colour and the colour chosen at
seating rests until the next game; in a game without (Tadika, everyone alone and no team
marks; Team UP!, everyone together) each keeps their own.

Pure data and small functions: the table (LEDs) and the display (underlines, marks) read
the same colours from here."""

from __future__ import annotations

from typing import Any, Sequence

# orange ▲, blue ●, purple ■, green ◆, white ⬟ (``display.draw.TEAM_SHAPE``), as "rrggbb";
# five: Teamplay with 5 has five teams of one
TEAM_COLOURS = ("e67828", "3ca0e6", "be5ac8", "78c85a", "e6e6e6")

# the games whose screen marks each seat with its team's shape in its team's colour
# (display/partout_view.py, teamplay_view.py, crazykick_view.py: ``_seat``)
MARKS_TEAMS = frozenset({"partout", "teamplay", "crazy-kick"})


def has_teams(game: str, team_of: Sequence[int]) -> bool:
    """Whether the screen marks the seats by team: a game that does, with more than one team
    (a team of one person too: its mark beside the name is still a team's)."""
    return game in MARKS_TEAMS and len(set(team_of)) > 1


def team_colour(view: dict[str, Any], team: int) -> str:
    """A team's colour as "rrggbb": the deck's own where the game has one (Crazy Kick's red
    and black), else the table's."""
    own = view.get("team_colours")
    if own:
        return str(own[team]).lstrip("#").lower()
    return TEAM_COLOURS[team % len(TEAM_COLOURS)]


def seat_colours(game: str, view: dict[str, Any], chosen: Sequence[str | None]) -> list[str | None]:
    """The colour each seat is shown in: its team's in a game with teams, else the one its
    person chose at seating (None: none chosen)."""
    team_of = view.get("team_of") or []
    if not has_teams(game, team_of):
        return list(chosen)
    return [team_colour(view, team_of[seat]) if seat < len(team_of) else None for seat in range(len(chosen))]
