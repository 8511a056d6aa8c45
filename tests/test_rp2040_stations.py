"""Stations on emulated silicon (issue 43): the project's firmware/ on MicroPython's rp2 port
(the image a Pico runs) on rp2040js, flashed there by ``spieltisch stations --flash`` with
mpremote, behind the same pseudo-terminals and protocol as a USB station
(hardware/sim/rp2040_station.py, hardware/sim/rp2040/station.mjs, hardware/sim/rp2040_pn532.py).

The emulator keeps its own clock (the core's cycles at 125 MHz): what these tests assert about
time is read from it (the firmware's own stamps, the emulator's figures), never from the
host's clock, so they hold at any load; only how long they take in wall time depends on it.

They need the MicroPython image and the RP2040's boot ROM in hardware.sim.rp2040_station's
``silicon_dir()`` (docs/rp2040.md): without them they are skipped, saying so. Whole games are
in the ``slow`` group."""

from __future__ import annotations

import queue

import pytest

from conftest import next_event
from hardware.events import ButtonEvent, TagEvent, TagGone
from hardware.sim.firmware_station import FirmwareUnavailable
from hardware.link import StationLink
from hardware.stationflash import table_firmware_version

ST1 = "st1:partout:abcdefghijklmnop"          # an enrolled card's record: 10 pages of an NTAG213
MASK = (1 << 30) - 1
WAIT_S = 600                                   # wall time the emulator may take, at any load


@pytest.fixture(scope="module")
def module():
    from hardware.sim.rp2040_station import emulator_module, silicon
    try:
        silicon()
        return emulator_module()
    except FirmwareUnavailable as exc:
        pytest.skip(str(exc))


def open_link(station, events: queue.Queue) -> StationLink:
    """The table's link to an emulated station, pinging it as the table does (open_links)."""
    link = StationLink(station.port, events)
    link.PING_INTERVAL_NS = link.WHO_INTERVAL_NS = station.ping_interval_ns
    return link.open(hello_timeout=WAIT_S)


@pytest.fixture
def station(module):
    from hardware.sim.rp2040_station import Rp2040Station, prepared_flash
    one = Rp2040Station("seat-1", module, flash_in=prepared_flash(module))
    one.wait_for_hello()                         # booted, as rp2040_stations hands them out
    yield one
    one.close()


def test_an_emulated_pico_speaks_the_protocol_on_its_pseudo_terminal(station):
    """HELLO with the table's firmware version and the Pico's unique id (what its flash chip
    says); idle, the core sleeps between the reader's polls (Firmware.rest, WFE); a press held
    80 ms stamped by the firmware's IRQ through the contact's bounce, a card laid down read
    through pico-sdk's I2C driver and the PN532 (its st1 record), lifted."""
    events: queue.Queue = queue.Queue()
    link = open_link(station, events)
    try:
        assert link.station_id == station.station_id
        assert link.firmware == table_firmware_version()
        assert link.capabilities.get("reader") == "pn532" and link.capabilities.get("led") == "ws2812"
        station.run_for(1000)                   # the answers to the table's opening words are out
        before = station.stats()
        station.run_for(1000)
        idle = station.stats()
        slept = (idle["asleep_ns"] - before["asleep_ns"]) / (idle["emulated_ns"] - before["emulated_ns"])
        assert slept > 0.1, slept               # (measured: 48-60 %; firmware 1.6 never slept: 0)
        last = station.press(4, hold_ms=80.0)
        down, up = next_event(events, ButtonEvent, WAIT_S), next_event(events, ButtonEvent, WAIT_S)
        assert (down.button, down.pressed, up.button, up.pressed) == (4, True, 4, False)
        assert up.seq == last
        held = (up.station_us - down.station_us) & MASK
        assert 79_900 <= held <= 80_100, held          # the emulator's clock: each stamp is its first edge
        last = station.tap("04A1B2C3D4E5F6", ST1)
        tag = next_event(events, TagEvent, WAIT_S)
        assert (tag.uid, tag.text) == ("04A1B2C3D4E5F6", ST1)
        gone = next_event(events, TagGone, WAIT_S)
        assert gone.uid == "04A1B2C3D4E5F6" and gone.seq == last
        figures = station.stats()
        # the st1 record in one FAST_READ (firmware/config.py's I2C timeout allows it), a
        # press's frame and the TAG's on USB within the emulated time the firmware's loop takes
        assert (figures["fast_reads"], figures["reads"]) == (1, 0), figures
        assert 0 < figures["press_to_usb_us"][0] < 50_000, figures     # (measured: p95 15 ms; bench --only silicon)
        assert 0 < figures["tag_to_usb_us"][0] < 100_000, figures
    finally:
        link.close()


def test_the_table_flashes_a_bare_emulated_pico_with_mpremote(module, capsys):
    """``spieltisch stations --flash`` onto a Pico that has only MicroPython (the rp2 image,
    no files): mpremote writes the firmware, its SHA-256 is checked on the station, the Pico
    resets and says HELLO with the table's version."""
    from controller.app.cli import main
    from hardware.sim.rp2040_station import Rp2040Station
    from hardware.stationflash import StationFlasher
    bare = Rp2040Station("bare-1", module, paced=False, reader=False)
    waits = StationFlasher.PORT_WAIT_S, StationFlasher.HELLO_WAIT_S, StationFlasher.REPL_WAIT_S
    StationFlasher.PORT_WAIT_S = StationFlasher.REPL_WAIT_S = WAIT_S / 4
    StationFlasher.HELLO_WAIT_S = 10.0          # each try short: the first may find the port from before the reset
    try:
        assert main(["stations", "--flash", "--port", bare.port]) == 0
    finally:
        StationFlasher.PORT_WAIT_S, StationFlasher.HELLO_WAIT_S, StationFlasher.REPL_WAIT_S = waits
        bare.close()
    out = capsys.readouterr().out
    assert f"✓ Station {bare.station_id} on {bare.port}: firmware – is now {table_firmware_version()}" in out, out


def test_a_running_emulated_station_is_updated_through_update(station, capsys):
    """A station running the firmware: the table's UPDATE sends it to the REPL, the files go
    again, and it comes back with HELLO (the path a table in use takes)."""
    from controller.app.cli import main
    from hardware.stationflash import StationFlasher
    names = ("PORT_WAIT_S", "HELLO_WAIT_S", "UPDATE_WAIT_S", "REPL_WAIT_S")
    waits = [getattr(StationFlasher, name) for name in names]
    for name in names:                          # the emulator's pace, not a Pico's
        setattr(StationFlasher, name, WAIT_S / 4)
    StationFlasher.HELLO_WAIT_S = 10.0          # each try short: the first may find the port from before the reset
    try:
        assert main(["stations", "--flash", "--port", station.port]) == 0
    finally:
        for name, wait in zip(names, waits, strict=True):
            setattr(StationFlasher, name, wait)
    out = capsys.readouterr().out
    version = table_firmware_version()
    assert f"✓ Station {station.station_id} on {station.port}: firmware {version} is now {version}" in out, out
    assert station.stats()["boots"] >= 3       # the boot it ran, the update's, the new firmware's


def test_without_the_image_the_command_says_what_is_missing_in_one_line(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SPIELTISCH_RP2040_DIR=str(tmp_path / "none"))
    done = subprocess.run([sys.executable, "-m", "controller.app.cli", "--data-dir", str(tmp_path / "data"),
                           "demo", "partout", "--headless", "--stations", "rp2040"],
                          cwd=Path(__file__).resolve().parent.parent, env=env, capture_output=True, text=True,
                          timeout=120)
    lines = [line for line in done.stderr.splitlines() if line.strip() and "headless" not in line]
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and "docs/rp2040.md" in lines[0] and "Traceback" not in done.stderr, done.stderr


def _demo(game: str, tmp_path, players: int, seed: int, **options):
    from controller.app.demo import run_demo
    return run_demo(game, players=players, seed=seed, headless=True, data_dir=tmp_path, timeout=7200,
                    options=options or None, stations="rp2040")


@pytest.mark.slow          # minutes of wall time at the emulator's speed here (8+ under load): not in CI
def test_a_short_crazy_kick_match_races_on_emulated_picos(module, tmp_path):
    """Two emulated Picos, one goal: every race decided on presses the rp2 port's IRQ stamped."""
    result = _demo("crazy-kick", tmp_path, 2, 5, goals=1)
    assert result["finished"] and result["winner"] is not None, result


@pytest.mark.slow
@pytest.mark.parametrize("game,players", [("partout", 4), ("crazy-kick", 4), ("tadika", 3), ("teamplay", 4),
                                          ("team-up", 2)])
def test_a_whole_game_on_emulated_picos(module, tmp_path, game, players):
    result = _demo(game, tmp_path, players, 3)
    assert result["finished"], result


def test_a_slow_station_is_not_pinged_more_often_while_racing():
    """``open_links(ping_interval_ns=…)``, the table's links to stations slower than a Pico
    (emulated ones): in a race, while the clock sync's bound is still wide, the link would
    ask four times as often (QUICK_PING_INTERVAL_NS, every 5 ms) and a station at a tenth of
    a Pico's pace would do nothing but answer PINGs until the link found it silent (2 s) and
    lost: whole Crazy Kick games on emulated Picos froze so. The slow interval holds then too."""
    import contextlib
    import time
    from controller.app.play import open_links
    from hardware.sim.station import SimulatedStation
    slow = 1_000_000_000
    with contextlib.ExitStack() as stack:
        sim = SimulatedStation("e6610000000000aa").start()
        stack.callback(sim.close)
        (link,) = open_links([sim.port], queue.Queue(), stack, bots=True, ping_interval_ns=slow).values()
        assert link.ping_interval_ns(time.monotonic_ns()) >= slow          # not racing
        link.racing = True
        assert link.ping_interval_ns(time.monotonic_ns()) >= slow          # racing, the bound wide or not
