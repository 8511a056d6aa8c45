"""The host panel through gpiozero's mock pins: undo, the menu (a short press explains,
holding it stops the table), the status LED while a station is unplugged, the buzzer."""

from __future__ import annotations

import queue
import time

import pytest
from gpiozero.pins.mock import MockFactory

from controller.games import find_game
from controller.table.runner import TableRunner
from controller.table import Table
from hardware.events import ButtonEvent, StationHello, StationLost
from hardware.panel import DEFAULT_PINS, HostPanel

from conftest import wait_until

MENU, UNDO, LED, BUZZER = DEFAULT_PINS


@pytest.fixture
def factory():
    f = MockFactory()
    yield f
    f.reset()


@pytest.fixture
def panel(factory):
    events: queue.Queue = queue.Queue()
    p = HostPanel(events, pin_factory=factory, hold_s=0.2)
    yield p, events, factory
    p.close()


def press(factory, pin, hold=0.0):
    factory.pin(pin).drive_low()
    time.sleep(hold)
    factory.pin(pin).drive_high()


def test_undo_and_a_short_menu_press_become_events(panel):
    p, events, factory = panel
    assert factory.pin(LED).state                       # ready: the light is on
    press(factory, UNDO)
    assert events.get(timeout=1).button == "undo"
    press(factory, MENU, 0.02)
    assert events.get(timeout=1).button == "menu"
    assert events.empty()


def test_holding_menu_is_one_held_event_and_no_short_press(panel):
    p, events, factory = panel
    press(factory, MENU, 0.5)
    assert events.get(timeout=1).button == "menu_held"
    assert events.empty()          # the release was handled inside drive_high (gpiozero's mock pins)


def test_status_light_blinks_while_waiting_and_buzzer_beeps(panel):
    p, events, factory = panel
    p.show_status("waiting")
    seen = set()
    deadline = time.monotonic() + 1.5
    while len(seen) < 2 and time.monotonic() < deadline:
        seen.add(factory.pin(LED).state)
        time.sleep(0.02)
    assert seen == {0, 1}
    p.show_status("off")
    assert not factory.pin(LED).state
    p.beep(times=1, ms=200)
    wait_until(lambda: factory.pin(BUZZER).state, timeout=1, what="the buzzer")


def hello(station):
    return StationHello(station, "/dev/x", 1, "t", {}, time.monotonic_ns())


def test_the_runner_undoes_explains_pauses_and_stops_from_the_panel(panel, tmp_path):
    p, events, factory = panel
    table = Table(find_game("partout"), config={"players": 3, "mode": "virtual"}, seed=2,
                  stations=["a", "b", "c"])
    runner = TableRunner(table, events, {}, panel=p)
    for s in "abc":
        runner.handle(hello(s))
    seat = table.rules.to_act(table.state)
    runner.handle(ButtonEvent("abc"[seat], 0, 4, True, 0, time.monotonic_ns(), time.monotonic_ns()))
    assert len(table.actions) == 1

    press(factory, UNDO)                               # asks first: nothing taken back yet
    runner.handle(events.get(timeout=1))
    assert len(table.actions) == 1 and table.message.key == "undo_ask_panel"
    press(factory, UNDO)                               # pressed again: taken back
    runner.handle(events.get(timeout=1))
    assert table.actions == [] and table.message.key == "undone"

    press(factory, MENU, 0.02)
    runner.handle(events.get(timeout=1))
    assert table.message.key == "panel_menu_hint" and not runner.stopped

    runner.handle(StationLost("b", "/dev/x", "unplugged", time.monotonic_ns()))
    runner._publish()
    assert p.status == "waiting"
    runner.handle(hello("b"))
    runner._publish()
    assert p.status == "ready"

    press(factory, MENU, 0.5)
    runner.handle(events.get(timeout=1))
    assert runner.stopped


def test_play_refuses_panel_pins_it_cannot_use(tmp_path, monkeypatch):
    from controller.app.cli import main
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    assert main(["--data-dir", str(tmp_path), "play", "partout", "--players", "2", "--port", "a",
                 "--panel", "--panel-pins", "5,6"]) == 2
