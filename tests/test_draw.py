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
