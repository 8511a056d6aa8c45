"""The table's sounds: which moments make which sound (a refusal, a trick or goal, the
end), played through the mixer at the menu's volume, and silent where nobody listens."""

from __future__ import annotations

import pickle
import random
from types import SimpleNamespace

import pytest

from controller.bots import bot_class
from controller.games import GAMES
from controller.table.table import Table
from display import sound
from hardware.events import ButtonEvent
from display.sound import SYNTHS, Sounds, cues_between
from display.views import view_for


def play_with_cues(game: str, players: int, seed: int = 5) -> tuple[list[str], Table]:
    """A whole game by the game's bots through a Table; every cue its snapshots call for."""
    rules = GAMES[game]
    table = Table(rules, config={"players": players, "mode": "virtual"}, seed=seed,
                  stations=[f"s{i}" for i in range(players)])
    view, bot, rng = view_for(game, "en"), bot_class(rules)(), random.Random(seed)
    cues, before = [], table.snapshot()
    while not table.finished:
        table.apply(bot.choose(rules, table.state, rules.to_act(table.state), rng))
        after = table.snapshot()
        cues += cues_between(before, after, view)
        before = after
    return cues, table


def test_a_partout_game_chimes_once_per_trick_and_plays_the_fanfare_once():
    cues, table = play_with_cues("partout", 4)
    view = table.snapshot().view
    tricks = sum(sum(row["tricks"]) for row in view["history"])
    assert len(view["history"]) == view["rounds"] and cues.count("point") == tricks > view["rounds"]
    assert cues[-1] == "end" and cues.count("end") == 1 and "refused" not in cues


def test_a_tadika_game_chimes_for_every_set_won():
    cues, table = play_with_cues("tadika", 4)
    assert cues.count("point") == len(table.snapshot().view["history"]) > 0
    assert cues.count("end") == 1


def test_a_refusal_sounds_once_and_a_resumed_game_is_silent_at_first():
    table = Table(GAMES["partout"], config={"players": 4, "mode": "virtual"}, seed=1,
                  stations=["a", "b", "c", "d"])
    first = table.snapshot()
    assert cues_between(None, first, view_for("partout", "en")) == []        # nothing cheers on switch-on
    wrong = (table.rules.to_act(table.state) + 1) % 4
    table.handle(ButtonEvent("abcd"[wrong], 1, 4, True, 0, 0, 0))
    refused = table.snapshot()
    assert refused.message.refusal
    assert cues_between(first, refused, view_for("partout", "en")) == ["refused"]
    assert cues_between(refused, refused, view_for("partout", "en")) == []   # the same message, no new sound
    # nor when the screen's process gets it as a copy, through its pipe
    copy = pickle.loads(pickle.dumps(refused))
    assert cues_between(refused, copy, view_for("partout", "en")) == []


def test_a_crazy_kick_goal_is_whistled_and_the_match_ends_on_the_final_whistle():
    view = view_for("crazy-kick", "en")

    def snap(scores, winner, finished=False):
        return SimpleNamespace(game="crazy-kick", message=None, finished=finished,
                               view={"scores": scores, "winner": winner})
    assert cues_between(snap([0, 0], None), snap([1, 0], None), view) == ["goal"]
    assert cues_between(snap([2, 1], None), snap([3, 1], 0, True), view) == ["final_whistle"]


def test_every_sound_is_short_and_not_silent():
    for name, make in SYNTHS.items():
        samples = make()
        seconds = len(samples) / sound.RATE
        assert 0.2 < seconds < 3.0, name
        assert max(map(abs, samples)) > 4000, name


class FakeSound:
    def __init__(self, buffer):
        self.volume, self.played = 1.0, 0

    def set_volume(self, v):
        self.volume = v

    def play(self):
        self.played += 1


def test_the_volume_reaches_every_sound_and_zero_is_mute(monkeypatch):
    import pygame
    monkeypatch.setattr(sound, "has_sound_card", lambda: True)
    monkeypatch.setattr(pygame.mixer, "init", lambda **kw: None)
    monkeypatch.setattr(pygame.mixer, "Sound", FakeSound)
    sounds = Sounds(40)
    assert sounds.available and all(s.volume == pytest.approx(0.4) for s in sounds._sounds.values())
    assert sounds.play("point") and sounds._sounds["point"].played == 1
    sounds.set_volume(0)
    assert not sounds.play("point") and sounds._sounds["point"].played == 1
    assert not sounds.play("no-such-sound")


def test_without_a_sound_card_the_mixer_is_not_even_opened(monkeypatch):
    import pygame
    monkeypatch.setattr(sound, "has_sound_card", lambda: False)
    monkeypatch.setattr(pygame.mixer, "init", lambda **kw: pytest.fail("the mixer was opened"))
    sounds = Sounds(80)
    assert not sounds.available and not sounds.play("end")
