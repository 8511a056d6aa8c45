from __future__ import annotations

import pytest

from controller.table.eventlog import EventLog, default_data_dir


def test_append_undo_load_finish(tmp_path):
    with EventLog(tmp_path / "t.db") as store:
        gid = store.start_game("partout", {"players": 4}, 7, ["a", "b", "c", "d"])
        store.append(gid, {"type": "trump_number", "player": 1, "number": 3})
        store.append(gid, {"type": "trump_colour", "player": 2, "colour": "red"})
        store.append_undo(gid)
        saved = store.load(gid)
        assert saved.actions == [{"type": "trump_number", "player": 1, "number": 3}]
        assert store.unfinished("partout")[0].id == gid and not saved.finished
        store.finish(gid, {"scores": [1, 2]})
        assert store.unfinished() == []
    with EventLog(tmp_path / "t.db") as again:       # a fresh process sees the same
        assert again.load(gid).finished
        assert again.results()[0]["scores"] == [1, 2]


def test_registry_and_station_names(tmp_path):
    with EventLog(tmp_path / "t.db") as store:
        store.register_card("04aa", "partout", "king")
        store.register_card("04AA", "partout", "queen")     # re-learning a tag replaces it
        assert store.card_for_uid("04aa") == ("partout", "queen")
        store.name_station("e66138", "Oma")
        assert store.station_names() == {"e66138": "Oma"}


def test_data_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    assert default_data_dir() == tmp_path
    monkeypatch.delenv("SPIELTISCH_DATA")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "x"))
    assert default_data_dir() == tmp_path / "x" / "spieltisch"


def test_learning_a_deck_registers_every_tapped_tag(tmp_path, monkeypatch, capsys):
    """`spieltisch cards learn`: a tag tapped twice is refused, every card gets its own tag."""
    import threading
    from controller.app.cli import main
    from controller.games import find_game
    from hardware.sim.station import SimulatedStation

    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    deck = find_game("partout").card_names()
    assert len(deck) == 42 and deck[0] == "black1"
    with SimulatedStation("learner") as station:
        def tapper():
            # after the table's greeting: one tag per card, the first one tapped twice;
            # the frames arrive in order, so the learner sees them as a person taps them
            station.wait_for(lambda s: bool(s.sent("WHO")), timeout=5)
            for i, _ in enumerate(deck):
                station.tap(f"04{i:012X}")
                if i == 0:
                    station.tap("04000000000000")          # the same tag again: refused
        thread = threading.Thread(target=tapper, daemon=True)
        thread.start()
        assert main(["cards", "learn", "partout", "--port", station.port]) == 0
        thread.join(5)
        assert ("LED", ("ff0000", "300")) in station.commands
    with EventLog(tmp_path / "spieltisch.db") as store:
        learned = store.cards("partout")
    assert sorted(learned.values()) == sorted(deck)
    assert learned["04000000000000"] == deck[0]


def test_the_logs_wal_is_written_again_from_its_front_once_it_holds_wal_pages(tmp_path, monkeypatch):
    """The log's WAL is checkpointed at ``eventlog.WAL_PAGES`` pages, the mark the bench's
    bare flush follows (below): a hundred moves of two pages each leave it no longer than
    that and a move, and every move is in the log."""
    import controller.table.eventlog as eventlog
    monkeypatch.setattr(eventlog, "WAL_PAGES", 20)
    with EventLog(tmp_path / "t.db") as store:
        gid = store.start_game("partout", {"players": 4}, 7, ["a", "b", "c", "d"])
        for n in range(100):
            store.append(gid, {"type": "bid", "player": n % 4, "tricks": n})
        frame = 24 + store._db.execute("PRAGMA page_size").fetchone()[0]
        assert (tmp_path / "t.db-wal").stat().st_size <= 32 + (20 + 2) * frame
        assert len(store.load(gid).actions) == 100


def test_the_benchs_bare_flush_writes_where_the_logs_wal_writes(tmp_path, monkeypatch):
    """The commit's yardstick (``spieltisch bench --only table``) writes two WAL frames a
    move as the log's WAL does: appended until the WAL holds ``eventlog.WAL_PAGES`` pages,
    then again from its front, so both pay the same kind of flush, whatever the log's WAL
    is set to."""
    import controller.table.eventlog as eventlog
    from controller.bench.table import WAL_FRAME, BareFsync
    monkeypatch.setattr(eventlog, "WAL_PAGES", 6)
    bare = BareFsync(str(tmp_path))
    try:
        for _ in range(10):
            bare()
        assert (tmp_path / "bare-wal").stat().st_size == 6 * WAL_FRAME
    finally:
        bare.close()


def test_the_commit_bench_takes_each_action_apart():
    """``spieltisch bench --only table`` takes each action's frame → committed apart: the
    reader thread's hand-off to the table's thread, the log's own write (every action
    writes the log) and the table's work around it, each a part of that action's whole."""
    from controller.bench.table import frame_latencies_ms
    times = frame_latencies_ms(True, games=1)
    assert len(times.committed) > 100
    assert len(times.handoff) == len(times.log_write) == len(times.table_work) == len(times.bare) == \
        len(times.committed)
    for whole, *parts in zip(times.committed, times.handoff, times.log_write, times.table_work):
        assert all(part > 0 for part in parts) and sum(parts) == pytest.approx(whole)
