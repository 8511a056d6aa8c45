"""Nothing breaks the table: what a careless owner or an odd disk does gets one clear line
and a non-zero exit, never a traceback, and changes nothing on disk; one table per data
directory; a table that cannot save waits and goes on by itself; a log that cannot be
replayed is named with the move where it breaks and can be set aside."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.games import IllegalAction, find_game
from controller.table.eventlog import APPLICATION_ID, SCHEMA_VERSION, EventLog, StorageError, TableLock

ROOT = Path(__file__).resolve().parent.parent


def spieltisch(*args, data=None, timeout=60, cwd=ROOT, **popen):
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", PYTHONPATH=str(ROOT))
    if data is not None:
        env["SPIELTISCH_DATA"] = str(data)
    return subprocess.run([sys.executable, "-m", "controller.app.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout, **popen)


def one_clear_line(proc, code=None, *words, played=False):
    """The command ended with one line saying why; ``played``: a game began first, and its
    start's own line (headless, as …) stands above it."""
    assert "Traceback" not in proc.stderr, proc.stderr
    if code is None:
        assert proc.returncode != 0
    else:
        assert proc.returncode == code, proc.stderr
    lines = proc.stderr.strip().splitlines()
    if played:
        lines = [line for line in lines if not line.startswith("spieltisch: headless,")]
    assert len(lines) == 1, proc.stderr                 # one line: no usage block, no log lines above it
    last = lines[-1]
    assert last.startswith("spieltisch"), proc.stderr
    for word in words:
        assert word in last, last
    return last


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _tiny_disk(path: Path, kb: int):
    path.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={kb}k", "tmpfs", str(path)], capture_output=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a small file system here to fill it: {proc.stderr.decode().strip()}")
    return lambda: subprocess.run(["umount", "-l", str(path)], capture_output=True)


def a_real_database(folder: Path) -> Path:
    proc = spieltisch("demo", "partout", "--headless", "--seed", "1", data=folder)
    assert proc.returncode == 0, proc.stderr
    return folder / "spieltisch.db"


# --- arguments --------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, words", [
    (("demo", "partout", "--seed", "9223372036854775808"), ["seed"]),
    (("demo", "partout", "--seed", "-1"), ["seed"]),
    (("demo", "partout", "--timeout", "0"), ["seconds"]),
    (("demo", "partout", "--edition", "dlp"), ["Partout", "--edition"]),
    (("demo", "tadika", "--reaction", "300-500"), ["Tadika", "--reaction"]),
    (("demo", "tadika", "--target", "70"), ["target"]),
    (("demo", "partout", "--players", "5"), []),
    (("cards", "list", "nosuchgame"), ["nosuchgame"]),
    (("demo", "nosuchgame"), ["nosuchgame"]),
])
def test_bad_arguments_get_one_line(args, words, tmp_path):
    one_clear_line(spieltisch(*args, data=tmp_path / "d"), None, *words)


@pytest.mark.parametrize("args, words", [
    (("demo", "partout", "--think", "-1"), ["--think", "0 to 60"]),
    (("demo", "partout", "--seat", "1", "--headless"), ["--seat", "--headless"]),
    (("demo", "partout", "--seat", "1"), ["--seat", "no screen"]),       # SDL's dummy driver: no screen
    (("demo", "partout", "--headless", "--screenshot", "no/such/folder/shot.png"), ["--screenshot", "no folder"]),
    (("demo", "partout", "--headless", "--screenshot", "s.png", "--screenshot-at", "-5"), ["--screenshot-at"]),
    (("demo", "partout", "--headless", "--screenshot-at", "5"), ["--screenshot"]),
    (("demo", "partout", "--players", "9"), ["--players", "1 to 8"]),
    (("cards", "key", "export", "no/such/folder/table.key"), ["no/such/folder/table.key", "No such file"]),
])
def test_a_mistake_ends_at_once_before_any_game_is_played(args, words, tmp_path):
    """Issue 30: each of these looped, waited for ever, played a whole game first, or blamed
    the moves; now one line, a non-zero exit, and no game in the data folder."""
    proc = spieltisch(*args, data=tmp_path / "d", timeout=30, cwd=tmp_path)
    last = one_clear_line(proc, None, *words)
    assert "saved" not in last, last                   # no game was played to be saved
    assert not (tmp_path / "d" / "spieltisch.db").exists()
    assert not list(tmp_path.glob("**/*.png"))


def test_a_screenshot_after_the_games_last_move_is_named_not_passed_over(tmp_path):
    proc = spieltisch("demo", "tadika", "--headless", "--seed", "1", "--screenshot", str(tmp_path / "late.png"),
                      "--screenshot-at", "100000", data=tmp_path / "d")
    last = one_clear_line(proc, 1, "--screenshot-at 100000", "no screenshot", played=True)
    assert "(the game is saved as game 1)" in last and "the game 1" not in last      # issue 40's wording
    assert not (tmp_path / "late.png").exists()
    shot = spieltisch("demo", "tadika", "--headless", "--seed", "1", "--screenshot", str(tmp_path / "early.png"),
                      "--screenshot-at", "3", data=tmp_path / "d")
    assert shot.returncode == 0 and (tmp_path / "early.png").stat().st_size > 0, shot.stderr


def test_a_headless_run_says_so_first(tmp_path):
    proc = spieltisch("demo", "partout", "--players", "3", "--seed", "2", timeout=120, data=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith("spieltisch: headless, as this computer shows no screen"), proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1])["finished"]


def test_players_and_fullscreen_say_what_they_take():
    for command in ("demo", "play"):
        words = " ".join(spieltisch(command, "--help").stdout.split())
        assert "--players N how many play (default 4): Partout 3, 4 or 6; Crazy Kick 2-8" in words, words
        assert "--fullscreen the whole screen" in words, words


def test_a_game_that_runs_out_of_time_says_so(tmp_path):
    one_clear_line(spieltisch("demo", "partout", "--headless", "--timeout", "0.001", data=tmp_path), 1,
                   "did not finish", played=True)


def test_resume_with_nothing_to_resume_says_so(tmp_path):
    one_clear_line(spieltisch("demo", "tadika", "--headless", "--resume", data=tmp_path), 1, "no unfinished")


def test_the_same_port_twice_is_named(tmp_path):
    one_clear_line(spieltisch("play", "partout", "--players", "3", "--port", "/dev/null", "--port", "/dev/null",
                              "--port", "/dev/zero", data=tmp_path), None, "/dev/null", "twice")


# --- the data directory and the database file ------------------------------------------------------

def test_a_data_directory_that_is_a_file_or_cannot_be_made(tmp_path):
    a_file = tmp_path / "file"
    a_file.write_text("x")
    one_clear_line(spieltisch("demo", "partout", "--headless", data=a_file / "sub"), 1, "data directory")
    one_clear_line(spieltisch("results", data=a_file), 1)
    one_clear_line(spieltisch("demo", "partout", "--headless", data="/proc/no/such/dir"), 1, "data directory")
    assert a_file.read_text() == "x"


def test_a_data_directory_the_table_may_not_write_to(tmp_path):
    """A read-only file system (root writes through permissions, not through this)."""
    disk = tmp_path / "disk"
    unmount = _tiny_disk(disk, 4096)
    try:
        a_real_database(disk)
        for side in ("-wal", "-shm"):
            Path(str(disk / "spieltisch.db") + side).unlink(missing_ok=True)
        before = digest(disk / "spieltisch.db")
        remounted = subprocess.run(["mount", "-o", "remount,ro", str(disk)], capture_output=True)
        assert remounted.returncode == 0, remounted.stderr
        for args in (("demo", "partout", "--headless"), ("demo", "partout", "--headless", "--resume"),
                     ("results",)):
            proc = spieltisch(*args, data=disk)
            one_clear_line(proc, 1)
            assert str(disk) in proc.stderr
        assert digest(disk / "spieltisch.db") == before
    finally:
        unmount()


@pytest.mark.parametrize("damage", ["random", "truncated", "header", "pages"])
def test_a_damaged_database_is_refused_and_left_as_it_was(damage, tmp_path):
    """One line that names the file and says what to do; SQLite's integrity report (dozens
    of lines when a page's cells are scrambled) goes to errors.log, which the line names."""
    db = a_real_database(tmp_path)
    for side in ("-wal", "-shm"):
        Path(str(db) + side).unlink(missing_ok=True)
    data = db.read_bytes()
    if damage == "random":
        db.write_bytes(os.urandom(len(data)))
    elif damage == "truncated":
        db.write_bytes(data[:len(data) // 3])
    elif damage == "header":
        db.write_bytes(b"SQLite formal 3\0" + data[16:])
    else:                                    # the log's pages: their cells point out of the page
        page = 4096
        db.write_bytes(data[:3 * page + 100] + bytes(range(100)) + data[3 * page + 200:])
    before = digest(db)
    for args in (("results",), ("demo", "partout", "--headless", "--resume")):
        proc = spieltisch(*args, data=tmp_path)
        line = one_clear_line(proc, 1, str(db), "nothing was changed", "Move it")
        assert proc.stderr.strip() == line
        if damage == "pages":
            report = line.rsplit(" is in ", 1)[1].rstrip(".")
            assert "On tree page" in Path(report).read_text()
    assert digest(db) == before


def test_another_programs_database_is_left_alone(tmp_path):
    db = tmp_path / "spieltisch.db"
    other = sqlite3.connect(db)
    other.execute("CREATE TABLE recipes (name TEXT, minutes INTEGER)")
    other.execute("INSERT INTO recipes VALUES ('soup', 40)")
    other.commit()
    other.close()
    before = digest(db)
    line = one_clear_line(spieltisch("results", data=tmp_path), 1, "another program")
    assert "recipes" in line
    assert digest(db) == before
    tables = {r[0] for r in sqlite3.connect(db).execute("SELECT name FROM sqlite_master")}
    assert tables == {"recipes"}


def test_our_table_names_with_other_columns_are_refused(tmp_path):
    db = tmp_path / "spieltisch.db"
    other = sqlite3.connect(db)
    other.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, who TEXT)")
    other.commit()
    other.close()
    before = digest(db)
    one_clear_line(spieltisch("results", data=tmp_path), 1, "columns")
    assert digest(db) == before


def test_the_database_is_marked_as_ours_and_a_file_from_before_is_taken_over(tmp_path):
    with EventLog(tmp_path / "new.db") as log:
        assert log._db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert log._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    old = sqlite3.connect(tmp_path / "old.db")               # as the table wrote it before the mark
    for table, columns in (("games", "id INTEGER PRIMARY KEY, game, config, seed, seats, started_at, finished_at, "
                                     "result"), ("log", "game_id, seq, kind, action, at"),
                           ("cards", "uid PRIMARY KEY, game, card"), ("stations", "station PRIMARY KEY, name")):
        old.execute(f"CREATE TABLE {table} ({columns})")
    old.execute("INSERT INTO games VALUES (1, 'partout', '{\"players\": 4}', 3, '[]', 0, NULL, NULL)")
    old.commit()
    old.close()
    with EventLog(tmp_path / "old.db") as log:
        assert log.unfinished_ids("partout") == [1]
        assert log._db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID


def test_a_version_1_file_keeps_its_names_and_learns_colours_and_settings(tmp_path):
    v1 = sqlite3.connect(tmp_path / "v1.db")                 # as schema 1 wrote it
    v1.execute("CREATE TABLE stations (station TEXT PRIMARY KEY, name TEXT)")
    v1.execute("INSERT INTO stations VALUES ('st-1', 'Oma')")
    v1.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    v1.execute("PRAGMA user_version = 1")
    v1.commit()
    v1.close()
    with EventLog(tmp_path / "v1.db") as log:
        assert log.station_names() == {"st-1": "Oma"}
        log.colour_station("st-1", "blue")
        log.set_setting("volume", "60")
    with EventLog(tmp_path / "v1.db") as log:
        assert log._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert log.station_colours() == {"st-1": "blue"} and log.station_names() == {"st-1": "Oma"}
        assert log.setting("volume") == "60" and log.setting("lang", "en") == "en"


def test_a_version_2_file_keeps_its_games_and_its_stations_names_become_people(tmp_path):
    """Schema 3 (issue 30): the people who play, and who sat where. A file of version 2 opens,
    keeps every game, and the names its stations remember are the first people (in the
    station's colour); its games were played under names picked from a list, so nobody is
    recorded at their seats."""
    v2 = sqlite3.connect(tmp_path / "v2.db")                 # as schema 2 wrote it
    v2.executescript("""
        CREATE TABLE games (id INTEGER PRIMARY KEY, game TEXT NOT NULL, config TEXT NOT NULL, seed INTEGER NOT NULL,
                            seats TEXT NOT NULL, started_at REAL NOT NULL, finished_at REAL, result TEXT);
        CREATE TABLE log (game_id INTEGER NOT NULL REFERENCES games(id), seq INTEGER NOT NULL,
                          kind TEXT NOT NULL CHECK (kind IN ('action', 'undo')), action TEXT, at REAL NOT NULL,
                          PRIMARY KEY (game_id, seq));
        CREATE TABLE cards (uid TEXT PRIMARY KEY, game TEXT NOT NULL, card TEXT NOT NULL);
        CREATE TABLE stations (station TEXT PRIMARY KEY, name TEXT, colour TEXT);
        CREATE TABLE health (id INTEGER PRIMARY KEY, at REAL NOT NULL);
        CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO stations VALUES ('st-1', 'Oma', 'blue'), ('st-2', 'Ben', NULL), ('st-3', NULL, 'red');
        INSERT INTO games VALUES (1, 'tadika', '{"players": 2}', 7, '["st-1", "st-2"]', 1.0, 2.0,
                                  '{"game": "tadika", "scores": [50, 12], "winner": 0, "teams": [["Oma"], ["Ben"]]}');
    """)
    v2.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    v2.execute("PRAGMA user_version = 2")
    v2.commit()
    v2.close()
    with EventLog(tmp_path / "v2.db") as log:
        assert log._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
        assert sorted(log.people()) == [("Ben", None), ("Oma", "blue")]
        assert [r["scores"] for r in log.results()] == [[50, 12]] and log.players_of([1]) == {}
        oma = log.person("oma")                                # the same person in any case
        log.seat_people(1, {0: oma})
    with EventLog(tmp_path / "v2.db") as log:
        assert log.players_of([1]) == {1: {0: ("Oma", "blue")}}


def test_a_newer_schema_is_refused(tmp_path):
    with EventLog(tmp_path / "s.db") as log:
        log._db.execute("PRAGMA user_version = 99")
    with pytest.raises(StorageError, match="newer"):
        EventLog(tmp_path / "s.db")


def on_a_small_disk(tmp_path: Path, kib: int, script: str) -> subprocess.CompletedProcess:
    """Run the shell ``script`` with ``$DISK`` a real file system of ``kib`` KiB (a tmpfs, the
    data directory), ``$SPIELTISCH`` the command line and ``$PY`` Python. The kernel then
    answers a write to the full disk with ENOSPC exactly where SQLite or the table makes it
    (the lock file, the database's first page, its shared-memory file, a commit), as on a
    full SD card: an injected error or a file-size limit (EFBIG) would take other paths.
    The tmpfs is mounted in a mount namespace of its own (unshare): as root, or as a user
    where user namespaces are allowed; elsewhere the test is skipped, saying why."""
    disk = tmp_path / "disk"
    disk.mkdir()
    unshare = ["unshare", "--mount"] if os.geteuid() == 0 else ["unshare", "--user", "--map-root-user", "--mount"]
    env = dict(os.environ, DISK=str(disk), PY=sys.executable, SPIELTISCH=f"{sys.executable} -m controller.app.cli",
               SPIELTISCH_DATA=str(disk), SDL_VIDEODRIVER="dummy")
    mount = f'mount -t tmpfs -o size={kib}k tmpfs "$DISK" || exit 97\n'
    try:
        proc = subprocess.run([*unshare, "sh", "-c", mount + script], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=120)
    except FileNotFoundError:
        pytest.skip("no unshare here, to mount a small file system and fill it")
    if proc.returncode == 97 or proc.stderr.startswith("unshare:"):
        pytest.skip(f"cannot mount a small file system here to fill it: {proc.stderr.strip()}")
    return proc


@pytest.mark.parametrize("free_kib", [0, 4, 8, 16, 48])
def test_a_full_disk_at_start_says_so_and_leaves_no_database_behind(free_kib, tmp_path):
    """Each amount of room left stops the start at another write: none at all (the lock
    file), the database's first page, its migration's commit (SQLite has rolled back by
    itself), its shared-memory file ("disk I/O error" from SQLite). Each says the disk is
    full, in one line, and leaves no database file for the next start to trip on."""
    proc = on_a_small_disk(tmp_path, 256, f"""
head -c {(256 - free_kib) * 1024} /dev/zero > "$DISK/filler" 2>/dev/null
$SPIELTISCH demo partout --headless >/dev/null
echo "exit $?"
ls -A "$DISK"
""")
    code, *left = proc.stdout.split("\n", 1)[0:1] + proc.stdout.split()[2:]
    assert code == "exit 1" and "Traceback" not in proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("spieltisch: cannot write to") and "the disk is full. Free some space." in line, line
    assert not [name for name in left if name.startswith("spieltisch.db")], left


def test_a_full_disk_under_a_saved_database_says_so_and_changes_it_not(tmp_path):
    """The database and its write-ahead log are there (the last table was cut off), the
    disk has filled since: the new game's first write says the disk is full."""
    games = """$PY -c "import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute('SELECT id, game, seed, finished_at FROM games').fetchall())" \
    "$DISK/spieltisch.db"
"""
    proc = on_a_small_disk(tmp_path, 1024, f"""
$PY -c "import os, sys; from controller.table.eventlog import EventLog
s = EventLog(sys.argv[1]); s.start_game('partout', {{'players': 3, 'mode': 'virtual'}}, 1, []); os._exit(0)" \
    "$DISK/spieltisch.db" || exit 98
echo "pid 1, the last table" > "$DISK/table.lock"
head -c 2000000 /dev/zero > "$DISK/filler" 2>/dev/null
{games}
$SPIELTISCH demo partout --headless >/dev/null
echo "exit $?"
{games}
""")
    assert proc.returncode == 0, proc.stderr
    before, code, after = proc.stdout.splitlines()
    assert code == "exit 1" and before == after == "[(1, 'partout', 1, None)]", proc.stdout
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert "the disk is full" in line and "Traceback" not in proc.stderr, line


def test_a_disk_that_fills_during_a_game_stops_it_with_one_line_and_keeps_every_move(tmp_path):
    """A demo is under way when the disk fills (another program's file takes the rest): the
    demo stops with the one line that says what to do, no log line beside it, and every move
    it accepted is in the database."""
    count = """$PY -c "import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
print(con.execute('SELECT COUNT(*) FROM log').fetchone()[0], con.execute('SELECT finished_at FROM games').fetchall())" \
    "$DISK/spieltisch.db" 2>/dev/null"""
    proc = on_a_small_disk(tmp_path, 4096, f"""
$SPIELTISCH demo partout --headless --think 0.05 >/dev/null &
demo=$!
tries=0
until [ "$({count} | cut -d' ' -f1)" -ge 5 ] 2>/dev/null; do
    tries=$((tries + 1)); [ $tries -gt 1200 ] && break; sleep 0.05
done
head -c 8000000 /dev/zero > "$DISK/filler" 2>/dev/null
wait $demo
echo "exit $?"
{count}
""")
    code, saved = proc.stdout.splitlines()
    assert code == "exit 1", proc.stdout + proc.stderr
    lines = [line for line in proc.stderr.strip().splitlines() if not line.startswith("spieltisch: headless")]
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "the disk is full. Free some space. Every accepted move is saved." in lines[0]
    moves, finished = saved.split(" ", 1)
    assert int(moves) >= 5 and finished == "[(None,)]"


def test_a_game_stopped_by_a_full_disk_says_so_in_well_formed_sentences(tmp_path, monkeypatch, capsys):
    """A headless demo that cannot save gives up with the reason: "… Free some space.
    Every accepted move is saved." (it said "space.. Every")."""
    import argparse
    from controller.app import cli
    from controller.table.eventlog import storage_error
    from controller.table.runner import TableStopped
    reason = str(storage_error(tmp_path / "spieltisch.db", sqlite3.OperationalError("database or disk is full")))

    def stopped(args):
        raise TableStopped(reason)
    monkeypatch.setitem(cli.COMMANDS, "demo", stopped)
    assert cli.run_command(argparse.Namespace(command="demo")) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "the disk is full. Free some space. Every accepted move is saved." in line and ".." not in line


@pytest.mark.parametrize("lang, words", [("en", "the disk is full"), ("de", "Datenträger ist voll"),
                                         ("fr", "le disque est plein"), ("it", "il disco è pieno")])
def test_a_full_disk_and_a_damaged_file_are_said_in_every_language(lang, words, tmp_path):
    from controller.table.eventlog import storage_error
    path = tmp_path / "spieltisch.db"
    full = storage_error(path, sqlite3.OperationalError("database or disk is full"))
    damaged = storage_error(path, sqlite3.DatabaseError("database disk image is malformed"))
    assert words in full.message(lang) and str(path) in full.message(lang)
    assert damaged.message(lang).count(str(path)) == 2            # the file, and the command that may save it
    assert (full.message(lang) == str(full)) == (lang == "en")


# --- one table per data directory; numbers from the database -------------------------------------------

def test_a_second_table_on_the_same_data_directory_is_refused_naming_the_first(tmp_path):
    first = subprocess.Popen([sys.executable, "-m", "controller.app.cli", "demo", "partout", "--headless",
                              "--think", "0.3"], cwd=ROOT, env=dict(os.environ, SPIELTISCH_DATA=str(tmp_path),
                                                                      SDL_VIDEODRIVER="dummy"),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while not (tmp_path / "table.lock").exists() or "pid" not in (tmp_path / "table.lock").read_text():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        line = one_clear_line(spieltisch("demo", "partout", "--headless", "--resume", data=tmp_path), 1,
                              "another table", f"pid {first.pid}")
        assert "--data-dir" in line
    finally:
        first.kill()
        first.wait()
    # the kernel let the lock go with the killed process: the next table starts
    with TableLock(tmp_path):
        pass


def test_log_numbers_come_from_the_database_so_two_writers_never_collide(tmp_path):
    a, b = EventLog(tmp_path / "x.db"), EventLog(tmp_path / "x.db")
    game = a.start_game("partout", {"players": 4}, 1, [])
    seqs = [log.append(game, {"type": "bid", "player": 0, "tricks": i}) for i, log in enumerate([a, b, a, b, b])]
    assert seqs == [0, 1, 2, 3, 4]
    a.close()
    b.close()


# --- a log that cannot be replayed ---------------------------------------------------------------------

def _break_a_demo(tmp_path, payload: str) -> int:
    db = a_real_database(tmp_path)
    con = sqlite3.connect(db)
    game_id = con.execute("SELECT MAX(id) FROM games").fetchone()[0]
    con.execute("UPDATE games SET finished_at = NULL, result = NULL WHERE id = ?", (game_id,))
    con.execute("UPDATE log SET action = ? WHERE game_id = ? AND seq = 5", (payload, game_id))
    con.commit()
    con.close()
    return game_id


@pytest.mark.parametrize("payload, words", [
    ("{not json", ["move 6", "unreadable"]),
    (json.dumps({"type": "bid", "player": 0, "tricks": "2"}), ["move 6"]),
    (json.dumps({"type": "play", "player": 0, "card": "red5"}), ["move 6"]),
])
def test_a_log_that_cannot_be_replayed_names_the_move_and_can_be_set_aside(payload, words, tmp_path):
    game_id = _break_a_demo(tmp_path, payload)
    line = one_clear_line(spieltisch("demo", "partout", "--headless", "--resume", data=tmp_path), 1,
                          f"game {game_id}", *words)
    assert "start afresh" in line
    proc = spieltisch("demo", "partout", "--headless", "--seed", "2", data=tmp_path)
    assert proc.returncode == 0, proc.stderr                 # a new game goes on beside it


def test_play_new_sets_a_broken_game_aside(tmp_path):
    with EventLog(tmp_path / "spieltisch.db") as log:
        game_id = log.start_game("partout", {"players": 3, "mode": "physical"}, 1, [])
        log._db.execute("INSERT INTO log VALUES (?, 0, 'action', '{oops', 0)", (game_id,))
    ports = [arg for dev in ("/dev/null", "/dev/zero", "/dev/full") for arg in ("--port", dev)]
    line = one_clear_line(spieltisch("play", "partout", "--players", "3", *ports, data=tmp_path), 1,
                          f"game {game_id}", "--new")
    assert "play partout --new" in line
    # --new sets it aside before the stations are opened (here there are none to open)
    spieltisch("play", "partout", "--players", "3", "--new", *ports, data=tmp_path)
    with EventLog(tmp_path / "spieltisch.db") as log:
        assert log.unfinished_ids("partout") == []
        assert log.results("partout")[0]["abandoned"] is True


# --- a table that cannot save -------------------------------------------------------------------------

class FailingLog(EventLog):
    """An event log whose disk fills up after ``room`` appends, and is freed by ``free()``."""

    room = 10**9

    def append(self, game_id, action):
        if self.room <= 0:
            raise sqlite3.OperationalError("database or disk is full")
        self.room -= 1
        return super().append(game_id, action)

    def probe(self):
        return None if self.room > 0 else "cannot write: the disk is full"


def test_a_table_that_cannot_save_waits_and_goes_on_by_itself(make_table, tmp_path):
    h = make_table(players=3, mode="virtual", game="tadika")
    store = FailingLog(tmp_path / "f.db")
    h.table.store = store
    h.table.game_id = store.start_game("tadika", h.table.config, 1, h.table.stations)
    store.room = 0
    seat = h.state.to_act
    before = h.state
    h.press(seat, 0)                                         # pass: cannot be saved
    assert h.state == before and h.table.cannot_save and "full" in h.table.cannot_save
    assert h.table.snapshot().cannot_save and h.table.message.key == "cannot_save"
    h.press(seat, 0)                                         # still full: refused, still waiting
    assert h.state == before and h.table.message.key == "cannot_save"
    store.room = 5                                           # space again
    assert h.table.check_saving() and h.table.cannot_save is None
    assert h.table.message.key == "saving_again"
    h.press(seat, 0)
    assert h.state.passes == 1
    store.close()


def test_a_headless_demo_that_cannot_save_ends_with_a_message(tmp_path, monkeypatch):
    from controller.app import demo as demo_module
    from controller.table.runner import TableStopped
    monkeypatch.setattr(demo_module, "UNATTENDED_SAVE_S", 0.5)

    class FullAfterTwenty(FailingLog):
        room = 20

    monkeypatch.setattr(demo_module, "EventLog", FullAfterTwenty)
    started = time.monotonic()
    with pytest.raises(TableStopped, match="full"):
        demo_module.run_demo("partout", players=3, seed=1, headless=True, data_dir=tmp_path, timeout=60)
    assert time.monotonic() - started < 30


def test_the_pause_banner_says_the_table_cannot_save(make_table, screen):
    from display.draw import RED
    h = make_table(players=4, mode="virtual")
    h.table.cannot_save = "cannot write: the disk is full"
    h.table._changed()
    canvas = screen.render(h.table.snapshot())
    w, hgt = canvas.get_size()
    assert tuple(canvas.get_at((w // 2 - 650 + 2, hgt // 2)))[:3] == RED


# --- Ctrl-C, and actions from outside ---------------------------------------------------------------

def test_ctrl_c_on_play_stops_at_once_with_a_message(tmp_path):
    from hardware.sim.station import SimulatedStation
    sims = [SimulatedStation(f"p{i}").start() for i in range(3)]
    proc = None
    try:
        env = dict(os.environ, SPIELTISCH_DATA=str(tmp_path), SDL_VIDEODRIVER="dummy")
        proc = subprocess.Popen([sys.executable, "-m", "controller.app.cli", "play", "partout", "--players", "3",
                                 *[arg for s in sims for arg in ("--port", s.port)]],
                                cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # the table is up: it lit the LEDs (however long a busy machine takes to start it;
        # the bound only keeps a table that never comes up from hanging the run)
        deadline = time.monotonic() + 180
        for s in sims:
            while not s.wait_for(lambda station: bool(station.commands), timeout=0.5):
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                assert time.monotonic() < deadline, "the table never lit the LEDs"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)             # at once: the bound only catches a hang
        assert proc.returncode == 130 and "Traceback" not in err
        assert err.strip().splitlines()[-1].startswith("spieltisch: stopped")
    finally:
        if proc is not None and proc.poll() is None:   # not stopped: it must not keep the ptys others reuse
            proc.kill()
            proc.communicate()
        for s in sims:
            s.close()


@pytest.mark.parametrize("game, data", [
    ("partout", {"type": "bid", "player": 1, "tricks": "2"}),
    ("partout", {"type": "bid", "player": 1, "tricks": 2.0}),
    ("partout", {"type": "bid", "player": 1}),
    ("partout", {"type": "bid", "player": 1, "tricks": 2, "extra": 0}),
    ("crazy-kick", {"type": "play", "player": "0", "pile": 1}),
    ("crazy-kick", {"type": "flip", "player": 0, "pile": True}),
    ("tadika", {"type": "pass", "player": 0.0}),
])
def test_actions_from_outside_are_checked_in_every_game(game, data):
    with pytest.raises(IllegalAction) as caught:
        find_game(game).action_from_json(data)
    assert caught.value.key == "unknown_action"


def test_a_new_file_read_between_its_two_creation_steps_is_not_refused(tmp_path):
    """A new file gets today's tables at step 1 and its later versions step by step; another
    program (`spieltisch results`) opening it in between must not call it damaged."""
    from controller.table.eventlog import _create_schema
    db = sqlite3.connect(tmp_path / "half.db")
    _create_schema(db)
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    with EventLog(tmp_path / "half.db") as log:
        assert log._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        log.colour_station("st", "red")


def test_ctrl_c_stops_the_table_even_when_the_interrupt_itself_was_lost():
    """About one Ctrl-C in 40 reached `play` while it started up and was swallowed there;
    the table then ran on. The handler also sets a flag the loop looks at."""
    import queue
    from controller.games import find_game
    from controller.table.runner import INTERRUPTED, TableRunner
    from controller.table.table import Table
    table = Table(find_game("partout"), config={"players": 3, "mode": "virtual"}, seed=1, stations=["a", "b", "c"])
    runner = TableRunner(table, queue.Queue(), {})
    INTERRUPTED.set()
    try:
        with pytest.raises(KeyboardInterrupt):
            runner.run(until_finished=True, timeout=5)
    finally:
        INTERRUPTED.clear()


def test_a_demo_whose_window_cannot_open_says_so_in_one_line(tmp_path):
    """A screen that is there by the environment (DISPLAY) but cannot be opened: the game's
    screen, in a process of its own, says why, and the command stops with one line."""
    env = dict(os.environ, SDL_VIDEODRIVER="x11", DISPLAY=":97", SPIELTISCH_DATA=str(tmp_path))
    proc = subprocess.run([sys.executable, "-m", "controller.app.cli", "demo", "crazy-kick"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    one_clear_line(proc, 1, "the screen cannot be opened", "--headless")


def test_the_demo_fills_the_screen_and_window_asks_for_a_window(monkeypatch, capsys):
    """Issue 30: the demo opened a 1280×720 window on a 1080p screen."""
    from controller.app import cli, demo, play
    given = []
    monkeypatch.setattr(demo, "run_demo", lambda game, **kw: given.append(kw) or {"game": game})
    monkeypatch.setattr(play, "headless_reason", lambda headless: None)          # as with a screen
    assert cli.main(["demo", "partout", "--seed", "1"]) == 0
    assert cli.main(["demo", "partout", "--seed", "1", "--window"]) == 0
    assert [kw["fullscreen"] for kw in given] == [True, False]


def test_a_mistake_found_while_setting_up_a_headless_demo_is_its_one_line(tmp_path):
    """The headless notice comes once the game begins: before, a mistake is said alone."""
    proc = spieltisch("demo", "tadika", "--resume", data=tmp_path)              # no --headless: no screen here
    assert proc.stderr.count("\n") == 1 and "no unfinished" in proc.stderr and "headless" not in proc.stderr
