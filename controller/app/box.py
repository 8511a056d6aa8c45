"""``spieltisch box``: the table as a family switches it on. The TV shows the menu
(``controller/app/menu.py``), any station's buttons drive it, and what is chosen runs:
a game at the stations plugged in (seats in the order of their ports), a deck's
enrollment or a station's self-test at the station that chose it. When that ends, the
menu is back. Nothing a person does there ends in a traceback: a refusal (an unreadable
log, a station unplugged) is shown on the menu and the box carries on."""

from __future__ import annotations

import contextlib
import logging
import queue
import time
from dataclasses import dataclass
from typing import Any, Callable

from controller.app.menu import Activity, Menu, MenuLine, Saved
from controller.games.core import IllegalAction

log = logging.getLogger(__name__)


def launch(activity: Activity, ports: list[str], *, lang: str, headless: bool, fullscreen: bool,
           stations: dict[str, str] | None = None) -> Any:
    """Run what the menu chose, with the screen and the stations its own. ``stations``:
    station id → port, as the menu saw them."""
    if activity.kind == "play":
        from controller.app.play import run_table
        saved = None if activity.new else unfinished_game(activity.game)
        if saved is not None:                     # going on: every seat at its own station again
            port_of = stations or {}
            people = saved.seats[:saved.players - int(saved.options.get("bots", 0))]   # the bots come again
            missing = [i + 1 for i, s in enumerate(people) if s not in port_of]
            if missing:
                raise IllegalAction("resume_station_missing", seats=", ".join(map(str, missing)))
            seated, names, colours = [port_of[s] for s in people], [], None
        else:
            seating = run_seating(ports, activity.players - int(activity.options.get("bots", 0)), activity.game,
                                  lang=lang, headless=headless, fullscreen=fullscreen)
            if seating is None:
                return None                       # Esc while seating: back to the menu
            seated, names, colours = seating
        return run_table(activity.game, ports=seated, players=activity.players, names=names,
                         virtual=False, seed=None, new=activity.new, lang=lang, fullscreen=fullscreen,
                         headless=headless, options=activity.options, colours=colours, how_to_play=True)
    if activity.kind == "history":
        return show_history(ports, lang=lang, headless=headless, fullscreen=fullscreen)
    if activity.kind == "howto":
        return show_how_to_play(ports, activity.game, lang=lang, headless=headless, fullscreen=fullscreen)
    if activity.kind == "doctor":
        from controller.app.doctor import run_doctor_on_screen
        return run_doctor_on_screen(ports, lang=lang, headless=headless, fullscreen=fullscreen)
    if activity.kind == "flash":
        from controller.app.flash import run_flash_on_screen
        return run_flash_on_screen(ports, lang=lang, headless=headless, fullscreen=fullscreen)
    if activity.kind == "enroll":
        from controller.app.enroll import enroll
        return enroll(activity.game, activity.station, lang=lang, headless=headless, fullscreen=fullscreen)
    from controller.app.selftest import run_selftest
    return run_selftest(activity.station, lang=lang, headless=headless, fullscreen=fullscreen)


def run_seating(ports: list[str], players: int, game: str, *, lang: str, headless: bool, fullscreen: bool,
                timeout: float | None = None) -> tuple[list[str], list[str], list[str]] | None:
    """Seats by button (``controller/app/seating.py``): the ports in seat order, the names
    and the colours ("rrggbb"), or None when it was left with Esc. A station's LED shows the
    colour it is choosing."""
    from controller.app.play import QUIT, make_screen, next_input
    from controller.app.seating import COLOURS, Seating
    from controller.games import find_game
    from controller.table.eventlog import EventLog
    from hardware.events import ButtonEvent
    events: queue.Queue = queue.Queue()
    deadline = None if timeout is None else time.monotonic() + timeout
    with contextlib.ExitStack() as stack:
        store = EventLog()
        stack.callback(store.close)
        screen = make_screen(stack, lang=lang, headless=headless, fullscreen=fullscreen)
        links = open_present(ports, events, stack)
        port_of = {station: link.port for station, link in links.items()}
        seating = Seating(players, find_game(game).title, remembered=store.station_names(),
                          remembered_colours=store.station_colours())
        screen.show(seating.snapshot())
        while not seating.done:
            event = next_input(screen, events, deadline)
            if event is QUIT:
                return None
            if isinstance(event, ButtonEvent) and event.pressed:
                seating.press(event.station, event.button)
                screen.show(seating.snapshot())
                led = seating.led(event.station)
                if led is not None and event.station in links:
                    links[event.station].led(led, 0)
        for station, name, colour in zip(seating.stations, seating.names, seating.colours):
            store.name_station(station, name)     # offered first next time
            store.colour_station(station, colour)
        return ([port_of[s] for s in seating.stations], list(seating.names),
                [COLOURS[c] for c in seating.colours])


def show_history(ports: list[str], *, lang: str, headless: bool, fullscreen: bool,
                 timeout: float | None = None) -> None:
    """The games played and the leaderboard on the TV, until any station's button (or Esc)."""
    from controller.app.play import QUIT, make_screen, next_input
    from controller.app.recording import record_complete_games
    from controller.app.results import leaderboard, result_rows
    from controller.table.eventlog import EventLog
    from hardware.events import ButtonEvent
    with EventLog() as store:
        record_complete_games(store)              # a game whose result a kill kept from the log
        rows = result_rows(store, limit=12)
        board = leaderboard(result_rows(store, limit=500))
    events: queue.Queue = queue.Queue()
    deadline = None if timeout is None else time.monotonic() + timeout
    with contextlib.ExitStack() as stack:
        screen = make_screen(stack, lang=lang, headless=headless, fullscreen=fullscreen)
        open_present(ports, events, stack)
        screen.show(HistorySnapshot("history", rows, board))
        while True:
            event = next_input(screen, events, deadline)
            if event is QUIT or isinstance(event, ButtonEvent) and event.pressed:
                return


def show_how_to_play(ports: list[str], game: str, *, lang: str, headless: bool, fullscreen: bool,
                     timeout: float | None = None) -> None:
    """A game's how-to-play pages on the TV, turned at any station, until its top-left button,
    the last page's OK (or Esc)."""
    from controller.app.howto import show_pages
    from controller.app.play import make_screen
    events: queue.Queue = queue.Queue()
    deadline = None if timeout is None else time.monotonic() + timeout
    with contextlib.ExitStack() as stack:
        screen = make_screen(stack, lang=lang, headless=headless, fullscreen=fullscreen)
        open_present(ports, events, stack)
        show_pages(screen, events, game, before_game=False, deadline=deadline)


@dataclass(frozen=True)
class HistorySnapshot:
    game: str                                         # "history": the screen's view
    rows: list
    board: dict


def unfinished_game(game: str | None) -> Saved | None:
    """The newest unfinished real game (of this kind), as the menu offers it (one whose log
    is complete is finished: its result is recorded, and it is not offered)."""
    from controller.app.recording import record_complete_games
    from controller.table.eventlog import EventLog
    with EventLog() as store:
        record_complete_games(store)
        ids = store.unfinished_ids(game, demo=False)
        if not ids:
            return None
        try:
            saved = store.load(ids[0])
        except Exception:                             # noqa: BLE001 - a broken log: play says so when started
            return None
    options = {k: v for k, v in saved.config.items() if k not in ("players", "mode", "demo")}
    return Saved(saved.game, int(saved.config.get("players", 0)), options,
                 time.strftime("%d.%m. %H:%M", time.localtime(saved.started_at)), len(saved.actions),
                 tuple(saved.seats))


def open_present(ports: list[str], events: queue.Queue, stack: contextlib.ExitStack) -> dict[str, Any]:
    """The stations that answer, each on its own: one unplugged or silent is left out (and
    logged), not the end of the box."""
    from controller.app.play import open_links
    from hardware.link import StationError
    links: dict[str, Any] = {}
    for port in ports:
        try:
            links.update(open_links([port], events, stack))
        except (StationError, OSError, RuntimeError) as exc:
            log.warning("the box leaves %s out: %s", port, exc)
    return links


def remembered_language() -> str:
    """The language chosen in the menu last time (English the first time)."""
    from controller.app.play import box_setting
    from controller.games.texts import DEFAULT_LANGUAGE, LANGUAGES
    lang = box_setting("lang", DEFAULT_LANGUAGE)
    return lang if lang in LANGUAGES else DEFAULT_LANGUAGE


def remember_settings(lang: str, volume: int) -> None:
    """The menu's language and volume, for the next game and the next switch-on."""
    from controller.table.eventlog import EventLog
    try:
        with EventLog() as store:
            store.set_setting("lang", lang)
            store.set_setting("volume", str(volume))
    except Exception as exc:                           # noqa: BLE001 - not saved: said in the log, the box goes on
        log.warning("the box's settings were not saved: %s", exc)


def run_box(ports: list[str] | None, *, lang: str | None = None, headless: bool = False, fullscreen: bool = True,
            timeout: float | None = None, launcher: Callable[..., Any] = launch,
            until: Callable[[], bool] | None = None) -> int:
    """The menu, round and round, until Esc (or, for tests, ``timeout`` seconds or ``until()``).
    ``ports`` None: whatever stations are plugged in, looked for again each time the menu
    comes back; with none, the TV asks for one and the box waits for it."""
    from controller.app.play import QUIT, box_volume, make_screen, next_input
    from controller.table.stations import candidate_ports
    from hardware.events import ButtonEvent
    fixed = ports
    lang = lang or remembered_language()
    deadline = None if timeout is None else time.monotonic() + timeout
    menu: Menu | None = None
    while (deadline is None or time.monotonic() < deadline) and not (until is not None and until()):
        events: queue.Queue = queue.Queue()
        with contextlib.ExitStack() as stack:
            screen = make_screen(stack, lang=lang, headless=headless, fullscreen=fullscreen)
            ports = list(fixed) if fixed is not None else candidate_ports()
            links = open_present(ports, events, stack)
            if not links:                             # nothing to drive the menu: ask, and look again
                screen.show(Menu(0, lang).snapshot_waiting())
                end = time.monotonic() + 2.0
                while time.monotonic() < end:
                    if any(ui[0] == "quit" for ui in screen.poll()):
                        return 0
                    time.sleep(0.1)
                continue
            port_of = {station: link.port for station, link in links.items()}
            ports = [link.port for link in links.values()]
            note = menu.note if menu is not None else None
            first = menu is None
            menu = Menu(len(links), lang, unfinished=lambda game: unfinished_game(game),
                        volume=screen.sounds.volume if screen.sounds is not None else box_volume())
            menu.note = note
            if first:                                 # switched on after a power cut: the game first
                newest = unfinished_game(None)
                if newest is not None:
                    menu.offer(newest)
            activity = None
            while activity is None:
                screen.set_lang(menu.lang)
                screen.show(menu.snapshot())
                event = next_input(screen, events, deadline)
                if event is QUIT:
                    return 0
                if isinstance(event, ButtonEvent) and event.pressed:
                    before = (menu.lang, menu.volume)
                    activity = menu.press(event.button, port_of.get(event.station))
                    if (menu.lang, menu.volume) != before:
                        remember_settings(menu.lang, menu.volume)
                        if menu.volume != before[1] and screen.sounds is not None:
                            screen.sounds.set_volume(menu.volume)
                            screen.sounds.play("point")      # how loud it is now
            lang = menu.lang
        # the menu's screen and links are closed: the activity opens its own
        try:
            launcher(activity, list(ports), lang=lang, headless=headless, fullscreen=fullscreen, stations=port_of)
            menu.note = None
        except SystemExit as exc:                     # a setup refused, said in one line
            menu.note = MenuLine("menu_error", {"reason": str(exc.code)})
        except Exception as exc:                      # noqa: BLE001 - shown on the menu, logged, never raised
            from controller.table.eventlog import StorageError
            reason = exc.message(lang) if isinstance(exc, (IllegalAction, StorageError)) else str(exc)
            details = getattr(exc, "details", None)   # SQLite's report on a damaged file: the log's, not the TV's
            log.warning("the menu's %s ended: %s%s", activity.kind, reason, f"\n{details}" if details else "")
            menu.note = MenuLine("menu_error", {"reason": reason})
    return 0
