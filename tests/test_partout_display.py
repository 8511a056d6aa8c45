"""The screen draws what the table knows: looked at through pixels of the logical canvas."""

from __future__ import annotations

import pytest

from controller.games.texts import LANGUAGES
from controller.inputs.base import OK, PLUS
from display.app import Screen
from display.draw import GOLD, PANEL_RADIUS, RED
from display.partout_view import CARD_GAP, middle, seat_rects, trick_card_size


def framed_gold(canvas, rect) -> bool:
    """Whether the seat's top edge is gold (on turn): along all of it, or between a refusal's
    red dashes, which lie on the same edge."""
    edge = [tuple(canvas.get_at((x, rect.top + 1)))[:3] for x in range(rect.left + PANEL_RADIUS, rect.right - PANEL_RADIUS)]
    return edge.count(GOLD) > len(edge) // 4


def refusal_pixel(canvas, rect):
    """The start of the left side of the dashed red frame a standing refusal draws on a seat
    panel's edge (a dash there, continuing the corner's)."""
    return tuple(canvas.get_at((rect.left + 1, rect.top + PANEL_RADIUS + 2)))[:3]


def test_refused_seat_is_framed_red_and_the_seat_to_act_gold(make_table, screen):
    h = make_table()
    h.press(3, OK)                                   # out of turn
    canvas = screen.render(h.table.snapshot())
    rects = seat_rects(4)
    assert refusal_pixel(canvas, rects[3]) == RED and not framed_gold(canvas, rects[3])
    assert framed_gold(canvas, rects[1])    # seat 2 names the trump number
    assert refusal_pixel(canvas, rects[1]) != RED
    assert not framed_gold(canvas, rects[0]) and refusal_pixel(canvas, rects[0]) != RED


def test_the_seat_on_turn_refused_keeps_its_gold_frame_and_every_red_frame_can_be_read(make_table, monkeypatch):
    """Issue 40: red replaced the gold "your turn" frame, and of two seats refused one after
    the other only the second's reason could be read."""
    from controller.games import texts
    from tests.conftest import record_texts
    h = make_table()
    h.press(3, OK)                                   # out of turn
    h.tap(1, "blue5")                                # on turn, but the trump number is asked for
    snap = h.table.snapshot()
    assert snap.seats[3].refusal is not None and snap.seats[1].refusal is not None
    for lang in LANGUAGES:
        drawn = record_texts(monkeypatch)
        canvas = Screen(headless=True, lang=lang).render(snap)
        rects = seat_rects(4)
        assert framed_gold(canvas, rects[1]) and refusal_pixel(canvas, rects[1]) == RED
        assert refusal_pixel(canvas, rects[3]) == RED
        words = " ".join(w for w, _, _ in drawn)
        for seat in (1, 3):
            refusal = snap.seats[seat].refusal
            names = [s.name for s in snap.seats]
            assert texts.render(lang, "refused_for", {"player": seat}, names) in words
            assert texts.render(lang, refusal.key, refusal.params, names).split()[0] in words
        monkeypatch.undo()


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
    w, _ = trick_card_size(4, 2)
    area = middle(4)
    left = area.centerx - (2 * w + CARD_GAP) // 2
    y = area.top + 60
    second_card_halo = (left + w + CARD_GAP + w // 2, y - 5)
    first_card_halo = (left + w // 2, y - 5)
    assert tuple(canvas.get_at(second_card_halo))[:3] == GOLD
    assert tuple(canvas.get_at(first_card_halo))[:3] != GOLD


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("players", [3, 6])
def test_every_phase_draws_in_every_language(make_table, lang, players, monkeypatch):
    """Every phase's prompt is drawn in the screen's language (issue 17: this test once
    only checked that drawing did not raise)."""
    import random
    from controller.games import texts
    said = spoken(monkeypatch)
    screen = Screen(headless=True, lang=lang)
    h = make_table(players=players, mode="virtual")
    rules, table = h.rules, h.table
    names = [s.name or texts.render(lang, "seat_n", {"n": s.seat + 1}) for s in table.snapshot().seats]
    rng = random.Random(players)
    seen = set()
    prompts = {"trump_number": "names_trump_number", "trump_colour": "names_trump_colour", "bidding": "bids_now",
               "playing": "plays_now"}
    while not table.finished:
        phase, to_act = table.state.phase, table.state.to_act
        seen.add(phase)
        said.clear()
        screen.render(table.snapshot())
        assert texts.render(lang, prompts[phase], {"player": to_act}, names) in said, (phase, said[:5])
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
    real, real_wrapped = draw.text, draw.wrapped
    monkeypatch.setattr(draw, "text", lambda surface, words, *a, **k: said.append(words) or real(surface, words, *a, **k))
    monkeypatch.setattr(draw, "wrapped", lambda surface, words, *a, **k: said.append(words)
                        or real_wrapped(surface, words, *a, **k))
    view = PartoutView("en")
    view.names = ["Anna", "Ben", "Clara", "David"]
    view._winner(pygame.Surface((1920, 1080)), {"winners": [0, 1], "scores": [12, 12], "teams": [[0, 2], [1, 3]],
                                                "players": 4})
    assert "A tie: Anna & Clara and Ben & David with 12 points each!" in said
    assert said.count("1.") == 2                      # both share the first place in the totals



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


# -- between rounds, the middle, colour blindness ---------------------------------------------------

def spoken(monkeypatch):
    """Every text the views draw, in order."""
    from display import draw
    said = []
    real, real_wrapped = draw.text, draw.wrapped
    monkeypatch.setattr(draw, "text", lambda surface, words, *a, **k: said.append(words) or real(surface, words, *a, **k))
    monkeypatch.setattr(draw, "wrapped", lambda surface, words, *a, **k: said.append(words)
                        or real_wrapped(surface, words, *a, **k))
    return said


def test_between_rounds_the_summary_stays_until_the_next_round_begins(make_table, screen, monkeypatch):
    """The round's bids, tricks and points per team, and its last trick, stay in the middle
    while the dealer deals; the next round's trump number ends it."""
    import random
    h = make_table(players=4, mode="virtual")
    rules, table, rng = h.rules, h.table, random.Random(2)
    while table.state.round == 0:
        table.apply(rng.choice(rules.legal_actions(table.state, table.state.to_act)))
    said = spoken(monkeypatch)
    screen.render(table.snapshot())
    row = table.snapshot().view["history"][0]
    assert "Round 1 is over" in said
    for t in range(2):
        assert f"bid {row['bids'][t]} · took {row['tricks'][t]}" in said and f"{row['points'][t]:+d}" in said
    names = [s.name or f"Seat {s.seat + 1}" for s in table.snapshot().seats]
    assert f"{names[0]} & {names[2]}" in said and f"{names[1]} & {names[3]}" in said
    said.clear()
    table.apply(rng.choice(rules.legal_actions(table.state, table.state.to_act)))      # the trump number
    screen.render(table.snapshot())
    assert "Round 1 is over" not in said


@pytest.mark.parametrize("players", [3, 4, 6])
def test_the_middle_runs_into_no_seat_and_a_full_trick_fits_it(players):
    area = middle(players)
    seats = seat_rects(players)
    assert area.collidelist(seats) == -1
    assert all(not a.colliderect(b) for i, a in enumerate(seats) for b in seats[i + 1:])
    cards = players * 2 if players == 3 else players
    w, h = trick_card_size(players, cards)
    assert w >= 100                                   # large enough for a number read from the sofa
    assert cards * w + (cards - 1) * CARD_GAP <= area.width
    assert area.top + 60 + h + 10 + 30 <= area.bottom - 50     # the names under the cards, then the prompt


# Machado, Oliveira & Fernandes (2009), severity 1.0; and no colour at all
CVD = {
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
    "achromatopsia": ((0.299, 0.587, 0.114),) * 3,
}


def ink_mask(surface, matrix):
    """Where a card shows ink as a colour-blind eye sees it: pixels far from the card's face."""
    face = [sum(m * c for m, c in zip(row, (250, 248, 240))) for row in matrix]
    mask = set()
    w, h = surface.get_size()
    for y in range(0, h - 44):                        # above the colour's word: shapes and number only
        for x in range(w):
            r, g, b = surface.get_at((x, y))[:3]
            seen = [sum(m * c for m, c in zip(row, (r, g, b))) for row in matrix]
            if sum(abs(a - f) for a, f in zip(seen, face)) > 90:
                mask.add((x, y))
    return mask


@pytest.mark.parametrize("eye", sorted(CVD))
def test_the_four_suits_differ_by_shape_for_a_colour_blind_eye(screen, eye):
    """Issue 14: red and green differed only by a 24 px word under deuteranopia. Now two
    cards of the same number in any two suits differ in what they show above the word,
    even when every colour is seen alike."""
    import pygame
    from display.partout_view import draw_card
    masks = {}
    for suit in ("red", "green", "blue", "black"):
        card = pygame.Surface((128, 184))
        card.fill((24, 84, 52))
        draw_card(card, "en", f"{suit}5", card.get_rect())
        masks[suit] = ink_mask(card, CVD[eye])
        assert len(masks[suit]) > 800, (suit, "no ink left to see")
    suits = sorted(masks)
    for i, a in enumerate(suits):
        for b in suits[i + 1:]:
            assert len(masks[a] ^ masks[b]) > 150, (a, b)


def test_an_unplugged_seat_says_so_in_its_status_line_at_28_px_not_over_it(screen, monkeypatch):
    """It was drawn at 26 px beside the dealer's badge, over the seat's status line."""
    import time
    from controller.games import find_game, texts
    from controller.table import Table
    from tests.conftest import record_texts
    from hardware.events import StationHello, StationLost
    table = Table(find_game("partout"), config={"players": 4, "mode": "virtual"}, seed=1,
                  stations=["a", "b", "c", "d"], names=["Anna", "Ben", "Clara", "David"])
    for s in "abcd":
        table.handle(StationHello(s, "/dev/x", 1, "t", {}, time.monotonic_ns()))
    dealer = table.snapshot().view["dealer"]
    table.handle(StationLost("abcd"[dealer], "/dev/x", "unplugged", time.monotonic_ns()))
    drawn = record_texts(monkeypatch)
    screen.render(table.snapshot())
    offline = [(size, at) for words, size, at in drawn if words == texts.text("en", "station_offline")]
    badge = [at for words, _, at in drawn if words == texts.text("en", "dealer_badge")]
    assert len(offline) == 1 and offline[0][0] >= 28 and len(badge) == 1
    assert not offline[0][1].colliderect(badge[0])   # (both in the seat's own region's coordinates)


@pytest.mark.parametrize("lang", ["de", "en", "fr", "it"])
def test_every_special_card_has_a_mark_of_its_own(lang):
    """Issue 30: German showed K for both König and Königin (French and Italian R for both),
    so a trick's two cards looked alike. Each special card's mark is its own."""
    from controller.games import texts
    from controller.games.partout import RULES as PARTOUT
    specials = [card for card in PARTOUT.card_names() if not any(ch.isdigit() for ch in card)]
    marks = [texts.card_mark(lang, card) for card in specials]
    assert len(specials) >= 6 and len(set(marks)) == len(marks), dict(zip(specials, marks))


@pytest.mark.parametrize("mode", ["virtual", "physical"])
def test_the_help_line_says_what_people_do_with_the_cards_the_table_dealt_or_they_hold(make_table, mode,
                                                                                      monkeypatch):
    """Issue 30: the virtual demo (the table deals) said "Tap your cards on your reader"."""
    from controller.games import texts
    said = spoken(monkeypatch)
    screen = Screen(headless=True, lang="en")
    screen.render(make_table(players=4, mode=mode).table.snapshot())
    virtual, physical = texts.render("en", "help_line_virtual", {}), texts.render("en", "help_line", {})
    assert (virtual in said, physical in said) == ((True, False) if mode == "virtual" else (False, True))
    assert "reader" not in virtual


def test_the_score_tables_legend_spans_every_teams_column(make_table, monkeypatch):
    """Issue 30: "bid/tricks   points" sat over the first column as if it were that column's;
    the legend now says it is every team's, across the whole table."""
    from display import draw
    from display.partout_view import SCORES
    spans = []
    real_wrapped = draw.wrapped
    monkeypatch.setattr(draw, "wrapped", lambda surface, words, rect, *a, **k: spans.append((words, rect))
                        or real_wrapped(surface, words, rect, *a, **k))
    for lang in LANGUAGES:
        spans.clear()
        Screen(headless=True, lang=lang).render(make_table(players=6, mode="virtual").table.snapshot())
        legend = next(rect for words, rect in spans if words == texts_of(lang, "score_header"))
        assert legend.left == SCORES.left + 20 and legend.width == SCORES.width - 40


def texts_of(lang, key):
    from controller.games import texts
    return texts.render(lang, key, {})


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_special_cards_name_never_lies_over_its_letter_at_any_size(lang, monkeypatch, screen):
    """Issue 40: "Mathematiker", broken in two lines on a hand card, was drawn over its big M."""
    import pygame
    from controller.games import texts
    from display.partout_view import _paint_face          # the face itself, not a copy kept from before
    from tests.conftest import record_texts
    specials = ["mathematician", "alchemist", "dungeon", "jester", "king", "queen"]
    for size in ((96, 136), (80, 113), (150, 210), (200, 280)):           # the keyboard's hand, a trick, the how-to
        for card in specials:
            drawn = record_texts(monkeypatch)
            _paint_face(pygame.Surface((400, 400)), lang, card, pygame.Rect(0, 0, *size), False)
            mark = texts.card_mark(lang, card)
            letter = [rect for w, _, rect in drawn if w == mark]
            words = [rect for w, _, rect in drawn if w != mark]
            assert letter and words, (card, size, drawn)
            assert all(not letter[0].colliderect(rect) for rect in words), (lang, card, size, drawn)
            monkeypatch.undo()


@pytest.mark.parametrize("text", ["partout:\x00", "partout:Herz\x00 7", "partout:\x1b[2J\x07", "partout:\u202eSPAM\x00"])
def test_a_foreign_stickers_text_is_refused_on_the_screen_without_breaking_it(make_table, screen, text):
    """A sticker may name a card the deck lacks in any text, NUL and escapes too (the wire
    carries them percent-encoded): the refusal quotes it on the TV, and drawing it does not
    fail (pygame refuses a text with NUL in it)."""
    h = make_table()
    h.sims[1].tap("04a1b2c3d4e5f6", text)
    h.settle(1)
    refused = h.table.snapshot()
    assert refused.seats[1].refusal.key == "unknown_card"
    canvas = screen.render(refused)
    assert canvas.get_size() == (1920, 1080)
    assert refusal_pixel(canvas, seat_rects(4)[1]) == RED
