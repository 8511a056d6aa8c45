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
    from display.draw import PANEL_RADIUS
    assert tuple(canvas.get_at((rect.left + 1, rect.top + PANEL_RADIUS + 2)))[:3] == RED


def test_a_stall_is_no_banner_the_seats_say_who_has_spoken(screen):
    """The ball is out only when both teams agree (the book), so a stall covers nothing: the
    centre card stays in view, and once a team has spoken each seat's line says so."""
    from controller.games.crazykick import BallOut
    state, _ = stuck_state()
    table = Table(RULES, config={"players": 2}, seed=1, stations=["a", "b"])
    table.state = RULES.apply(state, BallOut(0))
    canvas = screen.render(table.snapshot())
    banner_border = tuple(canvas.get_at((TABLE_AREA.centerx, TABLE_AREA.centery + 10 - 70 + 1)))[:3]
    assert banner_border != RED
    snap = table.snapshot()
    assert snap.seats[0].prompt is not None and snap.seats[1].prompt is not None


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
        for key, params in (("ck_stall_hint", {}), ("ck_stall_hint_agreed", {"team": "black"}),
                            ("whistle", {}), ("paused", {"seat": 1}),
                            ("station_lost", {"seat": 1, "reason": "unplugged"}), ("station_back", {"seat": 1}),
                            ("slow_link", {"seat": 1, "ms": 16}), ("slow_link_simulated", {"seat": 1, "ms": 16}),
                            ("station_silent", {"seat": 1}),
                            ("poor_clock", {"seat": 1, "us": 320, "answered": 1000, "sent": 50000})):
            words = texts.render(lang, key, params, names)
            assert draw.fitted_size(words, 30, True, MESSAGE_REGION.width) >= 28, (lang, key, words)
    for players in range(2, 9):
        assert not any(MESSAGE_REGION.colliderect(rect) for rect in seat_rects(players)), players
    from display.crazykick_view import CENTRE_REGION
    assert not MESSAGE_REGION.colliderect(CENTRE_REGION)


# every refusal a Crazy Kick seat can show: the rules' and the buttons' (not the settings',
# refused before a match), and the table's own
_BEFORE_A_MATCH = {"ck_unknown_edition", "ck_player_count", "ck_virtual_only", "ck_goals_out_of_range"}
_TABLES = {"paused": {"seat": 1}, "cannot_save": {"reason": "disk full"}, "station_flooding": {"seat": 1, "n": 120},
           "undo_realtime": {}, "game_over": {}, "ck_goal_pause": {}}


def seat_refusals() -> dict[str, dict]:
    """Key → the longest parameters it takes: found in the code, so a new refusal is checked too."""
    import ast
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    found = dict(_TABLES)
    for source in ("controller/games/crazykick.py", "controller/inputs/crazykick.py"):
        for node in ast.walk(ast.parse((root / source).read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "IllegalAction" and node.args \
                    and isinstance(node.args[0], ast.Constant) and node.args[0].value not in _BEFORE_A_MATCH:
                found[node.args[0].value] = {keyword.arg: 9 for keyword in node.keywords}
    for params in found.values():                     # the longest names the decks and the seats have
        for name in params:
            if name in ("name", "top"):
                params[name] = "Schweinsteiger"
            elif name in ("seat", "winner"):
                params[name] = 1
            elif name == "cards":
                params[name] = 25
    return found


def seat_prompts() -> set[str]:
    import re
    from pathlib import Path
    source = (Path(__file__).resolve().parent.parent / "controller/inputs/crazykick.py").read_text()
    return set(re.findall(r'"(ck_prompt_[a-z_]+)"', source))


def test_every_refusal_at_a_seat_is_read_from_the_sofa_in_every_language():
    """A seat's panel has one line for its refusal: at 28 px or more, in every language,
    with the longest names. Sentences too long for it have a short form (msgctxt "seat"):
    before, most were shrunk to 14-20 px to fit."""
    from controller.games import texts
    from display import draw
    refusals = seat_refusals()
    assert {"ck_too_late", "ck_does_not_fit", "ck_button_unused", "paused"} <= set(refusals)
    names = ["Jean-Philippe", "Marie-Christine", "Maximilian", "Anna", "Ben", "Clara", "David", "Eva"]
    width = min(rect.width for players in range(2, 9) for rect in seat_rects(players)) - 24
    small = []
    for lang in texts.LANGUAGES:
        for key, params in refusals.items():
            words = texts.render_at_seat(lang, key, params, names)
            if draw.fitted_size(words, 28, True, width) < 28:
                small.append((lang, key, words))
        for key in seat_prompts():                       # what a seat is asked to do, on the same line
            words = texts.render(lang, key, {"missing": 7}, names)
            if draw.fitted_size(words, 28, True, width) < 28:
                small.append((lang, key, words))
    assert not small, "\n".join(map(str, small))


def test_a_refused_seat_shows_the_short_form_and_what_it_says_is_drawn_at_28_px(screen, monkeypatch):
    from tests.conftest import record_texts
    deck = load_deck("schmidt")
    tim = card(deck, "Tim", passes=["Stefan"])
    luca = next(c for c in deck if c.player == "Luca" and not c.goal and "Tim" not in c.tackles)
    table = table_with(arrange(RULES.new_game({"players": 4}, 1), {1: [[luca.id]]}, centre=[tim.id]))
    table._input(1, lambda: Play(1, 0))               # Luca does not fit on Tim
    drawn = record_texts(monkeypatch)
    screen.set_lang("de")
    screen.render(table.snapshot())
    assert ("Passt nicht", 28) in [(words, size) for words, size, _ in drawn]
    assert not any(words.startswith("Luca passt nicht") for words, _, _ in drawn)
