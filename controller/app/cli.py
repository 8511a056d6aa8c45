"""The ``spieltisch`` command.

    spieltisch demo partout [--players N] [--seed S] [--headless]   bots play a whole game
    spieltisch demo crazy-kick [--players N] [--edition dlp] [--reaction 250-600]
    spieltisch demo tadika [--players N] [--target 50|100] [--forbidden]
    spieltisch demo partout --stations firmware                      the stations' own firmware, under MicroPython
    spieltisch play partout --port DEV --port DEV ...                a real table
    spieltisch box [--port DEV ...]                                  the menu on the screen, driven by the stations
    sudo spieltisch install-pi                                       boot a Raspberry Pi into the table
    spieltisch enroll partout --port DEV [--write]                   teach the table a deck, on the screen
    spieltisch cards key export FILE | import FILE                   share the card key with another table
    spieltisch stations [--port DEV ...] [--json]                    what is plugged in
    spieltisch stations --test --port DEV                            a station's self-test, on the screen
    spieltisch stations --flash [--port DEV ...] [--image UF2]       the table's firmware onto every station
    spieltisch stations --probe --port DEV --out FILE                measure a station's PN532 (the bring-up probe)
    spieltisch doctor [--json]                                       check every layer of the table, one line each
    spieltisch results                                               finished games
    spieltisch bench [--json]                                        speed and memory figures
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

from controller.bench import AREAS as BENCH_AREAS
from controller.bench import ON_DEMAND as BENCH_ON_DEMAND
from controller.games import GAMES, IllegalAction, find_game
from controller.games.texts import LANGUAGES


class _Parser(argparse.ArgumentParser):
    """A mistake on the command line is one line ("spieltisch demo: --think: …"), not argparse's
    usage block above it; ``--help`` still shows the whole usage. Its subcommands' parsers are
    of this class too (argparse makes them of the parent's)."""

    def error(self, message: str) -> Any:
        self.exit(2, f"{self.prog}: {message} (see: {self.prog} --help)\n")


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(prog="spieltisch", description="The referee of a real card table.")
    parser.add_argument("--data-dir", type=Path, help="where the event log lives (default ~/.local/share/spieltisch)")
    parser.add_argument("-v", "--verbose", action="store_true")
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="bots play a whole game through simulated stations")
    _game_arguments(demo)
    demo.add_argument("--headless", action="store_true", help="no window, even when there is a screen")
    demo.add_argument("--resume", action="store_true", help="go on with the last unfinished demo game")
    demo.add_argument("--seat", type=int, help="play this seat (1..N) yourself from the keyboard")
    demo.add_argument("--think", type=_think, metavar="SECONDS",
                      help="seconds a bot thinks before acting, 0 to 60 (default 0.8 with a window, else 0)")
    demo.add_argument("--screenshot", metavar="FILE.png",
                      help="save a PNG of the screen (at the end, or at --screenshot-at) into a folder that exists")
    demo.add_argument("--screenshot-at", type=_count, metavar="N",
                      help="take the screenshot after this many accepted moves (0: before the first)")
    screen_size = demo.add_mutually_exclusive_group()
    screen_size.add_argument("--fullscreen", action="store_true",
                             help="the whole screen (the default with a screen; --window for a window)")
    screen_size.add_argument("--window", action="store_true", help="a window that fits the screen")
    demo.add_argument("--timeout", type=_seconds, help="give up after this many seconds")
    demo.add_argument("--reaction",
                      help="real-time games (Crazy Kick): the bots' reaction time in ms, LOW-HIGH (default 250-600)")
    demo.add_argument("--stations", choices=("sim", "firmware", "rp2040"), default="sim",
                      help="sim: our Python model of a station (default); firmware: each station runs the project's "
                           "firmware/ under real MicroPython (WebAssembly, with Node.js), its buttons and PN532 "
                           "simulated below it, on a pseudo-terminal like a USB station; rp2040: that firmware on "
                           "MicroPython's rp2 port on an emulated RP2040 (rp2040js; docs/rp2040.md)")

    play = sub.add_parser("play", help="run a real table with stations on serial ports")
    _game_arguments(play)
    play.add_argument("--port", action="append", required=True,
                      help="a station's serial port, one per seat in clockwise order; "
                           "pn532:DEV for a bare PN532 reader (tap only, no buttons)")
    play.add_argument("--name", action="append", help="players' names, in seat order")
    play.add_argument("--bots", type=int, default=0,
                      help="bots take this many of the seats, the last ones (games where no card is hidden)")
    play.add_argument("--stations", choices=("sim", "firmware", "rp2040"), default="sim",
                      help="the bots' stations (virtual ports): sim, our Python model (default), firmware, "
                           "the project's firmware under real MicroPython, or rp2040, on an emulated RP2040")
    play.add_argument("--virtual", action="store_true", help="the table deals (no physical cards)")
    play.add_argument("--new", action="store_true", help="start a new game even if one is unfinished")
    play.add_argument("--fullscreen", action="store_true",
                      help="the whole screen instead of a window (always, on the Pi's console)")
    play.add_argument("--panel", action="store_true",
                      help="use the host panel on the Pi's GPIO (menu and undo buttons, status LED, buzzer)")
    play.add_argument("--panel-pins", default="5,6,13,12",
                      help="BCM pins of the panel: MENU,UNDO,LED,BUZZER (default 5,6,13,12)")

    stations = sub.add_parser("stations", help="list the stations and readers that are plugged in")
    stations.add_argument("--port", action="append", help="look only at these ports")
    stations.add_argument("--json", action="store_true", help="one JSON object per line")
    stations.add_argument("--test", action="store_true",
                          help="the self-test of one station (--port): buttons, LED, buzzer and reader, on the screen")
    stations.add_argument("--flash", action="store_true",
                          help="copy the table's firmware onto every station plugged in (or --port), with mpremote; "
                               "a Pico in BOOTSEL mode gets MicroPython first")
    stations.add_argument("--image", type=Path,
                          help="with --flash: MicroPython's UF2 for a Pico in BOOTSEL mode (default: "
                               "~/.cache/spieltisch/rp2040/micropython-rp2-RPI_PICO-v1.27.0.uf2, docs/raspberry-pi.md)")
    stations.add_argument("--probe", action="store_true",
                          help="the bring-up probe of one station (--port): measure its PN532 and write the "
                               "figures to --out as a timing file the simulated chip loads")
    stations.add_argument("--out", type=Path, help="the probe's timing file (with --probe)")
    stations.add_argument("--stations", choices=("firmware", "rp2040"), dest="probe_stations",
                          help="with --probe: probe a simulated station instead (firmware: the firmware under "
                               "MicroPython; rp2040: on an emulated Pico, docs/rp2040.md)")
    stations.add_argument("--lang", choices=LANGUAGES, default="en")
    stations.add_argument("--headless", action="store_true", help="no window (with --test)")

    doctor = sub.add_parser("doctor", help="check every layer of the table (Python, screen, sound, groups, GPIO, "
                                           "data, stations), one line each; exit 1 when something is wrong")
    doctor.add_argument("--json", action="store_true", help="one JSON object per line")
    doctor.add_argument("--lang", choices=LANGUAGES, default="en")
    doctor.add_argument("--window", type=_seconds, default=10.0,
                        help="seconds to listen to the stations (clock drift, a card laid on a reader); default 10")

    cards = sub.add_parser("cards", help="the card registry")
    cards_sub = cards.add_subparsers(dest="cards_command", required=True)
    learn = cards_sub.add_parser("learn", help="tap every card of a deck once so the table knows its tags")
    learn.add_argument("game")
    learn.add_argument("--port", required=True)
    listing = cards_sub.add_parser("list", help="the tags the table knows")
    listing.add_argument("game")
    key = cards_sub.add_parser("key", help="the card key: export it for another table, or import another's")
    key.add_argument("action", choices=("export", "import"))
    key.add_argument("file", type=Path)

    box = sub.add_parser("box", help="the table as a family uses it: the menu on the screen, driven by the stations")
    box.add_argument("--port", action="append", help="the stations (default: every one plugged in)")
    box.add_argument("--lang", choices=LANGUAGES, default=None,
                     help="language of the screen (default: the one last chosen in the menu, else English)")
    box.add_argument("--window", action="store_true", help="a window instead of the full screen (development)")
    box.add_argument("--headless", action="store_true", help="no screen at all")
    box.add_argument("--panel", action="store_true",
                     help="the host panel on the Pi's GPIO drives the menu too (menu: next line, held: choose; "
                          "undo: back; held menu with no station: switch off) and a game's undo")
    box.add_argument("--panel-pins", default="5,6,13,12",
                     help="BCM pins of the panel: MENU,UNDO,LED,BUZZER (default 5,6,13,12)")

    pi = sub.add_parser("install-pi", help="make a Raspberry Pi boot into the table (systemd unit, udev rules, groups)")
    pi.add_argument("--user", help="who runs the table: a user with no power but switching off, made when the "
                                   "system has none of that name (default: spieltisch; never root, sudo or wheel)")
    pi.add_argument("--dry-run", action="store_true", help="show the files and commands, change nothing")
    pi.add_argument("--root", default="/", help="write the files under this directory instead of /")

    enroll = sub.add_parser("enroll", help="teach the table a deck: tap every card as the screen shows it")
    enroll.add_argument("game", help=f"whose deck: one of {', '.join(sorted(GAMES))}")
    enroll.add_argument("--port", required=True, help="the station whose reader the cards are tapped on")
    enroll.add_argument("--write", action="store_true",
                        help="also write each tag a record that names its card for tables with this card key")
    enroll.add_argument("--again", action="store_true", help="start the deck afresh (forget its tags)")
    enroll.add_argument("--lang", choices=LANGUAGES, default="en")
    enroll.add_argument("--headless", action="store_true", help="no window")
    enroll.add_argument("--fullscreen", action="store_true", help="the whole screen instead of a window")

    results = sub.add_parser("results", help="finished games, their scores and winners, and the leaderboard")
    results.add_argument("--game", help="only this game")
    results.add_argument("--demo", action="store_true",
                         help="the demo games instead of the family's (from the demos' own folder)")
    shape = results.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="one JSON object per game")
    shape.add_argument("--csv", action="store_true", help="comma-separated, with a header")

    bench = sub.add_parser("bench", help="speed and memory figures (a table; --json for machines)")
    bench.add_argument("--json", action="store_true")
    pace = bench.add_mutually_exclusive_group()
    pace.add_argument("--quick", action="store_true", help="fewer repetitions (a minute or two; for development)")
    pace.add_argument("--long", action="store_true",
                      help="longer runs of the slow areas (Team UP!'s solver and bot games, the windowed demos' "
                           "memory, Crazy Kick on a slow disk): about a quarter of an hour")
    bench.add_argument("--only", metavar="AREA", action="append",
                       help=f"measure only this area ({', '.join(BENCH_AREAS + BENCH_ON_DEMAND)}); repeatable")
    bench.add_argument("--faults", action="store_true",
                       help="the faults benchmark: power cuts, unplugging, a flood, bad input (minutes)")

    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if args.data_dir:
        os.environ["SPIELTISCH_DATA"] = str(args.data_dir)
    _stop_on_ctrl_c()
    return run_command(args)


def _stop_on_ctrl_c() -> None:
    """Ctrl-C: a flag the table's loop looks at, and the usual KeyboardInterrupt; the flag
    stops the table even where the interrupt was lost."""
    import signal
    import threading
    from controller.table.runner import INTERRUPTED
    if threading.current_thread() is not threading.main_thread():
        return                                     # signals go to the main thread only (tests call main())

    def interrupted(signum: int, frame: Any) -> None:
        INTERRUPTED.set()
        code = getattr(frame, "f_code", None)
        # raised inside the import machinery's lock callback (or a finaliser) the interrupt is
        # printed as "Exception ignored" and lost: there the flag alone stops the table
        if code is not None and (code.co_filename.startswith("<frozen importlib") or code.co_name == "__del__"):
            return
        raise KeyboardInterrupt
    signal.signal(signal.SIGINT, interrupted)


def run_command(args: argparse.Namespace) -> int:
    """The command, with every way it can fail turned into one line for a person and a
    non-zero exit: no traceback reaches a player or an owner. An unexpected error's
    details go to ``errors.log`` in the data directory (or the temporary directory)."""
    from controller.table.eventlog import BrokenLog, StorageError
    from controller.table.runner import TableStopped
    from hardware.link import StationError
    try:
        return COMMANDS[args.command](args)
    except (IllegalAction, KeyError, StationError) as exc:
        return _fail(exc.args[0] if isinstance(exc, KeyError) else exc, 2)
    except BrokenLog as exc:
        again = f"spieltisch demo {exc.game}` (without --resume)" if args.command == "demo" else \
            f"spieltisch play {exc.game} --new` (the game stays in the database, set aside)"
        return _fail(f"{exc}. Keep it aside and start afresh: `{again}.", 1)
    except StorageError as exc:
        if exc.details:                               # SQLite's report: for a developer, in a file
            from controller.games import texts
            where = _error_log_text(f"{exc}\n{exc.details}\n")
            return _fail(f"{exc} {texts.text('en', 'storage_report_in', file=where)}", 1)
        return _fail(exc, 1)
    except TableStopped as exc:
        return _fail(f"the game stopped: {_sentence(exc)}. Every accepted move is saved.", 1)
    except TimeoutError as exc:
        return _fail(f"{exc}; every accepted move is saved (`--resume` goes on with a demo).", 1)
    except KeyboardInterrupt:
        import signal
        signal.signal(signal.SIGINT, signal.SIG_IGN)   # stopping: a second Ctrl-C changes nothing now
        return _fail("stopped. Every accepted move is saved; the same command goes on with the game.", 130)
    except BrokenPipeError:                           # `spieltisch results | head`: the reader has all it wants
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:  # noqa: BLE001 - a bug: one line here, the details in a file
        return _fail(f"unexpected error ({type(exc).__name__}: {exc}); the details are in {_error_log(exc)}. "
                     "Every accepted move is saved.", 1)


def _fail(message: object, code: int) -> int:
    print(f"spieltisch: {message}", file=sys.stderr)
    return code


def _sentence(exc: BaseException) -> str:
    """An error's text to go on with in the same line: without its full stop."""
    return str(exc).rstrip(".")


def _error_log(exc: BaseException) -> str:
    import traceback
    return _error_log_text("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))


def _error_log_text(body: str) -> str:
    """Append ``body`` to ``errors.log`` in the data directory (else the temporary one); its path."""
    import tempfile
    import time
    from controller.table.eventlog import default_data_dir, make_data_folder
    text = f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} spieltisch {' '.join(sys.argv[1:])}\n" + body
    for folder in (default_data_dir(), Path(tempfile.gettempdir())):
        try:
            make_data_folder(folder)
            path = folder / "errors.log"
            with open(path, "a", encoding="utf-8") as f:
                f.write(text)
            return str(path)
        except OSError:
            continue
    return "(nowhere: no folder takes writes)"


def _number(kind: Any, fits: Any, says: str) -> Any:
    """An argument's type: ``text`` read as ``kind`` and accepted when ``fits`` it; anything
    else is refused with one line, the text and what it should be."""
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not fits(value):
            raise argparse.ArgumentTypeError(f"{text!r}: {says}")
        return value
    return parse


PLAYERS = range(1, 9)       # stations a table seats; each game says which counts it takes

_seed = _number(int, lambda n: 0 <= n < 1 << 63, f"a seed is a whole number from 0 to {(1 << 63) - 1}")
_seconds = _number(float, lambda s: 0 < s < 1e7, "give a number of seconds above 0")
_think = _number(float, lambda s: 0 <= s <= 60, "a bot thinks from 0 to 60 seconds")
_count = _number(int, lambda n: n >= 0, "give a number of moves, 0 or more")
_players = _number(int, lambda n: n in PLAYERS, f"a table seats {PLAYERS[0]} to {PLAYERS[-1]} players")


def _player_counts() -> str:
    """Each game's player counts, for --players's help: "Partout 3, 4 or 6; Crazy Kick 2-8; …"."""
    def counts(c: tuple[int, ...]) -> str:
        if len(c) > 2 and list(c) == list(range(c[0], c[-1] + 1)):
            return f"{c[0]}-{c[-1]}"
        return ", ".join(map(str, c[:-1])) + f" or {c[-1]}" if len(c) > 1 else str(c[0])
    return "; ".join(f"{rules.title} {counts(rules.player_counts)}" for rules in GAMES.values())


def _game_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", help=f"one of: {', '.join(sorted(GAMES))}")
    p.add_argument("--players", type=_players, default=4, metavar="N",
                   help=f"how many play (default 4): {_player_counts()}")
    p.add_argument("--seed", type=_seed, help="the same seed deals the same game (0 to 2^63-1)")
    p.add_argument("--lang", choices=LANGUAGES, default="en", help="language of the screen")
    # every game's variants (GameRules.options); a game refuses the others' in game_options
    for name, (titles, option) in _all_options().items():
        flag = f"--{name.replace('_', '-')}"
        what = f"{' / '.join(titles)}: {option.help}"
        if option.is_switch:
            p.add_argument(flag, dest=f"option_{name}", action="store_true", default=None, help=what)
        else:
            kind = type(option.choices[0])
            p.add_argument(flag, dest=f"option_{name}", type=kind, choices=option.choices,
                           help=f"{what} (default {option.choices[0]})")


def _all_options() -> dict[str, tuple[list[str], Any]]:
    found: dict[str, tuple[list[str], Any]] = {}
    for rules in GAMES.values():
        for option in rules.options:
            titles, _ = found.setdefault(option.name, ([], option))
            titles.append(rules.title)
    return found


def game_options(args: argparse.Namespace, rules: Any) -> dict[str, Any]:
    """The variants given on the command line, for the chosen game; one it does not have is
    refused with a message."""
    chosen = {}
    own = {option.name for option in rules.options}
    for name in _all_options():
        value = getattr(args, f"option_{name}", None)
        if value is None:
            continue
        if name not in own:
            raise IllegalAction("option_not_for_game", option=f"--{name.replace('_', '-')}", game=rules.title)
        option = next(o for o in rules.options if o.name == name)
        players = getattr(args, "players", None)
        if players is not None and not option.offered_at(players):    # it would change nothing: say so
            raise IllegalAction("option_not_at_count", option=f"--{name.replace('_', '-')}", game=rules.title,
                                counts=list(option.player_counts), players=players)
        chosen[name] = value
    return chosen


def cmd_demo(args: argparse.Namespace) -> int:
    from controller.app.demo import run_demo
    from controller.app.play import headless_reason
    rules = find_game(args.game)
    options = game_options(args, rules)
    rules.check_config({"players": args.players, **options})   # refuses a wrong count early
    # every mistake is said before a game is played (issue 30): nothing below may wait or loop
    seat = None
    no_screen = headless_reason(args.headless)
    if args.seat is not None:
        if not 1 <= args.seat <= args.players:
            return _fail(f"--seat must be from 1 to {args.players}", 2)
        if no_screen is not None:
            return _fail(f"--seat is played at the keyboard of the table's window, and there is none: {no_screen}", 2)
        seat = args.seat - 1
    if args.screenshot_at is not None and not args.screenshot:
        return _fail("--screenshot-at says when; give --screenshot FILE.png too", 2)
    if args.screenshot:
        folder = Path(args.screenshot).resolve().parent
        if not folder.is_dir():
            return _fail(f"--screenshot {args.screenshot}: there is no folder {folder}", 2)
        if not os.access(folder, os.W_OK):
            return _fail(f"--screenshot {args.screenshot}: the folder {folder} takes no files", 2)
    reaction = None
    if args.reaction is not None:
        if not rules.realtime:
            raise IllegalAction("option_not_for_game", option="--reaction", game=rules.title)
        from controller.bots.crazykick import Reaction
        try:
            reaction = Reaction.parse(args.reaction)
        except ValueError as exc:
            return _fail(exc, 2)
    note = None if no_screen is None else \
        f"spieltisch: headless, {no_screen}: the game is played without a window, as fast as it goes; " \
        "its result is the line at the end"
    result = run_demo(rules.name, players=args.players, seed=args.seed, headless=no_screen is not None,
                      resume=args.resume, lang=args.lang, think=args.think, human_seat=seat,
                      screenshot=args.screenshot, screenshot_at=args.screenshot_at,
                      fullscreen=not args.window, timeout=args.timeout, options=options,
                      reaction=reaction, headless_note=note, stations=args.stations)
    if args.screenshot and not result.pop("screenshot_taken"):
        return _fail(f"the game ended after {result['actions']} moves, before --screenshot-at {args.screenshot_at}: "
                     f"no screenshot written (the game is saved as game {result['game_id']})", 1)
    result.pop("screenshot_taken", None)
    print(json.dumps(result, ensure_ascii=False), flush=True)
    if no_screen is not None and args.stations != "sim" and not result.get("finished"):
        # nobody watched it end: a game the stations did not carry to its end is a failure
        return _fail("the game did not finish (the result above says where it stopped)", 1)
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    from controller.app.play import run_table
    if args.stations != "sim" and not args.bots:
        return _fail("--stations chooses the bots' stations (the virtual ports); give --bots N too", 2)
    try:
        panel_pins = _panel_pins(args)
    except ValueError as exc:
        return _fail(exc, 2)
    from controller.app.play import headless_reason
    no_screen = headless_reason(False)
    note = None if no_screen is None else \
        f"spieltisch: headless, {no_screen}: the game is played without a window and ends with its last move; " \
        "its result is the line at the end"
    from controller.table.names import readable_name
    result = run_table(args.game, ports=args.port, players=args.players,
                       names=[readable_name(name) for name in args.name or []],
                       virtual=args.virtual, seed=args.seed, new=args.new, lang=args.lang,
                       fullscreen=args.fullscreen, panel_pins=panel_pins, headless_note=note,
                       options=dict(game_options(args, find_game(args.game)),
                                    **({"bots": args.bots} if args.bots else {})), how_to_play=True,
                       bot_stations_kind=args.stations)
    print(json.dumps(result, ensure_ascii=False), flush=True)
    return 0


def _panel_pins(args: argparse.Namespace) -> tuple[int, int, int, int] | None:
    if not args.panel:
        return None
    try:
        pins = tuple(int(p) for p in args.panel_pins.split(","))
    except ValueError:
        pins = ()
    if len(pins) != 4:
        raise ValueError(f"--panel-pins wants four BCM pin numbers, MENU,UNDO,LED,BUZZER; got {args.panel_pins!r}")
    return pins


def cmd_cards(args: argparse.Namespace) -> int:
    from controller.app.play import learn_cards, list_cards
    if args.cards_command == "key":
        from controller.table.cards import CardKeys
        from controller.table.eventlog import default_data_dir
        keys = CardKeys.load(default_data_dir())
        if args.action == "export":
            keys.export(args.file)
            print(f"This table's card key is in {args.file}; import it on another table with "
                  f"spieltisch cards key import {args.file.name}. Whoever has it can read this table's cards.")
        else:
            new = keys.import_from(args.file)
            print(f"{new} new card key(s) imported: cards enrolled on that table are known here now.")
        return 0
    find_game(args.game)                           # an unknown game is named, not listed as empty
    if args.cards_command == "learn":
        return learn_cards(args.game, args.port)
    return list_cards(args.game)


def cmd_box(args: argparse.Namespace) -> int:
    from controller.app.box import run_box
    try:
        panel_pins = _panel_pins(args)
    except ValueError as exc:
        return _fail(exc, 2)
    return run_box(args.port or None, lang=args.lang, headless=args.headless, fullscreen=not args.window,
                   panel_pins=panel_pins)


def cmd_install_pi(args: argparse.Namespace) -> int:
    from controller.app.install_pi import install
    return install(args.user, root=args.root, dry_run=args.dry_run)


def cmd_enroll(args: argparse.Namespace) -> int:
    from controller.app.enroll import enroll
    rules = find_game(args.game)
    result = enroll(rules.name, args.port, again=args.again, write=args.write, lang=args.lang,
                    headless=args.headless, fullscreen=args.fullscreen)
    print(json.dumps(result), flush=True)
    return 0 if result["finished"] else 1


def cmd_results(args: argparse.Namespace) -> int:
    from controller.app.recording import record_complete_games
    from controller.app.results import show
    from controller.table.eventlog import EventLog, demo_data_dir
    game = find_game(args.game).name if args.game else None
    with EventLog(demo_data_dir() / "spieltisch.db" if args.demo else None) as store:
        record_complete_games(store)              # a game whose result a kill kept from the log
        print(show(store, demo=args.demo, game=game, fmt="json" if args.json else "csv" if args.csv else "table"))
    return 0


def cmd_stations(args: argparse.Namespace) -> int:
    if args.probe:
        if args.out is None or (args.port is not None and len(args.port) != 1):
            return _fail("the probe takes one station and a file: --port DEV --out FILE", 2)
        from controller.app.probe import probe_command
        return probe_command(args.port[0] if args.port else None, args.out,
                             simulated=args.probe_stations)
    if args.flash:
        from controller.app.flash import flash_command
        return flash_command(args.port, lang=args.lang, image=args.image)
    if args.test:
        if not args.port or len(args.port) != 1:
            print("spieltisch: the self-test takes one station: --port DEV", file=sys.stderr)
            return 2
        from controller.app.selftest import run_selftest
        result = run_selftest(args.port[0], lang=args.lang, headless=args.headless)
        print(json.dumps(result), flush=True)
        return 0 if result["passed"] else 1
    from controller.table.stations import list_stations
    return list_stations(args.port, as_json=args.json)


def cmd_doctor(args: argparse.Namespace) -> int:
    from controller.app.doctor import Environment, doctor_command
    return doctor_command(as_json=args.json, lang=args.lang, env=Environment(window_s=args.window))


def cmd_bench(args: argparse.Namespace) -> int:
    from controller import bench
    areas = tuple(args.only or ()) + (("faults",) if args.faults else ()) or bench.AREAS
    known = bench.AREAS + bench.ON_DEMAND
    unknown = [a for a in areas if a not in known]
    if unknown:
        print(f"spieltisch: no bench area {unknown[0]!r}; choose from {', '.join(known)}", file=sys.stderr)
        return 2
    return bench.main(as_json=args.json, quick=args.quick, areas=areas, long=args.long)


COMMANDS = {"demo": cmd_demo, "play": cmd_play, "box": cmd_box, "install-pi": cmd_install_pi, "cards": cmd_cards,
            "enroll": cmd_enroll,
            "results": cmd_results,
            "stations": cmd_stations, "doctor": cmd_doctor, "bench": cmd_bench}

if __name__ == "__main__":
    sys.exit(main())
