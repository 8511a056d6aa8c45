"""Issue 40: one colour per person. In a game with teams a person's underline and LED are
their team's, the colour of the column they look for; without teams, their own."""

from __future__ import annotations

import time

import pytest

from controller.games import find_game
from controller.games.team_colours import TEAM_COLOURS, has_teams, seat_colours, team_colour
from controller.table import Table
from controller.table.table import LED_OFF, LED_YOUR_TURN, team_glow
from hardware.events import StationHello

CHOSEN = ["3278f0", "e03c32", "3cb43c", "f0d232", "a050dc", "f064b4", "f08c1e", "f0f0f0"]   # blue first


def table(game: str, players: int) -> Table:
    stations = [f"s{i}" for i in range(players)]
    t = Table(find_game(game), config={"players": players, "mode": "virtual"}, seed=1, stations=stations,
              names=[f"P{i}" for i in range(players)], colours=CHOSEN[:players])
    for s in stations:
        t.handle(StationHello(s, "/dev/x", 1, "t", {}, time.monotonic_ns()))
    return t


def test_which_games_are_played_in_teams():
    """Wherever the screen marks a seat with a team's shape: a team of one too (review of
    issue 40: Partout with 3 marked seat 1 with the orange ▲ and underlined it blue)."""
    assert has_teams("partout", [0, 1, 2, 0, 1, 2]) and has_teams("teamplay", [0, 1, 0, 1])
    assert has_teams("crazy-kick", [0, 1, 0]) and has_teams("crazy-kick", [0, 1]) and has_teams("partout", [0, 1, 2])
    assert has_teams("teamplay", [0, 1, 2, 3, 4])
    assert not has_teams("tadika", [0, 1, 2]) and not has_teams("team-up", [0, 0, 0, 0])
    assert not has_teams("partout", [0])


@pytest.mark.parametrize("game, players", [("partout", 6), ("partout", 4), ("partout", 3), ("teamplay", 6),
                                           ("teamplay", 4), ("teamplay", 5), ("teamplay", 3), ("crazy-kick", 8),
                                           ("crazy-kick", 3), ("crazy-kick", 2)])
def test_in_a_game_with_teams_a_seat_is_shown_and_lit_in_its_teams_colour(game, players):
    t = table(game, players)
    view = t.rules.public_view(t.state)
    snap = t.snapshot()
    to_act = t.rules.to_act(t.state)
    leds = {c.station: c.args[0] for c in t.initial_feedback() if c.kind == "LED"}
    for seat in range(players):
        colour = team_colour(view, view["team_of"][seat])
        assert snap.seats[seat].colour == colour                  # the underline: the team's, not the person's
        assert leds[f"s{seat}"] == (LED_YOUR_TURN if seat == to_act else team_glow(colour))
    # the person who chose blue plays for another team than blue's: their colour gave way
    assert snap.seats[0].colour != CHOSEN[0] or view["team_of"][0] == 1
    # every team has a colour of its own: no two teams' seats lit or underlined alike
    teams = {view["team_of"][seat]: snap.seats[seat].colour for seat in range(players)}
    assert len(set(teams.values())) == len(teams)


@pytest.mark.parametrize("game, players", [("tadika", 5), ("team-up", 4)])
def test_without_teams_each_keeps_the_colour_chosen_at_seating(game, players):
    t = table(game, players)
    snap = t.snapshot()
    assert [s.colour for s in snap.seats] == CHOSEN[:players]
    to_act = t.rules.to_act(t.state)
    leds = {c.station: c.args[0] for c in t.initial_feedback() if c.kind == "LED"}
    assert all(led == (LED_YOUR_TURN if f"s{seat}" == f"s{to_act}" else LED_OFF)
               for seat, led in ((int(s[1:]), led) for s, led in leds.items()))


@pytest.mark.parametrize("players", [6, 3])
def test_the_screen_draws_the_team_mark_and_the_underline_in_one_colour(monkeypatch, players):
    """Partout with 6 and with 3 at 1920×1080: under each name the line is its team's colour,
    the colour of the shape beside it and of the team's column."""
    from display.app import Screen
    from display.draw import TEAM, hex_rgb
    from display.partout_view import seat_rects
    t = table("partout", players)
    view = t.rules.public_view(t.state)
    drawn: list = []
    from display import draw
    real = draw.seat_colour
    monkeypatch.setattr(draw, "seat_colour", lambda surface, colour, name: (drawn.append((colour, name)),
                                                                          real(surface, colour, name))[1])
    canvas = Screen(headless=True, lang="en").render(t.snapshot())
    assert len(drawn) == players
    for seat, (rect, (colour, name)) in enumerate(zip(seat_rects(players), drawn, strict=True)):   # each seat painted on own
        team = view["team_of"][seat]
        assert hex_rgb(colour) == TEAM[team]
        assert tuple(canvas.get_at((rect.left + name.left + 10, rect.top + name.bottom + 1)))[:3] == TEAM[team]


def test_seat_colours_follow_the_decks_own_team_colours():
    view = {"team_of": [0, 1, 0, 1], "team_colours": ["#c8102e", "#1a1a1a"]}
    assert seat_colours("crazy-kick", view, [None] * 4) == ["c8102e", "1a1a1a", "c8102e", "1a1a1a"]
    assert seat_colours("partout", {"team_of": [0, 1, 0, 1]}, ["x"] * 4) == [TEAM_COLOURS[0], TEAM_COLOURS[1]] * 2


@pytest.mark.parametrize("players", [8, 2])
def test_every_team_s_stations_glow_visibly_and_unlike_the_other_team_s(players):
    """Review of issue 40: Crazy Kick's black team (#1a1a1a) dimmed to 060606, an LED that
    is off: its stations showed no idle glow. Black glows a dim white of its own."""
    from controller.table.table import GLOW_SEEN, LED_DARK_TEAM
    t = table("crazy-kick", players)
    view = t.rules.public_view(t.state)
    leds = {int(c.station[1:]): c.args[0] for c in t.initial_feedback() if c.kind == "LED"}
    glow = {view["team_of"][seat]: led for seat, led in leds.items() if led != LED_YOUR_TURN}
    assert len(set(glow.values())) == len(glow) == 2
    assert all(max(int(led[i:i + 2], 16) for i in (0, 2, 4)) >= GLOW_SEEN for led in glow.values())
    assert glow[view["team_names"].index("black")] == LED_DARK_TEAM
    for colour in TEAM_COLOURS:                         # the table's own team colours keep their hue
        assert team_glow(colour) != LED_DARK_TEAM
