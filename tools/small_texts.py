"""Which texts a screen draws below 28 px (the house's least for anything a player reads
from the sofa), per game and player count, in one language. Plays each turn-based game a
few dozen bot moves and draws every snapshot; a real-time game's first picture.

    SDL_VIDEODRIVER=dummy python tools/small_texts.py [--lang de]

Prints, per game/players, the sizes and the texts (the first few). draw.text shrinks a
text to fit its width, so a text asked for at 32 px may come out at 18: this counts the
size drawn."""

from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.bots import bot_class
from controller.games import GAMES
from controller.table.table import Table
from display import draw
from display.app import Screen
from display.views import view_for

LEAST = 28
NAMES = ["Anna", "Ben", "Clara", "David", "Eva", "Felix", "Greta", "Hugo"]


def small_texts(lang: str = "de", games: list[str] | None = None) -> dict[str, set]:
    """game/players → {(size drawn, text)} for every text drawn below LEAST px."""
    screen = Screen(headless=True)
    found: dict[str, set] = {}
    where = [""]
    real = draw.text

    def text(surface, words, pos, size=32, colour=draw.INK, bold=False, anchor="topleft", max_width=None):
        drawn, font = size, draw.font(size, bold)
        while max_width is not None and font.size(str(words))[0] > max_width and drawn > 14:
            drawn -= 2
            font = draw.font(drawn, bold)
        if drawn < LEAST and str(words).strip():
            found.setdefault(where[0], set()).add((drawn, str(words)[:40]))
        return real(surface, words, pos, size, colour, bold, anchor, max_width)

    draw.text = text
    try:
        _play_and_draw(screen, lang, games, where)
    finally:
        draw.text = real
    return found


def _play_and_draw(screen, lang, games, where) -> None:
    for name, rules in sorted(GAMES.items()):
        if games is not None and name not in games:
            continue
        for players in rules.player_counts:
            where[0] = f"{name}/{players}"
            table = Table(rules, config={"players": players, "mode": "virtual"}, seed=3,
                          stations=[f"s{i}" for i in range(players)], names=NAMES[:players])
            view = view_for(name, lang)
            # the game's own bot where it is quick; Team UP!'s thinks for a while, so random moves
            slow = name == "team-up"
            bot, rng = (None if rules.realtime or slow else bot_class(rules)()), random.Random(1)
            for _ in range(40):
                view.draw(screen.canvas, table.snapshot())
                if rules.outcome(table.state) is not None:
                    break
                if bot is None:                        # any seat's legal move
                    seats = range(players) if rules.realtime else [rules.to_act(table.state)]
                    moves = [a for seat in seats for a in rules.legal_actions(table.state, seat)]
                    if not moves:
                        break
                    table.apply(rng.choice(moves))
                else:
                    table.apply(bot.choose(rules, table.state, rules.to_act(table.state), rng))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lang", default="de")
    found = small_texts(parser.parse_args().lang)
    for place, texts in sorted(found.items()):
        print(place, sorted(texts)[:8])
    if not found:
        print(f"every text drawn at {LEAST} px or more")
    return 0


if __name__ == "__main__":
    sys.exit(main())
