"""Simulated stations in a process of their own, as real stations are devices of their own.

    table's process                      stations' process (python -m hardware.sim.process)
    RemoteStation.press ── a line ──► SimulatedStation.press ── frame, 0-4 ms ──► pty
                                                                                   │
    StationLink (the table's reader) ◄─────────────────────────────────────────────┘

Why: a station in the table's process is a Python thread that shares the interpreter's
lock with the table's loop and the links' readers. In a windowed Crazy Kick demo its
frames left p95 1.4-10 ms later than the USB delay they meant whenever the table held the
lock, so the arbiter saw links slower than any Pico's, and the screen named every
station "slow" (docs/crazy-kick.md, "Fairness"). Here they wait on nobody's Python, and
their delay is the one they draw.

The table's side never waits for the stations' process: a press is one line written to
its pipe, stamped with the moment it was made on the host's monotonic clock (the same
clock in every process), and its frames' sequence numbers are counted here, one per
frame as :class:`SimulatedStation` numbers them, so a bot knows at once which frame the
table must see. The process ends when its pipe closes, whatever way the table's process
ended.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import threading
from typing import Any

import hardware
from hardware.hostclock import now_ns
from hardware.protocol import SEQ_MODULO

START_TIMEOUT_S = 10.0       # the process imports, opens its pseudo-terminals and says where they are


def end_process(process: subprocess.Popen) -> None:
    """A simulator's process, asked to end (its pipe closed): given 5 s, then killed; its
    output pipes closed."""
    try:
        process.wait(timeout=5.0)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()


class StationsProcessError(RuntimeError):
    """The stations' process did not start, or has ended."""


class RemoteStation:
    """A :class:`~hardware.sim.station.SimulatedStation` in the stations' process: a person's
    ``press``, ``tap`` and ``take_away``, each returning the sequence number of the last
    frame it sends. Raises :class:`StationsProcessError` (a RuntimeError, as an unplugged
    simulated station) when the process has ended."""

    def __init__(self, process: "StationsProcess", index: int, station_id: str, port: str, buttons: int) -> None:
        self._process = process
        self._index = index
        self.station_id = station_id
        self.port = port
        self.buttons = buttons
        self.last_seq = -1
        self._seq = 0

    def __repr__(self) -> str:
        return f"<RemoteStation {self.station_id} {self.port}>"

    def press(self, button: int, release: bool = True, at_ns: int | None = None) -> int:
        if not 0 <= button < self.buttons:
            raise ValueError(f"station has buttons 0..{self.buttons - 1}")
        at = now_ns() if at_ns is None else at_ns
        return self._process.send(self, 2 if release else 1, ["press", self._index, button, release, at])

    def tap(self, uid: str, text: str | None = None) -> int:
        return self._process.send(self, 1, ["tap", self._index, uid, text])

    def take_away(self, uid: str) -> int:
        return self._process.send(self, 1, ["gone", self._index, uid])

    def _count(self, frames: int) -> int:
        """The next ``frames`` sequence numbers taken; the last of them."""
        self.last_seq = (self._seq + frames - 1) % SEQ_MODULO
        self._seq = (self._seq + frames) % SEQ_MODULO
        return self.last_seq


class StationsProcess:
    """Starts the stations' process: ``stations`` are the keyword arguments of each
    :class:`~hardware.sim.station.SimulatedStation` (JSON's kinds: ``station_id``, ``seed``,
    ``link_delay_ms``, ``buttons``). ``switch_interval_s``: the process's thread switch
    interval (a real-time table's; its stations' threads then answer as soon as their
    bytes come)."""

    def __init__(self, stations: list[dict[str, Any]], *, switch_interval_s: float | None = None) -> None:
        spec = {"stations": stations, "switch_interval_s": switch_interval_s}
        env = dict(os.environ)
        # the package's own folder first: the process finds this ``hardware`` whatever the
        # table's working directory (a source tree, or site-packages on the Pi)
        root = os.path.dirname(os.path.dirname(os.path.abspath(hardware.__file__)))
        env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
        self._process = subprocess.Popen([sys.executable, "-m", "hardware.sim.process", json.dumps(spec)],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self._lock = threading.Lock()
        self.stations: list[RemoteStation] = []
        try:
            ports = self._ports(len(stations))
        except BaseException:
            self.close()
            raise
        self.stations = [RemoteStation(self, i, kwargs["station_id"], port, int(kwargs.get("buttons", 6)))
                         for i, (kwargs, port) in enumerate(zip(stations, ports))]

    def _ports(self, count: int) -> list[str]:
        assert self._process.stdout is not None
        ready, _, _ = select.select([self._process.stdout], [], [], START_TIMEOUT_S)
        line = self._process.stdout.readline() if ready else b""
        try:
            ports = json.loads(line)
        except ValueError:
            ports = None
        if not isinstance(ports, list) or len(ports) != count:
            raise StationsProcessError(f"the simulated stations did not start (exit code {self._process.poll()})")
        return [str(p) for p in ports]

    def send(self, station: RemoteStation, frames: int, command: list[Any]) -> int:
        """One command to the process; the sequence number of the last frame it makes
        the station send (counted here, in the order the commands leave)."""
        line = (json.dumps(command) + "\n").encode()
        with self._lock:
            stdin = self._process.stdin
            if stdin is None or self._process.poll() is not None:
                raise StationsProcessError(f"station {station.station_id} is not plugged in "
                                           "(the simulated stations' process has ended)")
            try:
                stdin.write(line)
                stdin.flush()
            except (OSError, ValueError) as exc:
                raise StationsProcessError(f"station {station.station_id} is not plugged in ({exc})") from None
            return station._count(frames)

    def close(self) -> None:
        """Unplug every station: the process ends once its pipe closes."""
        with self._lock:
            stdin = self._process.stdin
            if stdin is not None and not stdin.closed:
                try:
                    stdin.close()
                except OSError:
                    pass
        end_process(self._process)

    def __enter__(self) -> "StationsProcess":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def serve(spec: dict[str, Any], commands: Any, out: Any) -> None:
    """The stations' side: start them, say where they are, do what each line says until
    the pipe closes. A line it cannot do is one line on stderr, not the end of the
    stations (they are someone's seats)."""
    from hardware.sim.station import SimulatedStation
    if spec.get("switch_interval_s"):
        sys.setswitchinterval(float(spec["switch_interval_s"]))
    sims = []
    try:
        for kwargs in spec["stations"]:
            delay = kwargs.get("link_delay_ms")
            sims.append(SimulatedStation(**{**kwargs, "link_delay_ms": tuple(delay) if delay else None}).start())
        out.write(json.dumps([sim.port for sim in sims]) + "\n")
        out.flush()
        for line in commands:
            try:
                _do(sims, json.loads(line))
            except (ValueError, TypeError, IndexError, KeyError, RuntimeError) as exc:
                print(f"simulated stations: cannot do {line.strip()[:80]!r}: {exc}", file=sys.stderr, flush=True)
    finally:
        for sim in sims:
            sim.close()


def _do(sims: list[Any], command: list[Any]) -> None:
    kind, index, *args = command
    sim = sims[index]
    if kind == "press":
        button, release, at_ns = args
        sim.press(button, release=release, at_ns=at_ns)
    elif kind == "tap":
        sim.tap(*args)
    elif kind == "gone":
        sim.take_away(*args)
    else:
        raise ValueError(f"no command {kind!r}")


if __name__ == "__main__":
    # the table's process handles Ctrl-C and closes the pipe; a Ctrl-C here would only
    # print a traceback beside its message
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        serve(json.loads(sys.argv[1]), sys.stdin, sys.stdout)
    except Exception as exc:              # noqa: BLE001 - one line for the owner, not a traceback
        print(f"simulated stations: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        sys.exit(1)
