"""Issue 40: where the table dealt the cards (virtual games: a demo, the keyboard) nobody has
a reader, and the table knows every hand: the screen does not say "tap on the reader", does
not ask a bot to show its winning hand, and names no keys when nobody is at the keyboard."""

from __future__ import annotations

import time

import pytest

from controller.games import find_game, texts
from controller.table import Table
from hardware.events import StationHello

READER = {"de": "Leser", "en": "reader", "fr": "lecteur", "it": "lettore"}


def table(game: str, players: int, mode: str) -> Table:
    stations = [f"s{i}" for i in range(players)]
    t = Table(find_game(game), config={"players": players, "mode": mode}, seed=2, stations=stations,
              names=[f"P{i}" for i in range(players)])
    for s in stations:
        t.handle(StationHello(s, "/dev/x", 1, "t", {}, time.monotonic_ns()))
    return t


def play_until(t: Table, done, limit: int = 200, prefer: str = "") -> None:
    """The first legal action (of the kind ``prefer`` where there is one) of whoever is on
    turn, until ``done(state)``."""
    for _ in range(limit):
        if done(t.state):
            return
        seat = t.rules.to_act(t.state)
        legal = t.rules.legal_actions(t.state, seat)
        action = next((a for a in legal if type(a).__name__ == prefer), legal[0])
        t._input(seat, lambda action=action: action)
    raise AssertionError("never reached")


def test_a_virtual_partout_asks_the_seat_on_turn_to_play_a_card_not_to_tap_a_reader(monkeypatch):
    from display.app import Screen
    from tests.conftest import record_texts
    for mode, key in (("virtual", "prompt_play_card"), ("physical", "prompt_tap_card")):
        t = table("partout", 6, mode)
        play_until(t, lambda s: s.phase == "playing")
        seat = t.rules.to_act(t.state)
        assert t.snapshot().seats[seat].prompt == (key, {})
    for lang in texts.LANGUAGES:
        drawn = record_texts(monkeypatch)
        Screen(headless=True, lang=lang).render(virtual_playing())
        words = " ".join(w for w, _, _ in drawn)
        assert READER[lang] not in words and "1–0" not in words, (lang, words)
        monkeypatch.undo()


def virtual_playing():
    t = table("partout", 6, "virtual")
    play_until(t, lambda s: s.phase == "playing")
    return t.snapshot()


def test_a_button_in_a_virtual_partout_is_refused_without_naming_a_reader():
    t = table("partout", 4, "virtual")
    play_until(t, lambda s: s.phase == "playing")
    seat = t.rules.to_act(t.state)
    from hardware.events import ButtonEvent
    now = time.monotonic_ns()
    t.handle(ButtonEvent(f"s{seat}", 1, 4, True, now // 1000, now, now))
    assert t.message.key == "play_a_card" and t.message.refusal
    for lang in texts.LANGUAGES:
        assert READER[lang] not in texts.render(lang, "play_a_card")


@pytest.mark.parametrize("mode, asked", [("virtual", False), ("physical", True)])
def test_a_virtual_tadika_does_not_ask_a_bot_to_show_its_winning_hand(mode, asked):
    """With real cards only the player knows whether the hand wins, so the table asks the
    seat whose swap ended its turn; with dealt cards it knows, and asks nobody."""
    t = table("tadika", 5, "virtual")
    play_until(t, lambda s: s.phase == "turn")
    seat = t.rules.to_act(t.state)
    ending = next(a for a in t.rules.legal_actions(t.state, seat)
                  if type(a).__name__ == "Swap" and t.rules.apply(t.state, a).just_moved == seat)
    t.state = t.state._replace(mode=mode)           # the same table, its cards dealt or real
    t._input(seat, lambda: ending)
    assert t.state.just_moved == seat
    prompt = t.snapshot().seats[seat].prompt
    assert (prompt == ("tadika_prompt_may_claim", {})) is asked
