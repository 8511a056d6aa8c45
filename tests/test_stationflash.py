"""``spieltisch stations --flash``: the table's firmware onto a station with mpremote, against
a simulated Pico (tests/mpy/pico.py) whose REPL runs under real MicroPython (the
WebAssembly build, through Node) and whose firmware after a reset is the firmware's own
``main.py`` and modules as they were written to it."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import pytest

from hardware.stationflash import (
    FlashError, StationFlasher, build_images, firmware_dir, firmware_files, merged_config, table_firmware_version,
)

ROOT = Path(__file__).resolve().parent.parent
MPY = ROOT / "tests" / "mpy"
sys.path.insert(0, str(MPY))
from pico import SimulatedPico  # noqa: E402

sys.path.remove(str(MPY))


@pytest.fixture(scope="module", autouse=True)
def micropython_for_node():
    from conftest import micropython_for_the_checks
    micropython_for_the_checks()


def old_firmware(version: str = "1.1.9") -> dict[str, bytes]:
    """The table's firmware as source, saying an older version."""
    files = {p.name: p.read_bytes() for p in firmware_files()}
    wanted = table_firmware_version().encode()
    files["station.py"] = files["station.py"].replace(b'FIRMWARE_VERSION = "' + wanted + b'"',
                                                      b'FIRMWARE_VERSION = "' + version.encode() + b'"')
    return files


@pytest.fixture
def pico(tmp_path):
    made = []

    def make(files=None, uid="e6614103e7452d2f"):
        board = SimulatedPico(f"p{len(made)}", files, uid=uid, by_id_dir=tmp_path / "by-id")
        made.append(board)
        return board.start()
    yield make
    for board in made:
        board.shutdown()


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_a_running_station_is_updated_and_says_hello_with_the_tables_version(pico):
    board = pico(old_firmware("1.1.9"))
    assert board.mode == "station"
    steps = []
    report = StationFlasher(board.port, progress=lambda step, facts: steps.append(step)).flash()
    assert (report.station, report.before, report.after) == ("e6614103e7452d2f", "1.1.9", table_firmware_version())
    assert board.mode == "station" and board.boots == 3      # the update's boot, then the new firmware's
    files = board.files()
    # the modules compiled, main.py and config.py as source; the sources they replace gone
    assert sorted(files) == sorted(["buttons.mpy", "buzzer.mpy", "config.py", "led.mpy", "main.py", "pn532.mpy", "probe.mpy",
                                    "spieltisch.json", "station.mpy", "wire.mpy"])
    assert files["main.py"] == (firmware_dir() / "main.py").read_bytes()
    assert files["station.mpy"][:2] == b"M\x06"
    manifest = json.loads(files["spieltisch.json"])
    assert manifest["version"] == table_firmware_version()
    assert manifest["files"] == {name: sha(data) for name, data in files.items() if name != "spieltisch.json"}
    assert steps[0] == "asking" and steps[-1] == "done" and "writing" in steps and "verifying" in steps
    # mpremote wrote through raw-paste mode, and each file was hashed on the station
    assert any("hashlib.sha256()" in code for code in board.executed)


def test_a_new_pico_with_only_micropython_gets_the_firmware(pico):
    board = pico({})
    assert board.mode == "repl"
    report = StationFlasher(board.port).flash()
    assert report.before is None and report.after == table_firmware_version()
    assert board.mode == "station" and "main.py" in board.files()


def test_a_station_that_does_not_know_update_is_told_to_hold_its_button(tmp_path):
    from hardware.sim.station import SimulatedStation
    with SimulatedStation("old-1", by_id_dir=tmp_path) as station:
        with pytest.raises(FlashError) as caught:
            StationFlasher(station.port).flash()
    assert caught.value.key == "flash_old_firmware" and caught.value.params["station"] == "old-1"


def test_a_config_edited_on_the_station_is_kept_with_the_new_settings_added(pico):
    files = old_firmware()
    table_config = (firmware_dir() / "config.py").read_text()
    own = table_config.replace("BUTTON_PINS = (2, 3, 4, 5, 6, 7)", "BUTTON_PINS = (10, 11, 12, 19, 20, 21)")
    own = "\n".join(line for line in own.splitlines() if not line.startswith("TAG_GONE_POLLS"))
    files["config.py"] = own.encode()
    board = pico(files)
    report = StationFlasher(board.port).flash()
    assert report.kept_config and report.after == table_firmware_version()
    config = board.files()["config.py"].decode()
    assert "BUTTON_PINS = (10, 11, 12, 19, 20, 21)" in config
    assert config.rstrip().endswith("TAG_GONE_POLLS = 3            # a card missing this many polls in a row was taken away")
    # the next update keeps it too (the list on the station says whose it is), nothing added twice
    again = StationFlasher(board.port).flash()
    assert again.kept_config and board.files()["config.py"].decode() == config


def test_a_config_the_table_wrote_is_replaced_by_the_tables_new_one(pico, tmp_path):
    board = pico(old_firmware())
    StationFlasher(board.port).flash()
    newer = tmp_path / "firmware"
    shutil.copytree(firmware_dir(), newer)
    config = (newer / "config.py").read_text().replace("READER_POLL_MS = 40", "READER_POLL_MS = 35")
    (newer / "config.py").write_text(config)
    report = StationFlasher(board.port, folder=newer).flash()
    assert not report.kept_config and board.files()["config.py"].decode() == config


def test_a_file_that_does_not_verify_stops_the_update_and_leaves_the_old_firmware_running(pico):
    """The written files are checked while they are still staged: one that does not verify
    stops the update before anything goes live, so the station keeps its old firmware whole
    (not the unverified module with the old source it replaced already gone)."""
    from mpremote.transport_serial import SerialTransport

    class Worn(SerialTransport):
        def fs_hashfile(self, path, algo, chunk_size=256):
            digest = super().fs_hashfile(path, algo, chunk_size)
            return bytes(32) if path.startswith("pn532.mpy") else digest

    old = old_firmware()
    board = pico(old)
    with pytest.raises(FlashError) as caught:
        StationFlasher(board.port, transport=lambda port: Worn(port, baudrate=115200)).flash()
    assert caught.value.key == "flash_not_verified" and caught.value.params["file"] == "pn532.mpy"
    files = board.files()
    assert {name: files.get(name) for name in old} == old          # the old firmware, every file as it was
    assert not [name for name in files if name.endswith(".new") or name.endswith(".mpy")]


def test_a_station_whose_micropython_takes_another_mpy_version_gets_source():
    images = build_images(station_mpy=5)
    assert sorted(i.name for i in images) == sorted(p.name for p in firmware_files())
    assert all(i.data == (firmware_dir() / i.source).read_bytes() for i in images)
    assert {i.name for i in build_images(station_mpy=None)} == {i.name for i in images}


def test_merging_a_config_adds_only_what_it_lacks():
    table = "A = 1\nB = (1,\n     2)   # two\nC = 'x'\n"
    assert merged_config("A = 5\nB = 7\nC = 'y'\n", table) == "A = 5\nB = 7\nC = 'y'\n"
    merged = merged_config("A = 5\n", table)
    assert merged.startswith("A = 5\n") and "B = (1,\n     2)" in merged and "C = 'x'" in merged
    assert merged_config("A = (\n", table) == table        # its own does not parse: the table's


def test_the_command_updates_the_ports_given_and_says_so(pico, capsys):
    from controller.app.cli import main
    board = pico(old_firmware("1.1.9"))
    assert main(["stations", "--flash", "--port", board.port]) == 0
    out = capsys.readouterr().out
    assert f"✓ Station e6614103e7452d2f on {board.port}: firmware 1.1.9 is now {table_firmware_version()}" in out
    assert "writing the firmware: 100 %" in out


def test_the_command_fails_with_what_to_do_for_a_port_without_micropython(tmp_path, capsys):
    import os
    import pty
    from controller.app.cli import main
    master, slave = pty.openpty()            # a serial device that never answers, under a by-id name
    port = tmp_path / "usb-Some_Device-if00"
    port.symlink_to(os.ttyname(slave))
    try:
        from hardware.stationflash import StationFlasher as Flasher
        Flasher.PORT_WAIT_S, before = 1.0, Flasher.PORT_WAIT_S
        try:
            code = main(["stations", "--flash", "--port", str(port)])
        finally:
            Flasher.PORT_WAIT_S = before
    finally:
        os.close(master)
        os.close(slave)
    out = capsys.readouterr().out
    assert code == 1 and "✗" in out and "has no MicroPython on USB" in out


def test_only_picos_are_offered_to_the_flash():
    from types import SimpleNamespace
    from controller.app.flash import picos
    ports = [SimpleNamespace(device="/dev/ttyACM0", vid=0x2E8A), SimpleNamespace(device="/dev/ttyUSB0", vid=0x0403)]
    assert picos(["/dev/ttyACM0", "/dev/ttyUSB0"], comports=lambda: ports) == ["/dev/ttyACM0"]


@pytest.mark.parametrize("manifest", [
    b'{"version": "1.1.9", "files": ["config.py"], "own": []}',     # a list where the table keeps a dict
    b'{"version": "1.1.9", "files": {"config.py": 7}, "own": 5}',    # a number where a list of names goes
    b'["config.py"]',
    b'"1.1.9"',
])
def test_a_list_of_the_wrong_shape_on_a_station_is_updated_like_any_other(pico, capsys, manifest):
    """spieltisch.json holds valid JSON the table did not write: the station is updated as one
    with no list (its config.py kept when it is not the table's), and so is the next one in the run."""
    from controller.app.cli import main
    files = old_firmware("1.1.9")
    files["spieltisch.json"] = manifest
    first, second = pico(files), pico(old_firmware("1.1.8"), uid="e6614103e7452d30")
    assert main(["stations", "--flash", "--port", first.port, "--port", second.port]) == 0
    out = capsys.readouterr().out
    assert f"✓ Station e6614103e7452d2f on {first.port}" in out and f"✓ Station e6614103e7452d30 on {second.port}" in out
    written = json.loads(first.files()["spieltisch.json"])
    assert written["version"] == table_firmware_version() and isinstance(written["files"], dict)
