"""A Pico in BOOTSEL mode (issue 43, section 3): found on USB (2e8a:0003 and its drive), the
MicroPython image checked as the boot ROM takes it and written to the drive, the Pico back as
a MicroPython board, then the table's firmware on it (hardware/bootsel.py), against the
stand-in of hardware/sim/bootsel.py: the boot ROM's drive behind a sysfs, /dev and mount table
of its own. ``stations``, ``doctor`` and the menu's update know it.

The UF2s here are made by the tests (a few pages); the test that starts an emulated Pico from
what was written needs MicroPython's image and the boot ROM (docs/rp2040.md) and is skipped
without them."""

from __future__ import annotations

import json
import os
import struct

import pytest

from hardware.bootsel import (
    FLASH_START, PICO_FLASH_SIZE, RP2040_FAMILY_ID, UF2_FLAG_FAMILY_ID_PRESENT, UF2_FLAG_NOT_MAIN_FLASH,
    UF2_MAGIC_END, UF2_MAGIC_START0, UF2_MAGIC_START1, BootselInstaller, UsbRoots, bootsel_picos, check_image,
    micropython_port, read_image,
)
from hardware.sim.bootsel import BootRomDrive, SimulatedBootselPico
from hardware.stationflash import FlashError, FlashReport, table_firmware_version

WAIT_S = 600                                   # wall time the emulator may take, at any load


def block(address: int, payload: bytes, number: int, count: int, *, family: int = RP2040_FAMILY_ID,
          flags: int = UF2_FLAG_FAMILY_ID_PRESENT, size: int = 256, magic: int = UF2_MAGIC_START0) -> bytes:
    header = struct.pack("<8I", magic, UF2_MAGIC_START1, flags, address, size, number, count, family)
    return header + payload.ljust(476, b"\0") + struct.pack("<I", UF2_MAGIC_END)


def uf2(pages: dict[int, bytes], **change) -> bytes:
    """A UF2 of 256-byte pages at flash addresses, in order."""
    return b"".join(block(address, data, i, len(pages), **change) for i, (address, data) in enumerate(pages.items()))


def page(fill: int) -> bytes:
    return bytes([fill]) * 256


IMAGE = uf2({FLASH_START: page(0x11), FLASH_START + 0x100: page(0x22), FLASH_START + 0x1000: page(0x33)})


@pytest.fixture
def plugged(tmp_path):
    made = []

    def plug(**options):
        pico = SimulatedBootselPico(tmp_path / f"machine{len(made)}", **options)
        made.append(pico)
        return pico
    yield plug
    for pico in made:
        pico.close()


class ComesBack:
    """``restart``: keeps the flash it was handed and comes back as a serial device."""

    def __init__(self, port: str | None) -> None:
        self.port, self.flash = port, None

    def __call__(self, flash: bytes) -> str | None:
        self.flash = flash
        return self.port


# -- recognising one -------------------------------------------------------------------------------
def test_a_pico_in_bootsel_mode_is_found_with_its_drive_and_nothing_else_is(plugged, tmp_path):
    pico = plugged(usb="3-1.2", serial="E0C9125B0D9B")
    other = pico.roots.devices / "3-1.3"                      # a station running MicroPython: 2e8a:0005
    other.mkdir()
    (other / "idVendor").write_text("2e8a\n")
    (other / "idProduct").write_text("0005\n")
    (pico.roots.devices / "usb3").mkdir()                      # a hub without ids
    found = bootsel_picos(pico.roots)
    assert [(p.usb, p.serial, p.drive, p.mount) for p in found] == [("3-1.2", "E0C9125B0D9B", pico.block, None)]
    assert bootsel_picos(UsbRoots(tmp_path / "no-sys", tmp_path, tmp_path / "none")) == []


def test_a_drive_a_desktop_mounted_is_found_where_it_is_mounted(plugged):
    pico = plugged(mounted=True)
    assert bootsel_picos(pico.roots)[0].mount == pico.mount


# -- the image -------------------------------------------------------------------------------------
def test_a_well_formed_image_is_taken():
    assert check_image(IMAGE, "x.uf2") == 3


@pytest.mark.parametrize("image, reason", [
    (b"", "not whole 512-byte UF2 blocks"),
    (IMAGE[:-100], "not whole 512-byte UF2 blocks"),
    (IMAGE[:512] + b"\0" * 512 + IMAGE[1024:], "block 1 has not the UF2 magic numbers"),
    (uf2({FLASH_START: page(1)}, family=0xE48BFF59), "is not for the RP2040 (family 0xe48bff59)"),     # an RP2350's
    (uf2({FLASH_START: page(1)}, flags=0), "is not for the RP2040"),                                 # no family id
    (uf2({FLASH_START: page(1)}, flags=UF2_FLAG_FAMILY_ID_PRESENT | UF2_FLAG_NOT_MAIN_FLASH), "main flash"),
    (uf2({FLASH_START: page(1)}, size=476), "is not a 256-byte page of the main flash"),
    (IMAGE[:1024], "block 0 says it is block 0 of 3, the file has 2"),
    (block(FLASH_START, page(1), 0, 2) + block(FLASH_START + 256, page(1), 0, 2), "block 1 says it is block 0 of 2"),
    (uf2({FLASH_START: page(1), 0x20000000: page(2)}), "goes to 0x20000000, outside a Pico's 2 MB flash"),   # the RAM
    (uf2({FLASH_START: page(1), FLASH_START + PICO_FLASH_SIZE: page(2)}), "outside a Pico's 2 MB flash"),
    (uf2({FLASH_START: page(1), FLASH_START + 0x180: page(2)}), "0x10000180, outside"),                      # not a page
    (uf2({FLASH_START + 0x100: page(1)}), "nothing goes to the flash's start"),
])
def test_an_image_a_pico_would_not_take_whole_or_start_from_is_refused_saying_why(image, reason):
    with pytest.raises(FlashError) as refused:
        check_image(image, "x.uf2")
    assert refused.value.key == "flash_image_bad" and reason in refused.value.params["reason"], refused.value


def test_an_image_that_writes_a_page_twice_is_refused():
    twice = block(FLASH_START, page(1), 0, 2) + block(FLASH_START, page(2), 1, 2)
    with pytest.raises(FlashError, match="a second time"):
        check_image(twice, "x.uf2")


def test_the_image_that_is_not_there_is_named(tmp_path):
    with pytest.raises(FlashError) as missing:
        read_image(tmp_path / "none.uf2")
    assert (missing.value.key, missing.value.params) == ("flash_image_missing", {"file": str(tmp_path / "none.uf2")})


def test_micropythons_image_where_the_table_keeps_it_is_taken():
    from hardware.bootsel import micropython_image
    if not micropython_image().is_file():
        pytest.skip(f"no MicroPython image at {micropython_image()} (docs/rp2040.md)")
    assert check_image(read_image(), "image") > 1000


# -- the boot ROM's drive --------------------------------------------------------------------------
def test_the_drive_takes_uf2_blocks_anywhere_in_any_order_and_ignores_every_other_sector():
    old = bytearray(b"\xff" * PICO_FLASH_SIZE)
    old[0x1080:0x1090] = b"old page in sect"           # in a sector the image touches: erased
    old[0x100000:0x100010] = b"a file system!!!"        # far from the image: kept
    drive = BootRomDrive(bytes(old))
    blocks = [IMAGE[i:i + 512] for i in range(0, len(IMAGE), 512)]
    for sector in (b"\xeb\x3c\x90MSWIN4.1" + b"\0" * 501, blocks[2], b"\0" * 512, blocks[0], blocks[0]):
        drive.write_sector(sector)
    assert (drive.ignored, drive.complete) == (2, False)
    drive.write_sector(blocks[1])
    assert drive.complete
    flash = bytes(drive.flash)
    assert flash[:0x200] == page(0x11) + page(0x22) and flash[0x1000:0x1100] == page(0x33)
    assert flash[0x1080:0x1090] == page(0x33)[:16] and flash[0x1100:0x2000] == b"\xff" * 0xF00
    assert flash[0x100000:0x100010] == b"a file system!!!"


def test_a_block_the_boot_rom_cannot_place_throws_the_transfer_away():
    drive = BootRomDrive()
    blocks = [IMAGE[i:i + 512] for i in range(0, len(IMAGE), 512)]
    drive.write_sector(blocks[0])
    drive.write_sector(block(0x20000000, page(9), 1, 3))       # for the RAM: garbage to a flash transfer
    drive.write_sector(blocks[1])
    drive.write_sector(blocks[2])
    assert not drive.complete                                   # block 0 went with the transfer
    drive.write_sector(blocks[0])
    assert drive.complete


# -- putting MicroPython on ------------------------------------------------------------------------
def test_the_image_goes_onto_the_drives_block_device_and_the_pico_comes_back_with_micropython(plugged, tmp_path):
    board = tmp_path / "usb-MicroPython_Board_in_FS_mode_e6614103e7452d2f-if00"
    board.write_text("")                                        # what the restarted Pico's port is
    restart = ComesBack(str(board))
    pico = plugged(usb="1-4", restart=restart)
    steps = []
    found = bootsel_picos(pico.roots)[0]
    port = BootselInstaller(found, IMAGE, pico.roots, lambda step, facts: steps.append((step, facts))).install()
    assert port == str(pico.roots.dev / pico.TTY) and os.path.realpath(port) == str(board)
    assert pico.drive.complete and pico.drive.ignored == 0 and restart.flash is not None
    assert restart.flash[:0x200] == page(0x11) + page(0x22)     # the Pico started from what was written
    assert steps[-2][0] == "installing" and steps[-2][1]["done"] == steps[-2][1]["total"] == len(IMAGE)
    assert steps[-1][0] == "starting"
    assert bootsel_picos(pico.roots) == [] and micropython_port("1-4", pico.roots) == port


def test_a_mounted_drive_gets_the_image_as_a_file(plugged):
    pico = plugged(mounted=True)
    BootselInstaller(bootsel_picos(pico.roots)[0], IMAGE, pico.roots).write()
    copied = (pico.mount / BootselInstaller.FILE_NAME).read_bytes()
    assert copied == IMAGE
    pico.write_file(copied)                                     # the file system's sectors reach the drive
    assert pico.drive.complete


def test_a_pico_that_does_not_come_back_is_said(plugged, monkeypatch):
    monkeypatch.setattr(BootselInstaller, "BOOT_WAIT_S", 0.5)
    pico = plugged(restart=ComesBack(None))
    with pytest.raises(FlashError) as gone:
        BootselInstaller(bootsel_picos(pico.roots)[0], IMAGE, pico.roots).install()
    assert (gone.value.key, gone.value.params) == ("flash_bootsel_no_micropython", {"usb": "1-1"})
    assert pico.restarted.is_set()                              # it took the image, and nothing started


def test_a_drive_the_table_may_not_write_is_said_with_the_fix(plugged, monkeypatch):
    pico = plugged()

    def refused(path, flags, mode=0o777):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr("hardware.bootsel.os.open", refused)
    try:
        with pytest.raises(FlashError) as denied:
            BootselInstaller(bootsel_picos(pico.roots)[0], IMAGE, pico.roots).write()
    finally:
        monkeypatch.undo()                                      # os.open is every module's
    assert denied.value.key == "flash_bootsel_no_access" and denied.value.params["drive"] == str(pico.block)


def test_the_tables_udev_rule_lets_its_user_write_a_bootsel_picos_drive():
    from pathlib import Path
    rules = (Path(__file__).resolve().parent.parent / "controller/app/pi/99-spieltisch.rules").read_text()
    rule = next(line for line in rules.splitlines() if '"0003"' in line)
    assert 'SUBSYSTEM=="block"' in rule and 'ATTRS{idVendor}=="2e8a"' in rule and 'GROUP="dialout"' in rule
    assert 'MODE="0660"' in rule


# -- the command, the listing, the check, the menu ---------------------------------------------------
class Flasher:
    """The firmware's part, done: what stationflash reports for a bare Pico it updated."""

    def __init__(self, port, progress):
        self.port, self.progress = port, progress

    def flash(self):
        self.progress("writing", {"port": self.port, "done": 1, "total": 1})
        return FlashReport(self.port, "e6614103e7452d2f", None, table_firmware_version(), ["main.py"])


def test_stations_flash_puts_micropython_then_the_firmware_on_a_pico_in_bootsel_mode(plugged, tmp_path, capsys,
                                                                                     monkeypatch):
    from controller.app import flash
    monkeypatch.setattr(flash, "candidate_picos", lambda ports: [])
    image = tmp_path / "micropython.uf2"
    image.write_bytes(IMAGE)
    board = tmp_path / "ttyACM0"
    board.write_text("")
    pico = plugged(restart=ComesBack(str(board)))
    assert flash.flash_command(None, usb=pico.roots, image=image, flasher=Flasher) == 0
    out = capsys.readouterr().out
    assert "  RPI-RP2 (USB 1-1): putting MicroPython on it: 100 %" in out, out
    assert "  RPI-RP2 (USB 1-1): waiting for it to start MicroPython" in out, out
    assert (f"✓ Station e6614103e7452d2f on {pico.roots.dev / pico.TTY}: firmware – is now "
            f"{table_firmware_version()} (MicroPython was put on it first)") in out, out


@pytest.mark.parametrize("content, says", [
    (None, "MicroPython's image for the Pico is not at"),
    (uf2({FLASH_START: page(1)}, family=0xE48BFF59), "is not a MicroPython image a Pico can start from (block 0 is "
                                                     "not for the RP2040 (family 0xe48bff59))"),
])
def test_without_a_good_image_nothing_is_written_and_one_line_says_what_to_do(plugged, tmp_path, capsys, monkeypatch,
                                                                              content, says):
    from controller.app import flash
    monkeypatch.setattr(flash, "candidate_picos", lambda ports: [])
    image = tmp_path / "micropython.uf2"
    if content is not None:
        image.write_bytes(content)
    pico = plugged()
    assert flash.flash_command(None, usb=pico.roots, image=image, flasher=Flasher, lang="en") == 1
    out = capsys.readouterr().out
    failed = [line for line in out.splitlines() if line.startswith("✗")]
    assert len(failed) == 1 and failed[0].startswith("✗ RPI-RP2 (USB 1-1): ") and says in failed[0], out
    assert "docs/raspberry-pi.md" in failed[0] and "Traceback" not in out
    assert (pico.drive.ignored, pico.drive.valid) == (0, set())     # not a sector reached the drive


def test_spieltisch_stations_lists_a_pico_in_bootsel_mode_as_such(plugged, capsys, monkeypatch):
    from controller.table import stations
    monkeypatch.setattr(stations, "candidate_ports", lambda: [])
    pico = plugged(usb="1-2")
    assert stations.list_stations(None, usb=pico.roots) == 1         # plugged in, but no station yet
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith(str(pico.block)))
    assert " bootsel " in row and "a Pico in BOOTSEL mode on USB 1-2" in row and "stations --flash" in row, out
    assert "No serial devices" not in out
    stations.list_stations(None, usb=pico.roots, as_json=True)
    listed = json.loads(capsys.readouterr().out)
    assert (listed["kind"], listed["usb"], listed["id"], listed["drive"]) == ("bootsel", "1-2", "E0C9125B0D9B",
                                                                              str(pico.block))


def test_doctor_says_what_makes_a_pico_in_bootsel_mode_a_station(plugged, tmp_path):
    from controller.app import doctor
    from test_doctor import env_for, keys
    pico = plugged()
    image = tmp_path / "micropython.uf2"
    ready = env_for(tmp_path, bootsel=lambda: bootsel_picos(pico.roots),
                    bootsel_blocked=lambda p: None)
    findings = doctor.check_stations(ready)
    assert keys(findings) == ["doctor_station_bootsel"]        # not "no station is plugged in"
    assert "“Update the stations”" in findings[0].text("en") and "USB 1-1" in findings[0].text("en")
    from hardware.bootsel import readiness
    blocked = env_for(tmp_path, bootsel=lambda: bootsel_picos(pico.roots),
                      bootsel_blocked=lambda p: readiness(p, image))
    finding = doctor.check_stations(blocked, lang="de")[0]
    assert finding.key == "doctor_station_bootsel_blocked" and finding.status == doctor.FAIL
    assert f"liegt nicht unter {image}" in finding.text("de"), finding.text("de")


def test_the_menus_update_puts_micropython_on_a_pico_in_bootsel_mode_and_says_so_on_the_tv(plugged, tmp_path,
                                                                                           monkeypatch):
    from controller.app.flash import run_flash_on_screen
    monkeypatch.setattr("controller.app.play.open_present", lambda ports, events, stack: {})
    image = tmp_path / "micropython.uf2"
    image.write_bytes(IMAGE)
    board = tmp_path / "ttyACM0"
    board.write_text("")
    pico = plugged(restart=ComesBack(str(board)))
    shown = []
    from controller.app import play
    real = play.make_screen

    def watched(*args, **kwargs):
        screen = real(*args, **kwargs)
        show = screen.show
        screen.show = lambda snapshot: (shown.append(snapshot), show(snapshot))[1]
        return screen
    monkeypatch.setattr(play, "make_screen", watched)
    outcomes = run_flash_on_screen([], lang="it", headless=True, fullscreen=False, timeout=0.2, flasher=Flasher,
                                   usb=pico.roots, image=image)
    assert [(o.ok, o.micropython, o.origin) for o in outcomes] == [(True, True, "RPI-RP2 (USB 1-1)")]
    said = [line for snapshot in shown for line, _ in snapshot.lines]
    assert "RPI-RP2 (USB 1-1): installazione di MicroPython: 100 %" in said, said
    assert shown[-1].done and shown[-1].lines[0][1] is True and "prima è stato installato MicroPython" in \
        shown[-1].lines[0][0], shown[-1]


# -- on emulated silicon -----------------------------------------------------------------------------
def test_an_emulated_pico_starts_from_what_was_written_to_its_drive_and_gets_the_firmware(plugged, capsys,
                                                                                         monkeypatch):
    """The whole way on emulated silicon: MicroPython's image written to a BOOTSEL Pico's
    drive; an emulated RP2040 (its boot ROM, rp2040js) started from the flash the drive's
    blocks made boots MicroPython; ``stations --flash`` then writes the firmware with mpremote
    and the station says HELLO with the table's version."""
    from controller.app import flash
    from hardware.sim.bootsel import EmulatedRestart
    from hardware.sim.firmware_station import FirmwareUnavailable, station_uid
    from hardware.sim.rp2040_station import emulator_module, silicon
    from hardware.stationflash import StationFlasher
    try:
        silicon()
        module = emulator_module()
    except FirmwareUnavailable as exc:
        pytest.skip(str(exc))
    monkeypatch.setattr(flash, "candidate_picos", lambda ports: [])
    for name in ("PORT_WAIT_S", "REPL_WAIT_S"):                    # the emulator's pace, not a Pico's
        monkeypatch.setattr(StationFlasher, name, WAIT_S / 4)
    monkeypatch.setattr(StationFlasher, "HELLO_WAIT_S", 10.0)       # each try short: the port from before the reset
    monkeypatch.setattr(BootselInstaller, "BOOT_WAIT_S", WAIT_S / 4)
    restart = EmulatedRestart(module)
    pico = plugged(restart=restart)
    try:
        assert flash.flash_command(None, usb=pico.roots) == 0
    finally:
        restart.close()
    out = capsys.readouterr().out
    assert pico.drive.complete and pico.drive.ignored == 0
    assert (f"✓ Station {station_uid('bootsel-1')} on {pico.roots.dev / pico.TTY}: firmware – is now "
            f"{table_firmware_version()} (MicroPython was put on it first)") in out, out


def test_a_box_without_stations_makes_a_pico_in_bootsel_mode_one_at_once(plugged, tmp_path, monkeypatch):
    """Nothing to drive the menu with but a new Pico (or one held at BOOTSEL): the box starts
    the update by itself, as its "Update the stations" would."""
    from controller.app.box import run_box
    from controller.app.menu import Activity
    from hardware.bootsel import MICROPYTHON_IMAGE
    (tmp_path / MICROPYTHON_IMAGE).write_bytes(IMAGE)
    monkeypatch.setenv("SPIELTISCH_RP2040_DIR", str(tmp_path))
    pico = plugged()
    monkeypatch.setattr("controller.table.stations.candidate_ports", lambda: [])
    monkeypatch.setattr("hardware.bootsel.bootsel_picos", lambda roots=None: bootsel_picos(pico.roots))
    started = []
    assert run_box(None, headless=True, timeout=60, launcher=lambda act, ports, **kw: started.append(act),
                   until=lambda: bool(started)) == 0
    assert started == [Activity("flash")]


def test_a_box_without_stations_and_without_micropythons_image_says_so_and_waits(plugged, tmp_path, monkeypatch):
    """A Pico in BOOTSEL mode, but no MicroPython image on the box: nothing can be put on the
    Pico, so the box does not try (and fail, and try again); its waiting screen says where the
    image must go, and the panel still switches the box off there."""
    from controller.app.box import run_box
    from hardware.bootsel import MICROPYTHON_IMAGE
    monkeypatch.setenv("SPIELTISCH_RP2040_DIR", str(tmp_path))              # no image in it
    pico = plugged()
    monkeypatch.setattr("controller.table.stations.candidate_ports", lambda: [])
    monkeypatch.setattr("hardware.bootsel.bootsel_picos", lambda roots=None: bootsel_picos(pico.roots))
    from display.app import Screen
    shown: list = []
    real = Screen.show
    monkeypatch.setattr(Screen, "show", lambda self, snapshot: shown.append(snapshot) or real(self, snapshot))
    started = []
    said = lambda: [s for s in shown if getattr(s, "detail", None) is not None]   # noqa: E731
    assert run_box(None, headless=True, timeout=60, launcher=lambda act, ports, **kw: started.append(act),
                   until=lambda: len(said()) >= 2) == 0
    assert started == []
    detail = said()[-1].detail
    assert detail.key == "flash_image_missing" and detail.params["file"] == str(tmp_path / MICROPYTHON_IMAGE)


def test_the_outcome_stays_on_the_tv_for_a_while_when_no_button_can_end_it(plugged, tmp_path, monkeypatch):
    from controller.app import flash
    monkeypatch.setattr("controller.app.play.open_present", lambda ports, events, stack: {})
    monkeypatch.setattr(flash, "SHOWN_ALONE_S", 0.5)
    pico = plugged()
    outcomes = flash.run_flash_on_screen([], lang="en", headless=True, fullscreen=False, usb=pico.roots,
                                         image=tmp_path / "none.uf2")                # no timeout: it ends by itself
    assert [o.error[0] for o in outcomes] == ["flash_image_missing"]
