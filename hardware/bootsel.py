"""A Pico in BOOTSEL mode: found on USB, MicroPython put on it, and its serial port once it runs.

A Pico plugged in with its BOOTSEL button held (or one with nothing in its flash) runs the
RP2040's boot ROM: USB device 2e8a:0003, a mass-storage drive labelled ``RPI-RP2``. The drive
is not a disk: the boot ROM takes every 512-byte sector written to it, anywhere, and looks
at it alone (``vd_write_block`` in raspberrypi/pico-bootrom-rp2040's ``virtual_disk.c``: the
sector's number is unused). A UF2 block for the RP2040's main flash (its magic numbers, the
family id present and 0xe48bff56, not "not main flash", 256 bytes of payload, a flash target
on a 256-byte page) goes into the flash, every 4 KB sector it touches erased the first time;
any other sector is ignored. When every block of the image (``numBlocks``) is in, the boot
ROM restarts the Pico into it.

So the table writes the image's bytes straight to the drive's block device, no file system
and no mount needed (the table's udev rule, ``99-spieltisch.rules``, gives the ``dialout``
group that block device); a drive some desktop has mounted gets the image as a file on it
instead, as a person would copy it. The image is checked before a byte goes: a UF2 the boot
ROM would throw away in part, or one that does not start a Pico from its flash, is refused.

After the restart the same USB port holds a MicroPython board (2e8a:0005) with a serial
port: :meth:`BootselInstaller.install` waits for it and gives its port, where
``stationflash`` puts the table's firmware.

Where the image is: :func:`micropython_image` (docs/raspberry-pi.md, "A new Pico").
Everything on this machine is looked up under :class:`UsbRoots` (sysfs, /dev, the mount
table), so that a stand-in (``hardware/sim/bootsel.py``) can be found the same way.

This module is hardware: it never imports ``controller`` or ``display``.
"""

from __future__ import annotations

import contextlib
import os
import stat
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from hardware.stationflash import FlashError

RASPBERRY_PI_VENDOR = 0x2E8A
BOOTSEL_PRODUCT = 0x0003            # the RP2040's boot ROM: the RPI-RP2 drive
MICROPYTHON_PRODUCT = 0x0005        # MicroPython's USB (CDC serial)

# UF2 (github.com/microsoft/uf2, and the boot ROM's checks in virtual_disk.c)
UF2_BLOCK = 512
UF2_MAGIC_START0 = 0x0A324655
UF2_MAGIC_START1 = 0x9E5D5157
UF2_MAGIC_END = 0x0AB16F30
UF2_FLAG_NOT_MAIN_FLASH = 0x00000001
UF2_FLAG_FAMILY_ID_PRESENT = 0x00002000
RP2040_FAMILY_ID = 0xE48BFF56
PAYLOAD = 256                       # the boot ROM takes exactly one flash page a block
FLASH_START = 0x10000000            # the XIP window: the flash's first byte
PICO_FLASH_SIZE = 2 * 1024 * 1024   # a Pico's W25Q16JV
FLASH_SECTOR = 4096                 # what the boot ROM erases before a page goes in

MICROPYTHON_IMAGE = "micropython-rp2-RPI_PICO-v1.27.0.uf2"   # MicroPython v1.27.0, rp2 port, board RPI_PICO
INFO_FILE = "INFO_UF2.TXT"          # on the drive: "Board-ID: RPI-RP2"


# -- the image ---------------------------------------------------------------------------------------
def image_dir() -> Path:
    """Where the MicroPython image is kept: $SPIELTISCH_RP2040_DIR, else the user's cache
    folder (``~/.cache/spieltisch/rp2040``), where the emulated Picos find it too."""
    given = os.environ.get("SPIELTISCH_RP2040_DIR")
    if given:
        return Path(given)
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "spieltisch" / "rp2040"


def micropython_image() -> Path:
    return image_dir() / MICROPYTHON_IMAGE


@dataclass(frozen=True)
class Uf2Block:
    flags: int
    address: int
    size: int
    number: int
    count: int
    family: int                     # the family id (or the file's size, without the flag)
    data: bytes                     # the payload's 476 bytes, of which ``size`` count


def parse_block(sector: bytes) -> Uf2Block | None:
    """A 512-byte sector as a UF2 block, or None when its magic numbers say it is none."""
    if len(sector) != UF2_BLOCK:
        return None
    start0, start1, flags, address, size, number, count, family = struct.unpack_from("<8I", sector)
    (end,) = struct.unpack_from("<I", sector, UF2_BLOCK - 4)
    if (start0, start1, end) != (UF2_MAGIC_START0, UF2_MAGIC_START1, UF2_MAGIC_END):
        return None
    return Uf2Block(flags, address, size, number, count, family, sector[32:UF2_BLOCK - 4])


def takes(block: Uf2Block) -> bool:
    """What the boot ROM writes to the flash (vd_write_block and _update_current_uf2_info)."""
    return bool(block.flags & UF2_FLAG_FAMILY_ID_PRESENT) and block.family == RP2040_FAMILY_ID and \
        not block.flags & UF2_FLAG_NOT_MAIN_FLASH and block.size == PAYLOAD and block.count > 0 and \
        FLASH_START <= block.address and block.address + PAYLOAD <= FLASH_START + PICO_FLASH_SIZE and \
        block.address % PAYLOAD == 0 and block.number < block.count


def check_image(data: bytes, name: str) -> int:
    """The number of blocks of a UF2 a Pico takes whole and starts from; FlashError
    ``flash_image_bad`` (with the reason, technical) for any other file."""
    def bad(reason: str) -> FlashError:
        return FlashError("flash_image_bad", file=name, reason=reason)
    if not data or len(data) % UF2_BLOCK:
        raise bad(f"{len(data)} bytes, not whole {UF2_BLOCK}-byte UF2 blocks")
    count = len(data) // UF2_BLOCK
    seen: set[int] = set()
    numbers: set[int] = set()
    for index in range(count):
        block = parse_block(data[index * UF2_BLOCK:(index + 1) * UF2_BLOCK])
        if block is None:
            raise bad(f"block {index} has not the UF2 magic numbers")
        if not block.flags & UF2_FLAG_FAMILY_ID_PRESENT or block.family != RP2040_FAMILY_ID:
            raise bad(f"block {index} is not for the RP2040 (family 0x{block.family:08x})")
        if block.flags & UF2_FLAG_NOT_MAIN_FLASH or block.size != PAYLOAD:
            raise bad(f"block {index} is not a {PAYLOAD}-byte page of the main flash")
        if block.count != count or block.number >= count or block.number in numbers:
            raise bad(f"block {index} says it is block {block.number} of {block.count}, the file has {count}")
        numbers.add(block.number)
        if not takes(block):
            raise bad(f"block {index} goes to 0x{block.address:08x}, outside a Pico's 2 MB flash "
                      f"(0x{FLASH_START:08x}, page-aligned)")
        if block.address in seen:
            raise bad(f"block {index} writes 0x{block.address:08x} a second time")
        seen.add(block.address)
    if FLASH_START not in seen:
        raise bad(f"nothing goes to the flash's start (0x{FLASH_START:08x}): a Pico would not start from it")
    return count


def read_image(path: Path | None = None) -> bytes:
    """The MicroPython image, checked; FlashError ``flash_image_missing`` or ``flash_image_bad``."""
    path = path or micropython_image()
    try:
        data = path.read_bytes()
    except OSError:
        raise FlashError("flash_image_missing", file=str(path)) from None
    check_image(data, str(path))
    return data


# -- finding them -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class UsbRoots:
    """Where this machine's USB devices are looked up (a stand-in gives its own folders)."""

    sysfs: Path = Path("/sys")
    dev: Path = Path("/dev")
    mounts: Path = Path("/proc/mounts")

    @property
    def devices(self) -> Path:
        return self.sysfs / "bus" / "usb" / "devices"


@dataclass(frozen=True)
class BootselPico:
    usb: str                        # the USB port's path ("1-1.3"): a restarted Pico comes back on it
    serial: str | None
    drive: Path | None              # its block device (/dev/sda)
    mount: Path | None = None       # where its drive is mounted, when something mounted it


def _hex(folder: Path, name: str) -> int | None:
    try:
        return int((folder / name).read_text().strip(), 16)
    except (OSError, ValueError):
        return None


def _text(folder: Path, name: str) -> str | None:
    try:
        return (folder / name).read_text().strip() or None
    except OSError:
        return None


def _is(folder: Path, product: int) -> bool:
    return _hex(folder, "idVendor") == RASPBERRY_PI_VENDOR and _hex(folder, "idProduct") == product


def bootsel_picos(roots: UsbRoots | None = None) -> list[BootselPico]:
    """Every Pico whose boot ROM is on USB now."""
    roots = roots or UsbRoots()
    found = []
    for device in sorted(roots.devices.glob("*")):
        if ":" in device.name or not _is(device, BOOTSEL_PRODUCT):
            continue                                # an interface, or another device
        disks = sorted(device.glob("*:*/host*/target*/*/block/*"))
        drive = roots.dev / disks[0].name if disks else None
        found.append(BootselPico(device.name, _text(device, "serial"), drive, _mount_of(roots, drive)))
    return found


def _mount_of(roots: UsbRoots, drive: Path | None) -> Path | None:
    """Where the drive (or its partition) is mounted with the boot ROM's INFO_UF2.TXT on it."""
    if drive is None:
        return None
    try:
        lines = roots.mounts.read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split()
        rest = parts[0][len(str(drive)):] if parts and parts[0].startswith(str(drive)) else None
        if len(parts) < 2 or rest is None or not (rest == "" or rest.isdigit()):
            continue                                        # neither the drive nor one of its partitions
        where = Path(parts[1].replace("\\040", " "))      # /proc/mounts escapes a space
        if (where / INFO_FILE).is_file():
            return where
    return None


def micropython_port(usb: str, roots: UsbRoots | None = None) -> str | None:
    """The serial port of the MicroPython board on USB port ``usb``, or None while there is none."""
    roots = roots or UsbRoots()
    device = roots.devices / usb
    if not _is(device, MICROPYTHON_PRODUCT):
        return None
    for tty in sorted(device.glob("*:*/tty/*")):
        port = roots.dev / tty.name
        if port.exists():
            return str(port)
    return None


# -- putting the image on -----------------------------------------------------------------------------
Progress = Callable[[str, dict[str, Any]], None]     # ("installing", {"done", "total"}), ("starting", {})


def _quiet(step: str, facts: dict[str, Any]) -> None:
    pass


@dataclass
class BootselInstaller:
    """MicroPython onto one Pico in BOOTSEL mode; :meth:`install` gives the serial port of
    the MicroPython board it becomes."""

    pico: BootselPico
    image: bytes
    roots: UsbRoots = field(default_factory=UsbRoots)
    progress: Progress = _quiet

    CHUNK = 64 * UF2_BLOCK          # written at a time: progress in steps of 32 KB
    BOOT_WAIT_S = 20.0              # the boot ROM restarts 1 s after the last block; MicroPython's USB is up ~1 s later
    FILE_NAME = "SPIELTISCH.UF2"    # the name on a mounted drive (any name does)

    def install(self) -> str:
        self.write()
        self.progress("starting", {"usb": self.pico.usb})
        return self.wait_for_micropython()

    def write(self) -> None:
        """The image's blocks onto the drive: as a file where it is mounted, else onto the
        block device itself (the boot ROM reads each sector for what it is)."""
        target = self.pico.mount / self.FILE_NAME if self.pico.mount else self.pico.drive
        if target is None:
            raise FlashError("flash_bootsel_no_drive", usb=self.pico.usb)
        try:
            fd = os.open(target, os.O_WRONLY | (os.O_CREAT | os.O_TRUNC if self.pico.mount else 0), 0o644)
        except PermissionError:
            raise FlashError("flash_bootsel_no_access", usb=self.pico.usb, drive=str(target)) from None
        except OSError as exc:
            raise FlashError("flash_bootsel_write_failed", usb=self.pico.usb,
                             reason=exc.strerror or str(exc)) from None
        try:
            total = len(self.image)
            for at in range(0, total, self.CHUNK):
                chunk = self.image[at:at + self.CHUNK]
                written = 0
                while written < len(chunk):
                    written += os.write(fd, chunk[written:])
                self.progress("installing", {"usb": self.pico.usb, "done": at + len(chunk), "total": total})
            mode = os.fstat(fd).st_mode
            if stat.S_ISBLK(mode) or stat.S_ISREG(mode):
                # the kernel's cache out to the drive. The boot ROM restarts the Pico 1 s
                # after the last block is in, so a flush that finds it gone is no failure:
                # whether it took the image, the wait for MicroPython says.
                with contextlib.suppress(OSError):
                    os.fsync(fd)
        except OSError as exc:
            raise FlashError("flash_bootsel_write_failed", usb=self.pico.usb,
                             reason=exc.strerror or str(exc)) from None
        finally:
            with contextlib.suppress(OSError):
                os.close(fd)

    def wait_for_micropython(self) -> str:
        end = time.monotonic() + self.BOOT_WAIT_S
        while True:
            port = micropython_port(self.pico.usb, self.roots)
            if port is not None:
                return port
            if time.monotonic() > end:
                raise FlashError("flash_bootsel_no_micropython", usb=self.pico.usb)
            time.sleep(0.1)


def readiness(pico: BootselPico, image: Path | None = None) -> FlashError | None:
    """What would keep the table from putting MicroPython on ``pico`` now (the image missing
    or bad, a drive this user may not write), or None."""
    try:
        read_image(image)
    except FlashError as exc:
        return exc
    target = pico.mount or pico.drive
    if target is None:
        return FlashError("flash_bootsel_no_drive", usb=pico.usb)
    if not os.access(target, os.W_OK):
        return FlashError("flash_bootsel_no_access", usb=pico.usb, drive=str(target))
    return None
