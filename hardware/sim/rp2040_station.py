"""Stations on emulated silicon (``spieltisch demo --stations rp2040``): MicroPython's rp2 port,
the image a real Pico runs, on rp2040js (Wokwi's RP2040 emulator, from npm), with the
project's firmware/ on its flash as ``spieltisch stations --flash`` puts it there, behind a
pseudo-terminal the table opens as a USB station.

    table's process                       one Node process per station (hardware/sim/rp2040/station.mjs)
    Rp2040Station.press ── JSON line ──►  a contact closes and bounces on the button's GPIO
                                           MicroPython rp2 (emulated Cortex-M0+) ── USB CDC ── pty ──► StationLink
                                           its I2C0 ◄── bytes ──► the PN532 model (hardware/sim/rp2040_pn532.py)

Below the firmware nothing is ours but the wiring: the USB stack, machine.I2C and its pico-sdk
driver, the heap and the CPU are MicroPython's and pico-sdk's, run instruction by instruction.
The emulator keeps its own clock (the core's cycles at 125 MHz); every figure it reports is in
that clock. Paced (the default for a table), emulated time runs no faster than the host's, so
that the station's timer and the table's agree as a real Pico's do; slower when the host cannot
keep up (``stats()["emulated_ns"]`` says how far it got).

What this machine needs besides Node.js (the npm package is installed on first use into the
user's cache folder, pinned by hardware/sim/rp2040/package-lock.json) lies in :func:`silicon_dir`:
the MicroPython image and the RP2040's boot ROM, which this repository does not carry (see
docs/rp2040.md for what they are and where they come from). When something is missing,
:class:`FirmwareUnavailable` says what, in one line.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

from hardware.bootsel import MICROPYTHON_IMAGE, image_dir
from hardware.sim.firmware_station import FirmwareStation, FirmwareUnavailable, install_once, station_uid
from hardware.sim.pn532_chip import load_timing
from hardware.sim.station import PtyDevice
from hardware.stationflash import firmware_dir, firmware_files

HERE = Path(__file__).resolve().parent
RP2040 = HERE / "rp2040"
NPM_PACKAGE = "rp2040js"
IMAGE = MICROPYTHON_IMAGE                        # MicroPython v1.27.0, rp2 port, board RPI_PICO
BOOTROM = "rp2040-bootrom-b1.bin"                # the RP2040's B1 mask ROM (raspberrypi/pico-bootrom), 16 KB
BOOTROM_SIZE = 16384
BOOT_WAIT_S = 600.0                              # wall time an emulated Pico may take to boot, at any load


def silicon_dir() -> Path:
    """Where the MicroPython image and the boot ROM are: $SPIELTISCH_RP2040_DIR, else the
    user's cache folder (``~/.cache/spieltisch/rp2040``); the folder where a table finds the
    image it puts on a Pico in BOOTSEL mode (hardware/bootsel.py)."""
    return image_dir()


def silicon() -> tuple[Path, Path]:
    """(the MicroPython image, the boot ROM); FirmwareUnavailable naming what is missing."""
    folder = silicon_dir()
    image, bootrom = folder / IMAGE, folder / BOOTROM
    if not image.is_file():
        raise FirmwareUnavailable(f"--stations rp2040 needs MicroPython's rp2 image (v1.27.0, board RPI_PICO) as "
                                  f"{image}: see docs/rp2040.md")
    if not bootrom.is_file() or bootrom.stat().st_size != BOOTROM_SIZE:
        raise FirmwareUnavailable(f"--stations rp2040 needs the RP2040's B1 boot ROM (16 KB) as {bootrom}: "
                                  "see docs/rp2040.md")
    return image, bootrom


def emulator_module() -> Path:
    """rp2040js, installed on first use (npm ci into the user's cache folder)."""
    import shutil
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise FirmwareUnavailable("--stations rp2040 runs each station on rp2040js with Node.js, and this machine "
                                  "has no node/npm: install Node.js 18 or newer (Debian: apt-get install nodejs npm)")
    lock = json.loads((RP2040 / "package-lock.json").read_text())
    version = lock["packages"][f"node_modules/{NPM_PACKAGE}"]["version"]
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return install_once(base / "spieltisch" / f"rp2040js-{version}", RP2040, NPM_PACKAGE,
                        "dist/esm/index.js")


def wiring() -> dict[str, Any]:
    """firmware/config.py's pins, read as the station reads them."""
    names: dict[str, Any] = {}
    exec(compile((firmware_dir() / "config.py").read_text(), "config.py", "exec"), {}, names)  # our own file
    led = names["LED_PIN"] if names.get("LED_KIND") == "ws2812" else None
    return {"BUTTON_PINS": list(names["BUTTON_PINS"]), "LED_PIN": led, "BUZZER_PIN": names.get("BUZZER_PIN"),
            "I2C_ID": names["I2C_ID"], "I2C_SDA": names["I2C_SDA"], "I2C_SCL": names["I2C_SCL"]}


class _UsbPort(PtyDevice):
    """The emulated Pico's USB port as the host sees it: a pseudo-terminal behind a stable
    by-id link, that goes away at a reset and comes back once the new boot's USB is up."""

    BY_ID_NAME = "usb-MicroPython_Board_in_FS_mode_{name}-if00"

    def __init__(self, name: str, by_id_dir: str, to_pico: int) -> None:
        super().__init__(name, by_id_dir=by_id_dir)
        self._to_pico = to_pico

    def _received(self, data: bytes) -> None:
        with contextlib.suppress(OSError):
            os.write(self._to_pico, data)

    def send(self, data: bytes) -> None:
        with contextlib.suppress(RuntimeError):          # unplugged meanwhile: USB drops it
            self._write(data)


class Rp2040Station(FirmwareStation):
    """One station: an emulated Pico in a Node process, its PN532 in a Python process, its
    USB on a pseudo-terminal behind a by-id link (``port``). ``press``, ``tap``, ``place``,
    ``take_away`` and ``stats`` as FirmwareStation's (its hands are in station.mjs: contacts
    that bounce, a card lifted once its TAG went out). ``flash_in``: the flash's contents to
    start from (None: the bare image, no files); ``flash_out``: where the flash is left when
    it ends."""

    # A station here runs at a fraction of a Pico's pace on a loaded host (docs/rp2040.md), and
    # each PONG costs the firmware's loop some 5 ms of its own time (a byte at a time on USB):
    # a table's 50 (or, racing with a wide sync bound, 200) exchanges a second would keep it
    # answering and nothing else. The table pings it this far apart instead, racing or not
    # (open_links' ping_interval_ns).
    ping_interval_ns = 1_000_000_000

    # What the bring-up probe (firmware/probe.py) measures and this wiring does not model
    # (docs/rp2040.md, "Not modelled"): the probe says so instead of taking the emulator's
    # figure for the chip's.
    probe_not_modelled: ClassVar[dict[str, str]] = {
        "cut": "not modelled on rp2040js: a read the I2C timeout cuts off mid-frame, and what the controller "
               "and the chip are left with",
        "stretch_us": "not modelled on rp2040js: the chip stretches the clock at a transfer's start only",
    }

    def __init__(self, name: str, module: Path, *, flash_in: Path | None = None, flash_out: Path | None = None,
                 paced: bool = True, reader: bool = True) -> None:
        import tempfile
        import threading
        image, bootrom = silicon()
        self.name = name
        self.station_id = station_uid(name)
        self.buttons = 6
        self.last_seq = -1
        self._seq = 0
        self._lock = threading.Lock()
        self.reports: list[dict[str, Any]] = []
        self._reported = threading.Condition()
        usb_read, usb_write = os.pipe()          # the host's bytes to the Pico
        os.set_blocking(usb_read, False)
        control_read, control_write = os.pipe()
        os.set_blocking(control_read, False)
        ask_read, ask_write = os.pipe()          # station.mjs -> the PN532 model
        answer_read, answer_write = os.pipe()    # and back
        timing = load_timing()
        spec = {"rp2040js": module.as_uri(), "image": str(image), "bootrom": str(bootrom),
                "uid": self.station_id, "flash_in": str(flash_in) if flash_in else None,
                "flash_out": str(flash_out) if flash_out else None, "usb_in_fd": usb_read,
                "control_fd": control_read, "chip_req_fd": ask_write, "chip_ans_fd": answer_read, "paced": paced,
                "reader": reader, "pins": wiring(), "i2c_bits_per_byte": timing["i2c_bits_per_byte"]}
        try:
            self._chip = subprocess.Popen([sys.executable, "-m", "hardware.sim.rp2040_pn532"], stdin=ask_read,
                                          stdout=answer_write, cwd=HERE.parent.parent, start_new_session=True)
            self._process = subprocess.Popen(
                ["node", str(RP2040 / "station.mjs"), json.dumps(spec)],
                pass_fds=(usb_read, control_read, ask_write, answer_read), stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        finally:
            for fd in (usb_read, control_read, ask_read, ask_write, answer_read, answer_write):
                os.close(fd)
        self._by_id = tempfile.mkdtemp(prefix="spieltisch-rp2040-")
        self._usb = _UsbPort(self.station_id, self._by_id, usb_write).start()
        self._usb_write = usb_write
        self.port = self._usb.port
        self._control = os.fdopen(control_write, "w", buffering=1)
        self._reader = threading.Thread(target=self._read_reports, name=f"rp2040 {name}", daemon=True)
        self._reader.start()

    def __repr__(self) -> str:
        return f"<Rp2040Station {self.name} {self.station_id} {self.port}>"

    def _read_reports(self) -> None:
        """The Node process's lines: what the Pico sends on USB, its resets, its reports."""
        stdout = self._process.stdout
        assert stdout is not None
        for line in stdout:
            try:
                report = json.loads(line)
            except ValueError:
                continue
            usb = report.get("usb")
            if usb == "gone":
                self._usb.close()
            elif usb == "up":
                if not self._usb.plugged:
                    self._usb.start()
            elif usb is not None:
                self._usb.send(bytes.fromhex(usb))
            else:
                with self._reported:
                    self.reports.append(report)
                    self._reported.notify_all()

    def wait_for_hello(self, timeout: float = BOOT_WAIT_S) -> None:
        """Until the firmware has said HELLO on USB once (booted; on this machine's emulator
        that can take many seconds of wall time, more than a table waits for a HELLO)."""
        from hardware.link import StationError
        with self._reported:
            if not self._reported.wait_for(lambda: any(r.get("hello") for r in self.reports), timeout):
                raise StationError(f"station {self.name} did not boot within {timeout:.0f} s")

    def run_for(self, ms: float, timeout: float = 600.0) -> dict[str, Any]:
        """Let ``ms`` of emulated time pass (from now, as the emulator counts it); its report."""
        from hardware.link import StationError
        with self._reported:
            count = len(self.reports)
            self._send({"do": "run", "ms": ms}, 0)
            if not self._reported.wait_for(lambda: any(r.get("ran") for r in self.reports[count:]), timeout):
                raise StationError(f"station {self.name} did not run {ms} ms of emulated time")
            return next(r for r in self.reports[count:] if r.get("ran"))

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._control.close()                # the Node process ends when its pipe closes
        try:
            self._process.wait(timeout=30.0)     # (it leaves the flash behind first)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._reader.join(timeout=5.0)
        for stream in (self._process.stdout, self._process.stderr):
            if stream is not None:
                stream.close()
        self._usb.close()
        with contextlib.suppress(OSError):
            os.close(self._usb_write)
        with contextlib.suppress(OSError):
            os.rmdir(self._by_id)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._chip.wait(timeout=5.0)
        if self._chip.poll() is None:
            self._chip.kill()
            self._chip.wait()


def firmware_key() -> str:
    """What a prepared flash depends on: the image, the boot ROM, the firmware's files."""
    digest = hashlib.sha256()
    for path in (*silicon(), *firmware_files()):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def prepared_flash(module: Path) -> Path:
    """A flash with MicroPython and the table's firmware on it, put there as a table puts it
    on a Pico: ``spieltisch stations --flash`` (hardware/stationflash.py, mpremote) onto an
    emulated Pico that has only MicroPython. Made once per firmware (a lock file: two tables or
    two test workers at once wait for one), kept in the cache folder beside the image."""
    from hardware.stationflash import FlashError, StationFlasher
    folder = silicon_dir()
    target = folder / f"flash-{firmware_key()}.bin"
    if target.is_file():
        return target
    with open(folder / ".flash-lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target.is_file():
            return target
        partial = target.with_suffix(".part")
        station = Rp2040Station("flashing", module, flash_out=partial, paced=False, reader=False)

        class EmulatedPicoFlasher(StationFlasher):   # the emulator's pace (docs/rp2040.md), not a Pico's
            PORT_WAIT_S = REPL_WAIT_S = BOOT_WAIT_S / 4
            # each try for HELLO short: the first may find the port from before the reset,
            # which the emulated Pico takes seconds of wall time to make
            HELLO_WAIT_S = 10.0
        try:
            EmulatedPicoFlasher(station.port).flash()
        except FlashError as exc:
            raise FirmwareUnavailable(f"--stations rp2040: the firmware could not be put on the emulated Pico "
                                      f"({exc})") from None
        finally:
            station.close()
        if not partial.is_file():
            raise FirmwareUnavailable("--stations rp2040: the emulated Pico did not leave its flash behind")
        partial.rename(target)
    return target


def rp2040_stations(names: list[str], *, reader: bool = True, paced: bool = True) -> list[Rp2040Station]:
    """Started stations, one per name, each from the prepared flash; FirmwareUnavailable when
    this machine cannot run them."""
    module = emulator_module()
    flash = prepared_flash(module)
    stations: list[Rp2040Station] = []
    try:
        for name in names:
            stations.append(Rp2040Station(name, module, flash_in=flash, paced=paced, reader=reader))
        for station in stations:
            station.wait_for_hello()
    except BaseException:
        for station in stations:
            station.close()
        raise
    return stations
