"""The drivers that seat bots at a table. A bot sees what a person at its seat would see
(the game's ``seat_view``: the public table, its own hand, what it saw go into other
hands; a bot is handed the whole state and its own code gets only that view, see
``controller/bots/base.py``) and acts only through its station: tapping card tags
and pressing buttons, so every bot move goes through the wire protocol, the table and the
rules. The game's own bot (``controller/bots/<game>.py``) only decides what to do.

- :class:`BotDriver`, turn-based games: when the table waits for a bot's seat, the bot
  chooses an action and a worker thread makes its taps and presses. A choice is drawn from
  a generator seeded by (game seed, number of actions so far, seat), so a game resumed
  from its log plays on exactly as it would have.
- :class:`RealtimeBotDriver`, real-time games: every bot plans its next press with a
  human reaction time from what it sees; the runner makes the presses when they fall due.
"""

from __future__ import annotations

import logging
import math
import random
import threading
import time
from typing import Any, Callable

from controller.bots import bot_class
from controller.games.core import GameRules
from controller.inputs import InputAdapter
from controller.table.cards import tap_virtual_card

log = logging.getLogger(__name__)


# refusals that say the table waits, not that the move was wrong
WAITING = frozenset({"paused", "cannot_save", "station_lost", "station_back", "station_flooding"})


def _refusal(snapshot: Any) -> str:
    message = snapshot.message
    return "no reason given" if message is None else f"{message.key} {message.params}"


def perform(station: Any, game: str, step: Any, *, release: bool = True) -> int:
    """Do one step of an action at a simulated station, as a hand would; returns the seq
    of the last frame it sent."""
    if step.kind == "tap":
        return tap_virtual_card(station, game, step.arg)
    return station.press(step.arg, release=release)


class BotDriver:
    """Runs the bots of a turn-based table. ``observe`` is called by the runner after every change;
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
        self.bot = bot_class(rules)()
        self._busy = threading.Event()
        self._last_sent: dict[int, int] = {}
        self._attempts: dict[tuple[int, int], int] = {}   # (actions so far, seat) → rule refusals
        self._refusal_seen: int | None = None
        self._thread: threading.Thread | None = None
        self._closed = False
        self._stuck: str | None = None    # why the bots cannot go on (the runner stops on it)

    @property
    def stuck(self) -> str | None:
        """Why the bots cannot go on (the runner stops on it): a move the table refused three
        times, or a station whose hand gave up."""
        return self._stuck or hands_gave_up(self.stations)

    def observe(self, snapshot: Any, state: Any) -> None:
        if self._closed or snapshot.finished or self._busy.is_set():
            return
        if snapshot.paused_for or getattr(snapshot, "cannot_save", None):
            # the table waits, and so do its bots; a press made meanwhile may be lost with an
            # unplugged station, so none is awaited and none counts as refused
            self._last_sent.clear()
            self._attempts.clear()
            return
        seat = self.rules.to_act(state)
        if seat not in self.stations:
            return
        station = self.stations[seat]
        if seat in self._last_sent and snapshot.processed.get(station.station_id) != self._last_sent[seat]:
            return                         # the table has not seen all our inputs yet
        key = (snapshot.action_count, seat)
        # A choice is tried again as it was unless the rules refused it: a press lost with an
        # unplugged station, or refused while the table waited, must not change the game.
        message = snapshot.message
        if key in self._attempts and message is not None and message.refusal and message.seat == seat \
                and message.key not in WAITING and message.revision != self._refusal_seen:
            self._refusal_seen = message.revision
            self._attempts[key] += 1
        attempt = self._attempts.setdefault(key, 0)
        if attempt >= 3:
            if self._stuck is None:
                self._stuck = (f"the bot at seat {seat + 1} could not make a move after {snapshot.action_count} "
                              f"actions (the table refused it three times: {_refusal(snapshot)})")
                log.error("%s", self._stuck)
            return
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
        except RuntimeError as exc:          # its station was unplugged under its hand: it tries again later
            log.warning("bot at seat %d: %s", seat, exc)
        except Exception:
            log.exception("bot at seat %d failed", seat)
        finally:
            self._busy.clear()
            self.wake()

    def close(self) -> None:
        self._closed = True
        if self._thread is not None:
            self._thread.join(timeout=2.0)


class RealtimeBotDriver:
    """The bots of a real-time table. They see each new snapshot, plan a press with a
    human reaction time and make it at their simulated station when it is due. A bot is
    ``bot(seat, seed, reaction)`` with ``plan(state, now_ms)`` and ``keeps(plan, state,
    now_ms)`` (see :class:`controller.bots.crazykick.KickBot`)."""

    def __init__(self, rules: GameRules, adapter: Any, stations: dict[int, Any], *, seed: int,
                 reaction: Any = None) -> None:
        bot = bot_class(rules)
        self.game = rules.name
        self.adapter = adapter
        self.stations = stations                     # seat → SimulatedStation
        self.bots = {seat: bot(seat, seed, reaction) if reaction is not None else bot(seat, seed)
                     for seat in stations}
        self.plans: dict[int, Any] = {seat: None for seat in stations}
        self._sent: dict[int, int] = {}               # seat → seq of the last frame it sent
        self._state: Any = None

    def observe(self, snapshot: Any, state: Any, now_ns: int) -> None:
        if snapshot.finished:
            self.plans = {seat: None for seat in self.plans}
            return
        changed = state is not self._state
        self._state = state
        now_ms = now_ns / 1e6
        for seat, bot in self.bots.items():
            station = self.stations[seat]
            if seat in self._sent and snapshot.processed.get(station.station_id) != self._sent[seat]:
                continue                              # the table has not had our last press yet
            plan = self.plans[seat]
            if plan is None or (changed and not bot.keeps(plan, state, now_ms)):
                self.plans[seat] = bot.plan(state, now_ms)

    @property
    def stuck(self) -> str | None:
        """A station whose hand gave up (the runner stops on it)."""
        return hands_gave_up(self.stations)

    def next_due_ns(self) -> int | None:
        times = [_ns(p) for p in self.plans.values() if p is not None]
        return min(times) if times else None

    def act(self, now_ns: int) -> list[Any]:
        """Make every press that is due; returns the stations that sent frames."""
        pressed = []
        for seat, plan in self.plans.items():
            if plan is None or _ns(plan) > now_ns:
                continue
            self.plans[seat] = None
            station = self.stations[seat]
            for step in self.adapter.inputs_for(self._state, seat, plan.action):
                self._sent[seat] = perform(station, self.game, step)
            pressed.append(station)
        return pressed

    def close(self) -> None:
        self.plans = {seat: None for seat in self.plans}


def hands_gave_up(stations: dict[int, Any]) -> str | None:
    """Why a station's simulated hand gave up, if one did: a card it laid down was never
    read (``hardware/sim/firmware_station.py``'s ``failed``). Its bot waits for frames that
    will not come, so the game cannot go on."""
    for station in stations.values():
        failed = getattr(station, "failed", None)
        if failed:
            return str(failed)
    return None


def _ns(plan: Any) -> int:
    """A plan's time on the integer clock (rounded up, so it is due once the clock is there)."""
    return math.ceil(plan.at_ms * 1e6)
