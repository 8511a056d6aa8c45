"""End to end: the headless demo through simulated stations, its determinism, and a
game killed mid-way resumed from its log to the same result."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.games import find_game
from controller.table.eventlog import EventLog

ROOT = Path(__file__).resolve().parent.parent


def spieltisch(*args, data_dir: Path, **kw):
    env = dict(os.environ, SPIELTISCH_DATA=str(data_dir), SDL_VIDEODRIVER="dummy")
    return subprocess.Popen([sys.executable, "-m", "controller.app.cli", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def result_line(proc, timeout=120):
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


@pytest.mark.parametrize("players", [3, 4, 6])
def test_headless_demo_plays_a_whole_game(tmp_path, players):
    result = result_line(spieltisch("demo", "partout", "--headless", "--players", str(players), "--seed", "11",
                                    data_dir=tmp_path))
    teams = 3 if players in (3, 6) else 2
    assert result["game"] == "partout" and result["finished"]
    assert len(result["scores"]) == teams
    best = max(result["scores"])
    winners = result["winner"] if isinstance(result["winner"], list) else [result["winner"]]
    assert all(result["scores"][w] == best for w in winners)
    with EventLog(tmp_path / "spieltisch.db") as store:
        saved = store.load(result["game_id"])
        assert saved.finished and len(saved.actions) == result["actions"]
        assert store.results()[0]["scores"] == result["scores"]


def test_same_seed_same_game_through_the_stations(tmp_path):
    a = result_line(spieltisch("demo", "partout", "--headless", "--seed", "5", data_dir=tmp_path / "a"))
    b = result_line(spieltisch("demo", "partout", "--headless", "--seed", "5", data_dir=tmp_path / "b"))
    assert (a["scores"], a["winner"], a["actions"]) == (b["scores"], b["winner"], b["actions"])


def kill_after(game: str, actions: int, data: Path, *args: str) -> int:
    """Start a demo, SIGKILL it once ``actions`` are in its log; returns how many were seen."""
    proc = spieltisch("demo", game, "--headless", *args, data_dir=data)
    db = data / "spieltisch.db"
    logged = 0
    deadline = time.monotonic() + 60
    while logged < actions and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)            # polling another process's file: nothing to wait on
        if db.exists():
            with EventLog(db) as store:
                games = store.unfinished(find_game(game).name)
                logged = len(games[0].actions) if games else 0
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    return logged


@pytest.mark.parametrize("game, seed, at", [("partout", "21", 60), ("tadika", "4", 40)])
def test_killed_mid_game_resumes_to_the_same_result(tmp_path, game, seed, at):
    """Turn-based demos go on exactly: a bot's choice is drawn from (seed, actions so far, seat)."""
    whole = result_line(spieltisch("demo", game, "--headless", "--seed", seed, data_dir=tmp_path / "whole"))
    data = tmp_path / "killed"
    logged = kill_after(game, at, data, "--seed", seed, "--think", "0.01")
    assert at <= logged < whole["actions"]
    with EventLog(data / "spieltisch.db") as store:
        (saved,) = store.unfinished(game)
        kept = len(saved.actions)
    assert kept >= logged              # every action seen committed survived the kill

    resumed = result_line(spieltisch("demo", game, "--headless", "--resume", data_dir=data))
    assert resumed["game_id"] == saved.id
    assert (resumed["scores"], resumed["winner"], resumed["actions"]) == (whole["scores"], whole["winner"], whole["actions"])


def test_a_killed_real_time_demo_goes_on_from_its_last_accepted_action(tmp_path):
    """Crazy Kick: the position is kept exactly (every accepted action is in the log); the
    presses the bots had planned but not made are not, so the rest of the match is played
    afresh (docs/crazy-kick.md, "Resuming a demo")."""
    logged = kill_after("crazy-kick", 150, tmp_path, "--seed", "3")
    with EventLog(tmp_path / "spieltisch.db") as store:
        (saved,) = store.unfinished("crazy-kick")
    assert len(saved.actions) >= logged >= 150
    resumed = result_line(spieltisch("demo", "crazy-kick", "--headless", "--resume", data_dir=tmp_path))
    assert resumed["game_id"] == saved.id and resumed["finished"]
    with EventLog(tmp_path / "spieltisch.db") as store:
        after = store.load(saved.id)
    assert after.actions[:len(saved.actions)] == saved.actions
    rules = find_game("crazy-kick")
    position = rules.replay(saved.config, saved.seed, [rules.action_from_json(a) for a in saved.actions])
    assert max(position.scores) < 5 and sum(resumed["scores"]) >= sum(position.scores)


def test_wrong_player_count_is_a_clear_error(tmp_path):
    proc = spieltisch("demo", "partout", "--headless", "--players", "5", data_dir=tmp_path)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "3, 4 or 6 players, not 5" in err


def test_demos_keep_their_games_in_their_own_folder_not_the_familys(tmp_path):
    """Issue 30: demos wrote into the box's own data folder, mixing bots' games into a
    family's history. Without a chosen data directory they go beside it."""
    import os
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k != "SPIELTISCH_DATA"}
    env.update(XDG_DATA_HOME=str(tmp_path), SDL_VIDEODRIVER="dummy")
    root = Path(__file__).resolve().parent.parent

    def spieltisch(*args):
        return subprocess.run([sys.executable, "-m", "controller.app.cli", *args], cwd=root, env=env,
                              capture_output=True, text=True, timeout=120)
    assert spieltisch("demo", "tadika", "--headless", "--seed", "3").returncode == 0
    assert (tmp_path / "spieltisch-demo" / "spieltisch.db").exists()
    assert not (tmp_path / "spieltisch" / "spieltisch.db").exists()
    assert "Tadika" in spieltisch("results", "--demo").stdout
    assert spieltisch("results").stdout.strip() == "No finished games yet."
