"""Teamplay's screen: nothing overlaps at any player count, every phase draws in every
language, the seat on turn is framed gold and a refused one red, and every mission type
is drawn with its icons inside its card."""

from __future__ import annotations

import itertools

import pygame
import pytest

from controller.games.teamplay import MISSIONS, KeepMission
from controller.games.texts import LANGUAGES
from display.app import Screen
from display.draw import GOLD, RED
from display.teamplay_view import (
    GENERAL_RECT, KEY_SIZE, MAIN, MISSION_SIZE, SEATS_TOP, bank_rects, draw_mission, icon_boxes, seat_rects,
)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_nothing_overlaps_at_any_player_count(players):
    seats = seat_rects(players)
    for a, b in itertools.combinations(seats, 2):
        assert not a.colliderect(b)
    for rect in seats:
        assert MAIN.contains(rect) and rect.top >= SEATS_TOP
        missions_bottom = rect.top + 90 + MISSION_SIZE[1] + 6          # with the chosen mission's halo
        keys_top = rect.bottom - 2 * KEY_SIZE[1] - 6 - 8
        assert missions_bottom <= keys_top
        assert 2 * MISSION_SIZE[0] + 10 + 28 <= rect.width or players % 2 == 0   # two missions side by side
    for a, b in itertools.combinations([GENERAL_RECT] + bank_rects(), 2):
        assert not a.colliderect(b)
    assert all(r.bottom < 312 for r in [GENERAL_RECT] + bank_rects())      # above the status line


@pytest.mark.parametrize("mission", sorted(MISSIONS))
def test_every_mission_type_is_drawn_with_its_icons_inside_its_card(mission, screen):
    assert len(icon_boxes(MISSIONS[mission])) == (MISSIONS[mission].cards or 1)
    surface = pygame.Surface((400, 300))
    surface.fill((0, 0, 0))
    rect = pygame.Rect(50, 50, *MISSION_SIZE)
    draw_mission(surface, "de", f"{mission}/1", rect)
    outside = [surface.get_at((x, y))[:3] for x in range(400) for y in (40, 50 + MISSION_SIZE[1] + 10)]
    assert all(pixel == (0, 0, 0) for pixel in outside)


def refusal_corner(canvas, rect):
    """The corner of the dashed red frame a standing refusal draws inside a seat's panel."""
    from display.draw import PANEL_RADIUS
    return tuple(canvas.get_at((rect.left + 1, rect.top + PANEL_RADIUS + 2)))[:3]


def border(canvas, rect):
    return tuple(canvas.get_at((rect.centerx, rect.top + 2)))[:3]


def test_the_seat_on_turn_is_gold_and_a_refused_seat_red(make_table, screen):
    h = make_table(players=4, mode="virtual", seed=3, game="teamplay")
    seat = h.state.to_act
    other = (seat + 1) % 4
    h.press(other, 4)                                 # keeping a mission out of turn
    canvas = screen.render(h.table.snapshot())
    rects = seat_rects(4)
    assert border(canvas, rects[seat]) == GOLD and refusal_corner(canvas, rects[other]) == RED


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("players", [3, 6])
def test_every_phase_draws_in_every_language(make_table, lang, players):
    screen = Screen(headless=True, lang=lang)
    try:
        physical = make_table(players=players, mode="physical", seed=2, game="teamplay")
        physical.tap(physical.state.dealer, "red3-1")                 # laying the bank
        screen.render(physical.table.snapshot())
        virtual = make_table(players=players, mode="virtual", seed=5, game="teamplay")
        rules = virtual.rules
        while virtual.state.phase == "choose_missions":
            screen.render(virtual.table.snapshot())
            virtual.table.state = rules.apply(virtual.state, KeepMission(virtual.state.to_act, False))
        p = virtual.state.to_act
        virtual.tap(p, virtual.state.hands[p][0])                     # cards tapped for a mission
        screen.render(virtual.table.snapshot())
        virtual.table.state = virtual.state._replace(final_turns=2)
        virtual.table._changed()
        screen.render(virtual.table.snapshot())                       # the final round
        virtual.table.state = virtual.state._replace(phase="over", to_act=None)
        virtual.table._changed()
        snap = virtual.table.snapshot()
        assert snap.finished
        canvas = screen.render(snap)                                  # the winners
        bank = bank_rects()[0]
        assert tuple(canvas.get_at((MAIN.centerx, bank.bottom + 10)))[:3] == GOLD   # the banner's frame
    finally:
        screen.close()


def test_equal_points_are_a_shared_win_on_the_screen_and_in_the_results(make_table, monkeypatch):
    from controller.app.results import show
    from controller.games.texts import text
    from tests.conftest import record_texts
    h = make_table(players=4, mode="virtual", seed=3, game="teamplay")
    tied = h.state._replace(phase="over", to_act=None,            # 2 : 2 points, 2 missions against 1
                            fulfilled=(("pair/1", "pair/2"), ("low-three/1",), (), ()))
    h.table.state = tied
    result = h.table.result()
    assert result["scores"] == [2, 2] and result["winner"] == [0, 1]
    drawn = record_texts(monkeypatch)
    Screen(headless=True, lang="de").render(h.table.snapshot())
    assert any("teilen sich den Sieg mit je 2 Punkten" in words for words, _, _ in drawn), [w for w, _, _ in drawn]
    assert "teilen sich den Sieg" in text("de", "teamplay_winners_tie", names="A", n=2)
    h.store.finish(h.table.game_id, result)
    assert "shared win: " in show(h.store, demo=False, game="teamplay", fmt="table")
