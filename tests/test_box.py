"""The table's menu: every choice reached with a station's buttons, and `spieltisch box`
starting what was chosen at the right station, then coming back to the menu."""

from __future__ import annotations

import threading
import time

from conftest import wait_until

from controller.app.menu import BACK, MINUS, OK, PLUS, Activity, Menu
from controller.games import GAMES
from hardware.sim.station import SimulatedStation


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
    choose(menu, "menu_service")
    assert choose(menu, "menu_selftest", "/dev/ttyACM2") == Activity("selftest", station="/dev/ttyACM2")
    choose(menu, "menu_service")
    choose(menu, "menu_enroll")
    assert menu.page == "deck" and GAMES["crazy-kick"].title not in [line.params["game"] for line in menu.lines()[1]]
    menu.press(BACK)                                                    # back to the service page, on its line
    assert menu.page == "service" and menu.lines()[1][menu.chosen].key == "menu_enroll"
    choose(menu, "menu_enroll")
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
            # station b: the service page (the 6th line), its self-test (the 3rd)
            for button in (PLUS, PLUS, PLUS, PLUS, PLUS, OK, PLUS, PLUS, OK):
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

def spell(seating, station, name):
    """Press the letters of ``name`` at ``station``, as a person would: the next row with the
    top middle button, along the row with left and right, OK to add; then done."""
    from controller.app.seating import DONE, LETTER_ROWS, NEXT_ROW
    presses = 0
    for letter in name:
        seat = seating._seat(station)
        row = next(r for r, letters in enumerate(LETTER_ROWS) if letter.upper() in letters)
        while seat.row != row:
            seating.press(station, NEXT_ROW)
            presses += 1
        col = LETTER_ROWS[row].index(letter.upper())
        step = PLUS if (col - seat.col) % len(LETTER_ROWS[row]) <= len(LETTER_ROWS[row]) // 2 else MINUS
        while seat.col != col:
            seating.press(station, step)
            presses += 1
        seating.press(station, OK)
        presses += 1
    seating.press(station, DONE)
    return presses + 1


def test_stations_take_seats_in_the_order_pressed_and_offer_the_people_the_table_knows():
    from controller.app.seating import NEW_NAME, Seating
    seating = Seating(3, "Partout", remembered={"st-c": "Oma"}, known=["Ben", "Oma", "Anna"])
    seating.press("st-b", 1)                                   # any button: seat 1
    seating.press("st-c", 5)
    seating.press("st-a", 0)
    assert seating.stations == ["st-b", "st-c", "st-a"]
    assert seating.names == ["Ben", "Oma", "Anna"]             # who played last first; st-c's own first
    seating.press("st-x", 4)
    assert seating.note == ("seating_full", {"n": 3}) and len(seating.stations) == 3
    seating.press("st-a", PLUS)                                # after the people: a new name
    assert seating.names[2] == NEW_NAME and seating.snapshot().picking[2] == "name"
    seating.press("st-a", PLUS)                                # round the list: Anna again
    assert seating.names[2] == "Anna"
    seating.press("st-a", MINUS)
    seating.press("st-a", OK)                                  # "a new name": spell it
    assert seating.snapshot().picking[2] == "spell"
    spell(seating, "st-a", "Jo")
    assert seating.names[2] == "Jo" and seating.snapshot().picking[2] == "colour"
    for station in ("st-b", "st-c"):
        seating.press(station, OK)                             # the names offered
    assert not seating.done and seating.snapshot().picking == ("colour",) * 3
    for station in ("st-b", "st-c", "st-a"):
        seating.press(station, OK)                             # the colour offered
    assert seating.done and seating.names == ["Ben", "Oma", "Jo"]
    assert len(set(seating.colours)) == 3


def test_a_new_table_spells_each_name_letter_by_letter_with_capitals_where_names_have_them():
    from controller.app.seating import BACK, DONE, NAME_MAX, Seating
    seating = Seating(2, "Tadika")
    seating.press("st-a", 4)
    assert seating.snapshot().picking == ("spell", "name")     # nobody known: the letters at once
    rows, row, col, keys = seating.snapshot().spelling[0]
    assert rows[0] == "ABCDEFG" and (row, col) == (0, 0) and keys[BACK] is None and keys[DONE] is None
    presses = spell(seating, "st-a", "Jean-Luc")
    assert seating.names[0] == "Jean-Luc" and presses <= 8 * 7  # at most seven presses a letter
    seating.press("st-a", BACK)                                # from the colour: back to the letters
    seating.press("st-a", BACK)                                # and the last letter goes
    assert seating.names[0] == "Jean-Lu" and seating.snapshot().spelling[0][0][0] == "abcdefg"
    for _ in range(NAME_MAX):
        seating.press("st-a", OK)
    assert len(seating.names[0]) == NAME_MAX and seating.note == ("seating_name_long", {"n": NAME_MAX})


def test_spelling_refuses_an_empty_name_and_one_that_begins_with_a_space():
    from controller.app.seating import DONE, NEXT_ROW, Seating
    seating = Seating(1, "Team UP!")
    seating.press("st-a", 4)
    seating.press("st-a", DONE)
    assert seating.note == ("seating_name_empty", {}) and seating.snapshot().picking == ("spell",)
    for _ in range(3):
        seating.press("st-a", NEXT_ROW)
    seating.press("st-a", MINUS)                               # the row's last: a hyphen
    seating.press("st-a", OK)
    assert seating.note == ("seating_letter_first", {}) and seating.names == [""]


def test_a_name_the_table_knows_in_another_case_is_that_person_and_keeps_their_colour():
    from controller.app.seating import Seating
    seating = Seating(2, "Tadika", known=["Anna"], person_colours={"Anna": "green"})
    seating.press("st-a", 4)
    seating.press("st-b", 4)
    assert seating.names == ["Anna", ""]                       # b: the only known name is a's:
    assert seating.snapshot().picking == ("name", "spell")     # b spells at once
    spell(seating, "st-b", "Ben")
    seating.press("st-a", OK)
    assert seating.colours[0] == "green"                       # Anna's colour
    seating.press("st-a", OK)
    seating.press("st-b", 0)                                   # b: back to the letters
    for _ in range(3):
        seating.press("st-b", 0)                               # Ben's letters taken back
    spell(seating, "st-b", "ANNA")
    assert seating.note == ("seating_name_taken", {"name": "Anna"}) and not seating.done


def test_each_seat_picks_a_colour_nobody_else_has_and_its_led_shows_it():
    from controller.app.seating import BACK, COLOURS, Seating
    seating = Seating(2, "Crazy Kick", remembered={"st-a": "Ann", "st-b": "Bo"}, known=["Ann", "Bo"],
                      remembered_colours={"st-b": "orange"})
    seating.press("st-a", 4)
    seating.press("st-b", 4)
    assert seating.led("st-a") is None                         # still choosing a name
    seating.press("st-a", OK)
    assert seating.colours[0] == "red" and seating.led("st-a") == COLOURS["red"]
    seating.press("st-a", PLUS)
    assert seating.colours[0] == "orange" and seating.led("st-a") == COLOURS["orange"]
    seating.press("st-a", OK)                                  # a takes orange first
    seating.press("st-b", OK)
    assert seating.colours[1] != "orange"                      # b's from last time is taken now
    seating.press("st-b", MINUS)
    seating.press("st-b", MINUS)
    assert seating.colours[1] not in ("orange",)               # orange is skipped: it is taken
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
    spell(seating, "st-a", "Anna")
    spell(seating, "st-b", "Anna")
    assert seating.note == ("seating_name_taken", {"name": "Anna"}) and not seating.done


def test_seating_at_the_stations_orders_the_ports_and_remembers_the_people(tmp_path, monkeypatch):
    from controller.app.box import run_seating
    from controller.app.seating import COLOURS
    from controller.table.eventlog import EventLog
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    with EventLog(tmp_path / "spieltisch.db") as store:
        store.person("Anna", "red")
        store.person("Clara")                                  # played last: offered first
    with SimulatedStation("sim-a") as a, SimulatedStation("sim-b") as b:
        def people():
            a.wait_for(lambda s: bool(s.sent("WHO")), timeout=5)
            b.wait_for(lambda s: bool(s.sent("WHO")), timeout=5)
            time.sleep(0.2)
            for station, button in ((b, 2), (a, 2),            # b sits down first: Clara; a: Anna
                                    (a, OK),                   # Anna, in her red
                                    (b, OK), (b, PLUS), (b, OK),   # Clara: orange is offered, yellow taken
                                    (a, OK)):
                station.press(button)
                time.sleep(0.05)
        threading.Thread(target=people, daemon=True).start()
        seated = run_seating([a.port, b.port], 2, "crazy-kick", lang="en", headless=True, fullscreen=False,
                             timeout=20)
        assert b.wait_for(lambda s: any(f[0] == "f0d232" for f in s.sent("LED")), timeout=5)   # its LED: yellow
    assert seated == ([b.port, a.port], ["Clara", "Anna"], [COLOURS["yellow"], COLOURS["red"]])
    with EventLog(tmp_path / "spieltisch.db") as store:
        assert store.station_names() == {"sim-b": "Clara", "sim-a": "Anna"}
        assert sorted(store.people()) == [("Anna", "red"), ("Clara", "yellow")]


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
            # the service page (the 6th line), then its self-test (the 3rd), at the station that answers
            for button in (PLUS, PLUS, PLUS, PLUS, PLUS, OK, PLUS, PLUS, OK):
                a.press(button)
                time.sleep(0.05)
        threading.Thread(target=person, daemon=True).start()
        run_box(["/dev/no-such-station", a.port], headless=True, timeout=30,
                launcher=lambda act, ports, **kw: started.append((act, ports)), until=lambda: bool(started))
    assert started == [(Activity("selftest", station=a.port), [a.port])]


def shown_on_the_tv(monkeypatch) -> list:
    """Every snapshot the box's screens are given."""
    from display.app import Screen
    shown: list = []
    real = Screen.show
    monkeypatch.setattr(Screen, "show", lambda self, snap: shown.append(snap) or real(self, snap))
    return shown


def test_without_a_station_the_tv_says_plug_one_in_and_why_each_port_failed(tmp_path, monkeypatch):
    """Issue 30: with no station the box waited and the TV said nothing useful."""
    from controller.app.box import run_box
    from controller.games import texts
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    shown = shown_on_the_tv(monkeypatch)
    assert run_box(["/dev/no-such-station", "/dev/null"], headless=True, timeout=10, until=lambda: bool(shown)) == 0
    status = shown[-1]
    assert status.game == "boxstatus" and status.title.key == "box_plug_in" and status.trouble
    said = {line.key: line.params for line in status.lines}
    assert said["box_port_missing"] == {"port": "/dev/no-such-station"}
    assert said["box_port_not_station"] == {"port": "/dev/null"}      # the system's English words: the log's
    assert texts.render("de", "box_plug_in", {}) == "Eine Station anstecken"
    shown.clear()
    assert run_box([], headless=True, timeout=10, until=lambda: bool(shown)) == 0   # nothing at all: only the request
    assert [line.key for line in shown[-1].lines] == ["box_plug_in_how"] and not shown[-1].trouble


def test_a_port_the_table_may_not_open_names_the_dialout_group():
    from controller.app.box_status import port_problem
    from hardware.link import StationError
    try:
        raise StationError("cannot open station port /dev/ttyACM0: [Errno 13] Permission denied") \
            from PermissionError(13, "Permission denied")
    except StationError as exc:
        assert port_problem("/dev/ttyACM0", exc).key == "box_port_denied"
    assert port_problem("/dev/ttyACM1", StationError("no HELLO from /dev/ttyACM1 within 2.0 s")).key == \
        "box_port_silent"


def test_with_a_damaged_database_the_tv_says_what_is_wrong_and_the_box_waits(tmp_path, monkeypatch):
    """Issue 30: a bad database stopped the box (systemd started it again and again, the TV
    dark); now the TV says what is wrong, and the box tries again until it can be used."""
    from controller.app.box import run_box
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    (tmp_path / "spieltisch.db").write_bytes(b"not a database at all" * 100)
    shown = shown_on_the_tv(monkeypatch)
    assert run_box([], headless=True, timeout=10, until=lambda: bool(shown)) == 0
    status = shown[-1]
    assert status.game == "boxstatus" and status.title.key == "box_storage_title" and status.trouble
    assert status.detail.key == "storage_not_a_database" and "spieltisch.db" in str(status.detail.params)
    import pygame
    from display import draw
    from display.boxstatus_view import BoxStatusView
    drawn, wrapped = [], draw.wrapped
    monkeypatch.setattr(draw, "wrapped", lambda surface, words, *a, **k: (drawn.append(words),
                                                                          wrapped(surface, words, *a, **k))[1])
    BoxStatusView("de").draw(pygame.Surface((1920, 1080)), status)   # the store's sentence in the TV's language
    assert any("keine Spieltisch-Datenbank" in words for words in drawn), drawn
    assert not any("not a Spieltisch database" in words for words in drawn)
    (tmp_path / "spieltisch.db").unlink()                       # the owner moved it aside: the box goes on
    shown.clear()
    assert run_box([], headless=True, timeout=10, until=lambda: bool(shown)) == 0
    assert shown[-1].title.key == "box_plug_in"


def test_switch_off_is_asked_first_with_no_first():
    menu = Menu(stations=2)
    assert choose(menu, "menu_switch_off") is None and menu.page == "switch_off"
    assert [line.key for line in menu.lines()[1]] == ["menu_switch_off_no", "menu_switch_off_yes"]
    assert menu.press(OK) is None and menu.page == "main"               # "no": back, on the same line
    assert menu.lines()[1][menu.chosen].key == "menu_switch_off"
    menu.press(OK)
    menu.press(PLUS)
    assert menu.press(OK) == Activity("switch_off")


def switched_off_by(tmp_path) -> list[str]:
    """A power-off command for the test: it leaves a mark instead of switching anything off."""
    import sys
    mark = tmp_path / "switched-off"
    return [sys.executable, "-c", f"open({str(mark)!r}, 'w').write('off')"]


def test_switch_off_from_the_menu_powers_off_with_the_command_it_is_given_and_says_when_to_unplug(
        tmp_path, monkeypatch):
    from controller.app.box import run_box
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    shown = shown_on_the_tv(monkeypatch)
    with SimulatedStation("sim-a") as a:
        def person():
            a.wait_for(lambda s: bool(s.sent("WHO")), timeout=5)
            time.sleep(0.3)
            for button in (MINUS, OK, PLUS, OK):               # the last line, then "yes"
                a.press(button)
                time.sleep(0.05)
        threading.Thread(target=person, daemon=True).start()
        assert run_box([a.port], headless=True, timeout=20, poweroff=switched_off_by(tmp_path),
                       until=(tmp_path / "switched-off").exists) == 0
    assert (tmp_path / "switched-off").read_text() == "off"
    assert shown[-1].game == "boxstatus" and shown[-1].title.key == "box_switching_off"
    assert [line.key for line in shown[-1].lines] == ["box_switching_off_how"]


def test_a_switch_off_the_system_refuses_is_said_on_the_menu(tmp_path, monkeypatch, caplog):
    """Issue 40: a refused switch-off put a Python error and a `sudo` command on the TV."""
    import logging
    caplog.set_level(logging.WARNING)
    from controller.app.box import run_box
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    shown = shown_on_the_tv(monkeypatch)
    refusing = ["sh", "-c", "echo 'sudo: a password is required' >&2; exit 1"]
    with SimulatedStation("sim-a") as a:
        def person():
            a.wait_for(lambda s: bool(s.sent("WHO")), timeout=5)
            time.sleep(0.3)
            for button in (MINUS, OK, PLUS, OK):
                a.press(button)
                time.sleep(0.05)
        threading.Thread(target=person, daemon=True).start()
        run_box([a.port], headless=True, timeout=30, poweroff=refusing,
                until=lambda: any(getattr(snap, "note", None) for snap in shown))
    note = next(snap.note for snap in shown if getattr(snap, "note", None))
    assert note.key == "switch_off_refused" and not note.params     # the family's words, no system text
    from controller.games import texts
    for lang in texts.LANGUAGES:
        said = texts.render(lang, note.key, note.params)
        assert "sudo" not in said and "`" not in said and "Error" not in said
    # the detail, and how to permit the command, go to the log
    assert any("sudo: a password is required" in line and "install-pi" in line for line in caplog.messages)


def hold_until(factory, pin: int, answered, what: str) -> None:
    """Holds a panel button down until the box answers (``answered()``), as a person does:
    the hold is the panel's to time (gpiozero's own thread), and a busy machine only makes
    it later, never a short press."""
    factory.pin(pin).drive_low()
    try:
        wait_until(answered, 60, what)
    finally:
        factory.pin(pin).drive_high()


def switching_off_shown(shown: list) -> bool:
    return any(s.game == "boxstatus" and s.title.key == "box_switching_off" for s in shown)


def test_the_host_panel_drives_the_menu_and_switches_off_a_box_without_stations(tmp_path, monkeypatch):
    """Issue 30: the Pi's own buttons worked only in `play --panel`. In the box a short press
    of menu moves on, holding it chooses, undo goes back; with no station at all, holding
    menu switches the box off."""
    from gpiozero.pins.mock import MockFactory
    from controller.app.box import run_box
    from hardware.panel import DEFAULT_PINS
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    menu_pin, undo_pin, led_pin, _ = DEFAULT_PINS
    factory = MockFactory()
    shown = shown_on_the_tv(monkeypatch)
    try:
        def hold_menu():
            wait_until(lambda: any(s.game == "boxstatus" for s in shown), 60, "the plug-in screen")
            assert factory.pin(led_pin).state in (0, 1)
            hold_until(factory, menu_pin, lambda: switching_off_shown(shown), "the switching-off screen")
        person = threading.Thread(target=hold_menu, daemon=True)
        person.start()
        assert run_box([], headless=True, timeout=120, panel_pins=DEFAULT_PINS, panel_factory=factory,
                       poweroff=switched_off_by(tmp_path), until=(tmp_path / "switched-off").exists) == 0
        person.join(60)
        assert (tmp_path / "switched-off").exists()
        lines = next(s.lines for s in shown if s.game == "boxstatus" and s.title.key == "box_plug_in")
        assert "box_panel_switch_off" in [line.key for line in lines]
        factory.reset()
        started = []
        with SimulatedStation("sim-a") as a:
            def panel_person():
                a.wait_for(lambda s: bool(s.sent("WHO")), timeout=60)
                wait_until(lambda: any(s.game == "menu" for s in shown), 60, "the menu")
                menus = [s for s in shown if s.game == "menu"]

                def pages_after(n):
                    return [s.title.key for s in shown if s.game == "menu"][n:]

                def push(pin):                             # a short press, then its effect on the menu
                    seen = len([s for s in shown if s.game == "menu"])
                    factory.pin(pin).drive_low()
                    factory.pin(pin).drive_high()
                    wait_until(lambda: len(pages_after(seen)) > 0, 60, "the menu's answer to a press")
                # held (until the menu answers): choose "Play"
                hold_until(factory, menu_pin, lambda: "menu_choose_game" in pages_after(len(menus)), "the game page")
                push(undo_pin)                                 # undo: back to the main page
                push(menu_pin)                                 # a short press: the next line
                hold_until(factory, menu_pin, lambda: bool(started), "the history")    # held: "Games played"
            person = threading.Thread(target=panel_person, daemon=True)
            person.start()
            run_box([a.port], headless=True, timeout=120, panel_pins=DEFAULT_PINS, panel_factory=factory,
                    launcher=lambda act, ports, **kw: started.append((act, kw)), until=lambda: bool(started))
            person.join(60)
        activity, kw = started[0]
        assert activity == Activity("history")
        assert kw["panel_pins"] == DEFAULT_PINS                # a game gets the panel too (undo)
        pages = [s.title.key for s in shown if s.game == "menu"]
        assert "menu_choose_game" in pages and pages[-1] == "menu_title"
    finally:
        factory.reset()


def hold_menu_in_a_box_without_stations(tmp_path, monkeypatch, poweroff: list[str], until) -> list:
    """A box with no station and its host panel: a person holds menu once the plug-in screen
    is up, until the switching-off screen shows; the box runs until ``until(shown)``. What
    the TV was given."""
    from gpiozero.pins.mock import MockFactory
    from controller.app.box import run_box
    from hardware.panel import DEFAULT_PINS
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    factory = MockFactory()
    shown = shown_on_the_tv(monkeypatch)
    try:
        def hold_menu():
            wait_until(lambda: any(s.game == "boxstatus" for s in shown), 60, "the plug-in screen")
            hold_until(factory, DEFAULT_PINS[0], lambda: switching_off_shown(shown), "the switching-off screen")
        person = threading.Thread(target=hold_menu, daemon=True)
        person.start()
        run_box([], headless=True, timeout=120, panel_pins=DEFAULT_PINS, panel_factory=factory,
                poweroff=poweroff, until=lambda: until(shown))
        person.join(60)
    finally:
        factory.reset()
    return shown


def test_a_switch_off_refused_in_a_box_without_stations_is_said_on_its_waiting_screen(tmp_path, monkeypatch, caplog):
    import logging
    caplog.set_level(logging.WARNING)
    shown = hold_menu_in_a_box_without_stations(tmp_path, monkeypatch, ["sh", "-c", "echo 'not permitted' >&2; exit 1"],
                                                lambda shown: any(getattr(s, "detail", None) for s in shown))
    said = next(s for s in shown if getattr(s, "detail", None))
    assert said.title.key == "box_plug_in" and said.trouble and said.detail.key == "switch_off_refused"
    assert any("not permitted" in line for line in caplog.messages)


def test_holding_menu_switches_off_a_box_that_looks_for_stations_more_often_than_the_hold_lasts(tmp_path, monkeypatch):
    """The box looks for stations every LOOK_AGAIN_S; it opened the panel afresh each time, so
    a hold that spanned a look (the hold is 2 s, the look every 2 s) began again on the new
    panel and, on a busy machine, never ended: the box could not be switched off. With looks
    four times as often as the hold is long, only a panel kept open sees the hold through."""
    from controller.app import box_status
    from hardware.panel import HOLD_S
    monkeypatch.setattr(box_status, "LOOK_AGAIN_S", HOLD_S / 4)
    shown = hold_menu_in_a_box_without_stations(tmp_path, monkeypatch, ["true"], switching_off_shown)
    assert switching_off_shown(shown)


def test_games_played_turns_its_pages_with_left_and_right_and_any_other_button_goes_back(tmp_path, monkeypatch):
    from controller.app.box import show_history
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    shown = shown_on_the_tv(monkeypatch)
    with SimulatedStation("sim-a") as a:
        def person():
            a.wait_for(lambda s: bool(s.sent("WHO")), timeout=5)
            time.sleep(0.3)
            for button in (PLUS, PLUS, MINUS, OK):
                a.press(button)
                time.sleep(0.05)
        threading.Thread(target=person, daemon=True).start()
        show_history([a.port], lang="en", headless=True, fullscreen=False, timeout=20)
    assert [snap.page for snap in shown] == [0, 1, 2, 1]


def test_the_menu_offers_a_saved_game_with_the_languages_date(tmp_path, monkeypatch):
    import time as clock
    from controller.app.box import unfinished_game
    from controller.table.eventlog import EventLog
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    with EventLog(tmp_path / "spieltisch.db") as store:
        game_id = store.start_game("tadika", {"players": 2, "mode": "physical"}, 1, ["a", "b"])
        store._db.execute("UPDATE games SET started_at = ? WHERE id = ?",
                          (clock.mktime((2026, 11, 25, 19, 40, 0, 0, 0, -1)), game_id))
    assert unfinished_game(None, "de").when == "25.11. 19:40"
    assert unfinished_game("tadika", "it").when == "25/11 19:40"


def test_the_volume_is_chosen_in_steps_or_muted():
    menu = Menu(stations=2, volume=60)
    assert [line for line in menu.lines()[1] if line.key == "menu_volume"][0].params == {"n": 60}
    choose(menu, "menu_volume")
    assert menu.page == "volume" and menu.lines()[1][menu.chosen].key == "menu_volume_level_now"
    choose(menu, "menu_volume_mute")
    assert menu.volume == 0 and menu.page == "volume" and menu.lines()[1][0].key == "menu_volume_mute_now"
    menu.press(BACK)
    assert menu.page == "main" and [line for line in menu.lines()[1] if line.key == "menu_volume"][0].params == {"n": 0}


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
            # the language page (4th line, English chosen): Italiano; then the volume page (5th): mute
            for button in (PLUS, PLUS, PLUS, OK, PLUS, PLUS, OK, PLUS, OK, MINUS, MINUS, MINUS, OK):
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
    bots_line = [line for line in menu.lines()[1] if line.key == "menu_bots"][0]
    assert bots_line.params == {"n": 2}                   # two stations: at least two bots
    choose(menu, "menu_bots")
    assert [line for line in menu.lines()[1] if line.key == "menu_bots"][0].params == {"n": 3}
    choose(menu, "menu_bots")                             # round again: back to the fewest
    assert [line for line in menu.lines()[1] if line.key == "menu_bots"][0].params == {"n": 2}
    assert choose(menu, "menu_start") == Activity("play", game="crazy-kick", players=4,
                                                  options={"bots": 2})


def test_a_game_with_hidden_hands_offers_no_bots():
    menu = Menu(stations=4)
    choose(menu, "menu_play")
    choose(menu, GAMES["partout"].title)
    assert [line.params["n"] for line in menu.lines()[1]] == [3, 4]
    choose(menu, "menu_players")
    assert "menu_bots" not in [line.key for line in menu.lines()[1]]


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


def test_a_game_knows_who_sat_at_its_seats_and_going_on_seats_them_again(tmp_path, monkeypatch):
    """Issue 30: players are people. The people (not the bots) are recorded at their seats when
    a game starts, and going on with it names them again (before, a resumed game's seats had
    no names)."""
    import pytest
    from controller.app import play
    from controller.table.eventlog import EventLog
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    with EventLog(tmp_path / "spieltisch.db") as store:
        store.person("Anna", "green")
    with SimulatedStation("sim-person") as person:
        with pytest.raises(TimeoutError):
            play.run_table("crazy-kick", ports=[person.port], players=3, names=["Anna"], virtual=True, seed=5,
                           new=True, lang="en", fullscreen=False, headless=True, timeout=2, options={"bots": 2})
        with EventLog(tmp_path / "spieltisch.db") as store:
            game_id = store.unfinished_ids("crazy-kick")[0]
            assert store.players_of([game_id]) == {game_id: {0: ("Anna", "green")}}
        resumed = {}
        real = play.Table.resume

        def resume(rules, saved, store, **kw):
            resumed.update(kw)
            return real(rules, saved, store, **kw)
        monkeypatch.setattr(play.Table, "resume", staticmethod(resume))
        with pytest.raises(TimeoutError):
            play.run_table("crazy-kick", ports=[person.port], players=3, names=[], virtual=True, seed=None,
                           new=False, lang="en", fullscreen=False, headless=True, timeout=1, options={"bots": 2})
    assert resumed["names"] == ["Anna", "Bot 1", "Bot 2"]
    assert resumed["colours"] == ["3cb43c", None, None]


def test_a_menu_longer_than_the_screen_says_how_many_lines_lie_above_and_below(monkeypatch):
    """Ten lines and eight in sight: the lines scrolled away are not lost to a family, an
    arrow and a count say where they are."""
    from controller.app.menu import MenuLine, MenuSnapshot
    from display.app import Screen
    from tests.conftest import record_texts
    lines = tuple(MenuLine("menu_players", {"n": n}) for n in range(10))
    drawn = record_texts(monkeypatch)
    screen = Screen(headless=True, lang="en")
    screen.render(MenuSnapshot("menu", MenuLine("menu_title"), lines, 0, 2, "en"))
    assert "+2" in [w for w, _, _ in drawn]                             # at the top: more below
    drawn.clear()
    screen.render(MenuSnapshot("menu", MenuLine("menu_title"), lines, 9, 2, "en"))
    words = [w for w, _, _ in drawn]
    assert "+2" in words and all(size >= 28 for w, size, _ in drawn if w.startswith("+"))


def test_the_main_page_fits_on_one_screen_with_switch_off_last_and_the_service_items_on_their_own_page(
        monkeypatch):
    """Issue 40: "Switch off" was the 10th of 10 lines, below the fold under a technician's
    items. Play, games played, how to play, language, sound and switch off fit on one screen."""
    from controller.app.menu import MAIN_ITEMS
    from display.app import Screen
    from display.menu_view import ROWS
    from tests.conftest import record_texts
    menu = Menu(stations=2)
    keys = [line.key for line in menu.lines()[1]]
    assert len(keys) <= ROWS and keys[-1] == "menu_switch_off"
    assert {"menu_play", "menu_history", "menu_how_to_play", "menu_language", "menu_volume"} <= set(keys)
    assert not {"menu_doctor", "menu_flash", "menu_selftest", "menu_enroll"} & set(keys)
    choose(menu, "menu_service")
    assert [line.key for line in menu.lines()[1]] == ["menu_doctor", "menu_flash", "menu_selftest", "menu_enroll"]
    menu.press(BACK)
    assert menu.page == "main" and MAIN_ITEMS[menu.chosen] == "menu_service"
    drawn = record_texts(monkeypatch)
    screen = Screen(headless=True, lang="de")
    for chosen in range(len(keys)):
        menu.chosen = chosen
        drawn.clear()
        screen.render(menu.snapshot())
        assert not [w for w, _, _ in drawn if w.startswith("+")]         # nothing below the fold
        assert "Ausschalten" in " ".join(w for w, _, _ in drawn)


def test_a_note_is_never_drawn_over_the_last_line_in_sight_or_its_count(monkeypatch):
    """Issue 40: a note lay over the last visible line and its "+2" marker. The list shows
    fewer lines while a note is there, and the count moves up with them."""
    import pygame
    from controller.app.menu import MenuLine, MenuSnapshot
    from display.menu_view import MenuView
    from tests.conftest import record_texts
    lines = tuple(MenuLine("menu_players", {"n": n}) for n in range(10))
    for lang in ("de", "en", "fr", "it"):
        for note in (MenuLine("menu_buttons_help"), MenuLine("switch_off_refused"),
                     MenuLine("menu_error", {"reason": "x " * 120})):
            snap = MenuSnapshot("menu", MenuLine("menu_title"), lines, 0, 2, lang, note)
            view = MenuView(lang)
            drawn = record_texts(monkeypatch)
            view.draw(pygame.Surface((1920, 1080)), snap)
            box = view.note_box(snap)
            shown = [line.params["n"] for line in lines]
            listed = [(w, rect) for w, _, rect in drawn if w in {view.words(line) for line in lines}]
            counts = [(w, rect) for w, _, rect in drawn if w.startswith("+")]
            assert listed and counts and len(listed) < len(shown)
            for words, rect in listed + counts:
                assert rect.bottom + 12 <= box.top, (lang, words, rect, box)
            assert counts[-1][0] == f"+{len(lines) - len(listed)}"
            monkeypatch.undo()


def test_the_waiting_screens_speak_the_familys_language_and_leave_options_to_the_log(tmp_path, monkeypatch, caplog):
    """Issue 40: the waiting screens mixed English system text ("Inappropriate ioctl for
    device") into the family's language and told them to choose another `--data-dir`."""
    import logging
    import sqlite3
    from controller.app.box_status import port_problem, store_problem
    from controller.games import texts
    from hardware.link import StationError
    caplog.set_level(logging.WARNING)
    not_a_tty = StationError("cannot open station port /dev/null: (25, 'Inappropriate ioctl for device')")
    line = port_problem("/dev/null", not_a_tty)
    assert line.key == "box_port_not_station" and line.params == {"port": "/dev/null"}
    assert texts.render("de", line.key, line.params) == "/dev/null ist keine Station."
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    with sqlite3.connect(tmp_path / "spieltisch.db") as other:       # another program's database
        other.execute("CREATE TABLE recipes (name TEXT)")
    problem = store_problem()
    assert problem is not None and problem.key == "box_storage_see_log"
    assert any("another program" in said and "--data-dir" in said for said in caplog.messages)
    for lang in texts.LANGUAGES:
        for key in ("box_storage_see_log", "storage_not_a_database", "box_port_not_station"):
            assert "--data-dir" not in texts.render(lang, key, {"path": "/x", "port": "/dev/null"})



def test_the_menu_is_drawn_when_it_changes_not_at_every_look(tmp_path, monkeypatch):
    """A box waiting at its menu draws it once, and again after a press changed it: not ten
    times a second (a waiting box with eight stations took a tenth of a core, issue 39)."""
    import controller.app.play as play
    from controller.app.box import run_box
    from display.app import Screen
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    looks, drawn = [], []
    next_input, show = play.next_input, Screen.show
    monkeypatch.setattr(play, "next_input", lambda *a, **kw: looks.append(1) or next_input(*a, **kw))
    monkeypatch.setattr(Screen, "show", lambda self, snapshot: drawn.append(snapshot.chosen) or show(self, snapshot))
    with SimulatedStation("sim-a") as a:
        def person():
            while len(looks) < 8:
                time.sleep(0.01)
            a.press(PLUS)                                        # the next line: drawn again
        threading.Thread(target=person, daemon=True).start()
        run_box([a.port], headless=True, timeout=30, until=lambda: len(looks) >= 20)
    assert drawn == [0, 1]
