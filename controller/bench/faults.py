"""``spieltisch bench --faults``: the table under the faults a home meets, counted. Not part
of the default bench (it takes minutes); every count should be zero and the flood
recovery at most a second.

- **Power cuts:** bot games of every game as ``spieltisch demo`` processes, SIGKILLed at
  random moments and resumed (``--resume``) until they finish. After every kill: the
  database passes ``integrity_check``, every action seen committed before the kill is
  still there, the resume goes on with the same game and its log; at the end the result
  equals the uninterrupted game's with the same seed (turn-based games; a resumed
  real-time match plays its rest afresh by design and is only checked to finish), and is
  on record in the database (what `spieltisch results` shows).
- **Unplugging:** whole games in this process through simulated stations on ptys (by-id
  links, as udev gives them), a random station unplugged and plugged in again every
  ~0.2 s: actions lost, games that do not finish, and results that differ from the same
  game undisturbed.
- **A flood:** a station's stuck loop for about two seconds: the share of its documented
  event rate it still gets, and how soon after the flood a press goes through.
- **Bad input:** every mistake an owner makes on the command line or with files: the
  cases that end otherwise than with one line (and only that line), a non-zero exit and
  nothing changed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import queue
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from controller.bench.measure import Target

TARGETS: dict[str, Target] = {
    "faults_kills": (200, "min", "kills", "SIGKILLs of running demos (every game), each resumed"),
    "faults_integrity_failures": (0, "max", "", "databases failing integrity_check after a kill"),
    "faults_acknowledged_lost": (0, "max", "actions", "actions seen committed before a kill, missing after it"),
    "faults_resume_failures": (0, "max", "", "resumes that failed or did not go on with the same game"),
    "faults_results_differ": (0, "max", "games", "killed turn-based games ending unlike the uninterrupted game"),
    "faults_realtime_unfinished": (0, "max", "games", "killed real-time matches that did not finish on resuming"),
    "faults_results_unrecorded": (0, "max", "games", "killed games that finished without their result on record"),
    "faults_unplug_episodes": (100, "min", "episodes", "stations unplugged and plugged in again mid-game"),
    "faults_unplug_lost": (0, "max", "actions", "accepted actions missing from the log after unplug episodes"),
    "faults_unplug_unfinished": (0, "max", "games", "games with unplug episodes that did not finish"),
    "faults_unplug_results_differ": (0, "max", "games", "those games ending unlike the same game undisturbed"),
    "faults_flood_rate_kept_pct": (95, "min", "%", "a flooding station's events passed, share of its 100/s"),
    "faults_flood_recovery_s": (1.0, "max", "s", "the flood's end → the first press passed on"),
    "faults_bad_inputs": (float("nan"), "info", "cases", "owner mistakes tried (arguments, files, databases)"),
    "faults_bad_input_failures": (0, "max", "cases", "of those, not one line + non-zero exit + nothing changed"),
}

GAMES = ("partout", "tadika", "crazy-kick")


# --- power cuts --------------------------------------------------------------------------------------

def _demo(game: str, data: Path, *args: str) -> subprocess.Popen:
    env = dict(os.environ, SPIELTISCH_DATA=str(data), SDL_VIDEODRIVER="dummy")
    return subprocess.Popen([sys.executable, "-m", "controller.app.cli", "demo", game, "--headless", *args],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _logged(db: Path, game: str) -> tuple[int | None, list[dict[str, Any]]]:
    """The unfinished game's id and committed actions, read as another process would."""
    from controller.table.eventlog import EventLog
    if not db.exists():
        return None, []
    with contextlib.suppress(Exception), EventLog(db) as store:
        ids = store.unfinished_ids(game, demo=True)
        if ids:
            return ids[0], store.load(ids[0]).actions
    return None, []


def _finished(db: Path, game: str, game_id: int) -> dict[str, Any] | None:
    """The result a finished game left in its database (it ended as the cut came)."""
    from controller.table.eventlog import EventLog
    with EventLog(db) as store:
        row = next((r for r in store.results(game) if r["id"] == game_id), None)
    return None if row is None else {**row, "game_id": game_id}


def _result(proc: subprocess.Popen) -> dict[str, Any] | None:
    out, _ = proc.communicate(timeout=300)
    if proc.returncode != 0:
        return None
    return json.loads(out.strip().splitlines()[-1])


def power_cuts(kills_wanted: int, rng: random.Random) -> dict[str, float]:
    counts = dict.fromkeys(("kills", "integrity", "lost", "resume", "differ", "rt_unfinished", "unrecorded"), 0)
    chain = 0
    with tempfile.TemporaryDirectory() as tmp:
        while counts["kills"] < kills_wanted:
            game = GAMES[chain % len(GAMES)]
            realtime = game == "crazy-kick"
            seed = str(1000 + chain)
            think = () if realtime else ("--think", "0.003")
            whole = None if realtime else _result(_demo(game, Path(tmp) / f"whole{chain}", "--seed", seed, *think))
            data = Path(tmp) / f"cut{chain}"
            db = data / "spieltisch.db"
            chain += 1
            args: tuple[str, ...] = ("--seed", seed, *think)
            game_id, seen, final = None, [], None
            for _ in range(8):                    # kills in this game, then it is let finish
                proc = _demo(game, data, *args)
                deadline = time.monotonic() + rng.uniform(0.4, 1.6)
                while time.monotonic() < deadline and proc.poll() is None:
                    time.sleep(0.02)
                    found_id, found = _logged(db, game)
                    if found_id is not None:      # a game that finished meanwhile is no longer listed
                        game_id, seen = found_id, found
                if proc.poll() is not None:       # it finished before the cut
                    final = _result(proc)
                    break
                proc.send_signal(signal.SIGKILL)
                proc.communicate()
                counts["kills"] += 1
                if db.exists():
                    with contextlib.closing(sqlite3.connect(db)) as con:
                        if con.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
                            counts["integrity"] += 1
                after_id, after = _logged(db, game)
                if game_id is not None and after_id is None:     # it had finished as the cut came
                    final = _finished(db, game, game_id)
                    if final is None:
                        counts["lost"] += 1
                    break
                if game_id is not None and (after_id != game_id or after[:len(seen)] != seen):
                    counts["lost"] += 1
                game_id, seen = after_id, after
                if game_id is not None:           # cut before the game's first row: it starts anew
                    args = ("--resume", *think)
                if counts["kills"] >= kills_wanted:
                    break
            if final is None:
                final = _result(_demo(game, data, *args))
            if final is None or (game_id is not None and final.get("game_id") != game_id):
                counts["resume"] += 1
                continue
            recorded = _finished(db, game, final["game_id"])      # what `spieltisch results` shows
            if recorded is None or recorded["scores"] != final["scores"]:
                counts["unrecorded"] += 1
            if realtime:
                counts["rt_unfinished"] += 0 if final["finished"] else 1
            elif whole is None or (final["scores"], final["winner"], final["actions"]) != \
                    (whole["scores"], whole["winner"], whole["actions"]):
                counts["differ"] += 1
    return {"faults_kills": counts["kills"], "faults_integrity_failures": counts["integrity"],
            "faults_acknowledged_lost": counts["lost"], "faults_resume_failures": counts["resume"],
            "faults_results_differ": counts["differ"], "faults_realtime_unfinished": counts["rt_unfinished"],
            "faults_results_unrecorded": counts["unrecorded"]}


# --- unplugging --------------------------------------------------------------------------------------

def _game_with_stations(game: str, seed: int, folder: Path, disturb: bool, rng: random.Random) -> tuple[dict, int, int]:
    """A whole bot game through by-id simulated stations; with ``disturb``, a random station
    unplugged and plugged in again every ~0.2 s. Returns (result, episodes, actions lost)."""
    from controller.app.play import open_links
    from controller.bots.driver import BotDriver
    from controller.games import find_game
    from controller.table import Table
    from controller.table.eventlog import EventLog
    from controller.table.runner import TableRunner, Wake, event_queue
    from hardware.sim.station import SimulatedStation

    rules = find_game(game)
    events = event_queue()
    episodes = 0
    with contextlib.ExitStack() as stack:
        store = EventLog(folder / "u.db", durable=False)
        stack.callback(store.close)
        sims = [SimulatedStation(f"u{k}", by_id_dir=folder / "by-id").start() for k in range(3)]
        for sim in sims:
            stack.callback(sim.close)
        links = open_links([s.port for s in sims], events, stack, bots=True)
        table = Table(rules, config={"players": 3, "mode": "virtual"}, seed=seed, stations=list(links),
                      log_store=store)
        bots = BotDriver(rules, table.adapter, dict(enumerate(sims)), seed=seed, wake=lambda: events.put(Wake()))
        stack.callback(bots.close)
        runner = TableRunner(table, events, links, bots=bots)
        stop = threading.Event()

        def disturber() -> None:
            nonlocal episodes
            while not stop.wait(rng.uniform(0.1, 0.3)):
                sim = rng.choice(sims)
                sim.unplug()
                if stop.wait(rng.uniform(0.02, 0.15)):
                    sim.replug()
                    return
                sim.replug()
                episodes += 1

        worker = threading.Thread(target=disturber, daemon=True)
        if disturb:
            worker.start()
        try:
            result = runner.run(timeout=120)
        finally:
            stop.set()
            if disturb:
                worker.join(5)
        logged = len(store.load(table.game_id).actions)  # type: ignore[arg-type]  # (it has a log: it has an id)
        return result, episodes, len(table.actions) - logged


def unplugging(episodes_wanted: int, rng: random.Random) -> dict[str, float]:
    import logging
    from controller.table.runner import TableStopped
    logging.getLogger("hardware").setLevel(logging.ERROR)        # the faults are meant
    logging.getLogger("controller").setLevel(logging.ERROR)
    totals = {"episodes": 0, "lost": 0, "unfinished": 0, "differ": 0}
    seed = 0
    with tempfile.TemporaryDirectory() as tmp:
        while totals["episodes"] < episodes_wanted:
            game = ("partout", "tadika")[seed % 2]
            calm, _, _ = _game_with_stations(game, seed, Path(tmp) / f"calm{seed}", False, rng)
            try:
                shaken, episodes, lost = _game_with_stations(game, seed, Path(tmp) / f"shaken{seed}", True, rng)
            except (TimeoutError, TableStopped):
                totals["unfinished"] += 1
                seed += 1
                continue
            totals["episodes"] += episodes
            totals["lost"] += lost
            totals["unfinished"] += 0 if shaken["finished"] else 1
            totals["differ"] += (shaken["scores"], shaken["winner"]) != (calm["scores"], calm["winner"])
            seed += 1
    return {"faults_unplug_episodes": totals["episodes"], "faults_unplug_lost": totals["lost"],
            "faults_unplug_unfinished": totals["unfinished"], "faults_unplug_results_differ": totals["differ"]}


# --- a flood -------------------------------------------------------------------------------------------

def flood() -> dict[str, float]:
    import logging
    from controller.table.runner import event_queue
    from hardware.events import ButtonEvent
    from hardware.link import StationLink
    from hardware.sim.station import SimulatedStation
    logging.getLogger("hardware.link").setLevel(logging.ERROR)
    events = event_queue()
    sim = SimulatedStation("stuck").start()
    link = StationLink(sim.port, events).open()
    try:
        while not events.empty():
            events.get_nowait()
        started = time.monotonic()
        sim.flood(10_000)
        ended = time.monotonic()
        passed = 0
        arrived_at = None
        sent: set[int] = set()
        while arrived_at is None and time.monotonic() - ended < 5:
            sent.add(sim.press(2, release=False))
            deadline = time.monotonic() + 0.05
            while time.monotonic() < deadline:
                try:
                    event = events.get(timeout=max(0.001, deadline - time.monotonic()))
                except queue.Empty:
                    break
                if isinstance(event, ButtonEvent):
                    if event.seq in sent:
                        arrived_at = time.monotonic()
                        break
                    passed += 1
        flood_s = ended - started
        rate_pct = 100 * passed / (StationLink.EVENT_RATE * flood_s) if flood_s > 0 else 0.0
        return {"faults_flood_rate_kept_pct": min(rate_pct, 100.0),
                "faults_flood_recovery_s": (arrived_at - ended) if arrived_at else float("inf")}
    finally:
        link.close()
        sim.close()


# --- bad input ------------------------------------------------------------------------------------------

def _cli(args: list[str], data: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, SPIELTISCH_DATA=str(data), SDL_VIDEODRIVER="dummy")
    return subprocess.run([sys.executable, "-m", "controller.app.cli", *args], env=env, capture_output=True,
                          text=True, timeout=120)


def bad_inputs() -> dict[str, float]:
    cases = 0
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        good = base / "good"
        _cli(["demo", "partout", "--headless", "--seed", "1"], good)
        good_db = (good / "spieltisch.db").read_bytes()

        def a_db(name: str, content: bytes) -> Path:
            folder = base / name
            folder.mkdir()
            (folder / "spieltisch.db").write_bytes(content)
            return folder

        foreign = base / "foreign"
        foreign.mkdir()
        with contextlib.closing(sqlite3.connect(foreign / "spieltisch.db")) as con:
            con.execute("CREATE TABLE recipes (name TEXT)")
            con.commit()
        broken = a_db("broken", good_db)
        with contextlib.closing(sqlite3.connect(broken / "spieltisch.db")) as con:
            con.execute("UPDATE games SET finished_at = NULL, result = NULL")
            con.execute("UPDATE log SET action = '{oops' WHERE seq = 3")
            con.commit()
        pages = bytearray(good_db)           # a page's cells scrambled: SQLite's report runs to dozens of lines
        pages[3 * 4096 + 100:3 * 4096 + 200] = bytes(range(100))
        a_file = base / "a-file"
        a_file.write_text("x")
        rng = random.Random(7)
        scenarios: list[tuple[list[str], Path]] = [
            (["demo", "partout", "--seed", str(1 << 63)], base / "d1"),
            (["demo", "partout", "--headless", "--timeout", "0.001"], base / "d2"),
            (["demo", "partout", "--edition", "dlp"], base / "d3"),
            (["demo", "tadika", "--headless", "--resume"], base / "d4"),
            (["cards", "list", "nosuchgame"], base / "d5"),
            (["play", "partout", "--players", "3", "--port", "/dev/null", "--port", "/dev/null", "--port", "/dev/zero"],
             base / "d6"),
            (["demo", "partout", "--headless"], a_file / "sub"),
            (["demo", "partout", "--headless"], Path("/proc/no/such/dir")),
            (["results"], foreign),
            (["results"], a_db("random", bytes(rng.randrange(256) for _ in range(len(good_db))))),
            (["results"], a_db("truncated", good_db[:len(good_db) // 3])),
            (["results"], a_db("header", b"SQLite formal 3\0" + good_db[16:])),
            (["results"], a_db("pages", bytes(pages))),
            (["demo", "partout", "--headless", "--resume"], broken),
        ]
        for args, data in scenarios:
            cases += 1
            db = data / "spieltisch.db"
            before = hashlib.sha256(db.read_bytes()).hexdigest() if db.is_file() else None
            proc = _cli(args, data)
            after = hashlib.sha256(db.read_bytes()).hexdigest() if db.is_file() else None
            lines = proc.stderr.strip().splitlines()
            # one line, nothing else (argparse's usage block is no longer printed above it)
            others = lines[:-1]
            if proc.returncode == 0 or "Traceback" in proc.stderr or not lines or others or \
                    not lines[-1].startswith("spieltisch") or (before is not None and after != before):
                failures.append(" ".join(args))
    if failures:
        print("bad inputs not handled: " + "; ".join(failures), file=sys.stderr)
    return {"faults_bad_inputs": cases, "faults_bad_input_failures": len(failures)}


def figures(quick: bool = False) -> dict[str, float]:
    rng = random.Random(20261122)
    out: dict[str, float] = {}
    out.update(power_cuts(30 if quick else 210, rng))
    out.update(unplugging(20 if quick else 100, rng))
    out.update(flood())
    out.update(bad_inputs())
    return out
