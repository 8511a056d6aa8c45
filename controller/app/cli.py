"""The ``spieltisch`` command.

    spieltisch demo partout [--players N] [--seed S] [--headless]   bots play a whole game
    spieltisch demo crazy-kick [--players N] [--edition dlp] [--reaction 250-600]
    spieltisch demo tadika [--players N] [--target 50|100] [--forbidden]
    spieltisch play partout --port DEV --port DEV ...                a real table
    spieltisch box [--port DEV ...]                                  the menu on the screen, driven by the stations
    sudo spieltisch install-pi                                       boot a Raspberry Pi into the table
    spieltisch enroll partout --port DEV [--write]                   teach the table a deck, on the screen
    spieltisch cards key export FILE | import FILE                   share the card key with another table
    spieltisch stations [--port DEV ...] [--json]                    what is plugged in
    spieltisch stations --test --port DEV                            a station's self-test, on the screen
    spieltisch results                                               finished games
    spieltisch bench [--json]                                        speed and memory figures
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

from controller.games import GAMES, IllegalAction, find_game
from controller.games.texts import LANGUAGES


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="spieltisch", description="The referee of a real card table.")
    parser.add_argument("--data-dir", type=Path, help="where the event log lives (default ~/.local/share/spieltisch)")
    parser.add_argument("-v", "--verbose", action="store_true")
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="bots play a whole game through simulated stations")
    _game_arguments(demo)
    demo.add_argument("--headless", action="store_true", help="no window, even when there is a screen")
    demo.add_argument("--resume", action="store_true", help="go on with the last unfinished demo game")
    demo.add_argument("--seat", type=int, help="play this seat (1..N) yourself from the keyboard")
    demo.add_argument("--think", type=float, help="seconds a bot thinks before acting")
    demo.add_argument("--screenshot", help="save a PNG of the screen (at the end, or at --screenshot-at)")
    demo.add_argument("--screenshot-at", type=int, help="number of actions after which to take it")
    demo.add_argument("--fullscreen", action="store_true")
    demo.add_argument("--timeout", type=_seconds, help="give up after this many seconds")
    demo.add_argument("--reaction",
                      help="real-time games (Crazy Kick): the bots' reaction time in ms, LOW-HIGH (default 250-600)")

    play = sub.add_parser("play", help="run a real table with stations on serial ports")
    _game_arguments(play)
    play.add_argument("--port", action="append", required=True,
                      help="a station's serial port, one per seat in clockwise order; "
                           "pn532:DEV for a bare PN532 reader (tap only, no buttons)")
    play.add_argument("--name", action="append", help="players' names, in seat order")
    play.add_argument("--bots", type=int, default=0,
                      help="bots take this many of the seats, the last ones (games where no card is hidden)")
    play.add_argument("--virtual", action="store_true", help="the table deals (no physical cards)")
    play.add_argument("--new", action="store_true", help="start a new game even if one is unfinished")
    play.add_argument("--fullscreen", action="store_true")
    play.add_argument("--panel", action="store_true",
                      help="use the host panel on the Pi's GPIO (menu and undo buttons, status LED, buzzer)")
    play.add_argument("--panel-pins", default="5,6,13,12",
                      help="BCM pins of the panel: MENU,UNDO,LED,BUZZER (default 5,6,13,12)")

    stations = sub.add_parser("stations", help="list the stations and readers that are plugged in")
    stations.add_argument("--port", action="append", help="look only at these ports")
    stations.add_argument("--json", action="store_true", help="one JSON object per line")
    stations.add_argument("--test", action="store_true",
                          help="the self-test of one station (--port): buttons, LED, buzzer and reader, on the screen")
    stations.add_argument("--lang", choices=LANGUAGES, default="en")
    stations.add_argument("--headless", action="store_true", help="no window (with --test)")

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

    pi = sub.add_parser("install-pi", help="make a Raspberry Pi boot into the table (systemd unit, udev rules, groups)")
    pi.add_argument("--user", help="who runs the table (default: the one who ran sudo)")
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
    enroll.add_argument("--fullscreen", action="store_true")

    results = sub.add_parser("results", help="finished games, their scores and winners, and the leaderboard")
    results.add_argument("--game", help="only this game")
    results.add_argument("--demo", action="store_true", help="the demo games instead of the real ones")
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
                       help="measure only this area (rules, balance, teamup, table, app, fairness, race, stations, cards, frames, "
                            "faults); repeatable")
    bench.add_argument("--faults", action="store_true",
                       help="the faults benchmark: power cuts, unplugging, a flood, bad input (minutes)")

    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if args.data_dir:
        import os
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
        return _fail(exc, 1)
    except TableStopped as exc:
        return _fail(f"the game stopped: {exc}. Every accepted move is saved.", 1)
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
    except Exception as exc:                          # a bug: one line here, the details in a file
        return _fail(f"unexpected error ({type(exc).__name__}: {exc}); the details are in {_error_log(exc)}. "
                     "Every accepted move is saved.", 1)


def _fail(message: object, code: int) -> int:
    print(f"spieltisch: {message}", file=sys.stderr)
    return code


def _error_log(exc: BaseException) -> str:
    import tempfile
    import time
    import traceback
    from controller.table.eventlog import default_data_dir
    text = f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} spieltisch {' '.join(sys.argv[1:])}\n" + \
        "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    for folder in (default_data_dir(), Path(tempfile.gettempdir())):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / "errors.log"
            with open(path, "a", encoding="utf-8") as f:
                f.write(text)
            return str(path)
        except OSError:
            continue
    return "(nowhere: no folder takes writes)"


def _seed(text: str) -> int:
    try:
        seed = int(text)
    except ValueError:
        seed = -1
    if not 0 <= seed < 1 << 63:
        raise argparse.ArgumentTypeError(f"{text!r}: a seed is a whole number from 0 to {(1 << 63) - 1}")
    return seed


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < 1e7:
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of seconds above 0")
    return value


def _game_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", help=f"one of: {', '.join(sorted(GAMES))}")
    p.add_argument("--players", type=int, default=4)
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
        chosen[name] = value
    return chosen


def cmd_demo(args: argparse.Namespace) -> int:
    from controller.app.demo import run_demo
    rules = find_game(args.game)
    options = game_options(args, rules)
    rules.check_config({"players": args.players, **options})   # refuses a wrong count early
    seat = None
    if args.seat is not None:
        if not 1 <= args.seat <= args.players:
            print(f"spieltisch: --seat must be from 1 to {args.players}", file=sys.stderr)
            return 2
        seat = args.seat - 1
    reaction = None
    if args.reaction is not None:
        if not rules.realtime:
            raise IllegalAction("option_not_for_game", option="--reaction", game=rules.title)
        from controller.bots.crazykick import Reaction
        try:
            reaction = Reaction.parse(args.reaction)
        except ValueError as exc:
            print(f"spieltisch: {exc}", file=sys.stderr)
            return 2
    result = run_demo(rules.name, players=args.players, seed=args.seed, headless=args.headless,
                      resume=args.resume, lang=args.lang, think=args.think, human_seat=seat,
                      screenshot=args.screenshot, screenshot_at=args.screenshot_at,
                      fullscreen=args.fullscreen, timeout=args.timeout, options=options,
                      reaction=reaction)
    print(json.dumps(result, ensure_ascii=False), flush=True)
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    from controller.app.play import run_table
    panel_pins = None
    if args.panel:
        try:
            panel_pins = tuple(int(p) for p in args.panel_pins.split(","))
            if len(panel_pins) != 4:
                raise ValueError
        except ValueError:
            print(f"spieltisch: --panel-pins wants four BCM pin numbers, MENU,UNDO,LED,BUZZER; got "
                  f"{args.panel_pins!r}", file=sys.stderr)
            return 2
    result = run_table(args.game, ports=args.port, players=args.players, names=args.name or [],
                       virtual=args.virtual, seed=args.seed, new=args.new, lang=args.lang,
                       fullscreen=args.fullscreen, panel_pins=panel_pins,
                       options=dict(game_options(args, find_game(args.game)),
                                    **({"bots": args.bots} if args.bots else {})))
    print(json.dumps(result, ensure_ascii=False), flush=True)
    return 0


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
    return run_box(args.port or None, lang=args.lang, headless=args.headless, fullscreen=not args.window)


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
    from controller.app.results import show
    from controller.table.eventlog import EventLog
    game = find_game(args.game).name if args.game else None
    with EventLog() as store:
        print(show(store, demo=args.demo, game=game, fmt="json" if args.json else "csv" if args.csv else "table"))
    return 0


def cmd_stations(args: argparse.Namespace) -> int:
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
            "stations": cmd_stations, "bench": cmd_bench}

if __name__ == "__main__":
    sys.exit(main())
