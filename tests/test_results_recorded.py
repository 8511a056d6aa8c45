"""Every finished game reaches `spieltisch results` and the leaderboard: a process killed at
any point between a game's last move and its result (SIGKILL at each SQLite statement of
that write, and right after the table answered) loses neither; a database holding a
complete log without its result (written before the two were one transaction) gets the
result when the game is opened: by `demo --resume`, `play`, `spieltisch results` and the
box's menu. For all five games: each records its own shape of result (teams, a
cooperative team, single players), and Crazy Kick writes through the real-time batch."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from controller.app.demo import run_demo
from controller.app.results import people_board, result_rows
from controller.games import find_game
from controller.table.eventlog import EventLog

ROOT = Path(__file__).resolve().parent.parent

# each game with few players: a whole bot game is quick
PLAYERS = {"partout": 3, "crazy-kick": 2, "tadika": 2, "teamplay": 4, "team-up": 2}

# The table at the moment of a game's last move, in a process of its own: the game is
# resumed from its log (all but the last move), and the last move is applied as the
# table's loop applies it (a real-time game's in an arbiter's batch). The process
# SIGKILLs itself as SQLite is about to run statement number KILL_AT of that write, or,
# when the write has fewer, right after the table answered ("answered" on stdout).
KILL_AT = r"""
import json, os, signal, sys
from controller.app.demo import NAMES
from controller.games import find_game
from controller.table.eventlog import EventLog
from controller.table.table import Table

db, kill_at, last = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
store = EventLog(db)
saved = store.load(store.unfinished_ids()[0])
rules = find_game(saved.game)
table = Table.resume(rules, saved, store, names=NAMES[:len(saved.seats)])
ran = []

def statement(sql):
    if len(ran) == kill_at:
        print(f"killed before: {sql}", file=sys.stderr, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    ran.append(sql)

store._db.set_trace_callback(statement)
if rules.realtime:
    table.begin_batch()
table.apply(rules.action_from_json(last))
if rules.realtime:
    table.end_batch()
print("answered after " + " | ".join(ran), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.fixture(scope="module")
def whole_games(tmp_path_factory):
    """Per game, one whole demo game: its setup, its log and its result (made when first asked)."""
    made: dict[str, dict] = {}

    def whole(game: str) -> dict:
        if game not in made:
            folder = tmp_path_factory.mktemp(f"whole-{game}")
            result = run_demo(game, players=PLAYERS[game], seed=5, headless=True, data_dir=folder, timeout=300)
            with EventLog(folder / "spieltisch.db") as store:
                saved = store.load(result["game_id"])
            assert result["finished"] and saved.finished
            made[game] = {"saved": saved, "result": result}
        return made[game]
    return whole


def logged(folder: Path, saved, moves: int, config: dict | None = None) -> int:
    """A database holding ``saved``'s game (or one with ``config``) with its first ``moves``
    moves and no result: as a table leaves it killed after those moves (or, with all of
    them, killed between the last move and its result before the two were one transaction)."""
    folder.mkdir(parents=True, exist_ok=True)
    with EventLog(folder / "spieltisch.db") as store:
        game_id = store.start_game(saved.game, config or saved.config, saved.seed, saved.seats)
        for action in saved.actions[:moves]:
            store.append(game_id, action)
    return game_id


def results_command(folder: Path, capsys, *args: str) -> list[dict]:
    """What `spieltisch results --json` shows (it records a complete game's result first)."""
    from controller.app.cli import main
    capsys.readouterr()
    assert main(["--data-dir", str(folder), "results", "--json", *args]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def recorded_once(folder: Path, game_id: int, capsys, *, demo: bool = True) -> dict:
    """The game's result: in the database once, as long as its log, shown once by `results`
    and counted once for every person recorded at its table on the leaderboard (a demo's
    bots and the players of a game saved before people were recorded count for nobody)."""
    with EventLog(folder / "spieltisch.db") as store:
        saved = store.load(game_id)
        (stored,) = [r for r in store.results() if r["id"] == game_id]
        rows = result_rows(store, demo=demo)
    assert saved.finished and stored["finished"] and stored["actions"] == len(saved.actions)
    shown = results_command(folder, capsys, *(["--demo"] if demo else []))
    assert [r["id"] for r in shown] == [r["id"] for r in rows] == [game_id]
    assert shown[0]["scores"] == stored["scores"]
    board = people_board(rows)
    winners = {name for team in rows[0]["winners"] for name in team}
    assert {e["player"] for e in board} == set(rows[0].get("people", ()))
    cooperative = find_game(saved.game).cooperative_best is not None
    assert all(e["played"] == (0 if cooperative else 1) and e["won"] == (e["player"] in winners) and
               (not cooperative or e["best"]) for e in board), board
    return stored


@pytest.mark.parametrize("game", list(PLAYERS))
def test_a_kill_anywhere_between_the_last_move_and_its_result_loses_neither(game, whole_games, tmp_path, capsys):
    whole = whole_games(game)
    saved, actions = whole["saved"], whole["saved"].actions
    point, answered = 0, False
    while not answered:
        folder = tmp_path / f"kill-{point}"
        game_id = logged(folder, saved, len(actions) - 1)
        killed = subprocess.run([sys.executable, "-c", KILL_AT, str(folder / "spieltisch.db"), str(point),
                                 json.dumps(actions[-1])], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert killed.returncode == -signal.SIGKILL, killed.stderr
        answered = killed.stdout.startswith("answered")
        where = (killed.stdout or killed.stderr).strip()
        with EventLog(folder / "spieltisch.db") as store:
            left = store.load(game_id)
            # a kill leaves the move and its result, or neither
            assert left.finished == (len(left.actions) == len(actions)), where
            unfinished = store.unfinished_ids(demo=True)
        resumed = run_demo(game, resume=True, headless=True, data_dir=folder, timeout=120) if unfinished else None
        stored = recorded_once(folder, game_id, capsys)
        if resumed is not None:
            assert resumed["game_id"] == game_id and resumed["scores"] == stored["scores"], where
        if not find_game(game).realtime:           # a turn-based game goes on exactly
            assert (stored["scores"], stored["winner"]) == (whole["result"]["scores"], whole["result"]["winner"])
        point += 1
    assert point >= 3             # the kills came before the move, between it and its result, and after


@pytest.mark.parametrize("game", list(PLAYERS))
def test_a_complete_log_without_its_result_gets_it_when_the_demo_is_resumed(game, whole_games, tmp_path, capsys):
    whole = whole_games(game)
    game_id = logged(tmp_path, whole["saved"], len(whole["saved"].actions))
    resumed = run_demo(game, resume=True, headless=True, data_dir=tmp_path, timeout=120)
    assert resumed["game_id"] == game_id and resumed["finished"]
    stored = recorded_once(tmp_path, game_id, capsys)
    assert (stored["scores"], stored["winner"], stored["teams"]) == \
        (whole["result"]["scores"], whole["result"]["winner"], whole["result"]["teams"])


@pytest.mark.parametrize("game", list(PLAYERS))
def test_a_complete_log_without_its_result_gets_it_when_the_results_are_shown(game, whole_games, tmp_path, capsys):
    whole = whole_games(game)
    game_id = logged(tmp_path, whole["saved"], len(whole["saved"].actions))
    (shown,) = results_command(tmp_path, capsys, "--demo")
    assert shown["id"] == game_id and shown["scores"] == whole["result"]["scores"]
    assert shown["teams"] == whole["result"]["teams"]          # the demo's names
    stored = recorded_once(tmp_path, game_id, capsys)           # and a second look records nothing twice
    assert stored["winner"] == whole["result"]["winner"]


def test_a_complete_real_game_without_its_result_is_recorded_by_play_and_never_offered_to_go_on(
        whole_games, tmp_path, monkeypatch, capsys):
    """`spieltisch play` resumes it (recording it, under the names chosen at the stations:
    the box resumes without seating) and ends at once; the box's menu records it instead
    of offering it."""
    from controller.app.box import unfinished_game
    from controller.app.play import run_table
    from hardware.sim.station import SimulatedStation
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    saved = whole_games("partout")["saved"]
    real = {k: v for k, v in saved.config.items() if k != "demo"}
    game_id = logged(tmp_path, saved, len(saved.actions), real)
    with EventLog(tmp_path / "spieltisch.db") as store:
        for station, name in zip(saved.seats, ("Oma", "Opa", "Lea")):
            store.name_station(station, name)
    stations = [SimulatedStation(station).start() for station in saved.seats]
    try:
        result = run_table("partout", ports=[s.port for s in stations], players=len(stations), names=[],
                           virtual=True, seed=None, new=False, lang="en", fullscreen=False, headless=True, timeout=60)
    finally:
        for s in stations:
            s.close()
    assert result["finished"] and result["actions"] == len(saved.actions)
    stored = recorded_once(tmp_path, game_id, capsys, demo=False)    # saved before people were recorded
    assert {name for team in stored["teams"] for name in team} == {"Oma", "Opa", "Lea"}

    seated = tmp_path / "seated"                     # the people recorded as the game began
    monkeypatch.setenv("SPIELTISCH_DATA", str(seated))
    game_id = logged(seated, saved, len(saved.actions), real)
    with EventLog(seated / "spieltisch.db") as store:
        store.seat_people(game_id, {seat: store.person(name) for seat, name in enumerate(("Ida", "Jan", "Kim"))})
    stations = [SimulatedStation(station).start() for station in saved.seats]
    try:
        run_table("partout", ports=[s.port for s in stations], players=len(stations), names=[],
                  virtual=True, seed=None, new=False, lang="en", fullscreen=False, headless=True, timeout=60)
    finally:
        for s in stations:
            s.close()
    stored = recorded_once(seated, game_id, capsys, demo=False)
    assert {name for team in stored["teams"] for name in team} == {"Ida", "Jan", "Kim"}
    with EventLog(seated / "spieltisch.db") as store:
        assert {e["player"] for e in people_board(result_rows(store))} == {"Ida", "Jan", "Kim"}

    other = tmp_path / "box"
    monkeypatch.setenv("SPIELTISCH_DATA", str(other))
    game_id = logged(other, saved, len(saved.actions), real)
    assert unfinished_game(None) is None and unfinished_game("partout") is None
    recorded_once(other, game_id, capsys, demo=False)


def test_undoing_the_move_that_ended_the_game_takes_its_result_back(whole_games, tmp_path):
    """The result goes with the move that ended the game; taken back, the game is unfinished
    again (and resumable); played again, it is recorded once."""
    from controller.table.table import Table
    saved = whole_games("partout")["saved"]
    rules = find_game("partout")
    game_id = logged(tmp_path, saved, len(saved.actions) - 1)
    with EventLog(tmp_path / "spieltisch.db") as store:
        table = Table.resume(rules, store.load(game_id), store)
        last = rules.action_from_json(saved.actions[-1])
        table.apply(last)
        assert store.load(game_id).finished
        table.undo()
        assert table.message.key == "undone" and not table.finished
        assert store.unfinished_ids() == [game_id] and not [r for r in store.results() if r["id"] == game_id]
        table.apply(last)
        (stored,) = [r for r in store.results() if r["id"] == game_id]
        assert stored["finished"] and stored["actions"] == len(store.load(game_id).actions) == len(saved.actions)
