"""Tadika's screen: every phase draws in every language at every player count, the seat
on turn is framed gold and a refused seat red, nothing overlaps, and colours are never
the only difference between cards."""

from __future__ import annotations

import itertools

import pygame
import pytest

from controller.games.tadika import Claim
from controller.games.texts import LANGUAGES
from display.app import Screen
from display.draw import GOLD, RED
from display.tadika_view import (
    FACE, MAIN, MAX_NOTES, NOTE_SIZE, NOTE_STEP, NOTE_TOP, SHAPE, SIDE, STATUS_TOP, middle_rects, seat_rects,
)


def refusal_corner(canvas, rect):
    """The corner of the dashed red frame a standing refusal draws inside a seat's panel."""
    from display.draw import PANEL_RADIUS
    return tuple(canvas.get_at((rect.left + 1, rect.top + PANEL_RADIUS + 2)))[:3]


def border(canvas, rect):
    return tuple(canvas.get_at((rect.centerx, rect.top + 2)))[:3]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_nothing_overlaps_at_any_player_count(players):
    seats = seat_rects(players)
    cards = middle_rects()
    for a, b in itertools.combinations(seats + cards, 2):
        assert not a.colliderect(b), (a, b)
    assert cards[0].bottom + 8 + 30 <= STATUS_TOP                    # each card's rows, then the headline
    status_bottom = NOTE_TOP + (MAX_NOTES - 1) * NOTE_STEP + NOTE_SIZE
    for rect in seats:
        assert MAIN.contains(rect) and rect.top >= status_bottom
    scores_bottom = SIDE.top + 60 + 52 * players
    last_win = pygame.Rect(SIDE.left, scores_bottom + 16, SIDE.width, 250)
    message = pygame.Rect(SIDE.left, SIDE.bottom - 300, SIDE.width, 300)
    assert not last_win.colliderect(message)


def test_every_colour_has_its_own_shape_and_face():
    assert len(set(SHAPE.values())) == len(SHAPE) == 4
    assert len(set(FACE.values())) == 4


def test_the_seat_on_turn_is_gold_and_a_refused_seat_red(make_table, screen):
    h = make_table(players=4, mode="virtual", seed=3, game="tadika")
    seat = h.state.to_act
    other = (seat + 1) % 4
    h.press(other, 0)                                # pass out of turn
    canvas = screen.render(h.table.snapshot())
    rects = seat_rects(4)
    assert border(canvas, rects[seat]) == GOLD
    assert refusal_corner(canvas, rects[other]) == RED and refusal_corner(canvas, rects[seat]) != RED


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("players", [2, 5])
def test_every_phase_draws_in_every_language(make_table, lang, players):
    screen = Screen(headless=True, lang=lang)
    try:
        physical = make_table(players=players, mode="physical", seed=2, game="tadika", forbidden=True)
        dealer = physical.state.dealer
        physical.tap(dealer, "blue5")                   # laying the middle: one card shown, six places empty
        canvas = screen.render(physical.table.snapshot())
        first, last = middle_rects()[0], middle_rects()[-1]
        assert tuple(canvas.get_at((first.centerx, first.top + 40)))[:3] == FACE["blue"]
        assert tuple(canvas.get_at((last.centerx, last.top + 40)))[:3] != FACE["blue"]
        for card in ("forbid2-1", "wish-1", "red1", "yellow7", "pink81", "blue72"):
            physical.tap(dealer, card)
        snap = physical.table.snapshot()
        assert snap.view["barred_rows"] == [2] and snap.view["wish_in_middle"]
        screen.render(snap)

        virtual = make_table(players=players, mode="virtual", seed=4, game="tadika")
        win = ("blue3", "blue6", "blue9", "blue12", "blue15", "blue18", "blue21")
        state = virtual.state._replace(to_act=0, scores=(45,) + virtual.state.scores[1:],
                                       hands=(win,) + virtual.state.hands[1:])
        virtual.table.state = virtual.rules.apply(state, Claim(0, win))     # the match ends on this hand
        virtual.table._changed()
        snap = virtual.table.snapshot()
        assert snap.finished and snap.view["last_win"]["points"] >= 10
        canvas = screen.render(snap)                     # the winning hand where the middle was
        assert tuple(canvas.get_at((first.centerx, first.top + 40)))[:3] == FACE["blue"]
        assert tuple(canvas.get_at((last.centerx, last.top + 40)))[:3] == FACE["blue"]
    finally:
        screen.close()


def test_a_tie_is_said_as_a_tie(monkeypatch, screen):
    import pygame
    from display import draw
    from display.tadika_view import TadikaView
    said = []
    real = draw.text
    monkeypatch.setattr(draw, "text", lambda surface, words, *a, **k: said.append(words) or real(surface, words, *a, **k))
    view = TadikaView("en")
    view.names = ["Anna", "Ben", "Clara"]
    win = {"player": 0, "hand": ["red1"] * 7, "line": {"kind": "row", "what": 2, "points": 3}, "bonuses": [],
           "points": 3}
    view._winner(pygame.Surface((1920, 1080)), {"winners": [0, 2], "scores": [50, 12, 50], "last_win": win})
    assert "Anna and Clara share the win!" in said


def test_a_win_without_bonuses_is_said_with_the_languages_own_colon():
    """Issue 40: "la table de 4: 5 points" beside the catalogue's "Donneur : Anna"."""
    from display.tadika_view import TadikaView
    win = {"line": {"kind": "row", "what": 4, "points": 5}, "hand": ["blue4"], "bonuses": [], "points": 5}
    assert TadikaView("fr").line_words(win) == "la table de 4 : 5 points"
    assert TadikaView("de").line_words(win).count(" :") == 0
