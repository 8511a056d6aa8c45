"""The drawing helpers' caches draw exactly what drawing afresh would."""

from __future__ import annotations

import pygame
import pytest

from controller.inputs.base import SoftKey
from display import draw


def same(a: pygame.Surface, b: pygame.Surface) -> bool:
    return pygame.image.tobytes(a, "RGB") == pygame.image.tobytes(b, "RGB")


@pytest.mark.parametrize("width", [0, 2, 5])
def test_a_copied_rounded_panel_is_the_drawn_one(screen, width):
    a, b = pygame.Surface((300, 200)), pygame.Surface((300, 200))
    for s in (a, b):
        s.fill(draw.FELT)
    rect = pygame.Rect(20, 30, 210, 120)
    pygame.draw.rect(a, draw.GOLD, rect, width, border_radius=14)
    draw.rounded(b, draw.GOLD, rect, width, 14)
    draw.rounded(b, draw.GOLD, rect, width, 14)          # the second time from the cache
    assert same(a, b)


def test_a_cached_text_is_redrawn_in_its_own_colour_and_size(screen):
    red, gold = draw.rendered("Partout", 40, False, draw.RED), draw.rendered("Partout", 40, False, draw.GOLD)
    assert red.get_size() == gold.get_size() and not same(red, gold)
    assert draw.rendered("Partout", 40, False, draw.RED) is red
    assert draw.fitted_size("Mathematiker", 40, True, 100) < 40 == draw.fitted_size("Mathematiker", 40, True, None)


def test_soft_keys_show_their_new_legend_at_once(screen):
    a, b = pygame.Surface((320, 80)), pygame.Surface((320, 80))
    draw.soft_keys(a, "en", (None,) * 3 + (SoftKey("undo_no"), SoftKey("undo_yes"), SoftKey("undo_no")), (0, 0))
    draw.soft_keys(b, "en", (None,) * 3 + (SoftKey("undo_no"), SoftKey("undo_no"), SoftKey("undo_no")), (0, 0))
    assert not same(a, b)
    draw.soft_keys(b, "en", (None,) * 3 + (SoftKey("undo_no"), SoftKey("undo_yes"), SoftKey("undo_no")), (0, 0))
    assert same(a, b)


def _direct_and_cached(size, paint_direct, paint_cached) -> bool:
    a, b = pygame.Surface((size[0] + 40, size[1] + 40)), pygame.Surface((size[0] + 40, size[1] + 40))
    for s in (a, b):
        s.fill(draw.FELT)
    rect = pygame.Rect(17, 21, *size)
    paint_direct(a, rect)
    paint_cached(b, rect)
    paint_cached(b, rect)                               # the second time from the cache
    return same(a, b)


@pytest.mark.parametrize("lang", ["de", "fr"])
def test_a_cached_card_face_is_the_drawn_one(screen, lang):
    from controller.games.partout import ALL_CARDS as PARTOUT
    from controller.games.tadika import ALL_CARDS as TADIKA
    from display import partout_view, tadika_view
    for name in list(PARTOUT)[::3]:
        for size, small in (((128, 184), False), ((84, 121), True), ((96, 138), False)):
            assert _direct_and_cached(size, lambda s, r: partout_view._paint_face(s, lang, name, r, small),
                                      lambda s, r: partout_view.draw_card(s, lang, name, r, small=small)), name
    from controller.games.teamplay import MISSION_CARDS, NUMBER_CARDS
    from display import teamplay_view
    for name in list(NUMBER_CARDS)[::4]:
        assert _direct_and_cached((96, 136), lambda s, r: teamplay_view._paint_number(s, lang, name, r),
                                  lambda s, r: teamplay_view.draw_number(s, lang, name, r)), name
    for name in list(MISSION_CARDS)[::3]:
        assert _direct_and_cached((214, 104), lambda s, r: teamplay_view._paint_mission(s, lang, name, r),
                                  lambda s, r: teamplay_view.draw_mission(s, lang, name, r)), name
    for name in list(TADIKA)[::5]:
        for size, small in (((170, 240), False), ((56, 80), True)):
            assert _direct_and_cached(size, lambda s, r: tadika_view._paint_card(s, lang, name, r, small),
                                      lambda s, r: tadika_view.draw_card(s, lang, name, r, small=small)), name


def test_a_window_fits_the_screen_it_opens_on():
    """Issue 30: a 1280×720 window on a 1080p screen was a third of it."""
    from display.app import fitted_window
    assert fitted_window([(1920, 1080)]) == (1728, 972)
    assert fitted_window([(3840, 2160), (1280, 1024)]) == (1920, 1080)      # never above the canvas
    width, height = fitted_window([(1366, 768)])
    assert width <= 1366 * 0.9 and height <= 768 * 0.9 and abs(width / height - 16 / 9) < 0.01


def _played(game: str, players: int, moves: int):
    """A demo's table a few moves in, the keyboard playing seat 1."""
    import random
    from importlib import import_module
    from controller.games import GAMES
    from controller.table.table import Table
    rules = GAMES[game]
    table = Table(rules, config={"players": players, "mode": "virtual", "demo": True}, seed=3,
                  stations=[f"s{i}" for i in range(players)], names=["Anna", "Ben", "Clara", "David", "Eva", "Felix"])
    bot, rng = import_module(f"controller.bots.{rules.module}").BOT(), random.Random(1)
    for _ in range(moves):
        table.apply(bot.choose(rules, table.state, rules.to_act(table.state), rng))
    return table


import pytest  # noqa: E402


@pytest.mark.parametrize("game, players, moves, open_cards", [
    ("partout", 6, 8, False), ("teamplay", 6, 6, True), ("tadika", 5, 3, True)])
def test_at_the_keyboard_the_hand_never_covers_the_table_and_the_table_cards_keys_are_shown(
        game, players, moves, open_cards, monkeypatch):
    """Issue 30: the hand strip covered the seat's own panel, bid prompt and − / OK keys
    (Partout), the partner's missions (Teamplay) and the bottom row of keys (Tadika), and the
    keys z-m were shown nowhere. The table is drawn whole above the strip: what is shown
    there is exactly the table without the strip, made smaller."""
    import pygame
    from display.app import KEY_TABLE_CARDS, Screen
    from conftest import record_texts
    table = _played(game, players, moves)
    screen = Screen(headless=True, lang="de")
    whole = screen.render(table.snapshot()).copy()              # nobody at the keyboard
    table.private_seat = 0                                      # as the demo sets it, before its first frame
    table._changed()
    texts = record_texts(monkeypatch)
    framed = screen.render(table.snapshot())
    area = screen.table_area()
    expected = pygame.transform.smoothscale(whole, area.size)
    assert pygame.image.tobytes(framed.subsurface(area).copy(), "RGB") == pygame.image.tobytes(expected, "RGB")
    said = [words for words, _, _ in texts]
    assert all(key in said for key in "1234567"[:len(table.state.hands[0])])
    assert all(key in said for key in KEY_TABLE_CARDS[:3]) == open_cards
    assert "q" in said and "d" in said                              # the station's buttons, as keys


def test_an_image_cache_lets_the_least_recently_used_go_when_its_budget_in_bytes_is_full(screen):
    one_kb = pygame.Surface((16, 16), 0, 32)                     # 16 × 16 × 4 bytes
    cache = draw.ImageCache(budget=2 * draw.image_bytes(one_kb))
    a, b, c = (one_kb.copy() for _ in range(3))
    cache.put("a", a)
    cache.put("b", b)
    assert cache.get("a") is a                                    # now "b" is the least recently used
    cache.put("c", c)
    assert cache.get("b") is None and cache.get("a") is a and cache.get("c") is c
    assert cache.bytes == 2 * draw.image_bytes(one_kb) and len(cache) == 2
    huge = pygame.Surface((64, 64), 0, 32)
    assert cache.put("huge", huge) is huge                        # drawn, but larger than the whole budget
    assert cache.get("huge") is None and len(cache) == 2
    cache.put("a", b)                                             # the same key again: counted once
    assert cache.get("a") is b and cache.bytes == 2 * draw.image_bytes(one_kb)


def test_the_drawing_caches_keep_within_their_budgets_at_the_largest_table(screen):
    """Crazy Kick with eight players: the most card faces and seat images of any game (once
    512 faces and 96 seats by count, 75 MB; a Pi shares its memory with the GPU)."""
    from controller.bench.frames import snapshots
    caches = {"faces": (draw._FACES, draw.FACE_BYTES), "seats": (draw._SEATS, draw.SEAT_BYTES),
              "texts": (draw._TEXTS, draw.TEXT_BYTES), "panels": (draw._PANELS, draw.PANEL_BYTES)}
    filled = set()
    for seed in range(4):
        for snap in snapshots("crazy-kick", seed, moves=150, players=8):
            screen.render(snap)
        for name, (cache, budget) in caches.items():
            held = sum(draw.image_bytes(image) for image in cache._images.values())
            assert held == cache.bytes <= budget, name
            filled |= {name} if cache.bytes > budget * 3 // 4 else set()
    assert {"faces", "seats"} <= filled                          # the budgets were what held them
