"""A stand-in for a Pico in BOOTSEL mode, as the table's machine sees one (hardware/bootsel.py
is the real side).

:class:`BootRomDrive` is the boot ROM's drive as raspberrypi/pico-bootrom-rp2040's
``virtual_disk.c`` has it: every 512-byte sector written is looked at alone, wherever it
goes; a UF2 block for the RP2040's main flash is programmed (the 4 KB flash sector it falls
in erased first, once per transfer), any other sector ignored; a UF2 block the boot ROM
cannot place (outside the flash, a block number past the count) throws the transfer away; a
block with another block count starts a new transfer; when every block of the count is in,
the Pico restarts into its flash. (A UF2 for the RAM, which the boot ROM would run from the
RAM, is not modelled: taken as one it cannot place.)

:class:`SimulatedBootselPico` is that Pico plugged in: a folder with the sysfs entries, the
/dev names and the mount table of a machine it is plugged into (``roots``, a
:class:`hardware.bootsel.UsbRoots`), 2e8a:0003 with a SCSI disk whose block device is a FIFO
the drive reads. At the restart its drive goes, and ``restart`` is given the flash as it now
is: it starts whatever the flash holds (:func:`emulated_restart`: an emulated Pico on rp2040js,
hardware/sim/rp2040_station.py) and gives that board's serial port, which then appears on the
same USB port as 2e8a:0005; or None, and the Pico does not come back (a flash nothing starts
from).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable

from hardware.bootsel import (
    BOOTSEL_PRODUCT, FLASH_SECTOR, FLASH_START, INFO_FILE, MICROPYTHON_PRODUCT, PAYLOAD, PICO_FLASH_SIZE,
    RASPBERRY_PI_VENDOR, RP2040_FAMILY_ID, UF2_BLOCK, UF2_FLAG_FAMILY_ID_PRESENT, UF2_FLAG_NOT_MAIN_FLASH,
    UsbRoots, parse_block, takes,
)

INFO_UF2 = "UF2 Bootloader v2.0\nModel: Raspberry Pi RP2\nBoard-ID: RPI-RP2\n"   # the B1 ROM's INFO_UF2.TXT


class BootRomDrive:
    """The sectors written to a BOOTSEL Pico's drive, and the flash they leave."""

    def __init__(self, flash: bytes | None = None) -> None:
        self.flash = bytearray(flash) if flash is not None else bytearray(b"\xff" * PICO_FLASH_SIZE)
        self.num_blocks = 0                 # 0: no transfer under way
        self.valid: set[int] = set()        # the transfer's block numbers programmed
        self.cleared: set[int] = set()      # the erase bitmap (see write_sector)
        self.ignored = 0                    # sectors that were no UF2 block for the RP2040's flash
        self.complete = False

    def write_sector(self, sector: bytes) -> None:
        block = parse_block(sector)
        if block is None or not block.flags & UF2_FLAG_FAMILY_ID_PRESENT or block.family != RP2040_FAMILY_ID or \
                block.flags & UF2_FLAG_NOT_MAIN_FLASH or block.size != PAYLOAD:
            self.ignored += 1               # not UF2, or not the RP2040's main flash: as if never written
            return
        if not takes(block):
            self.num_blocks = 0             # garbage: the transfer is thrown away
            return
        if block.count != self.num_blocks:
            self.num_blocks, self.valid, self.cleared = block.count, set(), set()
        if block.number in self.valid:
            return                          # a duplicate
        # the boot ROM keeps its "erased" bitmap by block number (block_no * 256 / 4096) and
        # erases the sector the block's address falls in: for an image of consecutive pages the same
        page = block.number * PAYLOAD // FLASH_SECTOR
        at = block.address - FLASH_START
        if page not in self.cleared:
            start = at - at % FLASH_SECTOR
            self.flash[start:start + FLASH_SECTOR] = b"\xff" * FLASH_SECTOR
            self.cleared.add(page)
        for i, byte in enumerate(block.data[:PAYLOAD]):
            self.flash[at + i] &= byte       # NOR flash: programming clears bits
        self.valid.add(block.number)
        if len(self.valid) == self.num_blocks:
            self.complete = True


class SimulatedBootselPico:
    """One BOOTSEL Pico plugged in, under ``folder`` (see the module's doc)."""

    TTY = "ttyACM9"

    def __init__(self, folder: Path, *, usb: str = "1-1", serial: str = "E0C9125B0D9B", disk: str = "sdx",
                 flash: bytes | None = None, restart: Callable[[bytes], str | None] | None = None,
                 mounted: bool = False) -> None:
        self.roots = UsbRoots(folder / "sys", folder / "dev", folder / "mounts")
        self.usb, self.disk = usb, disk
        self.drive = BootRomDrive(flash)
        self._restart = restart or (lambda flash: None)
        self.port: str | None = None                 # the MicroPython board's, once it restarted into one
        self.restarted = threading.Event()
        self._closed = False
        self._came_back = False
        self._lock = threading.Lock()
        device = self.device
        host = device / f"{usb}:1.0" / "host7"
        (host / "target7:0:0" / "7:0:0:0" / "block" / disk).mkdir(parents=True)
        (device / f"{usb}:1.1").mkdir()              # the boot ROM's PICOBOOT interface
        for name, value in (("idVendor", f"{RASPBERRY_PI_VENDOR:04x}"), ("idProduct", f"{BOOTSEL_PRODUCT:04x}"),
                            ("serial", serial), ("product", "RP2 Boot")):
            (device / name).write_text(value + "\n")
        self.roots.dev.mkdir(parents=True, exist_ok=True)
        self.block = self.roots.dev / disk
        os.mkfifo(self.block)
        mounts = ""
        if mounted:                                   # a desktop mounted it: a folder with INFO_UF2.TXT
            self.mount = folder / "media" / "RPI-RP2"
            self.mount.mkdir(parents=True)
            (self.mount / INFO_FILE).write_text(INFO_UF2)
            mounts = f"{self.block}1 {self.mount} vfat rw,nosuid,nodev 0 0\n"
        self.roots.mounts.write_text(mounts)
        self._thread = threading.Thread(target=self._serve, name=f"bootsel {usb}", daemon=True)
        self._thread.start()

    @property
    def device(self) -> Path:
        return self.roots.devices / self.usb

    def _serve(self) -> None:
        """The drive's side of the FIFO: each writer's sectors, until the image is whole. A
        real drive goes on taking (and ignoring) sectors for the second before its restart;
        here the writer is read to its end before the Pico comes back."""
        while not self._closed and not self.drive.complete:
            with open(self.block, "rb", buffering=0) as drive:      # waits for a writer
                pending = b""
                while data := drive.read(64 * UF2_BLOCK):          # b"": the writer closed
                    pending += data
                    while len(pending) >= UF2_BLOCK:
                        if not self.drive.complete:
                            self.drive.write_sector(pending[:UF2_BLOCK])
                        pending = pending[UF2_BLOCK:]
        if self.drive.complete and not self._closed:
            self._come_back()

    def write_file(self, data: bytes) -> None:
        """A file copied onto the mounted drive: its sectors go to the drive as they are."""
        for at in range(0, len(data) - len(data) % UF2_BLOCK, UF2_BLOCK):
            self.drive.write_sector(data[at:at + UF2_BLOCK])
        if self.drive.complete:
            self._come_back()

    def _come_back(self) -> None:
        """The boot ROM's restart: the drive goes; whatever the flash starts comes back."""
        with self._lock:
            if self._came_back:
                return
            self._came_back = True
        self._let_go_reader()                         # (a file written to the mounted drive: the FIFO's reader waits)
        shutil.rmtree(self.device / f"{self.usb}:1.0", ignore_errors=True)
        shutil.rmtree(self.device / f"{self.usb}:1.1", ignore_errors=True)
        with contextlib.suppress(OSError):
            self.block.unlink()
        port = self._restart(bytes(self.drive.flash))
        if port is None:
            shutil.rmtree(self.device, ignore_errors=True)
        else:
            (self.roots.dev / self.TTY).symlink_to(port)
            (self.device / f"{self.usb}:1.0" / "tty" / self.TTY).mkdir(parents=True)
            (self.device / "idProduct").write_text(f"{MICROPYTHON_PRODUCT:04x}\n")
            self.port = str(self.roots.dev / self.TTY)
        self.restarted.set()

    def close(self) -> None:
        self._closed = True
        self._let_go_reader()

    def _let_go_reader(self) -> None:
        if threading.current_thread() is self._thread:
            return
        for _ in range(200):
            if not self._thread.is_alive():
                break
            # a reader waiting in open() for a writer: one that comes and goes lets it out (the
            # thread may not be in open() yet, when such a writer finds no reader: again)
            with contextlib.suppress(OSError):
                os.close(os.open(self.block, os.O_WRONLY | os.O_NONBLOCK))
            self._thread.join(timeout=0.05)


class EmulatedRestart:
    """``restart`` for a SimulatedBootselPico: an emulated Pico (rp2040js, the RP2040's boot ROM)
    started from the flash the drive was written, without pacing or a reader (it is to be
    flashed, not played on); its USB's serial port. ``station`` is it, to close."""

    def __init__(self, module: Path, name: str = "bootsel-1") -> None:
        self.module, self.name = module, name
        self.station: Any = None
        self._folder = Path(tempfile.mkdtemp(prefix="spieltisch-bootsel-"))

    def __call__(self, flash: bytes) -> str | None:
        from hardware.sim.rp2040_station import Rp2040Station
        written = self._folder / "flash.bin"
        written.write_bytes(flash)
        self.station = Rp2040Station(self.name, self.module, flash_in=written, paced=False, reader=False)
        return str(self.station.port)

    def close(self) -> None:
        if self.station is not None:
            self.station.close()
        shutil.rmtree(self._folder, ignore_errors=True)
