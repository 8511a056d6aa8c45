"""``spieltisch box``: the table as a family switches it on. The TV shows the menu
(``controller/app/menu.py``), any station's buttons drive it, and what is chosen runs:
a game at the stations plugged in (seats in the order of their ports), a deck's
enrollment or a station's self-test at the station that chose it. When that ends, the
menu is back. Nothing a person does there ends in a traceback: a refusal (an unreadable
log, a station unplugged) is shown on the menu and the box carries on."""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence, TypeVar

from controller.app.menu import BACK, MINUS, OK, PLUS, Activity, Menu, MenuLine, Saved
from controller.games.core import IllegalAction
from controller.table.runner import event_queue
from hardware.events import EventQueue

log = logging.getLogger(__name__)
_Chosen = TypeVar("_Chosen")


def _chosen(value: _Chosen | None, activity: Activity) -> _Chosen:
    """What the menu chose along with ``activity`` (its game, players, station): the menu
    sets every one an activity of that kind needs."""
    if value is None:
        raise ValueError(f"the menu chose {activity} without all it needs")
    return value


def launch(activity: Activity, ports: list[str], *, lang: str, headless: bool, fullscreen: bool,
           stations: dict[str, str] | None = None, panel_pins: tuple[int, int, int, int] | None = None,
           panel_factory: Any = None) -> Any:
    """Run what the menu chose, with the screen and the stations its own. ``stations``:
    station id → port, as the menu saw them; ``panel_pins``: a game's host panel (undo, and
    holding menu goes back to the menu)."""
    if activity.kind == "play":
        from controller.app.play import run_table
        game, players = _chosen(activity.game, activity), _chosen(activity.players, activity)
        saved = None if activity.new else unfinished_game(game)
        if saved is not None:                     # going on: every seat at its own station again
            port_of = stations or {}
            people = saved.seats[:saved.players - int(saved.options.get("bots", 0))]   # the bots come again
            missing = [i + 1 for i, s in enumerate(people) if s not in port_of]
            if missing:
                raise IllegalAction("resume_station_missing", seats=", ".join(map(str, missing)))
            seated, colours = [port_of[s] for s in people if s is not None], None     # (none missing)
            names: list[str] = []
        else:
            seating = run_seating(ports, players - int(activity.options.get("bots", 0)), game,
                                  lang=lang, headless=headless, fullscreen=fullscreen)
            if seating is None:
                return None                       # Esc while seating: back to the menu
            seated, names, colours = seating
        return run_table(game, ports=seated, players=players, names=names,
                         virtual=False, seed=None, new=activity.new, lang=lang, fullscreen=fullscreen,
                         headless=headless, options=activity.options, colours=colours, how_to_play=True,
                         panel_pins=panel_pins, panel_factory=panel_factory)
    if activity.kind == "history":
        return show_history(ports, lang=lang, headless=headless, fullscreen=fullscreen)
    if activity.kind == "howto":
        return show_how_to_play(ports, _chosen(activity.game, activity), lang=lang, headless=headless, fullscreen=fullscreen)
    if activity.kind == "doctor":
        from controller.app.doctor import run_doctor_on_screen
        return run_doctor_on_screen(ports, lang=lang, headless=headless, fullscreen=fullscreen)
    if activity.kind == "flash":
        from controller.app.flash import run_flash_on_screen
        return run_flash_on_screen(ports, lang=lang, headless=headless, fullscreen=fullscreen)
    if activity.kind == "enroll":
        from controller.app.enroll import enroll
        return enroll(_chosen(activity.game, activity), _chosen(activity.station, activity), lang=lang, headless=headless, fullscreen=fullscreen)
    from controller.app.selftest import run_selftest
    return run_selftest(_chosen(activity.station, activity), lang=lang, headless=headless, fullscreen=fullscreen,
                        offer_probe=True)


def run_seating(ports: list[str], players: int, game: str, *, lang: str, headless: bool, fullscreen: bool,
                timeout: float | None = None) -> tuple[list[str], list[str], list[str]] | None:
    """Seats by button (``controller/app/seating.py``): the ports in seat order, the names
    and the colours ("rrggbb"), or None when it was left with Esc. A station's LED shows the
    colour it is choosing."""
    from controller.app.play import QUIT, make_screen, next_input, open_present
    from controller.app.seating import COLOURS, Seating
    from controller.games import find_game
    from controller.table.eventlog import EventLog
    from hardware.events import ButtonEvent
    events = event_queue()
    deadline = None if timeout is None else time.monotonic() + timeout
    with contextlib.ExitStack() as stack:
        store = EventLog()
        stack.callback(store.close)
        screen = make_screen(stack, lang=lang, headless=headless, fullscreen=fullscreen)
        links = open_present(ports, events, stack)
        port_of = {station: link.port for station, link in links.items()}
        known = store.people()
        seating = Seating(players, find_game(game).title, remembered=store.station_names(),
                          remembered_colours=store.station_colours(), known=[name for name, _ in known],
                          person_colours={name: colour for name, colour in known if colour})
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
            store.person(name, colour)            # a person the table knows, in their colour
            store.name_station(station, name)     # offered first at this station next time
            store.colour_station(station, colour)
        return ([port_of[s] for s in seating.stations], list(seating.names),
                [COLOURS[c] for c in seating.colours])


def show_history(ports: list[str], *, lang: str, headless: bool, fullscreen: bool,
                 timeout: float | None = None, **_: Any) -> None:
    """The games played and the leaderboard on the TV: the bottom left and right buttons turn
    the pages, any other button (or Esc) goes back to the menu."""
    from controller.app.play import QUIT, make_screen, next_input, open_present
    from controller.app.recording import record_complete_games
    from controller.app.results import people_board, result_rows
    from controller.table.eventlog import EventLog
    from hardware.events import ButtonEvent
    with EventLog() as store:
        record_complete_games(store)              # a game whose result a kill kept from the log
        rows = result_rows(store, limit=500)
    board = people_board(rows)
    events = event_queue()
    deadline = None if timeout is None else time.monotonic() + timeout
    page = 0
    with contextlib.ExitStack() as stack:
        screen = make_screen(stack, lang=lang, headless=headless, fullscreen=fullscreen)
        open_present(ports, events, stack)
        screen.show(HistorySnapshot("history", rows, board, page))
        while True:
            event = next_input(screen, events, deadline)
            if event is QUIT:
                return
            if isinstance(event, ButtonEvent) and event.pressed:
                if event.button not in (MINUS, PLUS):
                    return
                page += 1 if event.button == PLUS else -1      # the view shows it modulo its pages
                screen.show(HistorySnapshot("history", rows, board, page))


def show_how_to_play(ports: list[str], game: str, *, lang: str, headless: bool, fullscreen: bool,
                     timeout: float | None = None) -> None:
    """A game's how-to-play pages on the TV, turned at any station, until its top-left button,
    the last page's OK (or Esc)."""
    from controller.app.howto import show_pages
    from controller.app.play import make_screen, open_present
    events = event_queue()
    deadline = None if timeout is None else time.monotonic() + timeout
    with contextlib.ExitStack() as stack:
        screen = make_screen(stack, lang=lang, headless=headless, fullscreen=fullscreen)
        open_present(ports, events, stack)
        show_pages(screen, events, game, before_game=False, deadline=deadline)


@dataclass(frozen=True)
class HistorySnapshot:
    game: str                                         # "history": the screen's view
    rows: list                                        # controller/app/results.py's result_rows
    board: list                                       # and its people_board
    page: int = 0                                     # turned by the buttons; the view takes it modulo its pages


def unfinished_game(game: str | None, lang: str = "en") -> Saved | None:
    """The newest unfinished real game (of this kind), as the menu offers it (when it began,
    in the language's way of writing a date). One whose log is complete is finished: its
    result is recorded, and it is not offered."""
    from controller.app.recording import record_complete_games
    from controller.games.texts import date_time
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
    began = time.localtime(saved.started_at)
    return Saved(saved.game, int(saved.config.get("players", 0)), options,
                 date_time(lang, began.tm_mday, began.tm_mon, began.tm_hour, began.tm_min), len(saved.actions),
                 tuple(saved.seats))


def wait_showing(screen: Any, status: Any, seconds: float, events: EventQueue | None = None,
                 stop: Callable[[], bool] | None = None) -> str:
    """Show what the box waits for, for ``seconds``: "" when the time is up (or, for tests,
    ``stop()``), "quit" when Esc was pressed, "switch_off" when the host panel's menu button
    was held (the way to switch a box off that has no station to choose it with)."""
    from hardware.events import PanelEvent
    screen.show(status)
    end = time.monotonic() + seconds
    while time.monotonic() < end and not (stop is not None and stop()):
        if any(ui[0] == "quit" for ui in screen.poll()):
            return "quit"
        if events is None:
            time.sleep(0.1)
            continue
        try:
            event = events.get(timeout=0.1)
        except queue.Empty:
            continue
        if isinstance(event, PanelEvent) and event.button == "menu_held":
            return "switch_off"
    return ""


def open_box_panel(pins: tuple[int, int, int, int] | None, events: EventQueue, stack: contextlib.ExitStack,
                   factory: Any = None) -> Any:
    """The Pi's own menu/undo buttons and status LED for the menu; None without (no pins, or
    no GPIO here: said in the log, and the box goes on with its stations)."""
    if pins is None:
        return None
    from controller.app.play import open_panel
    try:
        return open_panel(pins, events, stack, factory)
    except SystemExit as exc:
        log.warning("the box goes on without its host panel: %s", exc.code)
        return None


# the host panel in the menu: a short press of menu moves on, holding it chooses, undo goes back
PANEL_IN_MENU = {"menu": PLUS, "menu_held": OK, "undo": BACK}


def switch_off(*, lang: str, headless: bool, fullscreen: bool, command: Sequence[str],
               stop: Callable[[], bool] | None = None) -> int:
    """Shut the Pi down safely: everything is on disk already (every move was saved when it
    was made, and nothing is open here), the file systems are synced, and ``command`` asks
    the system to power off (`spieltisch install-pi` permits exactly that, nothing else:
    ``controller/app/install_pi.py``). The TV says when the box may be unplugged, and keeps
    saying it until the system stops the box (or, for tests, ``stop()``). A command the
    system refuses raises IllegalAction("switch_off_refused"), said on the menu in a family's
    words; what the system said, and how to permit it, go to the log."""
    import subprocess
    from controller.app.box_status import switching_off
    from controller.app.play import make_screen
    with contextlib.ExitStack() as stack:
        screen = make_screen(stack, lang=lang, headless=headless, fullscreen=fullscreen)
        screen.show(switching_off())
        os.sync()
        log.warning("switching off: %s", " ".join(command))
        try:
            done = subprocess.run(list(command), capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError) as exc:
            _switch_off_refused(command, str(exc))
            raise IllegalAction("switch_off_refused") from exc
        if done.returncode != 0:
            said = (done.stderr or done.stdout).strip().splitlines()
            _switch_off_refused(command, said[-1] if said else f"exit code {done.returncode}")
            raise IllegalAction("switch_off_refused")
        while not (stop is not None and stop()):                   # until the system stops the box
            screen.poll()
            time.sleep(0.2)
    return 0


def _switch_off_refused(command: Sequence[str], reason: str) -> None:
    """For whoever looks after the box: what the system said, and what permits the command."""
    log.warning("the system refused to switch off (%s): %s; `sudo spieltisch install-pi` permits it",
                " ".join(command), reason)


def poweroff_command() -> list[str]:
    """What "Switch off" runs: ``$SPIELTISCH_POWEROFF`` (a command line: for trying the box on a
    computer that must stay on), else the one command `install-pi` permits."""
    import shlex
    from controller.app.install_pi import POWEROFF
    own = os.environ.get("SPIELTISCH_POWEROFF")
    return shlex.split(own) if own else list(POWEROFF)


def bootsel_plugged() -> bool:
    """A Pico in BOOTSEL mode is plugged in (hardware/bootsel.py)."""
    from hardware.bootsel import bootsel_picos
    return bool(bootsel_picos())


def bootsel_image_problem() -> Any:
    """Why MicroPython cannot go onto a Pico in BOOTSEL mode (its image missing or not one):
    a StatusLine for the waiting screen, or None when the image is there and whole."""
    from controller.app.box_status import StatusLine
    from hardware.bootsel import read_image
    from hardware.stationflash import FlashError
    try:
        read_image()
    except FlashError as exc:
        return StatusLine(exc.key, dict(exc.params))
    return None


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
            until: Callable[[], bool] | None = None, panel_pins: tuple[int, int, int, int] | None = None,
            panel_factory: Any = None, poweroff: Sequence[str] | None = None) -> int:
    """The menu, round and round, until Esc, or until it is switched off (or, for tests,
    ``timeout`` seconds or ``until()``). ``ports`` None: whatever stations are plugged in,
    looked for again each time the menu comes back; with none, the TV asks for one and the
    box waits for it. ``panel_pins``: the host panel drives the menu too (and a game's undo),
    and switches off a box without stations. ``poweroff``: the command "Switch off" runs."""
    from controller.app.box_status import (LOOK_AGAIN_S, STORE_AGAIN_S, StatusLine, storage_trouble, store_problem,
                                           waiting_for_stations)
    from controller.app.play import QUIT, box_volume, make_screen, next_input, open_present
    from controller.table.stations import candidate_ports
    from hardware.events import ButtonEvent, PanelEvent
    fixed = ports
    lang = lang or remembered_language()
    deadline = None if timeout is None else time.monotonic() + timeout
    poweroff = list(poweroff) if poweroff is not None else poweroff_command()
    menu: Menu | None = None
    with_panel = panel_pins is not None
    def stopped() -> bool:                            # for tests: ``timeout`` passed, or ``until()``
        return (deadline is not None and time.monotonic() >= deadline) or (until is not None and until())

    while not stopped():
        events = event_queue()
        activity = None
        with contextlib.ExitStack() as stack:
            screen = make_screen(stack, lang=lang, headless=headless, fullscreen=fullscreen)
            panel = open_box_panel(panel_pins, events, stack, panel_factory) if with_panel else None
            with_panel = panel is not None            # no GPIO here: not tried again each round
            problem = store_problem()
            if problem is not None:                   # no game could be saved: say what is wrong, try again
                log.warning("the box waits for its database: %s", problem)
                if panel is not None:
                    panel.show_status("waiting")
                waited = wait_showing(screen, storage_trouble(problem, panel=panel is not None), STORE_AGAIN_S,
                                      events, stopped)
                if waited == "quit":
                    return 0
                if waited != "switch_off":
                    continue
                activity = Activity("switch_off")
            else:
                # nothing to drive the menu: ask, and look again, with the same screen and panel
                # (a hold of the panel's menu button, which switches the box off, is not cut
                # short by a panel opened afresh each time the box looks)
                while True:
                    ports = list(fixed) if fixed is not None else candidate_ports()
                    failed: dict[str, BaseException] = {}
                    links = open_present(ports, events, stack, failed)
                    if links:
                        break
                    unflashable = None
                    if fixed is None and bootsel_plugged():
                        # a new Pico (or one held at BOOTSEL) and nothing to drive the menu with: made a
                        # station at once, as the menu's "Update the stations" would (controller/app/flash.py);
                        # without MicroPython's image that cannot be, and the waiting screen says why (the
                        # panel still switches the box off) rather than trying again and again
                        unflashable = bootsel_image_problem()
                        if unflashable is None:
                            activity, port_of = Activity("flash"), {}
                            break
                    if panel is not None:
                        panel.show_status("waiting")
                    # what went wrong last (a switch-off the system refused) is said here too
                    said = menu.note if menu is not None and menu.note is not None else None
                    detail = StatusLine(said.key, dict(said.params)) if said is not None else unflashable
                    waited = wait_showing(screen, waiting_for_stations(failed, panel=panel is not None, detail=detail),
                                          LOOK_AGAIN_S, events, stopped)
                    if waited == "quit" or stopped():
                        return 0
                    if waited == "switch_off":
                        activity = Activity("switch_off")
                        break
            if activity is None:
                port_of = {station: link.port for station, link in links.items()}
                ports = [link.port for link in links.values()]
                note = menu.note if menu is not None else None
                first = menu is None
                menu = Menu(len(links), lang, unfinished=lambda game: unfinished_game(game, menu.lang if menu is not None else lang),
                            volume=screen.sounds.volume if screen.sounds is not None else box_volume())
                menu.note = note
                if first:                             # switched on after a power cut: the game first
                    newest = unfinished_game(None, lang)
                    if newest is not None:
                        menu.offer(newest)
                if panel is not None:
                    panel.show_status("ready")
            shown = None
            while activity is None:
                assert menu is not None                   # made above whenever no activity is
                if stopped():
                    return 0
                screen.set_lang(menu.lang)
                snapshot = menu.snapshot()
                if snapshot != shown or screen.wants_redraw():   # drawn when it changed, not ten times a second
                    screen.show(snapshot)
                    shown = snapshot
                event = next_input(screen, events, deadline)
                if event is QUIT:
                    return 0
                pressed = None
                if isinstance(event, ButtonEvent) and event.pressed:
                    pressed = (event.button, port_of.get(event.station))
                elif isinstance(event, PanelEvent) and event.button in PANEL_IN_MENU and panel is not None:
                    pressed = (PANEL_IN_MENU[event.button], None)
                    panel.beep()
                if pressed is not None:
                    before = (menu.lang, menu.volume)
                    activity = menu.press(*pressed)
                    if activity is not None and activity.kind in ("enroll", "selftest") and activity.station is None:
                        menu.note, activity = MenuLine("menu_needs_station"), None   # chosen at the panel
                    if (menu.lang, menu.volume) != before:
                        remember_settings(menu.lang, menu.volume)
                        if menu.volume != before[1] and screen.sounds is not None:
                            screen.sounds.set_volume(menu.volume)
                            screen.sounds.play("point")      # how loud it is now
            if menu is not None:
                lang = menu.lang
        # the menu's screen, links and panel are closed: the activity opens its own
        try:
            if activity.kind == "switch_off":
                return switch_off(lang=lang, headless=headless, fullscreen=fullscreen, command=poweroff,
                                  stop=stopped)
            launcher(activity, list(ports or ()), lang=lang, headless=headless, fullscreen=fullscreen, stations=port_of,
                     **({"panel_pins": panel_pins, "panel_factory": panel_factory} if with_panel else {}))
            if menu is not None:
                menu.note = None
        except SystemExit as exc:                     # a setup refused, said in one line
            menu = menu or Menu(0, lang)
            menu.note = MenuLine("menu_error", {"reason": str(exc.code)})
        except IllegalAction as exc:
            menu = menu or Menu(0, lang)
            if exc.key == "switch_off_refused":       # said as it is: it did not "start"
                menu.note = MenuLine(exc.key, dict(exc.params))
            else:
                log.warning("the menu's %s ended: %s", activity.kind, exc)
                menu.note = MenuLine("menu_error", {"reason": exc.message(lang)})
        except Exception as exc:                      # noqa: BLE001 - shown on the menu, logged, never raised
            from controller.table.eventlog import StorageError
            reason = exc.message(lang) if isinstance(exc, StorageError) else str(exc)
            details = getattr(exc, "details", None)   # SQLite's report on a damaged file: the log's, not the TV's
            log.warning("the menu's %s ended: %s%s", activity.kind, reason, f"\n{details}" if details else "")
            menu = menu or Menu(0, lang)
            menu.note = MenuLine("menu_error", {"reason": reason})
    return 0
