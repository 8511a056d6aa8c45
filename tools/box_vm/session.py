"""The box in its virtual machine with simulated stations plugged in, as the tests drive it:
boot, read what install-pi wrote, and look at the TV.

What the TV shows is judged against the picture the same snapshot makes on the host
(``display.app.Screen``, headless, the same pygame-ce): both scaled to a quarter, the share
of pixels that differ by more than a small step. A menu line's cursor moving is several per
cent of the screen, a different number in a line a few hundredths of one."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from tools.box_vm.image import Disk, provisioned
from tools.box_vm.machine import Machine, MachineError, overlay

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "tools" / "box_vm" / "shots"       # the pictures taken, for a person to look at (not tracked)
LIKE = 0.005                                        # at most this share of pixels differ: the same picture
STEP = 40                                           # a pixel differs when a channel is off by more

def _pygame() -> Any:
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    os.environ["SDL_VIDEODRIVER"] = "dummy"
    import pygame
    if not pygame.display.get_init():
        pygame.display.init()
    return pygame

_screen: Any = None

def expected(snapshot: Any, lang: str = "en") -> Any:
    """The canvas the box draws for ``snapshot`` (1920×1080), drawn here."""
    global _screen
    from display.app import Screen
    if _screen is None:
        _screen = Screen(lang=lang, headless=True)
    _screen.set_lang(lang)
    return _screen.render(snapshot).copy()

def unlikeness(picture: Path, canvas: Any) -> float:
    """The share of pixels that differ between the TV's picture and ``canvas``, both at 480×270."""
    pygame = _pygame()
    small = (480, 270)
    loaded = pygame.image.load(str(picture))              # a dark picture may come as 8-bit grey
    full = pygame.Surface(loaded.get_size(), depth=32)
    full.blit(loaded, (0, 0))
    seen = pygame.transform.smoothscale(full, small)
    want = pygame.transform.smoothscale(canvas, small).convert(seen)
    one, other = seen.copy(), want.copy()
    one.blit(want, (0, 0), special_flags=pygame.BLEND_RGB_SUB)     # each channel's difference, both ways
    other.blit(seen, (0, 0), special_flags=pygame.BLEND_RGB_SUB)
    one.blit(other, (0, 0), special_flags=pygame.BLEND_RGB_ADD)
    alike = pygame.mask.from_threshold(one, (0, 0, 0, 255), (STEP, STEP, STEP, 255)).count()
    return 1 - alike / (small[0] * small[1])


class Box:
    """The provisioned disk booted (an overlay of its own: the cached disk stays as it is),
    with the stations' ttys plugged in as USB serial adapters."""

    def __init__(self, stations: list[str], disk: Disk | None = None, workdir: Path | None = None) -> None:
        self.image = disk or provisioned()
        self.workdir = workdir or Path(tempfile.mkdtemp(prefix="box-vm-"))
        self.disk = overlay(self.image.disk, self.workdir / "box.qcow2")
        self.stations = stations
        self.machine: Machine | None = None
        self.shots = 0

    def boot(self) -> Machine:
        assert self.machine is None or not self.machine.alive()
        if self.machine is not None:                     # the last boot's sockets and console log
            self.machine.remove()
        self.machine = Machine(self.disk, self.image.kernel, self.image.initrd, stations=self.stations,
                               workdir=Path(tempfile.mkdtemp(prefix="sv-"))).start()
        return self.machine

    def close(self) -> None:
        if self.machine is not None:
            self.machine.remove()
        subprocess.run(["rm", "-rf", str(self.workdir)], check=False)

    # -- what install-pi wrote -------------------------------------------------------------------
    def unit(self, prop: str) -> str:
        assert self.machine is not None
        return self.machine.check(f"systemctl show --property={prop} --value spieltisch.service").strip()

    def table_user(self) -> str:
        """The user the kiosk unit runs as (whatever install-pi chose)."""
        return self.unit("User") or "root"

    def environment(self) -> dict[str, str]:
        return dict(item.split("=", 1) for item in self.unit("Environment").split() if "=" in item)

    def as_table(self, python: str, timeout: float = 120.0) -> str:
        """``python`` run by the table's own interpreter, as its user, with the unit's
        environment (its data directory): what the box would see."""
        assert self.machine is not None
        command = self.unit("ExecStart")
        interpreter = command.split("path=", 1)[1].split(" ", 1)[0].rsplit("/", 1)[0] + "/python"
        env = " ".join(f"{k}={v}" for k, v in self.environment().items())
        user = self.table_user()
        quoted = python.replace("'", "'\\''")
        return self.machine.check(f"runuser -u {user} -- env {env} {interpreter} -c '{quoted}'", timeout=timeout)

    # -- the TV ------------------------------------------------------------------------------------
    def picture(self, name: str) -> Path:
        assert self.machine is not None
        self.shots += 1
        return self.machine.screendump(SHOTS / f"{self.shots:03d}-{name}.png")

    def wait_for_screen(self, canvas: Any, what: str, timeout: float) -> tuple[Path, float]:
        """Pictures of the TV until one is ``canvas``'s; that picture, and the seconds waited."""
        return self.wait_for_picture(lambda shot: unlikeness(shot, canvas) <= LIKE, what, timeout)

    def wait_for_picture(self, good: Callable[[Path], bool], what: str, timeout: float) -> tuple[Path, float]:
        """Pictures of the TV until ``good`` says one is what is waited for; that picture, and
        the seconds waited."""
        started = time.monotonic()
        while True:
            shot = self.picture(what.replace(" ", "-"))
            if good(shot):
                return shot, time.monotonic() - started
            if time.monotonic() - started > timeout:
                raise MachineError(f"the TV did not show {what} within {timeout} s (the last picture: {shot})")
            assert self.machine is not None
            if not self.machine.alive():
                raise MachineError(f"the machine ended while waiting for {what}")
            shot.unlink()
            self.shots -= 1

def demo(argv: list[str]) -> int:
    """Boot the box with one simulated station and save the TV's picture once the agent is up
    and the unit has started."""
    sys.path.insert(0, str(ROOT))
    from hardware.sim.station import SimulatedStation
    with contextlib.ExitStack() as stack:
        station = SimulatedStation("demo-1").start()
        stack.callback(station.close)
        box = Box([station.pty])
        stack.callback(box.close)
        machine = box.boot()
        print(f"agent up after {machine.wait_for_agent(timeout=900):.0f} s; the unit runs as {box.table_user()}")
        station.wait_for(lambda s: bool(s.sent("WHO")), timeout=300)
        print(f"the box said WHO to the station {time.monotonic() - machine.started_at:.0f} s after power-on")
        time.sleep(10)
        print(box.picture(argv[0] if argv else "demo"))
        print(machine.check("journalctl -u spieltisch --no-pager | tail -20"))
    return 0
