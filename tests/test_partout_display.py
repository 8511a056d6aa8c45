"""The screen draws what the table knows: looked at through pixels of the logical canvas."""

from __future__ import annotations

import pytest

from controller.games.texts import LANGUAGES
from controller.inputs.base import OK, PLUS
from display.app import Screen
from display.draw import GOLD, RED
from display.partout_view import TABLE_AREA, CARD_SIZE, seat_rects


def border_pixel(canvas, rect):
    return tuple(canvas.get_at((rect.centerx, rect.top + 1)))[:3]


def test_refused_seat_is_framed_red_and_the_seat_to_act_gold(make_table, screen):
    h = make_table()
    h.press(3, OK)                                   # out of turn
    canvas = screen.render(h.table.snapshot())
    rects = seat_rects(4)
    assert border_pixel(canvas, rects[3]) == RED
    assert border_pixel(canvas, rects[1]) == GOLD    # seat 2 names the trump number
    assert border_pixel(canvas, rects[0]) != GOLD


def test_the_winning_card_of_the_trick_is_marked(make_table, screen):
    h = make_table()
    h.press(1, PLUS, PLUS, OK)                       # trump number 3
    h.press(2, OK)                                   # red
    for _ in range(4):
        h.press(h.state.to_act, OK)
    leader = h.state.to_act
    h.tap(leader, "blue5")
    h.tap(h.state.to_act, "black3")                  # trump number: wins
    canvas = screen.render(h.table.snapshot())
    w, _ = CARD_SIZE
    total = 2 * w + 18
    left = TABLE_AREA.centerx - total // 2
    y = TABLE_AREA.centery - CARD_SIZE[1] // 2 - 10
    second_card_halo = (left + w + 18 + w // 2, y - 5)
    first_card_halo = (left + w // 2, y - 5)
    assert tuple(canvas.get_at(second_card_halo))[:3] == GOLD
    assert tuple(canvas.get_at(first_card_halo))[:3] != GOLD


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("players", [3, 6])
def test_every_phase_draws_in_every_language(make_table, lang, players):
    import random
    screen = Screen(headless=True, lang=lang)
    h = make_table(players=players, mode="virtual")
    rules, table = h.rules, h.table
    rng = random.Random(players)
    seen = set()
    while not table.finished:
        seen.add(table.state.phase)
        screen.render(table.snapshot())
        table.apply(rng.choice(rules.legal_actions(table.state, table.state.to_act)))
    screen.render(table.snapshot())
    assert seen == {"trump_number", "trump_colour", "bidding", "playing"}


def test_show_skips_frames_faster_than_max_fps_and_flushes_the_last(make_table):
    screen = Screen(headless=True, max_fps=1)
    h = make_table()
    screen.show(h.table.snapshot())
    h.press(1, OK)
    screen.show(h.table.snapshot())
    assert screen.frames == 1 and screen._pending is not None
    screen.flush()
    assert screen.frames == 2 and screen.last_snapshot.revision == h.table.revision


@pytest.mark.parametrize("game", ["partout", "crazy-kick"])
def test_an_unplugged_station_puts_a_pause_banner_across_the_screen(screen, game):
    import time
    from controller.games import find_game
    from controller.table import Table
    from hardware.events import StationHello, StationLost
    table = Table(find_game(game), config={"players": 4, "mode": "virtual"}, seed=1,
                  stations=["a", "b", "c", "d"], names=["Anna", "Ben", "Clara", "David"])
    for s in "abcd":
        table.handle(StationHello(s, "/dev/x", 1, "t", {}, time.monotonic_ns()))
    frame = (960 - 646, 540)                  # the left edge of a banner across the middle
    assert tuple(screen.render(table.snapshot()).get_at(frame))[:3] != RED
    table.handle(StationLost("c", "/dev/x", "unplugged", time.monotonic_ns()))
    assert tuple(screen.render(table.snapshot()).get_at(frame))[:3] == RED
    table.handle(StationHello("c", "/dev/x", 1, "t", {}, time.monotonic_ns()))
    assert tuple(screen.render(table.snapshot()).get_at(frame))[:3] != RED


def test_a_tie_is_said_as_a_tie(monkeypatch, screen):
    """Issue 14: a tie read "Anna & Clara · Ben & David win!"."""
    import pygame
    from display import draw
    from display.partout_view import PartoutView
    said = []
    real = draw.text
    monkeypatch.setattr(draw, "text", lambda surface, words, *a, **k: said.append(words) or real(surface, words, *a, **k))
    view = PartoutView("en")
    view.names = ["Anna", "Ben", "Clara", "David"]
    view._winner(pygame.Surface((1920, 1080)), {"winners": [0, 1], "scores": [12, 12], "teams": [[0, 2], [1, 3]]})
    assert "A tie: Anna & Clara and Ben & David with 12 points each!" in said



def test_the_keyboard_seat_sees_its_own_hand(screen):
    """Issue 14: with --seat N the keys 1-0 tap that seat's cards; the screen shows them."""
    from controller.games import find_game
    from controller.table import Table
    table = Table(find_game("partout"), config={"players": 4, "mode": "virtual"}, seed=3,
                  stations=["a", "b", "c", "d"], names=["Anna", "Ben", "Clara", "David"])
    assert table.snapshot().private is None                 # nobody at the keyboard: no hand shown
    table.private_seat = 2
    table._changed()
    seat, hand = table.snapshot().private
    assert seat == 2 and hand == tuple(table.state.hands[2]) and hand
    canvas = screen.render(table.snapshot())
    x, y = 8 + 12 + 48, 1080 - 136 - 86 + 70 + 68            # the middle of the first card in the strip
    assert tuple(canvas.get_at((x, y)))[:3] != (24, 84, 52)   # a card face there, not the felt
