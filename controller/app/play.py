"""A real table: stations on serial ports, people holding real cards. Also the card
registry commands. Composition root: it may wire hardware, the table and the display."""

from __future__ import annotations

import contextlib
import logging
import queue
import sys
import time
from typing import Any, Sequence

from controller.table.eventlog import EventLog, TableLock, default_data_dir
from controller.games import find_game, texts
from controller.games.core import IllegalAction
from controller.app.recording import finished_games, played_by_others
from controller.table.stations import require_tables_firmware
from controller.table.runner import TableRunner, event_queue
from controller.table.table import Table
from hardware.events import EventQueue
from hardware.hostclock import now_ns

log = logging.getLogger(__name__)


def open_links(ports: list[str], events: EventQueue, stack: contextlib.ExitStack,
               clock: Any = None, bots: bool = False,
               ping_interval_ns: int | None = None) -> dict[str, Any]:
    """Open every station (HELLO handshake); station id → link, in port order. A port is
    opened by its /dev/serial/by-id/ name when it has one, so a replug finds it again.
    ``bots``: the stations are our simulated ones, pressed at machine speed, so their
    links are not held to a person's event rate. ``ping_interval_ns``: clock-sync exchanges
    this far apart instead of the link's own (stations slower than a Pico: emulated ones)."""
    from hardware.link import StationLink, stable_path
    links: dict[str, Any] = {}
    link: Any
    for port in ports:
        # on simulated time the runner pings, so the pings keep to that clock
        if port.startswith("pn532:"):             # a bare reader on a USB-serial adapter
            from hardware.pn532 import PN532Reader
            link = PN532Reader(stable_path(port[len("pn532:"):]), events).open()
        else:
            link = StationLink(stable_path(port), events, clock=clock or now_ns, auto_ping=clock is None,
                               flood_limit=not bots)
            if ping_interval_ns is not None:        # a slow station: asked for HELLO no more often either
                link.PING_INTERVAL_NS = ping_interval_ns
                # nor, racing with a wide sync bound, four times as often: it would answer PINGs only
                link.QUICK_PING_INTERVAL_NS = max(link.QUICK_PING_INTERVAL_NS, ping_interval_ns)
                link.IDLE_PING_INTERVAL_NS = max(link.IDLE_PING_INTERVAL_NS, ping_interval_ns)
                link.WHO_INTERVAL_NS = max(link.WHO_INTERVAL_NS, ping_interval_ns)
            link.open()
        stack.callback(link.close)
        if link.station_id in links:
            raise RuntimeError(f"station {link.station_id} is connected twice ({port})")
        links[link.station_id] = link
    return links


def open_present(ports: list[str], events: EventQueue, stack: contextlib.ExitStack,
                 failed: dict[str, BaseException] | None = None) -> dict[str, Any]:
    """The stations that answer, each on its own: one unplugged or silent is left out (and
    logged, and put in ``failed`` with the reason), not the end of the box."""
    from hardware.link import StationError
    links: dict[str, Any] = {}
    for port in ports:
        try:
            links.update(open_links([port], events, stack))
        except (StationError, OSError, RuntimeError) as exc:
            log.warning("the box leaves %s out: %s", port, exc)
            if failed is not None:
                failed[port] = exc
    return links


def open_panel(pins: tuple[int, int, int, int], events: EventQueue, stack: contextlib.ExitStack,
               pin_factory: Any = None) -> Any:
    """The Pi's own menu/undo buttons, status LED and buzzer (gpiozero)."""
    from gpiozero.exc import GPIOZeroError
    from hardware.panel import HostPanel
    try:
        panel = HostPanel(events, pins, pin_factory=pin_factory)
    except (GPIOZeroError, OSError, RuntimeError) as exc:
        raise SystemExit(f"spieltisch: the host panel cannot use GPIO pins {pins}: {exc}. "
                         "Leave out --panel on a machine without GPIO.") from exc
    stack.callback(panel.close)
    return panel


# what a game's snapshots are made of: the screen's process imports it before its first frame
SNAPSHOT_MODULES = ("controller.table.table", "controller.app.howto")


def headless_reason(headless: bool) -> str | None:
    """Why a command runs without a window, in a few words for its first line; None when it
    has one."""
    from display.app import has_screen
    if headless:
        return "as --headless asks"
    if not has_screen():
        return "as this computer shows no screen (DISPLAY is not set)"
    return None


def make_screen(stack: contextlib.ExitStack, *, lang: str, headless: bool, fullscreen: bool = False,
                own_process: bool = False) -> Any:
    """The shared screen: a window (the TV), or, with none to show, a headless one whose frames
    are only for screenshots. ``own_process``: a game's window is drawn in a process of its
    own (``display/screen_process.py``), so that no frame holds the table's loop or the
    stations' readers back. A screen that cannot be opened stops the command with the reason."""
    import os
    from display.app import Screen, has_screen
    show_window = not headless and has_screen()
    # the table owns the display (the console, no desktop): the whole screen, always
    fullscreen = fullscreen or os.environ.get("SDL_VIDEODRIVER") == "kmsdrm"
    options: dict[str, Any] = dict(lang=lang, headless=not show_window, fullscreen=fullscreen,
                                   max_fps=60 if show_window else 10, volume=box_volume() if show_window else 0)
    try:
        if own_process and show_window:
            from display.screen_process import ScreenProcess
            screen: Any = ScreenProcess(preload=SNAPSHOT_MODULES, **options)
        else:
            screen = Screen(**options)
    except RuntimeError as exc:                # pygame.error is one; so is ScreenUnavailable
        raise SystemExit(f"spieltisch: the screen cannot be opened: {exc}. "
                         "Run with --headless to play without one.") from exc
    stack.callback(screen.close)
    return screen


def box_setting(key: str, default: str) -> str:
    """A choice the box's menu remembered (language, volume); ``default`` when none was made
    or the data directory cannot be read."""
    try:
        with EventLog() as store:
            value = store.setting(key)
        return default if value is None else value
    except Exception:                           # noqa: BLE001 - a setting never stops a game or the box
        return default


def box_volume() -> int:
    """The volume chosen in the box's menu (per cent, 0 is mute)."""
    from display.sound import DEFAULT_VOLUME
    try:
        return int(box_setting("volume", str(DEFAULT_VOLUME)))
    except ValueError:
        return DEFAULT_VOLUME


STATION_KINDS = ("sim", "firmware", "rp2040")   # --stations: our Python model of the firmware, the firmware
#                                                 itself (WebAssembly), or the firmware on an emulated RP2040


def simulated_stations(ids: list[str], stack: contextlib.ExitStack, *, own_process: bool,
                       link_delay_ms: tuple[float, float] | None = None, clock: Any = None,
                       kind: str = "sim") -> list[Any]:
    """Simulated stations for bots (or a keyboard player), started; closed with ``stack``.
    ``own_process``: a real-time game on the real clock has them in a process of their own
    (``hardware/sim/process.py``), as stations are devices of their own: in the table's
    process their threads wait for the table's Python, their frames come late, and the
    table names them slow. ``link_delay_ms``: USB's delay each way; ``clock``: a simulated
    one (only in the table's process). ``kind`` "firmware": each station is the project's own
    firmware/ under real MicroPython (``hardware/sim/firmware_station.py``), each in a process of its
    own and on the host's clock; its pseudo-terminal is opened as a USB station's. ``kind``
    "rp2040": the same firmware on MicroPython's rp2 port on an emulated RP2040
    (``hardware/sim/rp2040_station.py``), flashed as a table flashes a Pico."""
    if kind in ("firmware", "rp2040"):
        stations: list[Any]
        if kind == "firmware":
            from hardware.sim.firmware_station import firmware_stations
            stations = firmware_stations(ids)
        else:
            from hardware.sim.rp2040_station import rp2040_stations
            stations = rp2040_stations(ids)
        for running in stations:
            stack.callback(running.close)
        return stations
    if own_process:
        from controller.table.realtime import REALTIME_SWITCH_S
        from hardware.sim.process import StationsProcess
        process = StationsProcess([{"station_id": station, "seed": i,
                                    "link_delay_ms": list(link_delay_ms) if link_delay_ms else None}
                                   for i, station in enumerate(ids)], switch_interval_s=REALTIME_SWITCH_S)
        stack.callback(process.close)
        return process.stations
    from hardware.sim.station import SimulatedStation
    sims = []
    for i, station in enumerate(ids):
        sim = SimulatedStation(station, clock=clock or now_ns, seed=i, link_delay_ms=link_delay_ms)
        stack.callback(sim.close)
        sims.append(sim.start())
    return sims


def seat_bots(count: int, stack: contextlib.ExitStack, *, realtime: bool, kind: str = "sim") -> list[Any]:
    """``count`` simulated stations for the bots at the empty seats (the same ids each time,
    so that a resumed game finds its bots again). A real-time game's bots race the people,
    so theirs are in a process of their own. ``kind`` "firmware": the firmware itself runs them."""
    if count == 0:
        return []
    return simulated_stations([f"bot-{k + 1}" for k in range(count)], stack, own_process=realtime, kind=kind)


QUIT = object()              # next_input: Esc, or the time given is up


def next_input(screen: Any, events: EventQueue, deadline: float | None, wait: float = 0.1) -> Any:
    """What the screens that are no game wait for: the next station event, None when none
    came within ``wait`` seconds, or QUIT (Esc at the screen, or ``deadline`` passed)."""
    if deadline is not None and time.monotonic() > deadline:
        return QUIT
    if any(ui[0] == "quit" for ui in screen.poll()):
        return QUIT
    try:
        return events.get(timeout=wait)
    except queue.Empty:
        return None


def run_table(game: str, *, ports: list[str], players: int, names: list[str], virtual: bool,
              seed: int | None, new: bool, lang: str, fullscreen: bool, headless: bool = False,
              timeout: float | None = None, flood_limit: bool = True,
              panel_pins: tuple[int, int, int, int] | None = None, panel_factory: Any = None,
              options: dict[str, Any] | None = None, colours: Sequence[str | None] | None = None,
              how_to_play: bool = False, headless_note: str | None = None,
              bot_stations_kind: str = "sim") -> dict[str, Any]:
    """``flood_limit=False`` only for tests whose people press at machine speed; ``options``:
    the game's variants (``GameRules.options``); ``colours``: each seat's colour ("rrggbb"), as
    chosen at seating; ``how_to_play``: a new game offers its how-to-play pages before the
    first move (one press at any station skips them); ``headless_note``: said on stderr once
    the table is set up and plays without a window."""
    import random
    rules = find_game(game)
    config = {"players": players, "mode": "virtual" if virtual or rules.realtime else "physical", **(options or {})}
    rules.check_config(config)
    bots = int(config.get("bots", 0))
    if bots and not rules.bots_fill_seats:
        raise IllegalAction("bots_not_here", game=rules.title)
    if not 0 <= bots < players:                  # at least one seat stays a person's
        raise IllegalAction("bots_count", n=bots, players=players, high=players - 1)
    people = players - bots
    if len(ports) != people:
        raise SystemExit(f"spieltisch: {people} players at stations need {people} --port arguments, "
                         f"got {len(ports)}")
    twice = next((p for i, p in enumerate(ports) if p in ports[:i]), None)
    if twice is not None:
        raise SystemExit(f"spieltisch: the port {twice} is given twice; each seat needs its own station")
    events = event_queue()
    with contextlib.ExitStack() as stack:
        stack.enter_context(TableLock(default_data_dir()))      # one table per data directory
        store = EventLog()
        stack.callback(store.close)
        unfinished = store.unfinished_ids(rules.name, demo=False)
        if unfinished and new:
            store.abandon(unfinished[0], "set aside for a new game (--new)")
            unfinished = []
        # a log that cannot be read or replayed raises BrokenLog (here or in Table.resume)
        saved = store.load(unfinished[0]) if unfinished else None
        if saved is not None and any(saved.config.get(k) != v for k, v in config.items()):
            # never a different game silently: say what is saved and how to go on or not
            raise IllegalAction("resume_differs", game=rules.title, n=int(saved.config.get("players", 0)),
                                when=time.strftime("%d.%m. %H:%M", time.localtime(saved.started_at)))
        links = open_links(ports, events, stack, bots=not flood_limit)
        require_tables_firmware(links)        # before a move: the TV says how to update a station
        bot_stations = seat_bots(bots, stack, realtime=rules.realtime,          # the last seats, at simulated stations
                                 kind=bot_stations_kind)
        links.update(open_links([sim.port for sim in bot_stations], events, stack, bots=True))
        stations = list(links)
        if saved is not None and not any(names):       # going on: the people who sat there, in their colours
            names, colours = seated_people(store, saved.id, people)
            if not any(names):                         # a game saved before people were recorded
                from controller.app.recording import seat_names
                names = seat_names(store, saved, lang)[:people]
        names = (names + [""] * people)[:people] + [texts.text(lang, "bot_name", n=k + 1) for k in range(bots)]
        colours = (list(colours) + [None] * people)[:people] + [None] * bots if colours else None
        if saved is not None:
            print(f"Resuming game {saved.id} from its log ({len(saved.actions)} moves).", file=sys.stderr)
            table = Table.resume(rules, saved, store, stations=stations, names=names, colours=colours)
        else:
            config = rules.prepare_config(config, lambda: finished_games(store, rules.name, demo=False))
            if "from_game" in config:            # a game that replays an earlier one: by whom
                config["by_others"] = played_by_others(store, config["from_game"], names[:people])
            table = Table(rules, config=config, seed=seed if seed is not None else random.randrange(1 << 31),
                          stations=stations, names=names, log_store=store, colours=colours)
            # the people at the table (not the bots): whose game it is, for the leaderboard and a resume
            sitting = {seat: store.person(name) for seat, name in enumerate(names[:people]) if name}
            if sitting and table.game_id is not None:
                store.seat_people(table.game_id, sitting)
        screen = make_screen(stack, lang=lang, headless=headless, fullscreen=fullscreen, own_process=True)
        if headless_note and not screen.interactive:
            print(headless_note, file=sys.stderr, flush=True)
        panel = open_panel(panel_pins, events, stack, panel_factory) if panel_pins else None
        if rules.realtime:
            from controller.bots.driver import RealtimeBotDriver
            from controller.table.realtime import RealtimeRunner
            driver = None
            if bot_stations:
                driver = RealtimeBotDriver(rules, table.adapter, {people + k: sim for k, sim in enumerate(bot_stations)},
                                           seed=table.seed)
                stack.callback(driver.close)
            runner: TableRunner = RealtimeRunner(table, events, links, screen=screen, panel=panel, bots=driver)
        else:
            runner = TableRunner(table, events, links, screen=screen, panel=panel)
        if how_to_play and saved is None and not offer_how_to_play(runner, rules.name, timeout):
            return table.result()                # Esc while the pages were shown
        # With a window, stay on the final scores until it is closed (Esc): the table is
        # the scoreboard. Without one, nobody is looking: stop at the end.
        runner.run(until_finished=not screen.interactive, timeout=timeout)
        return table.result()


def offer_how_to_play(runner: TableRunner, game: str, timeout: float | None = None) -> bool:
    """Before a new game's first move: its how-to-play pages on the runner's screen, turned at
    any station, left with one press (``controller/app/howto.py``). A station unplugged or
    back meanwhile is the table's news as ever, and the host panel's menu button held stops
    the table as in a game. False: Esc was pressed."""
    from controller.app.howto import show_pages
    deadline = None if timeout is None else time.monotonic() + timeout
    table = runner.table
    variants = tuple(o.name for o in table.rules.options if o.is_switch and table.rules.switch_on(table.config, o.name))
    return show_pages(runner.screen, runner.events, game, before_game=True, other=runner.handle,
                      deadline=deadline, until=lambda: runner.stopped, keys=runner.key,
                      variants=variants)


def seated_people(store: EventLog, game_id: int, seats: int) -> tuple[list[str], list[str | None] | None]:
    """The names and colours ("rrggbb") of the people who sat at a saved game's first ``seats``
    seats, as recorded when it started; "" (and no colour) where nobody was recorded."""
    from controller.app.seating import COLOURS
    sat = store.players_of([game_id]).get(game_id, {})
    names = [sat[seat][0] if seat in sat else "" for seat in range(seats)]
    colours = [COLOURS.get(sat[seat][1] or "") if seat in sat else None for seat in range(seats)]
    return names, colours if any(colours) else None


def learn_cards(game: str, port: str) -> int:
    """Ask for every card of the deck in turn and store the tag that is tapped for it."""
    from controller.games.texts import card_name
    from hardware.events import StationLost, TagEvent
    rules = find_game(game)
    deck = rules.card_names()
    if not deck:
        print(f"spieltisch: {game} has no cards to learn", file=sys.stderr)
        return 2
    events = event_queue()
    with contextlib.ExitStack() as stack, EventLog() as store:
        links = open_links([port], events, stack)
        link = next(iter(links.values()))
        seen: dict[str, str] = {}
        for card in deck:
            print(f"Tap: {card_name('en', card)} … ", end="", flush=True)
            while True:
                event = events.get()
                if isinstance(event, TagEvent):
                    if event.uid in seen:
                        print(f"\n  that tag is already {card_name('en', seen[event.uid])}; tap {card_name('en', card)}",
                              end=" ", flush=True)
                        link.led("ff0000", 300)
                        continue
                    store.register_card(event.uid, rules.name, card)
                    seen[event.uid] = card
                    link.led("00c000", 200)
                    print(event.uid)
                    break
                if isinstance(event, StationLost):
                    print("\nspieltisch: the station was unplugged", file=sys.stderr)
                    return 1
    print(f"{len(deck)} cards of {game} learned.")
    return 0


def list_cards(game: str) -> int:
    with EventLog() as store:
        for uid, card in sorted(store.cards(game).items(), key=lambda kv: kv[1]):
            print(f"{uid}  {card}")
    return 0
