from __future__ import annotations

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
    from hardware.sim import SimulatedStation

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
