"""The table's memory: one SQLite file, append-only.

Every accepted action is committed durably (WAL, ``synchronous=FULL``: the commit has
reached the disk before the table acknowledges the input), so a power cut loses nothing
that a player saw accepted. An unfinished game is resumed by replaying its log.
Undo is an appended marker, never a deletion, so the log tells what happened.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
    name    TEXT
);
"""


def default_data_dir() -> Path:
    """``$SPIELTISCH_DATA``, else ``$XDG_DATA_HOME/spieltisch``, else ``~/.local/share/spieltisch``."""
    if os.environ.get("SPIELTISCH_DATA"):
        return Path(os.environ["SPIELTISCH_DATA"])
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return Path(base) / "spieltisch"


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
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(SCHEMA)
        self._next_seq: dict[int, int] = {}

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> "EventLog":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- games ------------------------------------------------------------------------------------
    def start_game(self, game: str, config: dict[str, Any], seed: int, seats: list[str | None]) -> int:
        cur = self._db.execute(
            "INSERT INTO games (game, config, seed, seats, started_at) VALUES (?, ?, ?, ?, ?)",
            (game, json.dumps(config, sort_keys=True), seed, json.dumps(seats), time.time()))
        game_id = int(cur.lastrowid)  # type: ignore[arg-type]
        self._next_seq[game_id] = 0
        return game_id

    def append(self, game_id: int, action: dict[str, Any]) -> int:
        return self._append(game_id, "action", json.dumps(action, sort_keys=True))

    def append_undo(self, game_id: int) -> int:
        return self._append(game_id, "undo", None)

    def _append(self, game_id: int, kind: str, payload: str | None) -> int:
        seq = self._next_seq.get(game_id)
        if seq is None:
            row = self._db.execute("SELECT COALESCE(MAX(seq) + 1, 0) FROM log WHERE game_id = ?", (game_id,)).fetchone()
            seq = int(row[0])
        # autocommit: one statement is one durable transaction
        self._db.execute("INSERT INTO log (game_id, seq, kind, action, at) VALUES (?, ?, ?, ?, ?)",
                         (game_id, seq, kind, payload, time.time()))
        self._next_seq[game_id] = seq + 1
        return seq

    def finish(self, game_id: int, result: dict[str, Any]) -> None:
        self._db.execute("UPDATE games SET finished_at = ?, result = ? WHERE id = ?",
                         (time.time(), json.dumps(result, sort_keys=True), game_id))

    def abandon(self, game_id: int) -> None:
        self.finish(game_id, {"abandoned": True})

    def unfinished(self, game: str | None = None) -> list[SavedGame]:
        sql = "SELECT id FROM games WHERE finished_at IS NULL"
        args: tuple[Any, ...] = ()
        if game is not None:
            sql += " AND game = ?"
            args = (game,)
        return [self.load(row[0]) for row in self._db.execute(sql + " ORDER BY id DESC", args)]

    def load(self, game_id: int) -> SavedGame:
        row = self._db.execute("SELECT id, game, config, seed, seats, started_at, finished_at FROM games WHERE id = ?",
                               (game_id,)).fetchone()
        if row is None:
            raise KeyError(f"no game {game_id} in {self.path}")
        actions: list[dict[str, Any]] = []
        for kind, payload in self._db.execute("SELECT kind, action FROM log WHERE game_id = ? ORDER BY seq", (game_id,)):
            if kind == "undo":
                if actions:
                    actions.pop()
            else:
                actions.append(json.loads(payload))
        return SavedGame(row[0], row[1], json.loads(row[2]), row[3], json.loads(row[4]), row[5], actions,
                         row[6] is not None)

    def results(self, game: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
        sql = "SELECT id, game, finished_at, result FROM games WHERE result IS NOT NULL"
        args: tuple[Any, ...] = ()
        if game:
            sql += " AND game = ?"
            args = (game,)
        rows = self._db.execute(sql + " ORDER BY id DESC LIMIT ?", (*args, limit))
        return [{"id": r[0], "game": r[1], "finished_at": r[2], **json.loads(r[3])} for r in rows]

    # -- cards and stations -----------------------------------------------------------------------
    def register_card(self, uid: str, game: str, card: str) -> None:
        self._db.execute("INSERT INTO cards (uid, game, card) VALUES (?, ?, ?) "
                         "ON CONFLICT(uid) DO UPDATE SET game = excluded.game, card = excluded.card",
                         (uid.upper(), game, card))

    def card_for_uid(self, uid: str) -> tuple[str, str] | None:
        row = self._db.execute("SELECT game, card FROM cards WHERE uid = ?", (uid.upper(),)).fetchone()
        return None if row is None else (row[0], row[1])

    def cards(self, game: str) -> dict[str, str]:
        return dict(self._db.execute("SELECT uid, card FROM cards WHERE game = ?", (game,)).fetchall())

    def name_station(self, station: str, name: str) -> None:
        self._db.execute("INSERT INTO stations (station, name) VALUES (?, ?) "
                         "ON CONFLICT(station) DO UPDATE SET name = excluded.name", (station, name))

    def station_names(self) -> dict[str, str]:
        return dict(self._db.execute("SELECT station, name FROM stations").fetchall())
