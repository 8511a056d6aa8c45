"""Finished games for people: `spieltisch results` as a table, JSON and CSV, demo games
apart, ties named as ties, the leaderboard per game and player, and the history screen."""

from __future__ import annotations

import json

import pygame

from controller.app.results import as_csv, leaderboard, result_rows, show
from controller.table.eventlog import EventLog


def finished(store, game, config, teams, scores, winner):
    game_id = store.start_game(game, config, 1, ["a"] * sum(len(t) for t in teams))
    store.finish(game_id, {"game": game, "config": config, "seed": 1, "scores": scores, "winner": winner,
                           "teams": teams, "finished": True})
    return game_id


def make_store(tmp_path):
    store = EventLog(tmp_path / "spieltisch.db")
    finished(store, "partout", {"players": 4}, [["Anna", "Clara"], ["Ben", "David"]], [12, 12], [0, 1])
    finished(store, "partout", {"players": 4}, [["Anna", "Clara"], ["Ben", "David"]], [15, 9], 0)
    finished(store, "team-up", {"players": 2, "demo": True}, [["Anna", "Ben"]], [17], 0)
    set_aside = store.start_game("tadika", {"players": 2}, 1, ["a", "b"])
    store.abandon(set_aside, "a new game")
    return store


def test_rows_name_winners_and_ties_and_keep_demos_apart(tmp_path):
    store = make_store(tmp_path)
    rows = result_rows(store)
    assert [r["title"] for r in rows] == ["Partout", "Partout"]                 # newest first; no demo, no set-aside
    assert rows[0]["scores"] == [15, 9] and rows[0]["winners"] == [["Anna", "Clara"]]
    tie = next(r for r in rows if r["scores"] == [12, 12])
    assert tie["winners"] == [["Anna", "Clara"], ["Ben", "David"]]
    assert [r["title"] for r in result_rows(store, demo=True)] == ["Team UP!"]
    board = leaderboard(rows)["Partout"]
    assert board[0] == {"player": "Anna", "played": 2, "won": 2} and {"player": "Ben", "played": 2, "won": 1} in board


def test_the_table_the_csv_and_the_json(tmp_path):
    store = make_store(tmp_path)
    table = show(store, demo=False, game=None, fmt="table")
    assert table.splitlines()[0].split() == ["ended", "game", "players", "scores", "won"]
    assert "Anna & Clara · Ben & David" in table and "12 : 12" in table and "Partout: Anna 2/2" in table
    lines = as_csv(result_rows(store)).splitlines()
    assert lines[0] == "ended,game,players,scores,winners" and len(lines) == 3
    rows = [json.loads(line) for line in show(store, demo=True, game=None, fmt="json").splitlines()]
    assert rows[0]["game"] == "team-up" and rows[0]["winners"] == [["Anna", "Ben"]]
    assert show(store, demo=False, game="tadika", fmt="table") == "No finished games yet."
    store.close()


def test_the_results_command(tmp_path, capsys):
    from controller.app.cli import main
    make_store(tmp_path).close()
    assert main(["--data-dir", str(tmp_path), "results", "--csv"]) == 0
    assert capsys.readouterr().out.startswith("ended,game,players,scores,winners")
    assert main(["--data-dir", str(tmp_path), "results", "--game", "no-such-game"]) == 2
    assert "no game called" in capsys.readouterr().err


def test_the_history_screen_draws_rows_and_leaderboard(tmp_path, screen):
    from controller.app.box import HistorySnapshot
    from display.history_view import HistoryView
    store = make_store(tmp_path)
    rows = result_rows(store)
    surface = pygame.Surface((1920, 1080))
    HistoryView("de").draw(surface, HistorySnapshot("history", rows, leaderboard(rows)))
    pygame.image.save(surface, str(tmp_path / "history.png"))
    assert surface.get_at((600, 150))[:3] != (0, 0, 0)
    HistoryView("it").draw(surface, HistorySnapshot("history", [], {}))
    store.close()
