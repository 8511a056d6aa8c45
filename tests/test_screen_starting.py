"""Issue 40: a keyboard game showed a black window for 9–15 s on a loaded machine, and lost
the first key. The window says it is starting the moment it opens, and a key SDL delivers
without its character still counts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_window_says_it_is_starting_the_moment_it_opens():
    """In a process of its own (a window of SDL's offscreen driver): right after the window
    opens, before any snapshot, its pixels are the felt, not black, and the words were drawn."""
    code = """
import sys
from display import draw
said = []
real = draw.text
draw.text = lambda surface, words, *a, **k: (said.append(words), real(surface, words, *a, **k))[1]
from display.app import Screen
screen = Screen(headless=False, window=(640, 360), lang=sys.argv[1])
pixel = tuple(screen.window.get_at((20, 300)))[:3]          # the canvas scaled: the felt, near enough
print(all(abs(a - b) <= 6 for a, b in zip(pixel, draw.FELT)), said[-1])
screen.close()
"""
    env = dict(os.environ, SDL_VIDEODRIVER="offscreen", SDL_AUDIODRIVER="dummy")
    from controller.games import texts
    for lang in texts.LANGUAGES:
        done = subprocess.run([sys.executable, "-c", code, lang], cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        felt, words = done.stdout.strip().splitlines()[-1].split(" ", 1)
        assert felt == "True" and words == texts.render(lang, "screen_starting")


def test_a_key_whose_character_sdl_left_out_is_still_read(monkeypatch):
    import pygame
    from display.app import Screen
    screen = Screen(headless=True)
    pygame.event.clear()
    for key, unicode in ((pygame.K_1, ""), (pygame.K_s, ""), (pygame.K_z, "z"), (pygame.K_u, "")):
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key, unicode=unicode, mod=0, scancode=0))
    assert screen.poll() == [("card", 0), ("button", 4), ("table_card", 0), ("undo",)]
