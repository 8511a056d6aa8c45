"""Issue 42, "a damaged history never hides the rest": 4 odd rows of 19 in the games table
made all of `spieltisch results` (and the menu's "Games played") fail. Each bad row is left
out with a line to the log and every other game is shown. Names read back from the
database, where anything may have been put, never carry a NUL, an escape sequence or
another control character to the TV or the terminal."""

from __future__ import annotations

import json
import logging

import pygame
import pytest

from controller.app.results import as_csv, people_board, result_rows, score_line, show
from controller.table.eventlog import EventLog
from controller.table.names import readable_name

GAMES_KEPT = ("partout", "crazy-kick", "tadika", "teamplay", "team-up")


def nineteen_games(store):
    """19 finished real games, of every kind, each with its people: their ids, oldest first."""
    ids = []
    for k in range(19):
        game = GAMES_KEPT[k % 5]
        teams = [["Anna", "Ben"]] if game == "team-up" else [["Anna", "Clara"], ["Ben", "David"]]
        scores = [10 + k] if game == "team-up" else [10 + k, 20 - k]
        game_id = store.start_game(game, {"players": 4}, k, ["a", "b", "c", "d"])
        store.finish(game_id, {"game": game, "config": {"players": 4}, "seed": k, "scores": scores,
                               "winner": 0, "teams": teams, "finished": True})
        names = [name for team in teams for name in team]
        store.seat_people(game_id, {seat: store.person(name) for seat, name in enumerate(names)})
        ids.append(game_id)
    return ids


def edit(key, value):
    """A tamper: the stored result with ``key`` set to ``value`` (or taken out: ...)."""
    def tamper(store, game_id):
        row = json.loads(store._db.execute("SELECT result FROM games WHERE id = ?", (game_id,)).fetchone()[0])
        if value is ...:
            del row[key]
        else:
            row[key] = value
        store._db.execute("UPDATE games SET result = ? WHERE id = ?", (json.dumps(row), game_id))
    return tamper


def sql(statement):
    def tamper(store, game_id):
        store._db.execute(statement, (game_id,))
    return tamper


TAMPERS = {
    "not JSON": sql("UPDATE games SET result = '{\"game\": \"partout\", \"scores\": [1' WHERE id = ?"),
    "JSON, not an object": sql("UPDATE games SET result = '[3, 4]' WHERE id = ?"),
    "a number": sql("UPDATE games SET result = 42 WHERE id = ?"),
    "not UTF-8": sql("UPDATE games SET result = CAST(X'7B2267616D65223A22FF227D' AS TEXT) WHERE id = ?"),
    "scores a string": edit("scores", "many"),
    "a score a string": edit("scores", [12, "x"]),
    "a score true": edit("scores", [True, 3]),
    "no scores": edit("scores", ...),
    "scores empty": edit("scores", []),
    "teams a string": edit("teams", "Anna & Ben"),
    "a name a number": edit("teams", [[1, 2], [3, 4]]),
    "a team short": edit("teams", [["Anna"]]),
    "winner a name": edit("winner", "Anna"),
    "winner a dict": edit("winner", {"team": 0}),
    "config a string": edit("config", "demo"),
    "no game anywhere": lambda store, game_id: (edit("game", ...)(store, game_id),
                                                sql("UPDATE games SET game = '' WHERE id = ?")(store, game_id)),
    "an unknown game": edit("game", "chess"),
    "a game a list": edit("game", ["partout"]),
    "an end in words": sql("UPDATE games SET finished_at = 'yesterday' WHERE id = ?"),
    "an end past all time": sql("UPDATE games SET finished_at = 1e300 WHERE id = ?"),
}
KINDS = sorted(TAMPERS)
# every kind of damage, four at a time, at four places among the 19 (newest, oldest, between)
GROUPS = [KINDS[i:i + 4] for i in range(0, len(KINDS), 4)]


@pytest.mark.parametrize("kinds", GROUPS, ids=[" + ".join(group) for group in GROUPS])
def test_four_bad_rows_of_nineteen_are_left_out_and_said_and_every_other_game_is_shown(tmp_path, caplog, kinds):
    store = EventLog(tmp_path / "spieltisch.db")
    ids = nineteen_games(store)
    bad = [ids[0], ids[6], ids[11], ids[18]]
    for game_id, kind in zip(bad, kinds, strict=True):
        TAMPERS[kind](store, game_id)
    with caplog.at_level(logging.WARNING, logger="controller.app.results"):
        rows = result_rows(store)
    assert [row["id"] for row in rows] == [i for i in reversed(ids) if i not in bad]
    said = [r.getMessage() for r in caplog.records if r.name == "controller.app.results"]
    # one line each, whatever order the rows are read in (by their end, and a damaged end has none)
    assert sorted(int(line.split()[1]) for line in said) == sorted(bad)
    assert all(" is left out of the results: " in line for line in said)
    assert all(score_line(row) for row in rows)
    table = show(store, demo=False, game=None, fmt="table")
    assert len(table.split("\n\n")[0].splitlines()) == 1 + 15                   # the header and every good game
    assert "Anna: " in table                                                    # the leaderboard too
    assert len(as_csv(rows).splitlines()) == 1 + 15
    assert len(show(store, demo=False, game=None, fmt="json").splitlines()) == 15
    store.close()


def test_the_results_command_shows_the_good_games_of_a_damaged_history(tmp_path, capsys):
    from controller.app.cli import main
    store = EventLog(tmp_path / "spieltisch.db")
    ids = nineteen_games(store)
    for game_id, kind in zip(ids[::5], ("not UTF-8", "an unknown game", "a name a number", "not JSON"), strict=True):
        TAMPERS[kind](store, game_id)
    store.close()
    assert main(["--data-dir", str(tmp_path), "results"]) == 0
    out, err = capsys.readouterr()
    assert len(out.split("\n\n")[0].splitlines()) == 1 + 15 and "Traceback" not in out + err


ODD_NAMES = {
    "An\x00na": "Anna",
    "\x1b[2J\x1b[31mBen\x1b[0m": "[2J[31mBen[0m",
    "Cla\rra\n": "Cla ra",
    "\u202eDavid": "David",
    "Eva\tB": "Eva B",
    "\ud800Felix\u200b": "Felix",
    "\x07\x08": "",
    b"Gr\xffta": "Gr\ufffdta",
    None: "",
    7: "",
}


@pytest.mark.parametrize("stored", list(ODD_NAMES), ids=[repr(k) for k in ODD_NAMES])
def test_a_stored_name_is_read_back_as_text_that_can_be_drawn_and_printed(stored):
    name = readable_name(stored)
    assert name == ODD_NAMES[stored]
    assert name.isprintable() and name == name.strip() and "  " not in name


def names_no_one_typed(store):
    """People, a station and a result holding what the letter rows never give."""
    store.name_station("e661", "\x1b]0;owned\x07Oma")
    game_id = store.start_game("partout", {"players": 4}, 1, ["e661", "b", "c", "d"])
    teams = [["An\x00na", "\x1b[31mClara"], ["Ben\u202e", "Da\nvid"]]
    store.finish(game_id, {"game": "partout", "config": {"players": 4}, "seed": 1, "scores": [12, 9],
                           "winner": 0, "teams": teams, "finished": True})
    # written straight into the database: EventLog.person takes only names typed at a station
    for name in ["An\x00na", "\x1b[31mClara", "Ben\u202e", "Da\nvid"]:
        store._db.execute("INSERT INTO people (name, colour, last_seen) VALUES (?, 'red', 1)", (name,))
    people = {name: i for i, (name,) in enumerate(store._db.execute("SELECT name FROM people"))}
    store._db.execute("INSERT INTO people (name, colour, last_seen) VALUES ('anna', 'blue', 0)")
    rows = store._db.execute("SELECT id, name FROM people ORDER BY id").fetchall()
    store.seat_people(game_id, {seat: person for seat, (person, name) in enumerate(rows) if name in people})
    return game_id


def test_results_print_no_control_character_from_a_stored_name(tmp_path):
    store = EventLog(tmp_path / "spieltisch.db")
    names_no_one_typed(store)
    for fmt in ("table", "csv", "json"):
        out = show(store, demo=False, game=None, fmt=fmt)
        assert all(ch.isprintable() or ch == "\n" or (fmt == "csv" and ch == "\r") for ch in out), (fmt, out)
    table = show(store, demo=False, game=None, fmt="table")
    assert "Anna & [31mClara 12 : Ben & Da vid 9" in table
    assert {e["player"] for e in people_board(result_rows(store))} == {"Anna", "[31mClara", "Ben", "Da vid"}
    store.close()


def test_the_people_and_stations_the_table_offers_are_readable_once_each(tmp_path):
    store = EventLog(tmp_path / "spieltisch.db")
    game_id = names_no_one_typed(store)
    store._db.execute("INSERT INTO people (name, colour, last_seen) VALUES (?, 'red', 5)", ("\x07\x00",))
    people = store.people()
    # by when they last played, then by name as stored (ESC first); one Anna (any case), no empty name
    assert [name for name, _ in people] == ["[31mClara", "Anna", "Ben", "Da vid"]
    assert store.station_names() == {"e661": "]0;ownedOma"}
    assert [name for _, (name, _) in sorted(store.players_of([game_id])[game_id].items())] == \
        ["Anna", "[31mClara", "Ben", "Da vid"]
    store.close()


def test_the_tv_draws_the_history_and_the_seating_of_names_no_one_typed(tmp_path, screen):
    """A NUL in a name stopped pygame drawing the text, and with it the screen's process,
    started again to draw the same snapshot."""
    from controller.app.box import HistorySnapshot
    from controller.app.seating import Seating
    from display.history_view import HistoryView
    from display.seating_view import SeatingView
    store = EventLog(tmp_path / "spieltisch.db")
    names_no_one_typed(store)
    rows = result_rows(store)
    surface = pygame.Surface((1920, 1080))
    HistoryView("en").draw(surface, HistorySnapshot("history", rows, people_board(rows)))
    pygame.image.save(surface, str(tmp_path / "history.png"))
    surface = pygame.Surface((1920, 1080))
    known = store.people()
    seating = Seating(2, "Partout", remembered=store.station_names(), known=[name for name, _ in known])
    seating.press("e661", 4)
    SeatingView("en").draw(surface, seating.snapshot())
    pygame.image.save(surface, str(tmp_path / "seating.png"))
    store.close()
