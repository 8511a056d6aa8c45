"""``spieltisch stations --flash`` and the menu's "Update the stations": the table's station
firmware onto every station plugged in (``hardware/stationflash.py`` does one), each
station's progress said as it goes, on the terminal or on the TV.

Which ports: the ones given, or every serial device whose USB vendor is Raspberry Pi
(``2e8a``: a Pico, with MicroPython or with our firmware); a PN532 reader on a USB
adapter is never sent the REPL's control bytes. Without ports given (and always in the
menu), every Pico in BOOTSEL mode too (``hardware/bootsel.py``, 2e8a:0003): MicroPython's
image goes onto its drive first, the Pico restarts into MicroPython, and the firmware goes
on as onto any new Pico. A station that fails is said with what to do, and the others go
on. Composition root: it may wire hardware.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from controller.games import texts
from controller.table.runner import event_queue
from hardware.stationflash import FlashError

if TYPE_CHECKING:
    from hardware.bootsel import BootselPico, UsbRoots

RASPBERRY_PI_USB_VENDOR = 0x2E8A
SHOWN_ALONE_S = 60.0        # the outcome on the TV when no station's button can end it


@dataclass
class Outcome:
    port: str
    station: str | None = None
    before: str | None = None
    after: str | None = None
    files: int = 0
    compiled: bool = False
    kept_config: bool = False
    error: tuple[str, dict[str, Any]] | None = None      # a sentence's key and params
    origin: str | None = None       # a Pico that was in BOOTSEL mode: its name until it had a port
    micropython: bool = False       # MicroPython was put on it first

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def key(self) -> str:
        """The name its progress was said under."""
        return self.origin or self.port


def picos(ports: list[str], comports: Callable[[], list[Any]] | None = None) -> list[str]:
    """The ports whose USB device is a Raspberry Pi Pico (vendor 2e8a)."""
    if comports is None:
        from serial.tools.list_ports import comports as listed
        comports = listed
    vendor = {os.path.realpath(p.device): p.vid for p in comports()}
    return [port for port in ports if vendor.get(os.path.realpath(port)) == RASPBERRY_PI_USB_VENDOR]


def update_stations(ports: list[str], *, progress: Callable[[str, str, dict[str, Any]], None] | None = None,
                    flasher: Any = None, bootsel: list[BootselPico] | None = None, usb: UsbRoots | None = None,
                    image: Path | None = None, installer: Any = None) -> list[Outcome]:
    """Each port's station updated in turn, then each Pico in BOOTSEL mode (``bootsel``):
    MicroPython onto it, then the firmware; ``progress(port, step, facts)`` as it goes (a
    BOOTSEL Pico's under :func:`bootsel_name`)."""
    outcomes = []
    for port in ports:
        outcomes.append(_update_one(Outcome(port), port, progress, flasher))
    for pico in bootsel or []:
        name = bootsel_name(pico)
        outcome = Outcome(name, origin=name)
        try:
            port = _install_micropython(pico, name, progress, usb, image, installer)
        except FlashError as exc:
            outcome.error = (exc.key, dict(exc.params))
        except OSError as exc:                # its USB gone from under us meanwhile
            outcome.error = ("flash_bootsel_write_failed", {"usb": pico.usb, "reason": exc.strerror or str(exc)})
        if outcome.error is not None:
            outcomes.append(outcome)
            continue
        outcome.port, outcome.micropython = port, True
        outcomes.append(_update_one(outcome, name, progress, flasher))
    return outcomes


def bootsel_name(pico: BootselPico) -> str:
    """A Pico in BOOTSEL mode as its lines name it: its drive's label and its USB port."""
    return f"RPI-RP2 (USB {pico.usb})"


def _install_micropython(pico: BootselPico, name: str, progress: Callable[[str, str, dict[str, Any]], None] | None,
                         usb: UsbRoots | None, image: Path | None, installer: Any) -> str:
    """MicroPython onto a Pico in BOOTSEL mode; the port of the MicroPython board it became
    (its stable name when udev gave it one)."""
    from hardware.bootsel import BootselInstaller, UsbRoots, read_image

    def told(step: str, facts: dict[str, Any]) -> None:
        if progress is not None:
            progress(name, step, facts)
    data = read_image(image)
    port = (installer or BootselInstaller)(pico, data, usb or UsbRoots(), told).install()
    return stable_port(port)


def stable_port(port: str) -> str:
    """The name the table's udev rules (or the kernel's by-id links) give ``port``: a Pico
    that restarts may come back as another ttyACM."""
    from controller.table.stations import candidate_ports
    real = os.path.realpath(port)
    return next((p for p in candidate_ports() if os.path.realpath(p) == real), port)


def _update_one(outcome: Outcome, said_as: str, progress: Callable[[str, str, dict[str, Any]], None] | None,
                flasher: Any) -> Outcome:
    from hardware.stationflash import StationFlasher
    port = outcome.port

    def told(step: str, facts: dict[str, Any]) -> None:
        if progress is not None:
            progress(said_as, step, facts)
    try:
        report = (flasher or StationFlasher)(port, progress=told).flash()
        outcome.station, outcome.before, outcome.after = report.station, report.before, report.after
        outcome.files, outcome.compiled, outcome.kept_config = len(report.files), report.compiled, report.kept_config
    except FlashError as exc:
        outcome.error = (exc.key, dict(exc.params))
    except OSError as exc:                    # unplugged under us, a port that will not open
        outcome.error = ("flash_port_failed", {"port": port, "reason": str(exc)})
    return outcome


def outcome_line(outcome: Outcome, lang: str) -> str:
    """One line for a person: ✓ or ✗, the station, and what happened or what to do."""
    if outcome.error is not None:
        key, params = outcome.error
        return "✗ " + texts.render(lang, "flash_failed", {"port": outcome.key,
                                                           "reason": texts.render(lang, key, params)})
    line = texts.render(lang, "flash_updated", {"station": outcome.station or "?", "port": outcome.port,
                                                "before": outcome.before or "–", "after": outcome.after})
    if outcome.micropython:
        line += " " + texts.render(lang, "flash_micropython_first")
    if outcome.kept_config:
        line += " " + texts.render(lang, "flash_kept_config")
    return "✓ " + line


def candidate_picos(ports: list[str] | None) -> list[str]:
    from controller.table.stations import candidate_ports
    return list(ports) if ports else picos(candidate_ports())


def flash_command(ports: list[str] | None, *, lang: str = "en", flasher: Any = None, usb: UsbRoots | None = None,
                  image: Path | None = None, installer: Any = None) -> int:
    """The command line's ``stations --flash``: a line per step, a line per station; 0 when
    every station runs the table's firmware now. Without ``ports``, every Pico in BOOTSEL
    mode gets MicroPython (``image``, else hardware/bootsel.py's place for it) first."""
    from hardware.bootsel import bootsel_picos
    from hardware.stationflash import table_firmware_version
    try:
        version = table_firmware_version()
    except FlashError as exc:
        print("✗ " + texts.render(lang, exc.key, exc.params))
        return 1
    found = candidate_picos(ports)
    booting = [] if ports else bootsel_picos(usb)
    if not found and not booting:
        print(texts.render(lang, "flash_none_found"))
        return 1
    print(texts.render(lang, "flash_title", {"version": version}))
    shown: dict[str, str] = {}

    def progress(port: str, step: str, facts: dict[str, Any]) -> None:
        line = progress_line(step, facts, lang)
        if line and shown.get(port) != line:
            shown[port] = line
            print(f"  {port}: {line}", flush=True)
    outcomes = update_stations(found, progress=progress, flasher=flasher, bootsel=booting, usb=usb, image=image,
                               installer=installer)
    for outcome in outcomes:
        print(outcome_line(outcome, lang))
    return 0 if all(o.ok for o in outcomes) else 1


def progress_line(step: str, facts: dict[str, Any], lang: str) -> str | None:
    """What a step says; writing in tenths, so a line is not said per 256 bytes."""
    if step in ("writing", "installing"):
        percent = 100 * facts["done"] // max(1, facts["total"])
        return texts.render(lang, f"flash_step_{step}", {"percent": percent - percent % 10})
    if step in ("asking", "connecting", "verifying", "restarting", "waiting", "starting"):
        return texts.render(lang, f"flash_step_{step}")
    return None


@dataclass(frozen=True)
class FlashSnapshot:
    game: str                                        # "flash": the screen's view
    version: str
    lines: tuple[tuple[str, bool | None], ...]       # per station: its line, and ✓ (True), ✗ (False) or under way
    done: bool = False


def run_flash_on_screen(ports: list[str], *, lang: str, headless: bool, fullscreen: bool,
                        timeout: float | None = None, flasher: Any = None, usb: UsbRoots | None = None,
                        image: Path | None = None, installer: Any = None) -> list[Outcome]:
    """The menu's "Update the stations": each station's progress on the TV (a Pico in
    BOOTSEL mode's too), then the outcome until any station's button (or Esc)."""
    from controller.app.play import QUIT, make_screen, next_input
    from hardware.bootsel import bootsel_picos
    from hardware.events import ButtonEvent
    from hardware.stationflash import table_firmware_version
    version = table_firmware_version()
    found = candidate_picos(ports)
    booting = bootsel_picos(usb)
    deadline = None if timeout is None else time.monotonic() + timeout
    with contextlib.ExitStack() as stack:
        screen = make_screen(stack, lang=lang, headless=headless, fullscreen=fullscreen)
        lines: dict[str, tuple[str, bool | None]] = {p: (texts.render(lang, "flash_step_waiting_turn"), None)
                                                     for p in found + [bootsel_name(b) for b in booting]}

        def show(done: bool = False) -> None:
            shown = tuple((f"{port}: {line}" if ok is None else line, ok) for port, (line, ok) in lines.items())
            if not shown:
                shown = ((texts.render(lang, "flash_none_found"), False),)
            screen.show(FlashSnapshot("flash", version, shown, done))

        def progress(port: str, step: str, facts: dict[str, Any]) -> None:
            line = progress_line(step, facts, lang)
            if line is not None:
                lines[port] = (line, None)
                show()
            screen.poll()                       # the window stays alive while a station is written
        show()
        outcomes = update_stations(found, progress=progress, flasher=flasher, bootsel=booting, usb=usb,
                                   image=image, installer=installer)
        for outcome in outcomes:
            lines[outcome.key] = (outcome_line(outcome, lang)[2:], outcome.ok)
        show(done=True)
        # the menu's stations are free again (and the ones that were in BOOTSEL mode): any button goes back
        from controller.app.play import open_present
        events = event_queue()
        present = open_present(found + [o.port for o in outcomes if o.micropython and o.ok], events, stack)
        if not present:                         # no button to go back with (the box had only a BOOTSEL Pico)
            alone = time.monotonic() + SHOWN_ALONE_S
            deadline = alone if deadline is None else min(deadline, alone)
        while True:
            event = next_input(screen, events, deadline)
            if event is QUIT or (isinstance(event, ButtonEvent) and event.pressed):
                return outcomes
