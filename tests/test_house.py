"""Every registered game has all its rooms (docs/architecture.md, "Adding a game"): the
rules with their data, the input adapter, the bot, the view, the doc, tests, and a demo
that plays a whole game. A person looking for anything of a game types its name and
finds it."""

from __future__ import annotations

from importlib import import_module
from pathlib import Path

import pytest

from controller.bots import bot_class
from controller.bots.base import Bot
from controller.games import GAMES
from controller.games.core import GameRules
from controller.inputs import InputAdapter, adapter_class
from display.views import view_class

ROOT = Path(__file__).resolve().parent.parent
NAMES = sorted(GAMES)


def test_the_table_knows_games():
    assert {"partout", "crazy-kick", "tadika", "teamplay", "team-up"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_every_game_has_every_room(name):
    rules = GAMES[name]
    m = rules.module
    missing = [path for path in (f"controller/games/{m}.py", f"controller/games/data/{m}.json",
                                 f"controller/inputs/{m}.py", f"controller/bots/{m}.py",
                                 f"controller/learn/{m}.py", f"display/{m}_view.py", f"docs/{name}.md")
               if not (ROOT / path).is_file()]
    assert not missing, f"{name} lacks {', '.join(missing)}"
    assert list(ROOT.glob(f"tests/test_{m}_*.py")), f"{name} has no tests/test_{m}_*.py"
    assert isinstance(rules, GameRules) and rules.title and rules.player_counts
    assert type(rules).__module__ == f"controller.games.{m}"
    adapter = adapter_class(rules)
    assert issubclass(adapter, InputAdapter) and adapter.game == name
    assert adapter.__module__ == f"controller.inputs.{m}"
    assert bot_class(rules).__module__ in (f"controller.bots.{m}", "controller.bots.base")
    # its bots decide from what a seat can see (tests/test_bots_see_only_their_seat.py)
    assert type(rules).seat_view is not GameRules.seat_view, f"{name} has no seat_view"
    if not rules.realtime:
        assert issubclass(bot_class(rules), Bot) and bot_class(rules).choose is Bot.choose
    view = view_class(name)
    assert view.__module__ == f"display.{m}_view" and callable(view.draw)
    assert rules.title in (ROOT / f"docs/{name}.md").read_text(encoding="utf-8")
    from controller.games import texts          # how to play: the pages, their pictures drawn by the view
    assert texts.how_to_play(name, "en") and callable(import_module(view.__module__).how_to_picture)


@pytest.mark.parametrize("name", NAMES)
def test_every_game_has_a_demo_that_plays_to_the_end(name, tmp_path):
    from controller.app.demo import run_demo
    rules = GAMES[name]
    result = run_demo(name, players=min(rules.player_counts), seed=1, headless=True, data_dir=tmp_path,
                      timeout=60)
    assert result["game"] == name and result["finished"]
    assert result["scores"] and result["winner"] is not None


def test_a_game_without_a_room_is_named_in_the_error():
    class Nameless(GameRules):
        name = "no-such-game"
    with pytest.raises(ModuleNotFoundError):
        adapter_class(Nameless())
    with pytest.raises(KeyError, match="no-such-game"):
        view_class("no-such-game")


def test_the_bench_prints_its_table_after_every_area_is_imported(capsys):
    """``controller/bench/table.py`` (an area) once shadowed the package's table printer."""
    import controller.bench as bench
    for name in bench.AREAS + bench.ON_DEMAND:
        bench._area(name)
    assert "ck_match_core_ms" in bench.as_table({"ck_match_core_ms": 12.0})


def test_every_screen_draws_its_texts_at_28_px_or_more(screen):
    """From the sofa (tools/small_texts.py): every game at every player count, played a few
    dozen moves, in German (the longest words)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("small_texts", ROOT / "tools" / "small_texts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found = module.small_texts("de")
    assert found == {}
