"""Issue 42: the table's data is its user's alone, whatever the umask: the data folder it
makes 0700, the database, its WAL and shared memory and the card key 0600, and the card
key never in a file others may read, not even for a moment."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from controller.table import cards
from controller.table.cards import CardKeys
from controller.table.eventlog import EventLog, TableLock


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def open_umask():
    """umask 0: whatever is not asked to be private is readable and writable by everyone."""
    old = os.umask(0)
    yield
    os.umask(old)


def test_a_new_data_folder_and_database_are_the_owners_alone(tmp_path, open_umask):
    folder = tmp_path / "share" / "spieltisch"
    with EventLog(folder / "spieltisch.db") as store:
        game = store.start_game("partout", {"players": 2}, 1, ["a", "b"])
        store.append(game, {"type": "pass"})
        sides = [folder / f"spieltisch.db{side}" for side in ("-wal", "-shm")]
        assert all(side.exists() for side in sides)                      # WAL mode, open: both there
        assert {path.name: mode(path) for path in [folder / "spieltisch.db", *sides]} == \
            {"spieltisch.db": 0o600, "spieltisch.db-wal": 0o600, "spieltisch.db-shm": 0o600}
    assert mode(folder) == 0o700
    with TableLock(tmp_path / "other"):
        assert mode(tmp_path / "other") == 0o700


def test_an_older_database_open_to_others_is_made_private_when_opened(tmp_path, open_umask):
    path = tmp_path / "spieltisch.db"
    with EventLog(path) as store:
        store.start_game("partout", {"players": 2}, 1, ["a", "b"])
    for file in tmp_path.glob("spieltisch.db*"):
        file.chmod(0o644)                               # as an older version left them
    with EventLog(path):
        assert {file.name: mode(file) for file in tmp_path.glob("spieltisch.db*")} == \
            {name: 0o600 for name in ("spieltisch.db", "spieltisch.db-wal", "spieltisch.db-shm")}


def test_a_folder_that_was_there_keeps_its_mode(tmp_path, open_umask):
    """It may be one the owner chose for more than the table (--data-dir)."""
    folder = tmp_path / "chosen"
    folder.mkdir(mode=0o755)
    with EventLog(folder / "spieltisch.db"):
        pass
    assert mode(folder) == 0o755 and mode(folder / "spieltisch.db") == 0o600


def test_the_card_key_is_never_in_a_file_others_may_read(tmp_path, open_umask, monkeypatch):
    """It was written to card-keys.tmp as the umask left it (0644, here 0666) and chmod'ed
    after: readable by everyone for a moment, and for good if the chmod never came. With
    chmod doing nothing, every file that ever held the key must have been 0600 when it got
    its name."""
    monkeypatch.setattr(cards.os, "chmod", lambda *a, **k: None)
    seen: dict[str, int] = {}
    replace = os.replace

    def watched(src, dst):
        seen[Path(src).name] = mode(Path(src))
        replace(src, dst)
    monkeypatch.setattr(cards.os, "replace", watched)
    keys = CardKeys.load(tmp_path / "data")
    key = keys.own
    assert seen == {"card-keys.tmp": 0o600}
    assert mode(tmp_path / "data" / "card-keys.json") == 0o600 and mode(tmp_path / "data") == 0o700
    assert [p.name for p in (tmp_path / "data").iterdir()] == ["card-keys.json"]
    assert CardKeys.load(tmp_path / "data").own == key


def test_a_save_a_power_cut_broke_off_is_no_hindrance(tmp_path, open_umask):
    (tmp_path / "card-keys.tmp").write_text("half")
    (tmp_path / "card-keys.tmp").chmod(0o666)
    key = CardKeys.load(tmp_path).own
    assert CardKeys.load(tmp_path).own == key and mode(tmp_path / "card-keys.json") == 0o600
    assert not (tmp_path / "card-keys.tmp").exists()


def test_an_exported_key_over_a_file_open_to_others_is_private_before_the_key_is_in_it(tmp_path, open_umask,
                                                                                     monkeypatch):
    target = tmp_path / "for-grandma.json"
    target.write_text("old")
    target.chmod(0o644)
    monkeypatch.setattr(cards.os, "chmod", lambda *a, **k: None)     # no fixing up afterwards
    CardKeys.load(tmp_path / "data").export(target)
    assert mode(target) == 0o600
