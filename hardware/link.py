"""One station on one serial port: a reader thread decodes frames into events on the
table's queue; the table sends LED and buzzer commands back.

>>> import queue
>>> events = queue.Queue()
>>> link = StationLink("/dev/ttyACM0", events)     # doctest: +SKIP
>>> link.open()                                    # doctest: +SKIP  (waits for HELLO)
>>> link.led("00ff00")                             # doctest: +SKIP

The port is any pyserial URL: a device path, ``/dev/serial/by-id/...``, or the
pseudo-terminal of a simulated station, so simulation and real stations share this code.
Nothing here touches game state: the reader thread only puts events on the queue.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Callable

import serial

from hardware.clocksync import ClockSync
from hardware.events import ButtonEvent, StationHello, StationLost, TagEvent
from hardware.protocol import (
    PROTOCOL_VERSION, SEQ_MODULO, Frame, FrameDecoder, FrameError, decode_text, encode_frame,
)

log = logging.getLogger(__name__)


class StationError(RuntimeError):
    """A station that cannot be opened or does not answer."""


class StationLink:
    PING_INTERVAL_NS = 40_000_000      # 25 exchanges a second: sync error p99 ≈ 0.43 ms (spieltisch bench)

    def __init__(self, port: str, events: "queue.Queue", *, baudrate: int = 115200,
                 clock: Callable[[], int] = time.monotonic_ns, auto_ping: bool = True) -> None:
        self.port = port
        self.events = events
        self.baudrate = baudrate
        self.clock = clock
        self.station_id: str | None = None
        self.firmware: str | None = None
        self.capabilities: dict[str, str] = {}
        self.decoder = FrameDecoder()
        self.gaps = 0                 # events lost on the wire, seen from sequence numbers
        self.last_seen_ns: int | None = None
        self.sync = ClockSync()           # this station's clock → the host's
        self.auto_ping = auto_ping        # the reader thread pings; a simulated-time runner pings itself
        self._pings: dict[int, int] = {}  # PING number → host time sent
        self._ping_number = 0
        self._last_ping_ns = 0
        self._serial: serial.SerialBase | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._hello = threading.Event()
        self._write_lock = threading.Lock()
        self._last_seq: int | None = None
        self._lost_reported = False

    def __repr__(self) -> str:
        state = "open" if self.is_open else "closed"
        return f"<StationLink {self.port} {self.station_id or '?'} {state}>"

    @property
    def is_open(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # -- lifecycle ----------------------------------------------------------------------------
    def open(self, hello_timeout: float = 3.0) -> "StationLink":
        try:
            self._serial = serial.serial_for_url(self.port, baudrate=self.baudrate, timeout=0.02,
                                                 write_timeout=0.2, exclusive=True)
        except (serial.SerialException, OSError, ValueError) as exc:
            raise StationError(f"cannot open station port {self.port}: {exc}") from exc
        self._thread = threading.Thread(target=self._read_loop, name=f"station {self.port}", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + hello_timeout
        while not self._hello.is_set() and time.monotonic() < deadline:
            self.send("WHO")
            self._hello.wait(0.25)
        if not self._hello.is_set():
            self.close()
            raise StationError(f"no HELLO from {self.port} within {hello_timeout:.1f} s")
        if self.auto_ping:
            for _ in range(5):                # a first sync before the first press
                self.ping()
                time.sleep(0.005)
        return self

    def close(self) -> None:
        """Idempotent; joins the reader thread with a bound."""
        self._stop.set()
        ser = self._serial
        if ser is not None:
            try:
                ser.cancel_read()
            except (AttributeError, OSError, serial.SerialException):
                pass
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=1.0)
        if ser is not None:
            try:
                ser.close()
            except (OSError, serial.SerialException):
                pass
        self._serial = None

    def __enter__(self) -> "StationLink":
        return self.open() if not self.is_open else self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- commands out ---------------------------------------------------------------------------
    def send(self, kind: str, *fields: object) -> bool:
        """Send one command; False (and the station is reported lost) when the write fails."""
        ser = self._serial
        if ser is None:
            return False
        data = encode_frame(kind, *fields)
        try:
            with self._write_lock:
                ser.write(data)
            return True
        except (serial.SerialException, serial.SerialTimeoutException, OSError) as exc:
            self._report_lost(f"write failed: {exc}")
            return False

    def led(self, rgb: str, flash_ms: int = 0) -> bool:
        return self.send("LED", rgb, int(flash_ms))

    def buzz(self, hz: int, ms: int) -> bool:
        return self.send("BUZZ", int(hz), int(ms))

    def ping(self) -> bool:
        """One clock-sync exchange: PING n now, the PONG's stamp comes back to ``sync``."""
        number = self._ping_number = (self._ping_number + 1) % SEQ_MODULO
        now = self.clock()
        self._last_ping_ns = now
        if len(self._pings) > 64:         # answers that never came: forget them
            self._pings.clear()
        self._pings[number] = now
        return self.send("PING", number)

    @property
    def pending_pongs(self) -> int:
        return len(self._pings)

    # -- the reader thread ----------------------------------------------------------------------
    def _read_loop(self) -> None:
        ser = self._serial
        assert ser is not None
        try:
            while not self._stop.is_set():
                data = ser.read(ser.in_waiting or 1)
                if self.auto_ping and self._hello.is_set() and \
                        self.clock() - self._last_ping_ns >= self.PING_INTERVAL_NS:
                    self.ping()
                if not data:
                    continue
                now = self.clock()        # arrival first, before any decoding
                self.last_seen_ns = now
                for frame in self.decoder.feed(data):
                    self._handle(frame, now)
        except (serial.SerialException, OSError, TypeError) as exc:
            # TypeError: pyserial's posix read raises it when the fd is closed under it
            if not self._stop.is_set():
                self._report_lost(f"read failed: {exc}")
        except Exception as exc:       # a bug must not kill the station silently
            log.exception("station %s reader crashed", self.port)
            self._report_lost(f"reader crashed: {exc!r}")

    def _handle(self, frame: Frame, now: int) -> None:
        try:
            event = self._to_event(frame, now)
        except (FrameError, ValueError, IndexError):
            self.decoder.bad_frames += 1
            return
        if event is not None:
            self.events.put(event)

    def _to_event(self, frame: Frame, now: int):
        kind, f = frame
        if kind == "HELLO":
            protocol = int(f[0])
            if protocol != PROTOCOL_VERSION:
                raise ValueError(f"protocol {protocol}")
            caps = dict(item.partition("=")[::2] for item in f[3].split(",") if item) if len(f) > 3 else {}
            self.station_id, self.firmware, self.capabilities = f[1], f[2], caps
            first = not self._hello.is_set()
            self._hello.set()
            return StationHello(f[1], self.port, protocol, f[2], caps, now) if first else None
        if self.station_id is None:
            return None                # nothing counts before the station said who it is
        if kind == "BTN":
            seq = self._check_seq(int(f[0]))
            button = int(f[1])
            if not 0 <= button < 6 or f[2] not in ("D", "U"):
                raise ValueError("button")
            ticks = int(f[3])
            pressed = self.sync.to_host_ns(ticks)
            return ButtonEvent(self.station_id, seq, button, f[2] == "D", ticks, now,
                               now if pressed is None else pressed)
        if kind == "TAG":
            seq = self._check_seq(int(f[0]))
            uid = f[1].upper()
            int(uid, 16)
            return TagEvent(self.station_id, seq, uid, decode_text(f[3]) if len(f) > 3 else None, int(f[2]), now)
        if kind == "PONG":
            sent = self._pings.pop(int(f[0]), None)
            if sent is not None:
                self.sync.add(sent, int(f[1]), now)
            return None
        return None                    # unknown kinds: a newer firmware's, ignored

    def _check_seq(self, seq: int) -> int:
        if self._last_seq is not None:
            missing = (seq - self._last_seq - 1) % SEQ_MODULO
            if missing:
                self.gaps += missing
                log.warning("station %s: %d frame(s) lost before seq %d", self.station_id, missing, seq)
        self._last_seq = seq
        return seq

    def _report_lost(self, reason: str) -> None:
        if self._lost_reported:
            return
        self._lost_reported = True
        self._stop.set()
        self.events.put(StationLost(self.station_id or self.port, self.port, reason, self.clock()))
