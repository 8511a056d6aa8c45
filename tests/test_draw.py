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
