"""Stations that run the project's own firmware under real MicroPython, behind the same
pseudo-terminals and protocol as a USB station (``spieltisch demo --stations firmware``).

    table's process                     one Node process per station (hardware/sim/pico/station.mjs)
    FirmwareStation.press ── JSON line ──► board.py: a contact closes and bounces below the pin
                                            firmware/main.py (MicroPython, WebAssembly) ── pty ──► StationLink

Each station is MicroPython's WebAssembly build (npm: @micropython/micropython-webassembly-pyscript,
the one the firmware's checks use) running ``firmware/main.py``'s Firmware and serve loop on
a simulated Pico (``hardware/sim/pico/``): its buttons are contacts that bounce, its reader a
PN532 on I2C that keeps its datasheet's timing (``hardware/sim/pn532_chip.py``) with NTAG cards
on it. What the table sees is only what the firmware writes to USB.

Needs Node.js (node and npm); the npm package is installed on first use into the user's
cache folder. When something is missing, :class:`FirmwareUnavailable` says what, in one line.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import subprocess
import threading
import time
import tty
from pathlib import Path
from typing import Any

from hardware.link import StationError
from hardware.protocol import SEQ_MODULO
from hardware.sim.process import end_process
from hardware.stationflash import firmware_dir

log = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
PICO = HERE / "pico"
NPM_PACKAGE = "@micropython/micropython-webassembly-pyscript"
INSTALL_TIMEOUT_S = 300


class FirmwareUnavailable(StationError):
    """What ``--stations firmware`` needs and this machine does not have, in one line."""


def runtime_dir() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    lock = json.loads((PICO / "package-lock.json").read_text())
    version = lock["packages"][f"node_modules/{NPM_PACKAGE}"]["version"]
    return base / "spieltisch" / f"micropython-{version}"


def micropython_module() -> Path:
    """MicroPython's WebAssembly build, installed on first use (npm ci into the user's cache
    folder, pinned by hardware/sim/pico/package-lock.json); FirmwareUnavailable when it cannot be."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        raise FirmwareUnavailable("--stations firmware runs each station's firmware under MicroPython's "
                                  "WebAssembly build with Node.js, and this machine has no node/npm: "
                                  "install Node.js 18 or newer (Debian: apt-get install nodejs npm)")
    for name in ("board.py", "machine.py", "station.mjs", "package.json", "package-lock.json"):
        if not (PICO / name).is_file():
            raise FirmwareUnavailable(f"--stations firmware: this installation lacks hardware/sim/pico/{name}; "
                                      "reinstall spieltisch (pip install .) from a complete source tree")
    if not (firmware_dir() / "main.py").is_file():
        raise FirmwareUnavailable("--stations firmware: this installation lacks the station firmware "
                                  "(firmware/main.py); reinstall spieltisch from a complete source tree")
    return install_once(runtime_dir(), PICO)


def install_once(target: Path, sources: Path | None = None, package: str = NPM_PACKAGE,
                 entry: str = "micropython.mjs") -> Path:
    """MicroPython's WebAssembly build in ``target`` (npm ci there, with the package files
    from ``sources`` when given), its module's path; FirmwareUnavailable when npm cannot.
    (``package`` and its file ``entry``: another package so installed, rp2040js for
    ``--stations rp2040``.)
    One install at a time (a lock file): two tables, or two test workers, started at once
    would each run npm ci into the same folder, and each removes what the other writes; and
    an install is taken only once it is marked finished, never half-unpacked."""
    import fcntl
    module = target / "node_modules" / package / entry
    installed = target / ".installed"
    if installed.is_file() and module.is_file():
        return module
    target.mkdir(parents=True, exist_ok=True)
    with open(target / ".install-lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if module.is_file():                     # installed meanwhile, or before there was a mark
            installed.write_text("npm ci\n")
            return module
        for name in ("package.json", "package-lock.json") if sources is not None else ():
            shutil.copyfile(sources / name, target / name)  # type: ignore[operator]  # (none without sources)
        try:
            done = subprocess.run([shutil.which("npm") or "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                                  cwd=target, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise FirmwareUnavailable(f"npm could not install {package} into {target} ({exc})") from None
        if done.returncode == 0 and module.is_file():
            installed.write_text("npm ci\n")
            return module
    why = (done.stderr.strip().splitlines() or ["no message"])[-1]
    raise FirmwareUnavailable(f"npm could not install {package} into {target} "
                              f"(is the npm registry reachable?): {why}")


def station_uid(name: str) -> str:
    """A Pico's unique id (8 bytes, as hex) for a simulated station's name: the id its HELLO says."""
    return "e661" + hashlib.sha1(name.encode()).hexdigest()[:12]


class FirmwareStation:
    """One station: its firmware in a Node process, its USB on a pseudo-terminal (``port``).
    ``press`` and ``tap`` are a person's hands on it; each returns the sequence number of the
    last frame the firmware will send for it (counted here as the firmware counts: a press
    and its release two, a card laid down and lifted again a TAG and a GONE)."""

    def __init__(self, name: str, module: Path, *, index: int, idle_us: int, reader: bool = True,
                 offset_us: int | None = None, config: dict[str, Any] | None = None,
                 board: dict[str, Any] | None = None) -> None:
        self.name = name
        self.failed: str | None = None           # why its hand gave up (a card never read), in one line
        self.station_id = station_uid(name)
        self.buttons = 6
        self.last_seq = -1
        self._seq = 0
        self._lock = threading.Lock()
        self.reports: list[dict[str, Any]] = []
        self._reported = threading.Condition()
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        control_read, control_write = os.pipe()
        os.set_blocking(control_read, False)
        spec = {"uid": self.station_id, "firmware_dir": str(firmware_dir()), "idle_us": idle_us, "reader": reader,
                "offset_us": (index * 7_919_113) % (1 << 30) if offset_us is None else offset_us,
                "config": config or {}, **(board or {})}
        try:
            self._process = subprocess.Popen(
                ["node", str(PICO / "station.mjs"), str(module), str(master), str(control_read), json.dumps(spec)],
                pass_fds=(master, control_read), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, start_new_session=True)
        finally:
            os.close(master)
            os.close(control_read)
        self._slave = slave                      # kept open: the port stays up between the table's opens
        self.port = os.ttyname(slave)
        self._control = os.fdopen(control_write, "w", buffering=1)
        self._reader = threading.Thread(target=self._read_reports, name=f"firmware {name}", daemon=True)
        self._reader.start()

    def __repr__(self) -> str:
        return f"<FirmwareStation {self.name} {self.station_id} {self.port}>"

    # -- a person's hands ----------------------------------------------------------------------
    def press(self, button: int, release: bool = True, at_ns: int | None = None, hold_ms: float = 80.0) -> int:
        if not 0 <= button < self.buttons:
            raise ValueError(f"station has buttons 0..{self.buttons - 1}")
        # the board (node, tests/mpy/) counts the host's CLOCK_MONOTONIC, not the table's raw clock
        at = time.monotonic_ns() if at_ns is None else at_ns
        return self._send({"do": "press", "button": button, "release": release, "at_us": at // 1000,
                           "hold_us": int(hold_ms * 1000)}, 2 if release else 1)

    def tap(self, uid: str, text: str | None = None, lift_ms: float = 150.0) -> int:
        """Lay a card on the reader (an NTAG213 with ``text`` as its NDEF record, or the card
        this UID was before, as a WRITE left it); it is lifted ``lift_ms`` after its TAG left."""
        return self._send({"do": "tap", "uid": uid.upper(), "text": text, "lift_ms": lift_ms}, 2 if lift_ms else 1)

    def place(self, uid: str, text: str | None = None) -> int:
        """Lay a card down and leave it there; the TAG's sequence number."""
        return self.tap(uid, text, lift_ms=0)

    def take_away(self, uid: str | None = None) -> int:
        return self._send({"do": "lift"}, 1)

    def stats(self, timeout: float = 5.0) -> dict[str, Any]:
        """The board's own figures (loop passes, a press's edge to its frame on USB, a card's
        poll answer to its TAG frame on USB, the FAST_READs and READs its reader sent). The
        first report after asking that has them (``passes``): the board reports other things
        meanwhile (an emulated Pico its USB coming up and its HELLO after a reboot), and the
        newest report was once taken for it (a flake of
        ``test_a_running_emulated_station_is_updated_through_update``, 2026-11-28)."""
        with self._reported:
            count = len(self.reports)
            self._send({"do": "stats"}, 0)

            def figures() -> dict[str, Any] | None:
                return next((r for r in self.reports[count:] if "passes" in r), None)

            if not self._reported.wait_for(lambda: figures() is not None, timeout):
                raise StationError(f"station {self.name} did not report")
            found = figures()
            assert found is not None
            return found

    def wait_failed(self, timeout: float) -> str | None:
        """Wait until the hand gives up (``failed``) or ``timeout`` s pass; ``failed``."""
        with self._reported:
            self._reported.wait_for(lambda: self.failed is not None, timeout)
            return self.failed

    # -- inside --------------------------------------------------------------------------------
    def _send(self, command: dict[str, Any], frames: int) -> int:
        with self._lock:
            if self._process.poll() is not None:
                raise StationError(f"station {self.name} is not plugged in (its firmware's process ended: "
                                   f"{self._why()})")
            try:
                self._control.write(json.dumps(command) + "\n")
            except (OSError, ValueError) as exc:
                raise StationError(f"station {self.name} is not plugged in ({exc})") from None
            if frames:
                self.last_seq = (self._seq + frames - 1) % SEQ_MODULO
                self._seq = (self._seq + frames) % SEQ_MODULO
            return self.last_seq

    def _why(self) -> str:
        try:
            err = self._process.stderr.read().decode(errors="replace").strip() if self._process.stderr else ""
        except (OSError, ValueError):
            err = ""
        return err.splitlines()[-1] if err else f"exit code {self._process.returncode}"

    def _read_reports(self) -> None:
        stdout = self._process.stdout
        assert stdout is not None
        for line in stdout:
            try:
                report = json.loads(line)
            except ValueError:
                continue
            with self._reported:
                if "hand_gave_up" in report:
                    # the person at it cannot go on: said once, kept for whoever drives its hands
                    self.failed = f"station {self.name}: {report['hand_gave_up']}"
                    log.error("%s", self.failed)
                else:
                    self.reports.append(report)
                self._reported.notify_all()

    def close(self) -> None:
        try:
            self._control.close()             # the station's process ends when its pipe closes
        except OSError:
            pass
        end_process(self._process)
        try:
            os.close(self._slave)
        except OSError:
            pass


def firmware_stations(names: list[str], *, idle_us: int = 1000, reader: bool = True,
                      config: dict[str, Any] | None = None, board: dict[str, Any] | None = None) -> list[FirmwareStation]:
    """Started stations, one per name; FirmwareUnavailable when this machine cannot run them.
    ``config``: settings of firmware/config.py these stations have otherwise (as a station's
    own config.py may), for the bench; ``board``: the simulated Pico's own settings
    (hardware/sim/pico/board.py: ``chip_mode``, a PN532 that misbehaves, "silent" or "stuck";
    ``hand_patience_us``, how long a hand waits for a card's read before it gives up)."""
    module = micropython_module()
    stations: list[FirmwareStation] = []
    try:
        for i, name in enumerate(names):
            stations.append(FirmwareStation(name, module, index=i, idle_us=idle_us, reader=reader, config=config,
                                            board=board))
    except BaseException:
        for station in stations:
            station.close()
        raise
    return stations
