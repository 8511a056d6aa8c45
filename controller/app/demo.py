"""A whole game with bots at simulated stations: the composition root that wires the
hardware layer (simulated stations over pseudo-terminals, opened by the same
StationLink as USB stations), the table, the bots and the screen."""

from __future__ import annotations

import contextlib
import os
import sys
import time
import random
from pathlib import Path
from typing import Any

from controller.app.play import make_screen, open_links, simulated_stations
from controller.app.recording import NAMES, finished_games
from controller.bots.driver import BotDriver, RealtimeBotDriver
from controller.games import find_game
from controller.table.cards import tap_virtual_card
from controller.table.eventlog import EventLog, StorageError, TableLock, demo_data_dir
from controller.table.realtime import RealtimeRunner, SimulatedTime, SimulatedWire
from controller.table.runner import TableRunner, Wake, event_queue
from controller.table.table import Table

UNATTENDED_SAVE_S = 10.0     # a headless demo that cannot save for this long ends with the reason
DEMO_LINK_DELAY_MS = (0.0, 4.0)   # a real-time demo's stations: USB's delay each way (docs/crazy-kick.md)


def demo_config(game: str, players: int, options: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"players": players, "mode": "virtual", "demo": True, **(options or {})}


def run_demo(game: str = "partout", *, players: int = 4, seed: int | None = None, headless: bool = True,
             data_dir: str | Path | None = None, resume: bool = False, lang: str = "en",
             think: float | None = None, human_seat: int | None = None, screenshot: str | None = None,
             screenshot_at: int | None = None, fullscreen: bool = False,
             timeout: float | None = None, options: dict[str, Any] | None = None,
             reaction: Any = None, headless_note: str | None = None, stations: str = "sim") -> dict[str, Any]:
    """Play a game with bots; returns the result (game, scores, winner, ...). ``options``:
    the game's variants (its ``GameRules.options``), e.g. ``{"target": 100}``;
    ``headless_note``: said on stderr once everything is set up and the game begins without
    a window (a mistake found before is said alone, in one line); ``stations``: "sim", our
    Python model of a station, "firmware", the project's own firmware under MicroPython, or
    "rp2040", that firmware on MicroPython's rp2 port on an emulated RP2040 (then a real-time
    game runs on the real clock even headless: the firmware keeps its own)."""
    rules = find_game(game)
    folder = Path(data_dir or demo_data_dir())
    events = event_queue()
    with contextlib.ExitStack() as stack:
        stack.enter_context(TableLock(folder))          # one table per data directory
        store = EventLog(folder / "spieltisch.db")
        stack.callback(store.close)
        saved = None
        if resume:
            unfinished = store.unfinished_ids(rules.name, demo=True)
            if not unfinished:
                raise StorageError(f"there is no unfinished {rules.title} demo in {folder} to go on with; "
                                   "start one without --resume")
            saved = store.load(unfinished[0])            # a broken log says where it breaks
            players, seed = int(saved.config["players"]), saved.seed
        if seed is None:
            seed = random.SystemRandom().randrange(1 << 31)
        config = saved.config if saved is not None else demo_config(rules.name, players, options)
        if saved is None:                 # a game that repeats an earlier one finds it among the demos
            config = rules.prepare_config(config, lambda: finished_games(store, rules.name, demo=True))
        rules.new_game(config, seed)      # a wrong player count or variant is refused before any window opens
        screen = make_screen(stack, lang=lang, headless=headless, fullscreen=fullscreen, own_process=True)
        watching = screen.interactive
        # a real-time game without a screen runs on simulated time: nobody waits for reactions
        simulated = SimulatedTime() if rules.realtime and not watching and stations == "sim" else None
        sims = demo_stations(players, stack, realtime=rules.realtime, simulated=simulated, kind=stations)
        slow = [s.ping_interval_ns for s in sims if getattr(s, "ping_interval_ns", None)]
        links = open_links([sim.port for sim in sims], events, stack, clock=simulated, bots=True,
                           ping_interval_ns=max(slow) if slow else None)
        seats = [s.station_id for s in sims]
        names = NAMES[:players]
        if saved is not None:
            table = Table.resume(rules, saved, store, stations=seats, names=names)
        else:
            table = Table(rules, config=config, seed=seed, stations=seats, names=names, log_store=store)
        if headless_note and not watching:       # set up, the game saved: said after any setup's refusal
            print(headless_note, file=sys.stderr, flush=True)

        table.private_seat = human_seat          # the keyboard player sees their own hand
        bot_seats = {i: sims[i] for i in range(players) if i != human_seat}
        keyboard = _keyboard(table, sims[human_seat], rules.name) if human_seat is not None else None
        runner: TableRunner
        if rules.realtime:
            realtime_bots = RealtimeBotDriver(rules, table.adapter, bot_seats, seed=seed, reaction=reaction)
            stack.callback(realtime_bots.close)
            low, high = (int(ms * 1e6) for ms in DEMO_LINK_DELAY_MS)
            wire = SimulatedWire((low, high), seed) if simulated else None
            runner = RealtimeRunner(table, events, links, screen=screen, bots=realtime_bots, keyboard=keyboard,
                                    simulated=simulated, give_up_unsaved_s=None if watching else UNATTENDED_SAVE_S,
                                    wire=wire)
        else:
            if think is None:
                think = 0.8 if watching else 0.0
            bots = BotDriver(rules, table.adapter, bot_seats, seed=seed, think=think, step=think / 4,
                             wake=lambda: events.put(Wake()))
            stack.callback(bots.close)
            runner = TableRunner(table, events, links, screen=screen, bots=bots, keyboard=keyboard,
                                 give_up_unsaved_s=None if watching else UNATTENDED_SAVE_S)
        shot = _shoot_at(runner, screen, screenshot, screenshot_at) if screenshot else None
        if os.environ.get("SPIELTISCH_REPORT_FIRST_FRAME"):
            _report_first_frame(runner)
        # a person at the keyboard starting a new game is offered its how-to-play pages first
        if keyboard is not None and watching and saved is None:
            from controller.app.play import offer_how_to_play
            if not offer_how_to_play(runner, rules.name, timeout):
                return dict(table.result(), game_id=table.game_id)
        runner.run(timeout=timeout)
        screen.flush()             # the last frame, if the frame-rate limit held it back
        if screenshot and screenshot_at is None:
            screen.render(table.snapshot())
            screen.save(screenshot)
        if watching and not runner.stopped:
            _linger(runner, screen, seconds=8.0)
        result = table.result()
        result["game_id"] = table.game_id
        if screenshot:             # False: the game ended before --screenshot-at's move
            result["screenshot_taken"] = screenshot_at is None or bool(shot and shot.taken)
        return result


def demo_stations(players: int, stack: contextlib.ExitStack, *, realtime: bool,
                  simulated: SimulatedTime | None, kind: str = "sim") -> list[Any]:
    """The demo's simulated stations. A real-time game on the real clock (a demo someone
    watches) has them in a process of their own, with USB's 0-4 ms each way, so the
    arbiter has presses to put in order; on simulated time the runner's wire delays the
    presses instead (``simulated_stations``). ``kind`` "firmware": the firmware itself, whose
    USB delay is its own loop's."""
    on_the_real_clock = realtime and simulated is None
    if kind in ("firmware", "rp2040"):
        return simulated_stations([f"sim-{i + 1}" for i in range(players)], stack, own_process=True, kind=kind)
    return simulated_stations([f"sim-{i + 1}" for i in range(players)], stack, own_process=on_the_real_clock,
                              link_delay_ms=DEMO_LINK_DELAY_MS if on_the_real_clock else None, clock=simulated)


def _keyboard(table: Table, station: Any, game: str):
    def press(ui: tuple) -> None:
        if ui[0] == "button":
            station.press(ui[1])
        elif ui[0] == "card":
            seat = table.stations.index(station.station_id)
            hands = getattr(table.state, "hands", None)
            if hands is not None and ui[1] < len(hands[seat]):
                tap_virtual_card(station, game, hands[seat][ui[1]])
        elif ui[0] == "table_card":                   # the cards lying open: Tadika's middle, Teamplay's bank
            from display.app import table_cards
            open_cards = table_cards(table.snapshot().view)
            if ui[1] < len(open_cards):
                tap_virtual_card(station, game, open_cards[ui[1]])
    return press


class _Shot:
    taken = False


def _shoot_at(runner: TableRunner, screen: Any, path: str, at: int | None) -> _Shot:
    """Save the screen once ``at`` moves are accepted (None: at the end, by the caller);
    whether it was taken, for a game that ended before."""
    shot = _Shot()
    if at is None:
        return shot
    original = runner.handle

    def handle(event: Any) -> None:
        original(event)
        if len(runner.table.actions) == at and not shot.taken:
            shot.taken = True
            screen.render(runner.table.snapshot())
            screen.save(path)
    runner.handle = handle  # type: ignore[method-assign]
    return shot


def _report_first_frame(runner: TableRunner) -> None:
    """For `spieltisch bench`: the monotonic time of the first frame, on stderr."""
    screen = runner.screen
    original = screen.show

    def show(snapshot: Any) -> None:
        original(snapshot)
        if not getattr(show, "done", False):
            show.done = True  # type: ignore[attr-defined]
            print(f"first-frame {time.monotonic():.6f}", file=sys.stderr, flush=True)
    screen.show = show


def _linger(runner: TableRunner, screen: Any, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if any(ui[0] == "quit" for ui in screen.poll()):
            return
        time.sleep(1 / 30)
