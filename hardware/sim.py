"""Simulated stations: they speak the real wire protocol over a pseudo-terminal, so the
table opens them through the same :class:`~hardware.link.StationLink` as a USB station.

>>> station = SimulatedStation("sim-1").start()
>>> station.port                     # doctest: +SKIP
'/dev/pts/5'
>>> seq = station.press(4)           # button 4 (bottom middle) down and up
>>> station.tap("04A1B2C3D4E5F6", "partout:red5")
2
>>> station.close()

Like gpiozero's mock pins, it simulates the device, not the API: tests drive it like a
person would (``press``, ``tap``) and read what the table sent it (``commands``, ``led``).
"""

from __future__ import annotations

import os
import select
import threading
import time
import tty
from typing import Callable

from hardware.protocol import (
    PROTOCOL_VERSION, SEQ_MODULO, STATION_TICKS_MODULO, FrameDecoder, encode_frame, encode_text,
)

FIRMWARE = "sim-1.0"


class StationClock:
    """A station's ``ticks_us`` as a function of host time: its own offset and a crystal
    that runs ``drift_ppm`` fast or slow, wrapping at 2^30 like MicroPython's.

    >>> clock = StationClock(offset_us=5, drift_ppm=100)
    >>> clock.ticks(1_000_000_000)          # one host second later: 100 µs more
    1000105
    """

    def __init__(self, offset_us: int = 0, drift_ppm: float = 0.0) -> None:
        self.offset_us = offset_us
        self.drift_ppm = drift_ppm

    def ticks(self, host_ns: int) -> int:
        return (int(host_ns * (1 + self.drift_ppm * 1e-6) // 1000) + self.offset_us) % STATION_TICKS_MODULO


class SimulatedStation:
    def __init__(self, station_id: str, *, buttons: int = 6, reader: str = "sim",
                 clock: Callable[[], int] = time.monotonic_ns, station_clock: StationClock | None = None) -> None:
        self.station_id = station_id
        self.buttons = buttons
        self.reader = reader
        self.clock = clock                                       # the host's clock (or a simulated one)
        self.station_clock = station_clock or StationClock()     # the Pico's crystal
        self.commands: list[tuple[str, tuple[str, ...]]] = []   # what the host sent, in order
        self.led = "000000"                                      # steady colour now
        self.last_seq = -1
        self._master: int | None = None
        self._slave: int | None = None
        self.port = ""
        self._seq = 0
        self._write_lock = threading.Lock()
        self._changed = threading.Condition()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __repr__(self) -> str:
        return f"<SimulatedStation {self.station_id} {self.port or 'closed'} led={self.led}>"

    def start(self) -> "SimulatedStation":
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)           # no echo, no line editing: bytes as a USB CDC port
        self.port = os.ttyname(self._slave)
        self._stop.clear()
        self._thread = threading.Thread(target=self._serve, name=f"sim {self.station_id}", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1.0)
            self._thread = None
        for fd in (self._master, self._slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._master = self._slave = None

    unplug = close

    def __enter__(self) -> "SimulatedStation":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- what a person does -------------------------------------------------------------------
    def press(self, button: int, release: bool = True) -> int:
        """Press (and release) a button; returns the sequence number of the last frame sent."""
        if not 0 <= button < self.buttons:
            raise ValueError(f"station has buttons 0..{self.buttons - 1}")
        seq = self._event("BTN", button, "D", self._ticks())
        if release:
            seq = self._event("BTN", button, "U", self._ticks())
        return seq

    def tap(self, uid: str, text: str | None = None) -> int:
        """Hold a tag on the reader: its UID and, if it carries one, its NDEF text."""
        return self._event("TAG", uid.upper(), self._ticks(), encode_text(text))

    def send_raw(self, data: bytes) -> None:
        """Write arbitrary bytes, as a broken station or line noise would."""
        self._write(data)

    # -- what the host told us ----------------------------------------------------------------
    def wait_for(self, predicate: Callable[["SimulatedStation"], bool], timeout: float = 2.0) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: predicate(self), timeout)

    def sent(self, kind: str) -> list[tuple[str, ...]]:
        return [fields for k, fields in self.commands if k == kind]

    # -- inside -------------------------------------------------------------------------------
    def _ticks(self) -> int:
        return self.station_clock.ticks(self.clock())

    def _event(self, kind: str, *fields: object) -> int:
        with self._write_lock:
            seq = self._seq
            self._seq = (self._seq + 1) % SEQ_MODULO
            self._write_locked(encode_frame(kind, seq, *fields))
            self.last_seq = seq
        return seq

    def _write(self, data: bytes) -> None:
        with self._write_lock:
            self._write_locked(data)

    def _write_locked(self, data: bytes) -> None:
        if self._master is None:
            raise RuntimeError(f"station {self.station_id} is not plugged in")
        view = memoryview(data)
        while view:
            written = os.write(self._master, view)
            view = view[written:]

    def _serve(self) -> None:
        decoder = FrameDecoder()
        master = self._master
        while not self._stop.is_set() and master is not None:
            ready, _, _ = select.select([master], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(master, 4096)
            except OSError:
                return
            for kind, fields in decoder.feed(data):
                self._on_command(kind, fields)

    def _on_command(self, kind: str, fields: tuple[str, ...]) -> None:
        if kind == "WHO":
            caps = f"buttons={self.buttons},reader={self.reader},led=rgb"
            self._write(encode_frame("HELLO", PROTOCOL_VERSION, self.station_id, FIRMWARE, caps))
        elif kind == "PING":
            self._write(encode_frame("PONG", fields[0], self._ticks()))
            return                        # clock sync, 25 a second: not kept in ``commands``
        with self._changed:
            self.commands.append((kind, fields))
            if kind == "LED" and fields and fields[1:2] == ("0",):
                self.led = fields[0]
            self._changed.notify_all()
