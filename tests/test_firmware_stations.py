"""The real firmware in the loop (issue 32): stations that run the project's own firmware/
under MicroPython's WebAssembly build, on a simulated Pico (bouncing contacts below the
pins' IRQs, a datasheet-timed PN532 on I2C), behind the same pseudo-terminals and protocol
as a USB station (hardware/sim/firmware_station.py, hardware/sim/pico/).

Whole games take minutes on the real clock: they are in the ``slow`` group, which the
default run leaves out (pyproject's addopts); ``python -m pytest -m slow`` runs them."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import next_event
from hardware.events import ButtonEvent, TagEvent, TagGone, TagWritten
from hardware.sim.firmware_station import FirmwareUnavailable, firmware_stations
from hardware.link import StationLink
from hardware.protocol import SEQ_MODULO
from hardware.stationflash import table_firmware_version

ROOT = Path(__file__).resolve().parent.parent
ST1 = "st1:partout:abcdefghijklmnop"          # an enrolled card's record: 10 pages of an NTAG213


@pytest.fixture
def station():
    (one,) = firmware_stations(["seat-1"])
    yield one
    one.close()


def test_a_firmware_station_speaks_the_protocol_on_its_pseudo_terminal(station):
    """HELLO with the table's firmware version, a press and its release stamped by the
    firmware's IRQ, a card laid down read through the PN532 (its st1 record), and lifted."""
    events: queue.Queue = queue.Queue()
    link = StationLink(station.port, events).open(hello_timeout=30.0)
    try:
        assert link.station_id == station.station_id
        assert link.firmware == table_firmware_version()
        assert link.capabilities.get("fence") == "1" and link.capabilities.get("reader") == "pn532"
        last = station.press(4)
        down, up = next_event(events, ButtonEvent, 20), next_event(events, ButtonEvent, 20)
        assert (down.button, down.pressed, up.button, up.pressed) == (4, True, 4, False)
        assert up.seq == last
        assert ((up.station_us - down.station_us) % (1 << 30)) > 0
        last = station.tap("04A1B2C3D4E5F6", ST1)
        tag = next_event(events, TagEvent, 20)
        assert (tag.uid, tag.text) == ("04A1B2C3D4E5F6", ST1)
        gone = next_event(events, TagGone, 20)
        assert gone.uid == "04A1B2C3D4E5F6" and gone.seq == last
    finally:
        link.close()


def test_a_press_and_its_release_due_in_one_pass_are_stamped_apart(station):
    """A press whose command the board takes late, after its release was due too (a loaded
    host held the board's loop longer than the hold): the release reaches the pin a pass
    after the press, so the firmware stamps it later, never alike (before, both edges ran
    at the time the firmware last read, and the press and its release had one stamp, which
    a loaded host made of test_a_firmware_station_speaks_the_protocol_on_its_pseudo_terminal)."""
    import time
    events: queue.Queue = queue.Queue()
    link = StationLink(station.port, events).open(hello_timeout=30.0)
    try:
        last = station.press(2, at_ns=time.monotonic_ns() - 300_000_000, hold_ms=80.0)
        down, up = next_event(events, ButtonEvent, 20), next_event(events, ButtonEvent, 20)
        assert (down.button, down.pressed, up.button, up.pressed, up.seq) == (2, True, 2, False, last)
        assert 0 < (up.station_us - down.station_us) % (1 << 30) < 1 << 29, (down, up)
    finally:
        link.close()


def test_a_card_the_table_wrote_is_read_back_as_written(station):
    """WRITE through the firmware and the simulated chip onto the card on the reader: the
    next time it is laid down, its new record is what the table hears."""
    events: queue.Queue = queue.Queue()
    link = StationLink(station.port, events).open(hello_timeout=30.0)
    try:
        station.place("04A1B2C3D4E5F7", "partout:red5")
        assert next_event(events, TagEvent, 20).text == "partout:red5"
        link.write_tag("04A1B2C3D4E5F7", ST1, bytes.fromhex("a1b2c3d4e5f6"))
        wrote = next_event(events, TagWritten, 30)
        assert wrote.ok, wrote
        station.take_away()
        next_event(events, TagGone, 20)
        station.tap("04A1B2C3D4E5F7")                         # the same card, as the WRITE left it
        assert next_event(events, TagEvent, 20).text == ST1
    finally:
        link.close()


@pytest.mark.parametrize("config,fast_reads,reads", [
    ({}, 1, 0),                                 # firmware/config.py as it is: one FAST_READ of pages 4-13
    ({"I2C_TIMEOUT_US": 5_000}, 0, 3),          # 1.4's timeout kept in a station's config.py: READ alone
])
def test_a_station_reads_the_record_as_its_config_allows(config, fast_reads, reads):
    """The st1 record through the firmware station's PN532: how many FAST_READs and READs
    the chip passed to the card, as the board reports them (what spieltisch bench --only
    loop compares)."""
    (one,) = firmware_stations(["seat-1"], config=config)
    events: queue.Queue = queue.Queue()
    try:
        link = StationLink(one.port, events).open(hello_timeout=30.0)
        try:
            one.tap("04A1B2C3D4E5F6", ST1)
            assert next_event(events, TagEvent, 20).text == ST1
            next_event(events, TagGone, 20)
            report = one.stats()
            assert (report["fast_reads"], report["reads"]) == (fast_reads, reads), report
        finally:
            link.close()
    finally:
        one.close()


def test_without_node_the_command_says_what_is_missing_in_one_line(tmp_path):
    """No Node.js on the PATH: one line that names what to install, exit 2, no traceback."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)
    env = dict(os.environ, PATH=str(bin_dir), SDL_VIDEODRIVER="dummy")
    done = subprocess.run([sys.executable, "-m", "controller.app.cli", "--data-dir", str(tmp_path / "data"),
                           "demo", "partout", "--headless", "--stations", "firmware"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    lines = [line for line in done.stderr.splitlines() if line.strip() and "headless" not in line]
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and "Node.js" in lines[0] and "Traceback" not in done.stderr, done.stderr


def test_stations_firmware_in_play_needs_bots(tmp_path):
    env = dict(os.environ, SDL_VIDEODRIVER="dummy")
    done = subprocess.run([sys.executable, "-m", "controller.app.cli", "--data-dir", str(tmp_path), "play",
                           "crazy-kick", "--players", "2", "--port", "/dev/null", "--port", "/dev/null",
                           "--stations", "firmware"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--bots" in done.stderr and "Traceback" not in done.stderr


def test_firmware_unavailable_is_a_station_error():
    """The CLI turns it into one line (run_command catches StationError)."""
    from hardware.link import StationError
    assert issubclass(FirmwareUnavailable, StationError)


def _demo(game: str, tmp_path: Path, *args: str, timeout: float) -> dict:
    env = dict(os.environ, SDL_VIDEODRIVER="dummy")
    done = subprocess.run([sys.executable, "-m", "controller.app.cli", "--data-dir", str(tmp_path), "demo", game,
                           "--headless", "--stations", "firmware", *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_short_crazy_kick_match_races_on_the_firmware(tmp_path):
    """Two stations, one goal: every race decided on presses the firmware stamped in its
    IRQ and fenced with UPTO (CI's short game)."""
    from controller.app.demo import run_demo
    result = run_demo("crazy-kick", players=2, seed=5, headless=True, data_dir=tmp_path, timeout=240,
                      options={"goals": 1}, stations="firmware")
    assert result["finished"] and result["winner"] is not None, result


@pytest.mark.parametrize("stations,code", [("firmware", 1), ("rp2040", 1), ("sim", 0)])
def test_a_station_demo_that_ended_unfinished_exits_non_zero(tmp_path, monkeypatch, capsys, stations, code):
    """Nobody watched it: a game the firmware's stations did not carry to its end (a board
    that hung, the runner that gave up) prints its result line and exits 1, so a script or
    CI sees it (before, it exited 0). The game's run is what ended it unfinished."""
    import controller.app.demo as demo
    from controller.app.cli import main
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setattr(demo, "run_demo", lambda game, **kw: {"game": game, "finished": False, "actions": 3,
                                                               "game_id": 1})
    assert main(["--data-dir", str(tmp_path), "demo", "partout", "--headless", "--stations", stations]) == code
    out, err = capsys.readouterr()
    assert json.loads(out.strip().splitlines()[-1])["finished"] is False
    assert ("did not finish" in err) == (code == 1)


@pytest.mark.slow
def test_a_whole_partout_game_with_every_card_tapped_on_the_firmware(tmp_path):
    result = _demo("partout", tmp_path, "--seed", "3", timeout=1800)
    assert result["finished"] and result["actions"] > 40, result


@pytest.mark.slow
def test_a_whole_crazy_kick_match_on_the_firmware(tmp_path):
    result = _demo("crazy-kick", tmp_path, "--players", "4", "--seed", "2", timeout=1800)
    assert result["finished"] and result["winner"] is not None, result


def test_the_station_module_is_found_from_the_package():
    from hardware.sim.firmware_station import PICO, micropython_module
    assert micropython_module().is_file()
    assert {"board.py", "machine.py", "neopixel.py", "station.mjs"} <= {p.name for p in PICO.iterdir()}


def test_a_card_is_read_when_the_loop_is_slow():
    """The board's loop passes every 60 ms (what a loaded host made of the WebAssembly board):
    a card laid down is still read, and the hand goes on to the next press. An exchange with
    the PN532 takes several passes (the command, its ACK, the answer's header, the answer);
    firmware 1.6.0 failed it once 60 ms had passed since it began, so with passes 60 ms apart
    every exchange failed, the card was never read and the hand waited for ever (issue 43:
    the hang of --stations firmware under load, where the board's passes took 45-70 ms)."""
    (one,) = firmware_stations(["seat-1"], idle_us=60_000)
    events: queue.Queue = queue.Queue()
    try:
        link = StationLink(one.port, events).open(hello_timeout=30.0)
        try:
            one.press(2, hold_ms=40.0)
            one.tap("04A1B2C3D4E5F6", ST1)
            last = one.press(3, hold_ms=40.0)
            assert next_event(events, TagEvent, 60).text == ST1
            next_event(events, TagGone, 60)
            ups = []
            while not ups or ups[-1].seq != last:
                ups.append(next_event(events, ButtonEvent, 60))
            assert ups[-1].button == 3 and not ups[-1].pressed
            assert one.failed is None and one.stats()["taps_given_up"] == 0
        finally:
            link.close()
    finally:
        one.close()


def test_a_hand_whose_card_is_never_read_gives_up_and_says_why():
    """A reader whose chip never answers (a PN532 that is not there): the card laid down is
    never read, and the hand does not wait for its TAG for ever (issue 43: a hand waited
    for good and the game behind it hung). After its patience it takes the card away and
    the station says why in one line, naming the card and the reader; the bots driving it
    are stuck with that reason (the runner stops the game on it); the hand goes on with
    the next press."""
    from controller.bots.driver import hands_gave_up
    (one,) = firmware_stations(["seat-1"], board={"chip_mode": "silent", "hand_patience_us": 2_000_000})
    events: queue.Queue = queue.Queue()
    try:
        link = StationLink(one.port, events).open(hello_timeout=30.0)
        try:
            one.tap("04A1B2C3D4E5F6", ST1)
            last = one.press(1)
            why = one.wait_failed(60)
            assert why is not None and "04A1B2C3D4E5F6" in why and "not read" in why and "reader" in why, why
            assert why.startswith("station seat-1:") and "\n" not in why
            assert hands_gave_up({0: one}) == why
            ups = [next_event(events, ButtonEvent, 30), next_event(events, ButtonEvent, 30)]
            assert [(e.button, e.pressed) for e in ups] == [(1, True), (1, False)]
            assert one.stats()["taps_given_up"] == 1
            # the tap's TAG and GONE never came: the press's frames are two short of what was
            # counted, which is why a bot waiting for them cannot go on
            assert ups[-1].seq == (last - 2) % SEQ_MODULO
        finally:
            link.close()
    finally:
        one.close()


def test_bots_whose_station_gave_up_are_stuck_with_its_reason():
    """The runner stops on ``stuck`` (controller/table/runner.py): a station's hand that gave
    up makes both kinds of bot driver stuck, with the station's words."""
    from controller.bots.driver import BotDriver, RealtimeBotDriver
    from controller.games import find_game

    class GaveUp:
        station_id = "seat-2"
        failed = "station seat-2: the card 04AA laid on its reader was not read in 20000 ms (...)"

    class Fine:
        station_id = "seat-1"

    for game, driver in (("partout", BotDriver), ("crazy-kick", RealtimeBotDriver)):
        rules = find_game(game)
        bots = driver(rules, None, {0: Fine(), 1: GaveUp()}, seed=1)  # type: ignore[arg-type]
        assert bots.stuck == GaveUp.failed
        assert driver(rules, None, {0: Fine()}, seed=1).stuck is None  # type: ignore[arg-type]
