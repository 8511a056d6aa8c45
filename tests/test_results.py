"""Finished games for people: `spieltisch results` as a table, JSON and CSV, demo games
apart, ties named as ties, a game played together scored against its best, the leaderboard
per person across games, and the history screen."""

from __future__ import annotations

import json

import pygame

from controller.app.results import as_csv, people_board, result_rows, score_line, show
from controller.table.eventlog import EventLog


def finished(store, game, config, teams, scores, winner, people=True, ended=None):
    """A finished game; ``people``: its players recorded as people, seat by seat (team by team)."""
    game_id = store.start_game(game, config, 1, ["a"] * sum(len(t) for t in teams))
    store.finish(game_id, {"game": game, "config": config, "seed": 1, "scores": scores, "winner": winner,
                           "teams": teams, "finished": True})
    if ended is not None:
        store._db.execute("UPDATE games SET finished_at = ? WHERE id = ?", (ended, game_id))
    if people:
        names = [name for team in teams for name in team]
        store.seat_people(game_id, {seat: store.person(name) for seat, name in enumerate(names)})
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
    board = people_board(rows)
    assert board[0] == {"player": "Anna", "played": 2, "won": 2, "best": {}}
    assert {"player": "Ben", "played": 2, "won": 1, "best": {}} in board


def test_every_score_is_named_and_a_game_played_together_is_scored_against_its_best(tmp_path):
    """Issue 30: rows read "21 : 23 : 18" without whose, and Team UP! was "won"."""
    store = make_store(tmp_path)
    rows = result_rows(store)
    assert score_line(rows[0]) == "Anna & Clara 15 : Ben & David 9"
    together = result_rows(store, demo=True)[0]
    assert together["winners"] == [] and together["best"] == 25
    assert score_line(together) == "Anna & Ben 17 of 25"
    table = show(store, demo=True, game=None, fmt="table")
    assert "Anna & Ben 17 of 25" in table and "together" in table and "won" not in table.splitlines()[1]


def test_the_leaderboard_is_per_person_across_games_and_counts_only_recorded_people(tmp_path):
    store = EventLog(tmp_path / "spieltisch.db")
    finished(store, "partout", {"players": 4}, [["Anna", "Clara"], ["Ben", "David"]], [15, 9], 0)
    finished(store, "tadika", {"players": 2}, [["Anna"], ["Ben"]], [20, 50], 1)
    finished(store, "team-up", {"players": 2}, [["Anna", "Ben"]], [17], 0)
    finished(store, "team-up", {"players": 1}, [["Anna"]], [21], 0)
    finished(store, "tadika", {"players": 2}, [["Anna"], ["Oma"]], [50, 0], 0, people=False)  # from before people
    board = {e["player"]: e for e in people_board(result_rows(store))}
    # Team UP! is played together: it counts as a best score, not as a game won or lost
    assert board["Anna"] == {"player": "Anna", "played": 2, "won": 1, "best": {"Team UP!": (21, 25)}}
    assert board["Ben"] == {"player": "Ben", "played": 2, "won": 1, "best": {"Team UP!": (17, 25)}}
    assert "Oma" not in board
    assert "Anna: 1 of 2, Team UP! best 21 of 25" in show(store, demo=False, game=None, fmt="table")
    store.close()


def test_the_table_the_csv_and_the_json(tmp_path):
    store = make_store(tmp_path)
    table = show(store, demo=False, game=None, fmt="table")
    assert table.splitlines()[0].split() == ["ended", "game", "scores", "won"]
    assert "Anna & Clara 12 : Ben & David 12" in table and "shared win: Anna & Clara · Ben & David" in table
    assert "Anna: 2 of 2" in table
    lines = as_csv(result_rows(store)).splitlines()
    assert lines[0] == "ended,game,players,scores,winners" and len(lines) == 3
    rows = [json.loads(line) for line in show(store, demo=True, game=None, fmt="json").splitlines()]
    assert rows[0]["game"] == "team-up" and rows[0]["best"] == 25 and rows[0]["people"] == ["Anna", "Ben"]
    assert show(store, demo=False, game="tadika", fmt="table") == "No finished games yet."
    store.close()


def test_the_results_command(tmp_path, capsys):
    from controller.app.cli import main
    make_store(tmp_path).close()
    assert main(["--data-dir", str(tmp_path), "results", "--csv"]) == 0
    assert capsys.readouterr().out.startswith("ended,game,players,scores,winners")
    assert main(["--data-dir", str(tmp_path), "results", "--game", "no-such-game"]) == 2
    assert "no game called" in capsys.readouterr().err


def five_games(store, ended):
    """One finished game of each kind at its most players, each person recorded."""
    finished(store, "partout", {"players": 6}, [["Anna", "Clara", "Eva"], ["Ben", "David", "Felix"]], [21, 23], 1,
             ended=ended)
    finished(store, "crazy-kick", {"players": 8}, [["Anna", "Clara", "Eva", "Greta"], ["Ben", "David", "Felix",
                                                                                        "Hugo"]], [3, 5], 1,
             ended=ended)
    finished(store, "tadika", {"players": 5}, [["Anna"], ["Ben"], ["Clara"], ["David"], ["Eva"]],
             [50, 12, 33, 8, 41], 0, ended=ended)
    finished(store, "teamplay", {"players": 6}, [["Anna", "Ben"], ["Clara", "David"], ["Eva", "Felix"]],
             [18, 21, 23], 2, ended=ended)
    finished(store, "team-up", {"players": 4}, [["Anna", "Ben", "Clara", "David"]], [21], 0, ended=ended)


def test_the_history_fits_five_games_and_names_every_score_in_the_languages_dates(tmp_path, screen):
    """Issue 30: with five games the leaderboard ran past its panel and Teamplay was missing."""
    import time as clock
    from controller.app.box import HistorySnapshot
    from display.history_view import BOARD_PANEL, GAMES_PANEL, SCORE_SIZE, HistoryView
    from display import draw
    store = EventLog(tmp_path / "spieltisch.db")
    ended = clock.mktime((2026, 11, 25, 19, 40, 0, 0, 0, -1))
    five_games(store, ended)
    rows = result_rows(store)
    board = people_board(rows)
    for lang in ("de", "en", "fr", "it"):
        view = HistoryView(lang)
        pages = view.game_pages(rows)
        assert len(pages) == 1 and {row["title"] for row, _ in pages[0]} == \
            {"Partout", "Crazy Kick", "Tadika", "Teamplay", "Team UP!"}
        for _row, lines in pages[0]:
            for line in lines:
                width = sum(draw.font(SCORE_SIZE, won).size(words)[0] for words, won in line)
                assert width <= GAMES_PANEL.width - 44, (lang, line)
        assert len(view.board_pages(board)) == 1 and len(view.board_pages(board)[0]) == 8
        surface = pygame.Surface((1920, 1080))
        view.draw(surface, HistorySnapshot("history", rows, board))
        pygame.image.save(surface, str(tmp_path / f"history-{lang}.png"))
    teamplay = next(row for row, _ in HistoryView("en").game_pages(rows)[0] if row["title"] == "Teamplay")
    said = "".join(words for line in HistoryView("en").score_parts(teamplay) for words, _ in line)
    assert said == "Anna & Ben 18 : Clara & David 21 : Eva & Felix 23"
    gold = [words for line in HistoryView("en").score_parts(teamplay) for words, won in line if won]
    assert gold == ["Eva & Felix 23"]                                   # the winners', and nothing else
    assert HistoryView("de").date(ended) == "25.11. 19:40" and HistoryView("en").date(ended) == "25/11 19:40"
    together = next(row for row in rows if row["title"] == "Team UP!")
    assert HistoryView("de").score_parts(together) == [[("Anna & Ben & Clara & David: 21 von 25", False)]]
    assert GAMES_PANEL.right < BOARD_PANEL.left
    store.close()


def test_many_games_and_people_are_turned_in_pages_not_cut_off(tmp_path, screen):
    from controller.app.box import HistorySnapshot
    from display.history_view import HistoryView
    store = EventLog(tmp_path / "spieltisch.db")
    for k in range(8):
        five_games(store, 1_800_000_000 + k)
    for k in range(20):
        finished(store, "tadika", {"players": 2}, [[f"Player {k:02d}"], ["Anna"]], [50, 3], 0)
    rows = result_rows(store, limit=500)
    board = people_board(rows)
    view = HistoryView("it")
    games, people = view.game_pages(rows), view.board_pages(board)
    assert len(games) > 1 and len(people) > 1
    assert sum(len(page) for page in games) == len(rows) == 60           # every game on some page
    assert sum(len(page) for page in people) == len(board) == 28
    surface = pygame.Surface((1920, 1080))
    for page in range(max(len(games), len(people)) + 1):                 # and round again
        view.draw(surface, HistorySnapshot("history", rows, board, page))
    HistoryView("it").draw(surface, HistorySnapshot("history", [], []))
    store.close()


def test_games_played_are_ordered_by_when_they_ended_not_when_they_began(tmp_path):
    """Issue 40: a game resumed days later sat where it began."""
    store = EventLog(tmp_path / "spieltisch.db")
    resumed = finished(store, "partout", {"players": 4}, [["Anna", "Clara"], ["Ben", "David"]], [15, 9], 0,
                       ended=3_000_000.0)                          # begun first, ended last
    quick = finished(store, "tadika", {"players": 2}, [["Anna"], ["Ben"]], [20, 50], 1, ended=2_000_000.0)
    rows = result_rows(store)
    assert [row["id"] for row in rows] == [resumed, quick]
    assert rows[0]["when"] > rows[1]["when"]
