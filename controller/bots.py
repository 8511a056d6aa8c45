"""Bots fill empty seats. They see what a person at that seat would see (the public view
and their own hand) and act only through their station: tapping card tags and pressing
buttons, so every bot move goes through the wire protocol, the table and the rules.

A bot's choice is drawn from a generator seeded by (game seed, number of actions so far,
seat), so a game resumed from its log plays on exactly as it would have.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections import Counter
from typing import Any, Callable

from controller.cards import tap_virtual_card
from controller.games.core import GameRules
from controller.games import partout as partout_rules
from controller.inputs import InputAdapter

log = logging.getLogger(__name__)


class RandomBot:
    """Any legal action, uniformly."""

    def choose(self, rules: GameRules, state: Any, seat: int, rng: random.Random) -> Any:
        return rng.choice(rules.legal_actions(state, seat))


class PartoutBot(RandomBot):
    """Names the trumps it holds most of, bids its strong cards, plays legally at random."""

    def choose(self, rules: GameRules, state: Any, seat: int, rng: random.Random) -> Any:
        hand = state.hands[seat] if state.hands is not None else ()
        cards = [partout_rules.ALL_CARDS[c] for c in hand]
        if state.phase == "trump_number" and cards:
            counts = Counter(c.value for c in cards if c.value in state.setup.numbers)
            if counts:
                return partout_rules.NameTrumpNumber(seat, counts.most_common(1)[0][0])
        if state.phase == "trump_colour" and cards:
            counts = Counter(c.colour for c in cards if c.colour)
            if counts:
                return partout_rules.NameTrumpColour(seat, counts.most_common(1)[0][0])
        if state.phase == "bidding" and cards:
            strong = sum(1 for c in cards if c.name in ("king", "queen")
                         or c.value == state.trump_number
                         or (c.colour == state.trump_colour and (c.value or 0) >= 5))
            bid = min(partout_rules.max_bid(state, seat), round(strong * 0.6))
            return partout_rules.Bid(seat, bid)
        return super().choose(rules, state, seat, rng)


BOTS: dict[str, Callable[[], RandomBot]] = {"partout": PartoutBot}


def perform(station: Any, game: str, step: Any, *, release: bool = True) -> int:
    """Do one step of an action at a simulated station, as a hand would; returns the seq
    of the last frame it sent."""
    if step.kind == "tap":
        return tap_virtual_card(station, game, step.arg)
    return station.press(step.arg, release=release)


class BotDriver:
    """Runs the bots of a table. ``observe`` is called by the runner after every change;
    the bot's taps and presses are made on a worker thread, with human-like pauses
    when ``think`` (seconds) and ``step`` are above zero."""

    def __init__(self, rules: GameRules, adapter: InputAdapter, stations: dict[int, Any], *, seed: int,
                 think: float = 0.0, step: float = 0.0, wake: Callable[[], None] | None = None) -> None:
        self.rules = rules
        self.adapter = adapter
        self.stations = stations          # seat → SimulatedStation
        self.seed = seed
        self.think = think
        self.step = step
        self.wake = wake or (lambda: None)
        self.bot = BOTS.get(rules.name, RandomBot)()
        self._busy = threading.Event()
        self._last_sent: dict[int, int] = {}
        self._attempts: dict[tuple[int, int], int] = {}
        self._thread: threading.Thread | None = None
        self._closed = False

    def observe(self, snapshot: Any, state: Any) -> None:
        if self._closed or snapshot.finished or self._busy.is_set():
            return
        seat = self.rules.to_act(state)
        if seat not in self.stations:
            return
        station = self.stations[seat]
        if seat in self._last_sent and snapshot.processed.get(station.station_id) != self._last_sent[seat]:
            return                         # the table has not seen all our inputs yet
        key = (snapshot.action_count, seat)
        attempt = self._attempts.get(key, 0)
        if attempt >= 3:
            log.error("bot at seat %d could not make a move at action %d", seat, snapshot.action_count)
            return
        self._attempts[key] = attempt + 1
        rng = random.Random(f"bot:{self.seed}:{snapshot.action_count}:{seat}:{attempt}")
        action = self.bot.choose(self.rules, state, seat, rng)
        steps = self.adapter.inputs_for(state, seat, action)
        self._busy.set()
        self._thread = threading.Thread(target=self._act, args=(seat, station, steps), daemon=True,
                                        name=f"bot seat {seat}")
        self._thread.start()

    def _act(self, seat: int, station: Any, steps: list) -> None:
        try:
            if self.think:
                time.sleep(self.think)
            for i, step in enumerate(steps):
                if self._closed:
                    return
                self._last_sent[seat] = perform(station, self.rules.name, step)
                if self.step and i + 1 < len(steps):
                    time.sleep(self.step)
        except Exception:
            log.exception("bot at seat %d failed", seat)
        finally:
            self._busy.clear()
            self.wake()

    def close(self) -> None:
        self._closed = True
        if self._thread is not None:
            self._thread.join(timeout=2.0)
