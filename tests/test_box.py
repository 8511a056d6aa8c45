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
    assert menu.lines()[1][menu.chosen].key == "menu_option_learn"     # every game's, after its own
    menu.press(MINUS)
    menu.press(MINUS)
    assert menu.lines()[1][menu.chosen].key == "menu_option_puzzle"
    menu.press(OK)                                                     # the switch turns on
    assert menu.lines()[1][0].params["value"] == "on"
    menu.press(PLUS)
    menu.press(PLUS)
    menu.press(PLUS)
    assert menu.press(OK) == Activity("play", game="team-up", players=2, options={"puzzle": True})


def test_the_menu_offers_only_what_the_stations_plugged_in_allow():
    menu = Menu(stations=2)
    choose(menu, "menu_play")
    assert choose(menu, GAMES["partout"].title) is None
    assert menu.page == "game" and menu.note.key == "menu_too_few_stations" and menu.note.params["n"] == 3
    choose(menu, GAMES["tadika"].title)
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


# -- seats by button --------------------------------------------------------------------------------

def test_stations_take_seats_in_the_order_pressed_and_pick_names():
    from controller.app.seating import Seating
    seating = Seating(3, "Partout", remembered={"st-c": "Oma"})
    seating.press("st-b", 1)                                   # any button: seat 1
    seating.press("st-c", 5)
    seating.press("st-a", 0)
    assert seating.stations == ["st-b", "st-c", "st-a"]
    assert seating.names == ["Anna", "Oma", "Ben"]             # the remembered name first
    seating.press("st-x", 4)
    assert seating.note == ("seating_full", {"n": 3}) and len(seating.stations) == 3
    seating.press("st-a", PLUS)                                # Clara: Anna and Oma are taken by others
    assert seating.names[2] == "Clara"
    seating.press("st-a", MINUS)
    seating.press("st-a", MINUS)                               # round the list: the last name
    assert seating.names[2] == "Jonas"
    assert not seating.done
    for station in ("st-b", "st-c", "st-a"):
        seating.press(station, OK)                             # the name
    assert not seating.done and seating.snapshot().picking == ("colour",) * 3
    for station in ("st-b", "st-c", "st-a"):
        seating.press(station, OK)                             # the colour offered
    assert seating.done and seating.names == ["Anna", "Oma", "Jonas"]
    assert len(set(seating.colours)) == 3


def test_each_seat_picks_a_colour_nobody_else_has_and_its_led_shows_it():
    from controller.app.seating import BACK, COLOURS, Seating
    seating = Seating(2, "Crazy Kick", remembered_colours={"st-b": "blue"})
    seating.press("st-a", 4)
    seating.press("st-b", 4)
    assert seating.led("st-a") is None                         # still choosing a name
    seating.press("st-a", OK)
    assert seating.colours[0] == "red" and seating.led("st-a") == COLOURS["red"]
    seating.press("st-b", OK)
    assert seating.colours[1] == "blue"                        # its colour from last time
    seating.press("st-a", PLUS)
    assert seating.colours[0] == "orange" and seating.led("st-a") == COLOURS["orange"]
    seating.press("st-a", OK)
    seating.colours[1] = "orange"                              # as if chosen while orange was free
    seating.press("st-b", OK)
    assert seating.note == ("seating_colour_taken", {"colour": "orange"}) and not seating.done
    seating.press("st-b", PLUS)                                # orange is skipped: it is taken
    assert seating.colours[1] != "orange"
    seating.press("st-b", BACK)                                # back to the name
    assert seating.snapshot().picking[1] == "name"
    seating.press("st-b", OK)
    seating.press("st-b", OK)
    assert seating.done and seating.snapshot().picking == ("done", "done")


def test_a_name_taken_by_another_seat_is_refused():
    from controller.app.seating import Seating
    seating = Seating(2, "Tadika")
    seating.press("st-a", 4)
    seating.press("st-b", 4)
    seating.press("st-a", OK)
    seating.names[1] = "Anna"                                  # as if chosen while Anna was still free
    seating.press("st-b", OK)
    assert seating.note == ("seating_name_taken", {"name": "Anna"}) and not seating.done


def test_seating_at_the_stations_orders_the_ports_and_remembers_the_names(tmp_path, monkeypatch):
    from controller.app.box import run_seating
    from controller.app.seating import COLOURS
    from controller.table.eventlog import EventLog
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    with SimulatedStation("sim-a") as a, SimulatedStation("sim-b") as b:
        def people():
            a.wait_for(lambda s: bool(s.sent("WHO")), timeout=5)
            b.wait_for(lambda s: bool(s.sent("WHO")), timeout=5)
            time.sleep(0.2)
            b.press(2)                                         # b sits down first
            time.sleep(0.05)
            a.press(2)
            time.sleep(0.05)
            a.press(PLUS)                                      # a: not Ben (b has Anna): Clara
            time.sleep(0.05)
            a.press(OK)
            time.sleep(0.05)
            b.press(OK)
            time.sleep(0.05)
            b.press(OK)                                        # b: the first colour, red
            time.sleep(0.05)
            a.press(PLUS)                                      # a: from orange to yellow
            time.sleep(0.05)
            a.press(OK)
        threading.Thread(target=people, daemon=True).start()
        seated = run_seating([a.port, b.port], 2, "crazy-kick", lang="en", headless=True, fullscreen=False,
                             timeout=20)
        assert a.wait_for(lambda s: any(f[0] == "f0d232" for f in s.sent("LED")), timeout=5)   # its LED: yellow
    assert seated == ([b.port, a.port], ["Anna", "Clara"], [COLOURS["red"], COLOURS["yellow"]])
    with EventLog(tmp_path / "spieltisch.db") as store:
        assert store.station_names() == {"sim-b": "Anna", "sim-a": "Clara"}
        assert store.station_colours() == {"sim-b": "red", "sim-a": "yellow"}


def test_going_on_with_a_saved_game_needs_its_stations(monkeypatch):
    import pytest
    from controller.app import box
    from controller.app.menu import Saved
    from controller.games.core import IllegalAction
    monkeypatch.setattr(box, "unfinished_game", lambda game: Saved("tadika", 2, {}, "x", 3, ("st-a", "st-b")))
    with pytest.raises(IllegalAction) as caught:
        box.launch(Activity("play", game="tadika", players=2), ["p1"], lang="en", headless=True, fullscreen=False,
                   stations={"st-a": "p1"})
    assert caught.value.key == "resume_station_missing" and caught.value.params == {"seats": "2"}


def test_the_box_waits_for_a_station_and_leaves_out_one_that_does_not_answer(tmp_path, monkeypatch):
    from controller.app.box import run_box
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    # nothing plugged in: the TV asks for a station, and the box keeps waiting (no error)
    assert run_box(["/dev/no-such-station"], headless=True, timeout=3) == 0
    started = []
    with SimulatedStation("sim-a") as a:
        def person():
            a.wait_for(lambda s: bool(s.sent("WHO")), timeout=5)
            time.sleep(0.3)
            for button in (PLUS, PLUS, PLUS, OK):              # the self-test, at the station that answers
                a.press(button)
                time.sleep(0.05)
        threading.Thread(target=person, daemon=True).start()
        run_box(["/dev/no-such-station", a.port], headless=True, timeout=30,
                launcher=lambda act, ports, **kw: started.append((act, ports)), until=lambda: bool(started))
    assert started == [(Activity("selftest", station=a.port), [a.port])]


def test_the_volume_is_chosen_in_steps_or_muted():
    menu = Menu(stations=2, volume=60)
    assert [l for l in menu.lines()[1] if l.key == "menu_volume"][0].params == {"n": 60}
    choose(menu, "menu_volume")
    assert menu.page == "volume" and menu.lines()[1][menu.chosen].key == "menu_volume_level_now"
    choose(menu, "menu_volume_mute")
    assert menu.volume == 0 and menu.page == "volume" and menu.lines()[1][0].key == "menu_volume_mute_now"
    menu.press(BACK)
    assert menu.page == "main" and [l for l in menu.lines()[1] if l.key == "menu_volume"][0].params == {"n": 0}


def test_the_box_remembers_its_language_and_volume(tmp_path, monkeypatch):
    from controller.app.box import run_box
    from controller.table.eventlog import EventLog
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    seen = []

    def launcher(activity, ports, **kw):
        seen.append(kw["lang"])

    with SimulatedStation("sim-a") as a:
        def person():
            a.wait_for(lambda s: bool(s.sent("WHO")), timeout=5)
            time.sleep(0.3)
            # the language page (5th line, English chosen): Italiano; then the volume page (6th): mute
            for button in (PLUS, PLUS, PLUS, PLUS, OK, PLUS, PLUS, OK, PLUS, OK, MINUS, MINUS, MINUS, OK):
                a.press(button)
                time.sleep(0.05)
        thread = threading.Thread(target=person, daemon=True)
        thread.start()
        run_box([a.port], headless=True, timeout=6, launcher=launcher)
        thread.join(5)
    with EventLog() as store:
        assert store.setting("lang") == "it" and store.setting("volume") == "0"
    with SimulatedStation("sim-b") as b:
        def choose_history():
            b.wait_for(lambda s: bool(s.sent("WHO")), timeout=5)
            time.sleep(0.3)
            b.press(PLUS)
            b.press(OK)                        # games played: the launcher sees the language
        threading.Thread(target=choose_history, daemon=True).start()
        run_box([b.port], headless=True, timeout=20, launcher=launcher, until=lambda: bool(seen))
    assert seen == ["it"]


# -- bots at empty seats ------------------------------------------------------------------------------

def test_crazy_kick_offers_bots_for_the_seats_no_station_takes():
    menu = Menu(stations=2)
    choose(menu, "menu_play")
    choose(menu, GAMES["crazy-kick"].title)
    assert [line.params["n"] for line in menu.lines()[1]] == list(range(2, 9))     # up to 8, with bots
    while menu.lines()[1][menu.chosen].params["n"] != 4:
        menu.press(PLUS)
    menu.press(OK)
    bots_line = [l for l in menu.lines()[1] if l.key == "menu_bots"][0]
    assert bots_line.params == {"n": 2}                   # two stations: at least two bots
    choose(menu, "menu_bots")
    assert [l for l in menu.lines()[1] if l.key == "menu_bots"][0].params == {"n": 3}
    choose(menu, "menu_bots")                             # round again: back to the fewest
    assert [l for l in menu.lines()[1] if l.key == "menu_bots"][0].params == {"n": 2}
    assert choose(menu, "menu_start") == Activity("play", game="crazy-kick", players=4,
                                                  options={"bots": 2})


def test_a_game_with_hidden_hands_offers_no_bots():
    menu = Menu(stations=4)
    choose(menu, "menu_play")
    choose(menu, GAMES["partout"].title)
    assert [line.params["n"] for line in menu.lines()[1]] == [3, 4]
    choose(menu, "menu_players")
    assert "menu_bots" not in [l.key for l in menu.lines()[1]]


def test_play_refuses_bots_where_cards_are_hidden_and_keeps_one_seat_for_a_person():
    import pytest
    from controller.app.play import run_table
    from controller.games.core import IllegalAction
    with pytest.raises(IllegalAction, match="Bots cannot play Partout"):
        run_table("partout", ports=["/dev/null"] * 3, players=4, names=[], virtual=False, seed=1, new=True,
                  lang="en", fullscreen=False, headless=True, options={"bots": 1})
    with pytest.raises(IllegalAction, match="from 0 to 3 of the 4 seats, not 4"):
        run_table("crazy-kick", ports=[], players=4, names=[], virtual=True, seed=1, new=True,
                  lang="en", fullscreen=False, headless=True, options={"bots": 4})


def test_bots_play_the_empty_seats_of_a_crazy_kick_match(tmp_path, monkeypatch):
    import pytest
    from controller.app.play import run_table
    from controller.table.eventlog import EventLog
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    with SimulatedStation("sim-person") as person:
        with pytest.raises(TimeoutError):                 # the person never presses: the bots play on
            run_table("crazy-kick", ports=[person.port], players=3, names=["Anna"], virtual=True, seed=5,
                      new=True, lang="en", fullscreen=False, headless=True, timeout=6, options={"bots": 2})
    with EventLog(tmp_path / "spieltisch.db") as store:
        saved = store.load(store.unfinished_ids("crazy-kick")[0])
    assert saved.seats == ["sim-person", "bot-1", "bot-2"] and saved.config["bots"] == 2
    movers = {a.get("player") for a in saved.actions}
    assert movers and movers <= {1, 2}                    # only the bots' seats moved
