"""Installed as the Pi installs it: a plain (not editable) wheel of the committed files,
every game's demo run from another folder, in every language. A data file the package
forgets (texts, decks) shows here and nowhere else."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from controller.games import GAMES
from controller.games.texts import LANGUAGES

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("controller", "display", "hardware")


def _source_files() -> list[Path]:
    """The files a clean clone has (git's list when there is one)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        return [Path(p) for p in out.decode().split("\0") if p and (ROOT / p).is_file()]
    except (OSError, subprocess.CalledProcessError):
        return [p.relative_to(ROOT) for p in ROOT.rglob("*") if p.is_file() and ".git" not in p.parts]


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The package built into a wheel from a copy of the source and unpacked into a folder
    of its own (``pip install --target``); the test environment supplies the dependencies."""
    tmp = tmp_path_factory.mktemp("install")
    src = tmp / "src"
    for rel in _source_files():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, src / rel)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run(pip + ["wheel", "--no-deps", "-w", str(tmp / "dist"), str(src)], check=True,
                   capture_output=True)
    wheel = next((tmp / "dist").glob("spieltisch-*.whl"))
    target = tmp / "site"
    subprocess.run(pip + ["install", "--no-deps", "--target", str(target), str(wheel)], check=True,
                   capture_output=True)
    return wheel, target, src


def test_the_wheel_carries_every_file_of_the_packages(installed):
    wheel, _, src = installed
    in_wheel = set(zipfile.ZipFile(wheel).namelist())
    wanted = {str(rel) for rel in _source_files()
              if rel.parts[0] in PACKAGES and rel.suffix in (".py", ".json", ".po", ".service", ".rules", ".mjs")}
    assert wanted and not wanted - in_wheel, f"missing from the wheel: {sorted(wanted - in_wheel)}"


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_demo_runs_from_the_installed_package(installed, game, lang, tmp_path):
    _, target, _ = installed
    env = dict(os.environ, PYTHONPATH=str(target), SPIELTISCH_DATA=str(tmp_path / "data"),
               SDL_VIDEODRIVER="dummy")
    code = ("import sys, controller; assert controller.__file__.startswith(sys.argv[1]), controller.__file__; "
            "from controller.app.cli import main; sys.argv[1:] = sys.argv[2:]; raise SystemExit(main())")
    proc = subprocess.run([sys.executable, "-c", code, str(target), "demo", game, "--headless", "--seed", "1",
                           "--lang", lang], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-800:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["game"] == game and result["finished"]
