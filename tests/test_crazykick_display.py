"""The Crazy Kick screen, looked at through pixels: the centre card in its team's colour,
a refused seat framed red, the ball-out call, the goal celebration on a live screen."""

from __future__ import annotations

import pytest

from controller.games.crazykick import RULES, Play, load_deck
from controller.table import Table
from display.crazykick_view import CENTRE_CARD, TABLE_AREA, CrazyKickView, rgb, seat_rects
from display.draw import GOLD, RED
from tests.test_crazykick_rules import arrange, card, stuck_state


def centre_border(canvas):
    x = TABLE_AREA.centerx + 13
    y = TABLE_AREA.centery - CENTRE_CARD[1] // 2 + 3
    return tuple(canvas.get_at((x, y)))[:3]


def table_with(state):
    table = Table(RULES, config={"players": 4}, seed=1, stations=["a", "b", "c", "d"])
    table.state = state
    return table


def test_centre_card_in_its_teams_colour_and_a_refusal_framed_red(screen):
    deck = load_deck("schmidt")
    tim = card(deck, "Tim", passes=["Stefan"])
    luca = next(c for c in deck if c.player == "Luca" and not c.goal and "Tim" not in c.tackles)
    table = table_with(arrange(RULES.new_game({"players": 4}, 1), {1: [[luca.id]]}, centre=[tim.id]))
    table._input(1, lambda: Play(1, 0))               # Luca does not fit on Tim
    canvas = screen.render(table.snapshot())
    assert centre_border(canvas) == rgb("#c8102e")
    rect = seat_rects(4)[1]
    assert tuple(canvas.get_at((rect.centerx, rect.top + 1)))[:3] == RED


def test_ball_out_is_called_on_screen(screen):
    state, _ = stuck_state()
    table = Table(RULES, config={"players": 2}, seed=1, stations=["a", "b"])
    table.state = state
    canvas = screen.render(table.snapshot())
    banner_border = tuple(canvas.get_at((TABLE_AREA.centerx, TABLE_AREA.centery + 10 - 70 + 1)))[:3]
    assert banner_border == RED


def test_a_goal_is_celebrated_on_a_live_screen_only(screen):
    deck = load_deck("schmidt")
    max_card = card(deck, "Max", passes=["Paul"])
    paul = card(deck, "Paul")
    goal = card(deck, "Paul", goal=True)
    table = table_with(arrange(RULES.new_game({"players": 4}, 1), {0: [[goal.id]]}, centre=[max_card.id, paul.id]))
    live = CrazyKickView("en", live=False)
    live.live = True                      # a watched screen, without opening an audio device
    quiet = CrazyKickView("en")
    import pygame
    for view in (live, quiet):
        view.draw(pygame.Surface((1920, 1080)), table.snapshot())
    table._input(0, lambda: Play(0, 0))
    assert table.state.scores == (1, 0)
    canvases = {}
    for name, view in (("live", live), ("quiet", quiet)):
        surface = pygame.Surface((1920, 1080))
        view.draw(surface, table.snapshot())
        canvases[name] = surface
    assert live.animating() and not quiet.animating()
    probe = (TABLE_AREA.centerx, TABLE_AREA.centery + 10 - 70 + 1)
    assert tuple(canvases["live"].get_at(probe))[:3] == GOLD
    assert tuple(canvases["quiet"].get_at(probe))[:3] != GOLD


@pytest.mark.parametrize("players", range(2, 9))
def test_seats_header_and_centre_never_overlap(players):
    """Issue 14: "nothing overlaps at any player count" (the top seats once ran under the
    scorers' names and the table's news)."""
    from display.crazykick_view import CENTRE_REGION, HEADER, seat_rects
    rects = seat_rects(players) + [HEADER, CENTRE_REGION]
    assert all(not a.colliderect(b) for i, a in enumerate(rects) for b in rects[i + 1:])


def test_the_tables_news_is_one_line_a_sofa_can_read_and_covers_no_seat(screen):
    """The table-wide line (a stall's hint, the whistle, a station unplugged) is at least
    28 px in every language, with long names, and lies where no seat is at any count."""
    from controller.games import texts
    from display import draw
    from display.crazykick_view import MESSAGE_REGION
    names = ["Jean-Philippe", "Marie-Christine", "Maximilian", "Anna"]
    for lang in ("de", "en", "fr", "it"):
        for key, params in (("ck_stall_hint", {"seats": [0, 1, 2]}), ("whistle", {}), ("paused", {"seat": 1}),
                            ("station_lost", {"seat": 1, "reason": "unplugged"}), ("station_back", {"seat": 1}),
                            ("slow_link", {"seat": 1, "ms": 16}), ("slow_link_simulated", {"seat": 1, "ms": 16})):
            words = texts.render(lang, key, params, names)
            assert draw.fitted_size(words, 30, True, MESSAGE_REGION.width) >= 28, (lang, key, words)
    for players in range(2, 9):
        assert not any(MESSAGE_REGION.colliderect(rect) for rect in seat_rects(players)), players
    from display.crazykick_view import CENTRE_REGION
    assert not MESSAGE_REGION.colliderect(CENTRE_REGION)
