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


def test_killed_mid_game_resumes_to_the_same_result(tmp_path):
    whole = result_line(spieltisch("demo", "partout", "--headless", "--seed", "21", data_dir=tmp_path / "whole"))

    data = tmp_path / "killed"
    proc = spieltisch("demo", "partout", "--headless", "--seed", "21", "--think", "0.01", data_dir=data)
    db = data / "spieltisch.db"
    logged = 0
    deadline = time.monotonic() + 60
    while logged < 60 and time.monotonic() < deadline:
        time.sleep(0.05)            # polling another process's file: nothing to wait on
        if db.exists():
            with EventLog(db) as store:
                games = store.unfinished("partout")
                logged = len(games[0].actions) if games else 0
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    assert 60 <= logged < whole["actions"]

    with EventLog(db) as store:
        (saved,) = store.unfinished("partout")
        kept = len(saved.actions)
    assert kept >= logged              # every action seen committed survived the kill

    resumed = result_line(spieltisch("demo", "partout", "--headless", "--resume", data_dir=data))
    assert resumed["game_id"] == saved.id
    assert (resumed["scores"], resumed["winner"], resumed["actions"]) == (whole["scores"], whole["winner"], whole["actions"])


def test_wrong_player_count_is_a_clear_error(tmp_path):
    proc = spieltisch("demo", "partout", "--headless", "--players", "5", data_dir=tmp_path)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "3, 4 or 6 players, not 5" in err
