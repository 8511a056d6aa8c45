"""The table's memory: one SQLite file, append-only.

Every accepted action is committed durably (WAL, ``synchronous=FULL``: the commit has
reached the disk before the table acknowledges the input), so a power cut loses nothing
that a player saw accepted. The presses a real-time game's arbiter releases together are
committed in one transaction (``begin``/``commit``), their acknowledgements after it. An
unfinished game is resumed by replaying its log.
Undo is an appended marker, never a deletion, so the log tells what happened.

The file is marked as ours (SQLite's ``application_id``) and carries its schema version
(``user_version``). Opening it checks both, the tables' columns and the file's integrity
before anything is written, so a damaged file or another program's database is refused
with a message and left exactly as it was; schema versions are migrated explicitly, one
step at a time. Each log entry's number comes from the database in the statement that
writes it, so two writers can never write the same one; :class:`TableLock` keeps a second
table off a data directory in the first place.

The move that ends a game and the game's result are one transaction (``append_final``),
so no kill can leave a finished game without its result; an undo that takes that move
back takes the result back with it. An open of a new file that fails (a full disk)
removes the file again, so no empty database is left behind.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sqlite3
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from controller.games import texts
from controller.table.names import readable_name

APPLICATION_ID = 0x53505453          # "SPTS": this file is Spieltisch's
SCHEMA_VERSION = 3
# The WAL is checkpointed into the database once it holds this many pages: SQLite's own
# default, named here so the bench's bare flush writes where the WAL writes
# (controller/bench/table.py). The checkpoint runs inside the commit that crosses the mark,
# after that commit's own flush: its answer waits two flushes more, the next answer one more
# (the WAL's new header). Fewer pages would let most commits write over the WAL's blocks
# instead of growing the file (a cheaper flush) but put ten times the checkpoints into the
# answers: why 1,000 stays is in docs/architecture.md, "Durable before the answer".
WAL_PAGES = 1000

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id          INTEGER PRIMARY KEY,
    game        TEXT NOT NULL,
    config      TEXT NOT NULL,
    seed        INTEGER NOT NULL,
    seats       TEXT NOT NULL,
    started_at  REAL NOT NULL,
    finished_at REAL,
    result      TEXT
);
CREATE TABLE IF NOT EXISTS log (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq     INTEGER NOT NULL,
    kind    TEXT NOT NULL CHECK (kind IN ('action', 'undo')),
    action  TEXT,
    at      REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS cards (
    uid  TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    card TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS stations (
    station TEXT PRIMARY KEY,
    name    TEXT,
    colour  TEXT
);
CREATE TABLE IF NOT EXISTS health (
    id INTEGER PRIMARY KEY,
    at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS people (
    id        INTEGER PRIMARY KEY,
    name      TEXT NOT NULL UNIQUE COLLATE NOCASE,
    colour    TEXT,
    last_seen REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS players (
    game_id   INTEGER NOT NULL REFERENCES games(id),
    seat      INTEGER NOT NULL,
    person_id INTEGER NOT NULL REFERENCES people(id),
    PRIMARY KEY (game_id, seat)
)
"""

COLUMNS = {
    "games": ["id", "game", "config", "seed", "seats", "started_at", "finished_at", "result"],
    "log": ["game_id", "seq", "kind", "action", "at"],
    "cards": ["uid", "game", "card"],
    "stations": ["station", "name", "colour"],
    "health": ["id", "at"],          # one row, rewritten to learn whether the disk takes writes
    "settings": ["key", "value"],    # the box's own choices: language, volume
    "people": ["id", "name", "colour", "last_seen"],   # who plays here: a name is a person (any case)
    "players": ["game_id", "seat", "person_id"],       # who sat at each seat of a game
}
# what a file of an older schema version holds where it differs from today's
OLDER_COLUMNS = {0: {"stations": ["station", "name"]}, 1: {"stations": ["station", "name"]}}


def default_data_dir() -> Path:
    """``$SPIELTISCH_DATA``, else ``$XDG_DATA_HOME/spieltisch``, else ``~/.local/share/spieltisch``."""
    if os.environ.get("SPIELTISCH_DATA"):
        return Path(os.environ["SPIELTISCH_DATA"])
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return Path(base) / "spieltisch"


def make_data_folder(folder: Path) -> None:
    """The data folder, made for its owner only (0700, whatever the umask): the games, the
    people's names and the card key are nobody else's. A folder that is there already keeps
    its mode (it may be one the owner chose for more than the table); what the table keeps
    in it is 0600 (``keep_private``)."""
    if not folder.is_dir():
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(folder, 0o700)


def keep_private(path: Path) -> None:
    """``path``, when it is there and this user's, readable and writable by its owner only."""
    with contextlib.suppress(OSError):
        info = path.stat()
        if info.st_uid == os.geteuid() and info.st_mode & 0o777 != 0o600:
            os.chmod(path, 0o600)


def demo_data_dir() -> Path:
    """Where demos keep their games: ``$SPIELTISCH_DATA`` when one is chosen (``--data-dir``
    sets it), else a folder beside the family's, ``…/spieltisch-demo``: bots' games never mix
    into the family's "Games played", and a demo never waits for the box's lock."""
    if os.environ.get("SPIELTISCH_DATA"):
        return Path(os.environ["SPIELTISCH_DATA"])
    family = default_data_dir()
    return family.with_name(family.name + "-demo")


class StorageError(RuntimeError):
    """The data directory or the database cannot be used; the message says why and what to do.
    ``key`` and ``params`` name its sentence in the catalogues (``message(lang)``; ``str()``
    is English); ``details`` is what a developer needs beyond that one line (SQLite's
    integrity report), for a log file, never for the screen."""

    def __init__(self, text: str, *, key: str | None = None, params: dict[str, Any] | None = None,
                 details: str | None = None) -> None:
        super().__init__(text)
        self.key, self.params, self.details = key, dict(params or {}), details

    @classmethod
    def said(cls, key: str, *, details: str | None = None, **params: Any) -> "StorageError":
        return cls(texts.render("en", key, params), key=key, params=params, details=details)

    def message(self, lang: str = "en") -> str:
        return texts.render(lang, self.key, self.params) if self.key else str(self)


class BrokenLog(StorageError):
    """A game's log cannot be read or replayed: names the game and the entry where it breaks."""

    def __init__(self, game_id: int, game: str, index: int, entry: Any, reason: str) -> None:
        self.game_id, self.game, self.index, self.entry, self.reason = game_id, game, index, entry, reason
        where = "its setup" if index < 0 else f"move {index + 1} {entry}"
        super().__init__(f"game {game_id} ({game}) cannot be replayed: {where}: {reason}")


# An I/O error while the disk has less room than this is the disk being full: SQLite says
# "disk I/O error" when the full disk refuses its shared-memory file (SQLITE_IOERR_SHMSIZE),
# "database or disk is full" only when the database file itself cannot grow.
LITTLE_ROOM_BYTES = 1 << 20


def storage_error(path: Path | str, exc: BaseException) -> StorageError:
    """What a failed read or write of ``path`` means to an owner, in one sentence."""
    if isinstance(exc, StorageError):
        return exc
    reason = str(exc) or type(exc).__name__
    code = getattr(exc, "sqlite_errorname", "") or ""
    if isinstance(exc, sqlite3.DatabaseError) and "not a database" in reason:
        return StorageError.said("storage_not_a_database", path=str(path))
    if code.startswith("SQLITE_CORRUPT") or "malformed" in reason:
        return StorageError.said("storage_damaged", path=str(path))
    io_error = isinstance(exc, OSError) or code.startswith("SQLITE_IOERR") or "disk I/O error" in reason
    if "disk is full" in reason or getattr(exc, "errno", None) == errno.ENOSPC or \
            (io_error and _little_room(Path(path))):
        return StorageError.said("storage_disk_full", path=str(path))
    if "readonly" in reason or "read-only" in reason or isinstance(exc, PermissionError):
        return StorageError(f"cannot write to {path}: it is read-only ({reason}). Choose another --data-dir.")
    return StorageError(f"cannot use {path}: {reason}")


def directory_error(folder: Path, exc: BaseException) -> StorageError:
    """A data directory that cannot be made or written to: a full disk says so."""
    if getattr(exc, "errno", None) == errno.ENOSPC:
        return storage_error(folder, exc)
    return StorageError(f"cannot use the data directory {folder}: {exc}. Choose another with --data-dir.")


SIDE_FILES = ("-wal", "-shm", "-journal")        # what SQLite keeps beside a database file


def _remove(files: list[Path]) -> None:
    for file in files:
        with contextlib.suppress(OSError):
            file.unlink(missing_ok=True)


def _little_room(path: Path) -> bool:
    """Whether the file system ``path`` is on (or would be on) has almost no room left."""
    for folder in (path, *path.parents):
        try:
            disk = os.statvfs(folder)
        except OSError:
            continue
        return disk.f_bavail * disk.f_frsize < LITTLE_ROOM_BYTES
    return False


@dataclass(frozen=True)
class SavedGame:
    id: int
    game: str
    config: dict[str, Any]
    seed: int
    seats: list[str | None]
    started_at: float
    actions: list[dict[str, Any]]     # with undos already taken out
    finished: bool


class EventLog:
    def __init__(self, path: str | os.PathLike[str] | None = None, *, durable: bool = True) -> None:
        if path is None:
            path = default_data_dir() / "spieltisch.db"
        self.path = Path(path)
        # A new database whose open fails (a full disk) is removed again, with what SQLite
        # put beside it: no empty or half-made file is left for the next start to trip on.
        # Beside a database that was there, nothing is removed: another process may be
        # writing to its log.
        made = [] if str(path) == ":memory:" or self.path.exists() else \
            [self.path, *(Path(f"{self.path}{side}") for side in SIDE_FILES)]
        try:
            if str(path) != ":memory:":
                make_data_folder(self.path.parent)
                # made 0600 before SQLite writes a byte; its WAL and shared memory take the
                # database's mode (SQLite gives them the same), and older files are set so too
                if made:
                    os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
                    os.chmod(self.path, 0o600)
                keep_private(self.path)
            self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        except (OSError, sqlite3.Error) as exc:
            _remove(made)
            raise directory_error(self.path.parent, exc) from exc
        try:
            self._check_before_writing()
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA wal_autocheckpoint={WAL_PAGES}")
            self._db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._migrate()
        except (OSError, sqlite3.Error, StorageError) as exc:
            self._db.close()
            _remove(made)
            raise storage_error(self.path, exc) from exc
        if str(path) != ":memory:":
            for side in SIDE_FILES:
                keep_private(Path(f"{self.path}{side}"))

    def _check_before_writing(self) -> None:
        """Ours (or empty), of a version we know, with the columns we expect, and whole;
        otherwise a StorageError, and the file is untouched: nothing here writes."""
        app, version = (self._db.execute(f"PRAGMA {name}").fetchone()[0] for name in ("application_id", "user_version"))
        tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        # a file from before it was marked has no application id and (some of) our tables
        if app != APPLICATION_ID and (app != 0 or not tables <= set(COLUMNS)):
            raise StorageError(f"{self.path} belongs to another program (tables: {', '.join(sorted(tables))}); "
                               "Spieltisch leaves it unchanged. Choose another --data-dir.")
        if version > SCHEMA_VERSION:
            raise StorageError(f"{self.path} was written by a newer Spieltisch (schema {version}; this one knows "
                               f"{SCHEMA_VERSION}). Update Spieltisch.")
        for table in sorted(tables):
            columns = [r[1] for r in self._db.execute(f"PRAGMA table_info({table})")]
            # a file of an older version has that version's columns, or already today's (a
            # new file is made with today's tables at step 1, before step 2 is recorded)
            older = OLDER_COLUMNS.get(version, {}).get(table, COLUMNS[table])
            expected = older
            if columns not in (older, COLUMNS[table]):
                raise StorageError(f"{self.path}: the table {table} has the columns {', '.join(columns)}, not "
                                   f"{', '.join(expected)}; Spieltisch leaves it unchanged. "
                                   "Choose another --data-dir.")
        if tables:
            problems = [r[0] for r in self._db.execute("PRAGMA quick_check")]
            if problems != ["ok"]:           # SQLite's report runs to dozens of lines: for the log
                raise StorageError.said("storage_damaged", path=str(self.path), details="\n".join(problems))

    def _migrate(self) -> None:
        """From the file's schema version to ours, one step at a time, each in one transaction."""
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        for target in range(version + 1, SCHEMA_VERSION + 1):
            with self._transaction():
                MIGRATIONS[target](self._db)
                self._db.execute(f"PRAGMA user_version = {target}")
                self._db.execute(f"PRAGMA application_id = {APPLICATION_ID}")

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """The writes inside as one durable transaction; inside a batch (``begin``), part of
        the batch's. A failure takes them all back: SQLite has already rolled back after
        some (a full disk), and a ROLLBACK then would only hide why."""
        if self._db.in_transaction:
            yield
            return
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> "EventLog":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def probe(self) -> str | None:
        """Whether a durable write goes through now: None, or the reason it does not."""
        try:
            self._db.execute("INSERT OR REPLACE INTO health (id, at) VALUES (1, ?)", (time.time(),))
            return None
        except sqlite3.Error as exc:
            return str(storage_error(self.path, exc))

    # -- games ------------------------------------------------------------------------------------
    def start_game(self, game: str, config: dict[str, Any], seed: int, seats: list[str | None]) -> int:
        try:
            cur = self._db.execute(
                "INSERT INTO games (game, config, seed, seats, started_at) VALUES (?, ?, ?, ?, ?)",
                (game, json.dumps(config, sort_keys=True), seed, json.dumps(seats), time.time()))
        except sqlite3.Error as exc:         # the first write of a start: a full disk says so
            raise storage_error(self.path, exc) from exc
        return int(cur.lastrowid)  # type: ignore[arg-type]

    def append(self, game_id: int, action: dict[str, Any]) -> int:
        return self._append(game_id, "action", json.dumps(action, sort_keys=True))

    def append_final(self, game_id: int, action: dict[str, Any], result: dict[str, Any]) -> int:
        """The action that ends the game and the game's result, in one transaction: a kill
        leaves both or neither."""
        with self._transaction():
            seq = self._append(game_id, "action", json.dumps(action, sort_keys=True))
            self.finish(game_id, result)
        return seq

    def append_undo(self, game_id: int, *, reopens: bool = False) -> int:
        """``reopens``: the move taken back ended the game; its result goes with it, in the
        same transaction, and the game is unfinished again."""
        with self._transaction():
            seq = self._append(game_id, "undo", None)
            if reopens:
                self._db.execute("UPDATE games SET finished_at = NULL, result = NULL WHERE id = ?", (game_id,))
        return seq

    def _append(self, game_id: int, kind: str, payload: str | None) -> int:
        # One statement (autocommit: one durable transaction) whose number comes from the
        # database as it writes, so no two writers can ever use the same number.
        cur = self._db.execute(
            "INSERT INTO log (game_id, seq, kind, action, at) "
            "SELECT ?, COALESCE(MAX(seq) + 1, 0), ?, ?, ? FROM log WHERE game_id = ?",
            (game_id, kind, payload, time.time(), game_id))
        return int(self._db.execute("SELECT seq FROM log WHERE rowid = ?", (cur.lastrowid,)).fetchone()[0])

    def begin(self) -> None:
        """Hold the writes that follow for one durable commit (``commit``): a batch."""
        self._db.execute("BEGIN IMMEDIATE")

    def commit(self) -> None:
        if self._db.in_transaction:
            self._db.execute("COMMIT")

    def rollback(self) -> None:
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")

    def finish(self, game_id: int, result: dict[str, Any]) -> None:
        self._db.execute("UPDATE games SET finished_at = ?, result = ? WHERE id = ?",
                         (time.time(), json.dumps(result, sort_keys=True), game_id))

    def abandon(self, game_id: int, reason: str | None = None) -> None:
        """Set a game aside: it stays in the database and is never resumed."""
        self.finish(game_id, {"abandoned": True, **({"reason": reason} if reason else {})})

    def unfinished_ids(self, game: str | None = None, *, demo: bool | None = None) -> list[int]:
        """Unfinished games, newest first; their logs are not read, so a broken one shows too."""
        sql = "SELECT id, config FROM games WHERE finished_at IS NULL"
        args: tuple[Any, ...] = ()
        if game is not None:
            sql += " AND game = ?"
            args = (game,)
        found = []
        for game_id, config in self._db.execute(sql + " ORDER BY id DESC", args):
            try:
                is_demo = bool(json.loads(config).get("demo"))
            except (ValueError, AttributeError):
                is_demo = False
            if demo is None or is_demo == demo:
                found.append(game_id)
        return found

    def unfinished(self, game: str | None = None) -> list[SavedGame]:
        return [self.load(game_id) for game_id in self.unfinished_ids(game)]

    def load(self, game_id: int) -> SavedGame:
        row = self._db.execute("SELECT id, game, config, seed, seats, started_at, finished_at FROM games WHERE id = ?",
                               (game_id,)).fetchone()
        if row is None:
            raise KeyError(f"no game {game_id} in {self.path}")
        actions: list[dict[str, Any]] = []
        rows = self._db.execute("SELECT kind, action FROM log WHERE game_id = ? ORDER BY seq", (game_id,))
        for index, (kind, payload) in enumerate(rows):
            if kind == "undo":
                if actions:
                    actions.pop()
                continue
            try:
                action = json.loads(payload)
            except (TypeError, ValueError) as exc:
                raise BrokenLog(game_id, row[1], index, payload, f"unreadable ({exc})") from exc
            if not isinstance(action, dict):
                raise BrokenLog(game_id, row[1], index, payload, "not an action")
            actions.append(action)
        try:
            config, seats = json.loads(row[2]), json.loads(row[4])
        except (TypeError, ValueError) as exc:
            raise BrokenLog(game_id, row[1], -1, row[2], f"unreadable ({exc})") from exc
        return SavedGame(row[0], row[1], config, row[3], seats, row[5], actions, row[6] is not None)

    def results(self, game: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
        # as bytes: a row SQLite holds as text that is not UTF-8 is one unreadable row, not a failed read
        sql = "SELECT id, CAST(game AS BLOB), finished_at, CAST(result AS BLOB) FROM games WHERE result IS NOT NULL"
        args: tuple[Any, ...] = ()
        if game:
            sql += " AND game = ?"
            args = (game,)
        # newest ending first: a game resumed days later ended then, not when it began (issue 40)
        rows = self._db.execute(sql + " ORDER BY finished_at DESC, id DESC LIMIT ?", (*args, limit))
        out = []
        for game_id, name, finished_at, result in rows:
            result = bytes(result).decode("utf-8", "replace")
            try:
                shown = json.loads(result)
            except ValueError:
                shown = {"unreadable": result}
            out.append({"id": game_id, "game": bytes(name).decode("utf-8", "replace"), "finished_at": finished_at,
                        **(shown if isinstance(shown, dict) else {"result": shown})})
        return out

    # -- cards and stations -----------------------------------------------------------------------
    def late_presses(self, games: int = 50) -> dict[str, tuple[int, int]]:
        """Per station id, over the last ``games`` finished real-time games it played: the
        presses that came after their race was decided, and how many games (a station with
        many is on a slow link: docs/stations.md)."""
        out: dict[str, tuple[int, int]] = {}
        rows = self._db.execute("SELECT seats, result FROM games WHERE result LIKE ? ORDER BY id DESC LIMIT ?",
                                ('%"late_presses"%', games))
        for seats_json, result_json in rows:
            try:
                seats, result = json.loads(seats_json), json.loads(result_json)
                late = {int(seat): int(n) for seat, n in result["late_presses"].items()}
            except (TypeError, ValueError, AttributeError, KeyError):
                continue                     # a result this version cannot read: not counted
            for seat, station in enumerate(seats):
                if station:
                    presses, played = out.get(station, (0, 0))
                    out[station] = (presses + late.get(seat, 0), played + 1)
        return out

    def register_card(self, uid: str, game: str, card: str) -> None:
        self._db.execute("INSERT INTO cards (uid, game, card) VALUES (?, ?, ?) "
                         "ON CONFLICT(uid) DO UPDATE SET game = excluded.game, card = excluded.card",
                         (uid.upper(), game, card))

    def card_for_uid(self, uid: str) -> tuple[str, str] | None:
        row = self._db.execute("SELECT game, card FROM cards WHERE uid = ?", (uid.upper(),)).fetchone()
        return None if row is None else (row[0], row[1])

    def all_cards(self) -> dict[str, tuple[str, str]]:
        """The whole registry: UID → (game, card)."""
        return {uid: (game, card) for uid, game, card in self._db.execute("SELECT uid, game, card FROM cards")}

    def forget_cards(self, game: str) -> None:
        """A deck enrolled afresh: its old tags no longer name its cards."""
        self._db.execute("DELETE FROM cards WHERE game = ?", (game,))

    def cards(self, game: str) -> dict[str, str]:
        return dict(self._db.execute("SELECT uid, card FROM cards WHERE game = ?", (game,)).fetchall())

    def name_station(self, station: str, name: str) -> None:
        self._db.execute("INSERT INTO stations (station, name) VALUES (?, ?) "
                         "ON CONFLICT(station) DO UPDATE SET name = excluded.name", (station, name))

    def station_names(self) -> dict[str, str]:
        """Station → the name that sat there last (readable, ``controller/table/names.py``)."""
        rows = self._db.execute("SELECT station, CAST(name AS BLOB) FROM stations WHERE name IS NOT NULL")
        return {station: name for station, stored in rows if (name := readable_name(stored))}

    def colour_station(self, station: str, colour: str) -> None:
        self._db.execute("INSERT INTO stations (station, colour) VALUES (?, ?) "
                         "ON CONFLICT(station) DO UPDATE SET colour = excluded.colour", (station, colour))

    def station_colours(self) -> dict[str, str]:
        return dict(self._db.execute("SELECT station, colour FROM stations WHERE colour IS NOT NULL").fetchall())

    # -- the box's settings ----------------------------------------------------------------------
    # -- the people who play here ----------------------------------------------------------------
    def person(self, name: str, colour: str | None = None) -> int:
        """The person of this name (the same in any case), made the first time; seen now, and
        their colour (a name of ``controller.app.seating.COLOURS``) when given."""
        now = time.time()
        self._db.execute("INSERT INTO people (name, colour, last_seen) VALUES (?, ?, ?) "
                         "ON CONFLICT(name) DO UPDATE SET last_seen = excluded.last_seen, "
                         "colour = COALESCE(excluded.colour, people.colour)", (name, colour, now))
        return int(self._db.execute("SELECT id FROM people WHERE name = ?", (name,)).fetchone()[0])

    def people(self) -> list[tuple[str, str | None]]:
        """Everyone the table knows, (name, colour), who played last first; each name readable
        (``controller/table/names.py``), once (in any case), none empty."""
        out: dict[str, tuple[str, str | None]] = {}
        for stored, colour in self._db.execute(
                "SELECT CAST(name AS BLOB), colour FROM people ORDER BY last_seen DESC, name"):
            name = readable_name(stored)
            if name and name.casefold() not in out:
                out[name.casefold()] = (name, colour if isinstance(colour, str) else None)
        return list(out.values())

    def seat_people(self, game_id: int, people: dict[int, int]) -> None:
        """Who sits at each seat of a game (seat → person id), in one transaction."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._db.executemany("INSERT OR REPLACE INTO players (game_id, seat, person_id) VALUES (?, ?, ?)",
                                 [(game_id, seat, person) for seat, person in sorted(people.items())])
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    def players_of(self, game_ids: list[int]) -> dict[int, dict[int, tuple[str, str | None]]]:
        """Per game, who sat where: seat → (name, colour), the name readable
        (``controller/table/names.py``); games nobody was recorded for are absent."""
        out: dict[int, dict[int, tuple[str, str | None]]] = {}
        for start in range(0, len(game_ids), 500):                  # SQLite's limit on parameters
            chunk = game_ids[start:start + 500]
            rows = self._db.execute(
                "SELECT players.game_id, players.seat, CAST(people.name AS BLOB), people.colour FROM players "
                f"JOIN people ON people.id = players.person_id WHERE players.game_id IN ({','.join('?' * len(chunk))})",
                chunk)
            for game_id, seat, stored, colour in rows:
                if isinstance(seat, int):                           # a damaged row names no seat
                    out.setdefault(game_id, {})[seat] = (readable_name(stored), colour if isinstance(colour, str) else None)
        return out

    def setting(self, key: str, default: str | None = None) -> str | None:
        row = self._db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_setting(self, key: str, value: str) -> None:
        self._db.execute("INSERT INTO settings (key, value) VALUES (?, ?) "
                         "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))


def _create_schema(db: sqlite3.Connection) -> None:
    for statement in SCHEMA.split(";"):
        if statement.strip():
            db.execute(statement)


# schema version → the step that reaches it from the one before
def _colours_and_settings(db: sqlite3.Connection) -> None:
    """Version 2: a station remembers its colour as well as its name; the box its settings."""
    if "colour" not in [r[1] for r in db.execute("PRAGMA table_info(stations)")]:
        db.execute("ALTER TABLE stations ADD COLUMN colour TEXT")
    _create_schema(db)


def _people(db: sqlite3.Connection) -> None:
    """Version 3: the people who play here, and who sat at each seat of a game. The names the
    stations remember become the first people (with the station's colour), so the family's
    names are offered at the next seating. Older games get no players: their names were
    picked from a fixed list by whoever sat down, so they count for nobody's leaderboard."""
    _create_schema(db)
    db.execute("INSERT OR IGNORE INTO people (name, colour, last_seen) "
               "SELECT name, colour, 0 FROM stations WHERE name IS NOT NULL AND TRIM(name) != ''")


MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {
    1: _create_schema,      # a new file, or one from before files were marked: create what is missing
    2: _colours_and_settings,
    3: _people,
}


class TableLock:
    """One table per data directory: a second ``play`` or ``demo`` on it would resume the
    same game and write the same moves. Held (``flock``) while the table runs; the lock
    file names the holder, and the kernel releases it when that process ends, however it
    ends."""

    def __init__(self, data_dir: str | os.PathLike[str]) -> None:
        self.path = Path(data_dir) / "table.lock"
        self._file: Any = None

    def __enter__(self) -> "TableLock":
        import fcntl
        try:
            make_data_folder(self.path.parent)
            handle = open(self.path, "a+", encoding="utf-8")
        except OSError as exc:
            raise directory_error(self.path.parent, exc) from exc
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            raise StorageError(f"another table is running on {self.path.parent}: {holder}. Stop it first, "
                               "or give this one its own --data-dir.") from None
        command = " ".join(sys.argv[1:]) if sys.argv and sys.argv[0].endswith("spieltisch") else "(from Python)"
        try:
            handle.seek(0)
            handle.truncate()
            handle.write(f"pid {os.getpid()}, `spieltisch {command}`, since {time.strftime('%Y-%m-%d %H:%M:%S')}\n")
            handle.flush()
        except OSError as exc:               # a full disk takes not even these few bytes
            with contextlib.suppress(OSError):
                handle.close()               # (which tries the write once more)
            raise directory_error(self.path.parent, exc) from exc
        self._file = handle
        return self

    def __exit__(self, *exc: object) -> None:
        if self._file is not None:
            self._file.close()             # closing the file releases the lock
            self._file = None
