"""A refused seat's red dashed frame, looked at through pixels at 1920×1080: it lies on the
panel's own edge, and nothing drawn inside the seat (a team's mark, a name's line, a pile, a
key) comes near it. The review of issue 40 found the dashes drawn over Crazy Kick's red ▲
at 7 players and touching the piles, and touching Partout's ● and its −/OK/+ keys at 6."""

from __future__ import annotations

import dataclasses
import importlib
import time

import pytest

from controller.games import find_game
from controller.table import Table
from controller.table.table import Message
from display.draw import GOLD, PANEL, PANEL_RADIUS, RED, REFUSED_WIDTH, SEAT_MARGIN
from hardware.events import StationHello

VIEWS = {"crazy-kick": "crazykick_view", "partout": "partout_view", "teamplay": "teamplay_view",
         "tadika": "tadika_view"}


def every_seat_refused(game: str, players: int, lang: str):
    """The screen with a refusal standing at every seat, the seat on turn (gold) among them."""
    from display.app import Screen
    stations = [f"s{i}" for i in range(players)]
    table = Table(find_game(game), config={"players": players, "mode": "virtual"}, seed=1, stations=stations,
                  names=["Anna", "Bea", "Carl", "Dora", "Emil", "Fritz", "Gina", "Hugo"][:players])
    for station in stations:
        table.handle(StationHello(station, "/dev/x", 1, "t", {}, time.monotonic_ns()))
    snap = table.snapshot()
    refusal = {"key": "not_your_turn", "params": {"expected": 0, "player": 1}, "refusal": True}
    seats = [dataclasses.replace(s, refusal=Message(seat=s.seat, revision=s.seat + 1, **refusal)) for s in snap.seats]
    snap = dataclasses.replace(snap, seats=type(snap.seats)(seats))
    screen = Screen(headless=True, lang=lang)
    try:
        return screen.render(snap).copy(), snap
    finally:
        screen.close()


def sides(rect, depth: range):
    """The pixels ``depth`` in from each straight side of ``rect`` (its rounded corners left out)."""
    for d in depth:
        for x in range(rect.left + PANEL_RADIUS, rect.right - PANEL_RADIUS):
            yield "top", (x, rect.top + d)
            yield "bottom", (x, rect.bottom - 1 - d)
        for y in range(rect.top + PANEL_RADIUS, rect.bottom - PANEL_RADIUS):
            yield "left", (rect.left + d, y)
            yield "right", (rect.right - 1 - d, y)


@pytest.mark.parametrize("game, players, lang", [("crazy-kick", 7, "en"), ("crazy-kick", 8, "de"),
                                                 ("partout", 6, "fr"), ("partout", 3, "it"),
                                                 ("teamplay", 6, "de"), ("teamplay", 5, "fr"),
                                                 ("tadika", 5, "it")])
def test_a_refusal_s_frame_is_on_the_panel_s_edge_and_nothing_inside_touches_it(game, players, lang):
    canvas, snap = every_seat_refused(game, players, lang)
    colour = {xy: tuple(canvas.get_at(xy))[:3] for rect in importlib.import_module(f"display.{VIEWS[game]}")
              .seat_rects(players) for _, xy in sides(rect, range(SEAT_MARGIN))}
    for rect in importlib.import_module(f"display.{VIEWS[game]}").seat_rects(players):
        frame: dict[str, list[bool]] = {}
        for side, xy in sides(rect, range(1)):
            frame.setdefault(side, []).append(colour[xy] == RED)
        for side, reds in frame.items():              # red dashes on every side: red, then not, again and again
            runs = sum(1 for a, b in zip(reds, reds[1:], strict=False) if a and not b)
            assert runs >= 2 and 0.4 < sum(reds) / len(reds) < 0.8, (rect, side)
        # between the dashes and the seat's contents a clear ring: only the panel, or the gold of its turn
        touching = {side: colour[xy] for side, xy in sides(rect, range(REFUSED_WIDTH, SEAT_MARGIN))
                    if colour[xy] not in (PANEL, GOLD)}
        assert not touching, (rect, touching)


def test_crazy_kicks_red_team_s_mark_and_line_stay_inside_apart_from_the_frame():
    """The red ▲ and the red line under the name are the seat's contents, inside the ring;
    the refusal is the dashed edge around the panel, its own shape whatever the team's red."""
    from display.crazykick_view import seat_rects
    canvas, snap = every_seat_refused("crazy-kick", 7, "en")
    red_team = (0xc8, 0x10, 0x2e)
    for seat, rect in zip(snap.seats, seat_rects(7), strict=True):
        if seat.colour != "c8102e":
            continue
        inside = rect.inflate(-2 * SEAT_MARGIN, -2 * SEAT_MARGIN)
        marks = [(x, y) for x in range(rect.left, rect.left + 120) for y in range(rect.top, rect.top + 60)
                 if tuple(canvas.get_at((x, y)))[:3] == red_team]
        assert len(marks) > 100                        # the ▲ and the line are there
        assert all(inside.collidepoint(xy) for xy in marks), rect
        near = {(x + dx, y + dy) for x, y in marks for dx in range(-4, 5) for dy in range(-4, 5)}
        assert not [xy for xy in near if tuple(canvas.get_at(xy))[:3] == RED], rect    # no dash runs into them
