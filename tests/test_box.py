"""The table's menu: every choice reached with a station's buttons, and `spieltisch box`
starting what was chosen at the right station, then coming back to the menu."""

from __future__ import annotations

import threading
import time

from controller.app.menu import BACK, MINUS, OK, PLUS, Activity, Menu
from controller.games import GAMES
from hardware.sim import SimulatedStation


def choose(menu: Menu, key: str, station: str | None = None):
    """Move to the line whose text key (or game) is ``key`` and press OK."""
    for _ in range(len(menu.lines()[1]) + 1):
        line = menu.lines()[1][menu.chosen]
        if line.key == key or line.params.get("game") == key:
            return menu.press(OK, station)
        menu.press(PLUS)
    raise AssertionError(f"{key} is not on the page {menu.page}")


def test_play_a_game_with_its_variants_from_the_menu():
    menu = Menu(stations=4)
    assert choose(menu, "menu_play") is None and menu.page == "game"
    assert choose(menu, GAMES["team-up"].title) is None and menu.page == "players"
    assert [line.params["n"] for line in menu.lines()[1]] == [1, 2, 3, 4]
    menu.press(PLUS)
    assert menu.press(OK) is None and menu.page == "options"
    assert menu.lines()[1][menu.chosen].key == "menu_start"          # "start" first: no variant needed
    menu.press(MINUS)
    menu.press(MINUS)
    assert menu.lines()[1][menu.chosen].key == "menu_option_puzzle"
    menu.press(OK)                                                     # the switch turns on
    assert menu.lines()[1][0].params["value"] == "on"
    menu.press(PLUS)
    menu.press(PLUS)
    assert menu.press(OK) == Activity("play", game="team-up", players=2, options={"puzzle": True})


def test_the_menu_offers_only_what_the_stations_plugged_in_allow():
    menu = Menu(stations=2)
    choose(menu, "menu_play")
    assert choose(menu, GAMES["partout"].title) is None
    assert menu.page == "game" and menu.note.key == "menu_too_few_stations" and menu.note.params["n"] == 3
    choose(menu, GAMES["crazy-kick"].title)
    assert [line.params["n"] for line in menu.lines()[1]] == [2]
    menu.press(BACK)
    menu.press(BACK)
    assert menu.page == "main"


def test_enrollment_self_test_and_language_from_the_menu():
    menu = Menu(stations=3)
    assert choose(menu, "menu_selftest", "/dev/ttyACM2") == Activity("selftest", station="/dev/ttyACM2")
    choose(menu, "menu_enroll")
    assert menu.page == "deck" and GAMES["crazy-kick"].title not in [l.params["game"] for l in menu.lines()[1]]
    assert choose(menu, "Teamplay", "/dev/ttyACM0") == Activity("enroll", station="/dev/ttyACM0", game="teamplay")
    choose(menu, "menu_language")
    choose(menu, "menu_lang_fr")
    assert menu.lang == "fr" and menu.page == "main"


def test_the_box_starts_what_was_chosen_and_comes_back(tmp_path, monkeypatch):
    from controller.app.box import run_box
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))           # the box reads the table's log
    started = []

    def launcher(activity, ports, **kw):
        started.append((activity, ports, kw["lang"]))
        if len(started) == 2:
            raise RuntimeError("the station was unplugged")           # shown on the menu, never raised

    with SimulatedStation("sim-a") as a, SimulatedStation("sim-b") as b:
        def person():
            b.wait_for(lambda s: bool(s.sent("WHO")), timeout=5)
            time.sleep(0.3)
            for button in (PLUS, PLUS, PLUS, OK):                  # station b: the self-test
                b.press(button)
                time.sleep(0.05)
            b.wait_for(lambda s: len(s.sent("WHO")) >= 2, timeout=5)   # the menu is back: links reopened
            time.sleep(0.3)
            for button in (OK, PLUS, PLUS, PLUS, OK, PLUS, OK, OK):   # station a: play, 4th game, 2 players, start
                a.press(button)
                time.sleep(0.05)
        thread = threading.Thread(target=person, daemon=True)
        thread.start()
        assert run_box([a.port, b.port], headless=True, timeout=60, launcher=launcher,
                       until=lambda: len(started) >= 2) == 0
        thread.join(5)
    assert started[0][0] == Activity("selftest", station=b.port)
    games = sorted(GAMES, key=lambda name: GAMES[name].title)
    activity = started[1][0]
    assert activity.kind == "play" and activity.game == games[3] and activity.players == 2
    assert started[1][1] == [a.port, b.port]


# -- an unfinished game is never resumed silently ------------------------------------------------

def saved_teamup(game):
    from controller.app.menu import Saved
    return Saved("team-up", 3, {"puzzle": True}, "22.11. 19:40", 17) if game in ("team-up", None) else None


def test_start_offers_the_unfinished_game_first():
    menu = Menu(stations=4, unfinished=saved_teamup)
    choose(menu, "menu_play")
    choose(menu, GAMES["team-up"].title)
    choose(menu, "menu_players")                      # 1 player
    assert menu.press(OK) is None and menu.page == "resume"
    title, lines = menu.lines()
    assert title.key == "menu_resume_title" and lines[0].params == {"n": 3, "when": "22.11. 19:40", "moves": 17}
    assert menu.press(OK) == Activity("play", game="team-up", players=3, options={"puzzle": True})
    choose(menu, "menu_play")
    choose(menu, GAMES["team-up"].title)
    menu.press(PLUS)
    menu.press(OK)                                    # 2 players
    menu.press(OK)                                    # start: asked again
    menu.press(PLUS)
    assert menu.press(OK) == Activity("play", game="team-up", players=2, options={}, new=True)


def test_at_switch_on_the_saved_game_is_offered_and_a_new_one_asks_for_its_players():
    menu = Menu(stations=4, unfinished=saved_teamup)
    menu.offer(saved_teamup(None))
    menu.press(PLUS)
    assert menu.press(OK) is None and menu.page == "players" and menu.game == "team-up"
    menu.press(OK)                                    # 1 player
    assert menu.press(OK) == Activity("play", game="team-up", players=1, options={}, new=True)


def test_play_refuses_to_resume_a_different_game(tmp_path, monkeypatch):
    import pytest
    from controller.app.play import run_table
    from controller.games.core import IllegalAction
    from controller.table.eventlog import EventLog
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    with EventLog(tmp_path / "spieltisch.db") as store:
        store.start_game("partout", {"players": 3, "mode": "physical"}, 7, ["a", "b", "c"])
    with pytest.raises(IllegalAction) as caught:
        run_table("partout", ports=["p1", "p2", "p3", "p4"], players=4, names=[], virtual=False, seed=1, new=False,
                  lang="en", fullscreen=False, headless=True)
    assert caught.value.key == "resume_differs" and caught.value.params["n"] == 3
    assert "never resumed silently" in str(caught.value)


def test_the_box_offers_a_saved_game_at_switch_on(tmp_path, monkeypatch):
    from controller.app.box import run_box
    from controller.table.eventlog import EventLog
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    with EventLog(tmp_path / "spieltisch.db") as store:
        store.start_game("crazy-kick", {"players": 2, "mode": "virtual", "edition": "dlp"}, 7, ["a", "b"])
    started = []
    with SimulatedStation("sim-a") as a, SimulatedStation("sim-b") as b:
        def person():
            a.wait_for(lambda s: bool(s.sent("WHO")), timeout=5)
            time.sleep(0.3)
            a.press(OK)                                              # "go on" is offered first
        threading.Thread(target=person, daemon=True).start()
        run_box([a.port, b.port], headless=True, timeout=30, launcher=lambda act, ports, **kw: started.append(act),
                until=lambda: bool(started))
    assert started == [Activity("play", game="crazy-kick", players=2, options={"edition": "dlp"})]
