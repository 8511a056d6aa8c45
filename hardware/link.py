"""One station on one serial port: a reader thread decodes frames into events on the
table's queue; the table sends LED and buzzer commands back.

>>> import queue
>>> events = queue.Queue()
>>> link = StationLink("/dev/ttyACM0", events)     # doctest: +SKIP
>>> link.open()                                    # doctest: +SKIP  (waits for HELLO)
>>> link.led("00ff00")                             # doctest: +SKIP

The port is any pyserial URL: a device path, ``/dev/serial/by-id/...``, or the
pseudo-terminal of a simulated station, so simulation and real stations share this code.
Nothing here touches game state: the reader thread only puts events on the queue. It
stamps each frame's arrival the moment its wait returns, and its wait also ends when the
next clock-sync ping is due, so the link needs no other thread. A real-time game asks the
station what it has sent (``fence``: FENCE n); its answer, UPTO or LOST, comes back as a
:class:`~hardware.events.StationProgress` (docs/stations.md, "Progress").

The reader thread is also the station's supervisor. When the port fails (unplugged) or
the station stops answering pings, it puts a :class:`StationLost` on the queue, then
reopens the same path with backoff; when the station says HELLO again, a new
:class:`StationHello` tells the table it is back. Open stations by their
``/dev/serial/by-id/`` path (:func:`stable_path`): a replugged Pico may come back as
another ``ttyACM`` number, never under another by-id name.

A station that floods (a stuck loop sending frames) is held to a byte budget and an
event budget: beyond them its reader sleeps and its events are dropped and counted, so
it cannot take the CPU or the queue from the others. Events dropped cost nothing, so the
station keeps its documented rate during a flood and plays normally again as soon as it
ends; a :class:`StationFlooding` tells the table (once a second) so that seat is told.
"""

from __future__ import annotations

import logging
import os
import select
import threading
import time
from typing import Callable

import serial

from hardware.clocksync import ClockSync
from hardware.events import (
    ButtonEvent, EventQueue, StationFlooding, StationHello, StationLost, StationProbed, StationProgress, TagEvent,
    TagGone, TagWritten,
)
from hardware.hostclock import now_ns
from hardware.protocol import (
    FENCE_CAPABILITY, FENCE_MODULO, PROTOCOL_VERSION, SEQ_MODULO, Frame, FrameDecoder, FrameError, decode_text,
    encode_frame, encode_text, ticks_diff,
)
from hardware.supervised import SupervisedPort

log = logging.getLogger(__name__)


class StationError(RuntimeError):
    """A station that cannot be opened or does not answer."""


class TokenBucket:
    """``rate`` per second, at most ``burst`` at once. The debt is bounded by one burst, so
    the end of a flood is forgiven within ``burst / rate`` seconds, however long it lasted."""

    def __init__(self, rate: float, burst: float, now_ns: int) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.at = now_ns

    def _refill(self, now_ns: int) -> None:
        self.tokens = min(self.burst, self.tokens + max(0, now_ns - self.at) * 1e-9 * self.rate)
        self.at = max(self.at, now_ns)

    def take(self, amount: float, now_ns: int) -> float:
        """Spend ``amount`` even when short (bytes already read); returns the deficit."""
        self._refill(now_ns)
        self.tokens = max(-self.burst, self.tokens - amount)
        return max(0.0, -self.tokens)

    def try_take(self, amount: float, now_ns: int) -> bool:
        """Spend ``amount`` if it is there; what is refused costs nothing."""
        self._refill(now_ns)
        if self.tokens < amount:
            return False
        self.tokens -= amount
        return True


def _posix_fd(ser: serial.Serial) -> int | None:
    """The file descriptor of a port pyserial opened on a POSIX device (non-blocking, as
    pyserial opens it), or None for its other kinds (``loop://``, sockets)."""
    fd = getattr(ser, "fd", None)
    return fd if isinstance(fd, int) and os.name == "posix" else None


def _write_at_once(ser: serial.Serial, data: bytes) -> int:
    """Write what the port takes now, without pyserial's wait for it to drain (a select
    per command, one more wait for the interpreter lock); how much was written."""
    fd = _posix_fd(ser)
    if fd is None:
        return 0
    try:
        return os.write(fd, data)
    except BlockingIOError:
        return 0


def stable_path(port: str, by_id_dir: str = "/dev/serial/by-id") -> str:
    """The ``/dev/serial/by-id/`` name of a device path, if it has one: it survives replugs."""
    real = os.path.realpath(port)
    try:
        for name in sorted(os.listdir(by_id_dir)):
            candidate = os.path.join(by_id_dir, name)
            if os.path.realpath(candidate) == real:
                return candidate
    except OSError:
        pass
    return port


def link_kind(port: str) -> str:
    """What carries a station's frames, as far as the host can tell: its USB device's vendor
    and product ids ("usb 2e8a:0005": a Pico's own USB; "usb 0403:6001": an FTDI bridge), or
    "serial" for a port without them (a pseudo-terminal: the simulators; a UART). Two
    stations of one kind share their links' quickest delay each way, which no clock sync can
    see (an offset cannot be told from a way always longer than the other): the table orders
    their presses on their likely bounds, and a table that mixes kinds on the bounds that
    hold whatever the delays (controller/table/realtime.py, ``RealtimeRunner._errors_now``)."""
    real = os.path.realpath(port)
    try:
        from serial.tools import list_ports
        for info in list_ports.comports():
            if info.vid is not None and os.path.realpath(info.device) == real:
                return f"usb {info.vid:04x}:{info.pid:04x}"
    except (OSError, ValueError):        # no sysfs to read (not Linux, a container)
        pass
    return "serial"


# A station whose clock sync's bound is above this leaves another such station's presses
# 0.5 ms apart, the closest gap the table promises (issue 39), little room: two presses are
# ordered only beyond their stations' bounds together (in quadrature, controller/table/
# arbiter.py), 0.35 ms for two such, and the two errors themselves must fit in what is left.
# Above it a racing link asks for exchanges more often while that still lowers the bound
# (``QuickPings``; a station that answers few, from SPARSE_ASK_ERROR_NS), and the screen and ``spieltisch stations`` name the station
# (docs/crazy-kick.md, "A station whose clock stays unsure"). Under it, nothing to name: a
# Pico's USB (0.1-1.8 ms each way) keeps the bound at 0.03 ms in the model with every
# exchange answered and 0.18 ms (median) with one a second.
UNSURE_ERROR_NS = 250_000


# A station that answers few exchanges is asked quickly from this bound up (``QuickPings``):
# the tie window's floor (controller/table/arbiter.py, TIE_NS), where its bound starts to
# widen its ties.
SPARSE_ASK_ERROR_NS = 200_000


class QuickPings:
    """Whether a racing link should ask its station for exchanges more often now: while its
    sync's bound is above a line and more exchanges still lower it.

    * A station that answers few (its newest exchange over SPARSE_NS old) is asked quickly
      while its bound is above SPARSE_ASK_ERROR_NS, with no trial and no rest: each exchange
      it gives is kept (a window whose newest slots are not all filled keeps more,
      hardware/clocksync.py) and lowers the bound for long after. (Until 2026-11-28 a trial
      judged it too, from UNSURE_ERROR_NS: a second of quick asking seldom lowered the
      bound by a tenth, the link rested ten seconds at its own rate 37-41 times a race on
      the real path, and with one PING in fifty answered the bound at a press reached
      0.30-0.40 ms: two such stations' presses 0.5 ms apart tied.) A station that does not
      answer more when asked more is asked in vain, while racing only.
    * A station that answers every exchange gains nothing lasting from more (its window
      is full): asked quickly while its bound is above UNSURE_ERROR_NS, judged every
      TRIAL_NS, and when the bound did not come down by a tenth in that time, the link's
      own floor is reached (asking more cannot lower a bound its quickest round trips set)
      and the link asks at its own rate for REST_NS before it tries again.

    Times on the link's clock (injected, so a simulated clock and a test drive it alike)."""

    TRIAL_NS = 1_000_000_000
    SPARSE_NS = 250_000_000            # a newest exchange older than this: the station answers few
    GAIN = 0.9                         # a trial helped when the bound fell to this share of its start
    REST_NS = 10_000_000_000

    def __init__(self) -> None:
        self._trial: tuple[int, int] | None = None     # (since, the bound then) while asking quickly
        self._rest_until: int | None = None            # not before this, after a trial that did not help

    def wanted_for(self, sync: ClockSync, now_ns: int) -> bool:
        """``wanted`` for a sync: its bound now, and whether its newest exchange is over
        SPARSE_NS old (the station answers few)."""
        newest = sync.newest_exchange_ns
        return self.wanted(sync.error_ns(now_ns), now_ns, newest is not None and now_ns - newest > self.SPARSE_NS)

    def wanted(self, error_ns: int, now_ns: int, sparse: bool = False) -> bool:
        if sparse:
            self._trial = None                  # its exchanges are kept: asking helps
            return error_ns > SPARSE_ASK_ERROR_NS
        if error_ns <= UNSURE_ERROR_NS:
            self._trial = None
            return False
        if self._rest_until is not None and now_ns < self._rest_until:
            return False
        if self._trial is None:
            self._trial = (now_ns, error_ns)
            return True
        since, at_start = self._trial
        if now_ns - since < self.TRIAL_NS:
            return True
        if error_ns <= at_start * self.GAIN:
            self._trial = (now_ns, error_ns)           # it helped: another trial
            return True
        self._trial = None
        self._rest_until = now_ns + self.REST_NS
        return False


class StationLink(SupervisedPort):
    PING_INTERVAL_NS = 20_000_000      # 50 exchanges a second while racing, from a timer: spieltisch bench, fairness
    # Not racing (the menu, a turn-based game), two a second: the sync holds with one a second
    # (hardware/clocksync.py), and eight stations pinged 50 times a second kept a waiting box
    # at a tenth of a core. Racing, a station whose sync's bound is unsure (``QuickPings``: it
    # answers few exchanges, a slow hub) is asked four times as often as the link's own
    # interval, at most every QUICK_PING_INTERVAL_NS, while that still lowers the bound.
    IDLE_PING_INTERVAL_NS = 500_000_000
    QUICK_PING_INTERVAL_NS = 5_000_000
    SILENCE_NS = 2_000_000_000         # no byte for this long despite pings: the station hangs
    WHO_INTERVAL_NS = 250_000_000
    EVENT_RATE, EVENT_BURST = 100, 60   # events a second: far above two hands on six buttons
    BYTE_RATE, BYTE_BURST = 64_000, 16_384   # bytes a second; a station sends ≈ 1 kB/s
    FLOOD_NOTICE_NS = 1_000_000_000     # while a station floods, the table hears of it once a second
    READ_TIMEOUT_S = 0.02               # the reader looks at the silence and the handshake this often

    def __init__(self, port: str, events: EventQueue, *, baudrate: int = 115200,
                 clock: Callable[[], int] = now_ns, auto_ping: bool = True,
                 reconnect: bool = True, flood_limit: bool = True) -> None:
        super().__init__(port, reconnect=reconnect)
        self.events = events
        self.baudrate = baudrate
        self.clock = clock
        self.flood_limit = flood_limit    # off only for our own bots, which press at machine speed
        self.station_id: str | None = None
        self.firmware: str | None = None
        self.capabilities: dict[str, str] = {}
        self.kind = "serial"          # what carries its frames (``link_kind``), known once it is open
        self.decoder = FrameDecoder()
        self.gaps = 0                 # events lost on the wire, seen from sequence numbers
        self.bad_texts = 0            # tag texts that could not be decoded (the UID went on alone)
        self.stats: dict[str, str] = {}     # the station's last STAT (loop time, reader, drops, memory)
        self.errors: list[tuple[str, str]] = []   # its ERR frames (a refused command, a crash), newest last
        self.flood_dropped = 0        # events dropped because the station flooded
        self.last_seen_ns: int | None = None
        self.sync = ClockSync()           # this station's clock → the host's
        self.auto_ping = auto_ping        # the reader pings on time; a simulated-time runner pings itself
        self._racing = False              # a real-time game runs: exchanges 50 a second, not two
        self._quick = QuickPings()        # racing: whether asking more often still lowers the bound
        self._wake_r, self._wake_w = os.pipe()    # close() and racing wake the reader's wait at once
        self._ping_due_ns = 0             # on the real clock: the next sync exchange
        self._pings: dict[int, int] = {}  # PING number → host time sent
        self._ping_number = 0
        self.pings_sent = 0               # sync exchanges asked for (``sync.exchanges``: answered)
        self._fences: dict[int, int] = {}  # FENCE number → host time sent, until answered
        self._fence_number = 0
        self._last_upto: int | None = None   # the station's stamp in its last progress answer (its ticks)
        self._looked_ns: int | None = None   # the reader's look before the bytes being handled
        self.unasked_progress = 0         # progress answers to no FENCE of ours: ignored
        self._last_who_ns: int | None = None   # on the real clock: the handshake is not sync
        self._hello = threading.Event()
        self._write_lock = threading.Lock()
        self._last_seq: int | None = None
        self._lost = False
        self._flood_told_ns: int | None = None
        # budgets on the link's clock: a simulated table's bots press at human rates in its time
        self._events_bucket = TokenBucket(self.EVENT_RATE, self.EVENT_BURST, clock())
        self._bytes_bucket = TokenBucket(self.BYTE_RATE, self.BYTE_BURST, clock())

    def __repr__(self) -> str:
        state = "open" if self.connected else ("reconnecting" if self.is_open else "closed")
        return f"<StationLink {self.port} {self.station_id or '?'} {state}>"

    @property
    def connected(self) -> bool:
        return self.is_open and not self._lost and self._hello.is_set()

    # -- lifecycle ----------------------------------------------------------------------------
    def open(self, hello_timeout: float = 3.0) -> "StationLink":
        if self._wake_r < 0:                  # opened again after a close
            self._wake_r, self._wake_w = os.pipe()
        try:
            self._serial = self._open_port()
        except (serial.SerialException, OSError, ValueError) as exc:
            raise StationError(f"cannot open station port {self.port}: {exc}") from exc
        self.kind = link_kind(self.port)
        self._start(f"station {self.port}")
        if not self._hello.wait(hello_timeout):
            self.close()
            raise StationError(f"no HELLO from {self.port} within {hello_timeout:.1f} s")
        if self.auto_ping:
            for _ in range(5):                # a first sync before the first press
                self.ping()
                time.sleep(0.005)
        return self

    def _open_port(self) -> serial.Serial:
        return serial.serial_for_url(self.port, baudrate=self.baudrate, timeout=self.READ_TIMEOUT_S,
                                     write_timeout=0.2, exclusive=True)

    @property
    def racing(self) -> bool:
        return self._racing

    @racing.setter
    def racing(self, racing: bool) -> None:
        self._racing = racing
        self._wake()                      # the reader may sleep until an idle ping: racing, at once

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass

    @property
    def quick_ping_interval_ns(self) -> int:
        """Four times as often as the link's own racing interval, never more often than
        QUICK_PING_INTERVAL_NS (an emulated station pinged once a second: every 0.25 s)."""
        return max(self.QUICK_PING_INTERVAL_NS, self.PING_INTERVAL_NS // 4)

    def ping_interval_ns(self, real_ns: int) -> int:
        """How often to exchange now: seldom when not racing; racing, more often while the
        sync's bound is above its line and that still lowers it (``QuickPings``)."""
        if not self.racing:
            return self.IDLE_PING_INTERVAL_NS
        self.sync.refresh()                # (the reader's thread: the one that adds the exchanges)
        if self._quick.wanted_for(self.sync, real_ns):
            return self.quick_ping_interval_ns
        return self.PING_INTERVAL_NS

    def _ping_if_due(self, real_ns: int) -> None:
        """Sync exchanges every ``ping_interval_ns`` by the host's clock, whether or not bytes
        come in: the reader's wait ends when the next one is due (see ``_read``)."""
        interval = self.ping_interval_ns(real_ns)
        self._ping_due_ns = min(self._ping_due_ns, real_ns + interval)   # racing from now: not after the idle wait
        if real_ns < self._ping_due_ns:
            return
        self._ping_due_ns += interval
        if self._ping_due_ns < real_ns:            # the machine stalled: no burst to catch up
            self._ping_due_ns = real_ns + interval
        if self.auto_ping and self.connected:
            self.ping()

    def close(self) -> None:
        self._wake()
        super().close()
        for end in (self._wake_r, self._wake_w):
            try:
                os.close(end)
            except OSError:
                pass
        self._wake_r = self._wake_w = -1

    def __enter__(self) -> "StationLink":
        return self.open() if not self.is_open else self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- commands out ---------------------------------------------------------------------------
    def send(self, kind: str, *fields: object) -> bool:
        """Send one command; False when the station is not there (the loss is reported)."""
        return self._write(encode_frame(kind, *fields))

    def _write(self, data: bytes, ping: int | None = None) -> bool:
        """Write one frame; a PING's number is stamped with the time it leaves, taken
        right before the write: a thread switch between the two would count toward the
        way out only, and the clock sync takes the middle of the round trip."""
        ser = self._serial
        if ser is None or self._lost:
            return False
        try:
            with self._write_lock:
                if ping is not None:
                    self._pings[ping] = self.clock()
                written = _write_at_once(ser, data)
                if written < len(data):
                    ser.write(data[written:])     # the port is full: wait for it as pyserial does
            return True
        except (serial.SerialException, serial.SerialTimeoutException, OSError, TypeError) as exc:
            # TypeError: pyserial's posix write raises it when the reader closed the port under it
            self._report_lost(f"write failed: {exc}")
            return False

    def led(self, rgb: str, flash_ms: int = 0) -> bool:
        return self.send("LED", rgb, int(flash_ms))

    def buzz(self, hz: int, ms: int) -> bool:
        return self.send("BUZZ", int(hz), int(ms))

    def write_tag(self, uid: str, text: str, password: bytes, opening: bytes | None = None) -> bool:
        """Ask the station to write ``text`` as the NDEF record of the card ``uid`` on its
        reader, write-protect it with ``password`` (PWD and PACK, 6 bytes; ``opening`` opens
        it if it is protected already) and read both back; the answer comes as a
        TagWritten event."""
        return self.send("WRITE", uid.upper(), encode_text(text), password.hex(), (opening or password).hex())

    def probe(self, phase: str) -> bool:
        """Ask the station's bring-up probe to measure its reader (firmware 1.6): "chip"
        with no card on it, "card" with one; its figures come as StationProbed events."""
        return self.send("PROBE", phase)

    def ping(self) -> bool:
        """One clock-sync exchange: PING n now, the PONG's stamp comes back to ``sync``."""
        number = self._ping_number = (self._ping_number + 1) % SEQ_MODULO
        self.pings_sent += 1
        if len(self._pings) > 64:         # answers that never came: forget them
            self._pings.clear()
        return self._write(encode_frame("PING", number), ping=number)

    @property
    def pending_pongs(self) -> int:
        return len(self._pings)

    @property
    def fences(self) -> bool:
        """The station answers FENCE (its HELLO says ``fence=1``): its progress can decide a race."""
        return self.capabilities.get(FENCE_CAPABILITY) == "1"

    def fence(self) -> bool:
        """Ask the station what it has sent: FENCE n now; its answer comes as a
        :class:`StationProgress` carrying when this left. False when not sent."""
        number = self._fence_number = (self._fence_number + 1) % FENCE_MODULO
        if len(self._fences) > 64:        # answers that never came: forget them
            self._fences.clear()
        sent = self.clock()
        self._fences[number] = sent
        if not self._write(encode_frame("FENCE", number)):
            del self._fences[number]
            return False
        return True

    @property
    def pending_fences(self) -> int:
        return len(self._fences)

    # -- the reader thread: read while connected, reopen when lost --------------------------------
    def _reopen(self) -> bool:
        try:
            ser = self._open_port()
        except (serial.SerialException, OSError, ValueError):
            return False
        self._fresh_connection()
        self._serial = ser
        log.info("station %s: port %s open again, waiting for HELLO", self.station_id, self.port)
        return True

    def _fresh_connection(self) -> None:
        """A replugged station has rebooted: a new clock, new sequence numbers."""
        self.decoder = FrameDecoder()
        self.sync = ClockSync()
        self.pings_sent = 0
        self._pings.clear()
        self._fences.clear()
        self._last_upto = None
        self._last_seq = None
        self._last_who_ns = None
        self._hello.clear()
        self._lost = False

    def _serve(self) -> None:
        ser = self._serial
        assert ser is not None
        fd = _posix_fd(ser)               # once per opening: the reader's wait is a hot path
        looked = None                     # when this reader last looked at the port (its read's stamp)
        try:
            while not self._stop.is_set() and not self._lost:
                data, now = self._read(ser, fd)
                # what this read took came in after the one before it (that read took all there
                # was), however late the interpreter let this one stamp it: a press's ``looked_ns``
                self._looked_ns, looked = looked, now
                self._ping_if_due(now_ns())
                if self._hello.is_set():
                    if self.auto_ping and self.last_seen_ns is not None and \
                            now - self.last_seen_ns > self.SILENCE_NS:
                        self._report_lost("the station stopped answering")
                        return
                else:
                    real = now_ns()
                    if self._last_who_ns is None or real - self._last_who_ns >= self.WHO_INTERVAL_NS:
                        self._last_who_ns = real
                        self.send("WHO")
                if not data:
                    continue
                self.last_seen_ns = now
                for frame in self.decoder.feed(data):
                    self._handle(frame, now)
                deficit = self.flood_limit and self._bytes_bucket.take(len(data), now)
                if deficit:               # flooding: let the kernel buffer fill instead of the CPU
                    time.sleep(min(0.05, deficit / self.BYTE_RATE))
        except (serial.SerialException, OSError, TypeError) as exc:
            # TypeError: pyserial's posix read raises it when the fd is closed under it
            if not self._stop.is_set():
                self._report_lost(f"read failed: {exc}")
        except Exception as exc:       # a bug must not kill the station silently
            log.exception("station %s reader crashed", self.port)
            self._report_lost(f"reader crashed: {exc!r}")

    def _read(self, ser: serial.Serial, fd: int | None) -> tuple[bytes, int]:
        """Wait for bytes until the read timeout or the next ping; the bytes and when they
        came (on the link's clock), taken before anything else: on a POSIX port right as
        ``select`` returns. Every call that lets go of the interpreter lock can wait behind
        the table's other threads, and pyserial's ``read`` makes three before the stamp
        (docs/crazy-kick.md, "Where the rest of the delay comes from"). ``fd``: the port's
        descriptor (``_posix_fd``), or None to read through pyserial."""
        wait = self.READ_TIMEOUT_S
        if self.auto_ping and self._hello.is_set():
            # a station that says nothing is looked at when its next ping is due (up to half
            # a second: a waiting box's readers wake twice a second, not fifty times); close()
            # wakes the wait through the pipe
            wait = max(0.0, (self._ping_due_ns - now_ns()) / 1e9)
        if fd is None:                                # another kind of pyserial port
            data = ser.read(ser.in_waiting or 1)
            now = self.clock()
            return (data + ser.read(ser.in_waiting) if data and ser.in_waiting else data), now
        ready, _, _ = select.select([fd, self._wake_r], [], [], wait)
        now = self.clock()
        if self._wake_r in ready:
            os.read(self._wake_r, 64)
        if fd not in ready:
            return b"", now
        try:
            data = os.read(fd, 4096)
        except BlockingIOError:
            return b"", now
        if not data:              # as pyserial: ready with nothing to read is an unplugged device
            raise serial.SerialException("device reports readiness to read but returned no data")
        return data, now

    def _handle(self, frame: Frame, now: int) -> None:
        try:
            event = self._to_event(frame, now)
        except (FrameError, ValueError, IndexError):
            self.decoder.bad_frames += 1
            self._answer_bad_frame(frame.kind, now)
            return
        if event is None:
            return
        # a progress answer is never charged: the station sends one only when asked, so the
        # table's own FENCEs bound them (a race of eight asks each station several times)
        if self.flood_limit and not isinstance(event, (StationHello, StationProgress, StationProbed)) and \
                not self._events_bucket.try_take(1, now):
            self.flood_dropped += 1
            if self.flood_dropped in (1, 100, 10_000):
                log.warning("station %s floods: %d events dropped", self.station_id, self.flood_dropped)
            if self._flood_told_ns is None or now - self._flood_told_ns >= self.FLOOD_NOTICE_NS:
                self._flood_told_ns = now             # the table says so at that seat, once a second
                self.events.put(StationFlooding(self.station_id or "?", self.flood_dropped, now))
            return
        self.events.put(event)

    def _to_event(self, frame: Frame, now: int):
        kind, f = frame
        if kind == "HELLO":
            protocol = int(f[0])
            if protocol != PROTOCOL_VERSION:
                raise ValueError(f"protocol {protocol}")
            caps = dict(item.partition("=")[::2] for item in f[3].split(",") if item) if len(f) > 3 else {}
            if self.station_id is not None and f[1] != self.station_id:
                # another device on this path (a recycled ttyACM or pty): not this seat's
                # station. Close it and keep trying the path until ours answers again.
                log.warning("port %s: station %s answered instead of %s; still waiting for %s", self.port, f[1],
                            self.station_id, self.station_id)
                self._lost = True
                return None
            self.station_id, self.firmware, self.capabilities = f[1], f[2], caps
            first = not self._hello.is_set()
            self._hello.set()
            if first and self.auto_ping:
                self.ping()               # a first sync exchange at once
            return StationHello(f[1], self.port, protocol, f[2], caps, now) if first else None
        if self.station_id is None or not self._hello.is_set():
            return None                # nothing counts before the station said who it is
        if kind == "BTN":
            seq = self._check_seq(int(f[0]))
            button = int(f[1])
            if not 0 <= button < 6 or f[2] not in ("D", "U"):
                raise ValueError("button")
            ticks = int(f[3])
            pressed = self.sync.to_host_ns(ticks)
            return ButtonEvent(self.station_id, seq, button, f[2] == "D", ticks, now,
                               now if pressed is None else pressed, self._looked_ns)
        if kind == "TAG":
            seq = self._check_seq(int(f[0]))
            uid = f[1].upper()
            int(uid, 16)
            ticks = int(f[2])
            try:
                text = decode_text(f[3]) if len(f) > 3 else None
            except FrameError:
                # a text the station encoded wrong: the tap still counts, by its UID alone
                # (as a text the station could not read), and the station is told
                self.bad_texts += 1
                self._answer_bad_frame(kind, now)
                text = None
            return TagEvent(self.station_id, seq, uid, text, ticks, now)
        if kind == "GONE":
            seq = self._check_seq(int(f[0]))
            uid = f[1].upper()
            int(uid, 16)
            return TagGone(self.station_id, seq, uid, now)
        if kind == "PONG":
            sent = self._pings.pop(int(f[0]), None)
            if sent is not None:
                received = int(f[1])
                # firmware 1.1: when the PING came and when the PONG left; the station's own
                # delay between them is no part of the round trip
                turnaround = ticks_diff(int(f[2]), received) if len(f) > 2 else 0
                # not racing, the line is fitted when a stamp is mapped, not at each exchange
                self.sync.add(sent, received, now, turnaround_us=max(0, turnaround), fit=self._racing)
            return None
        if kind in ("UPTO", "LOST"):
            return self._progress(kind, f, now)
        if kind == "WROTE":
            uid = f[0].upper()
            int(uid, 16)
            return TagWritten(self.station_id, uid, f[1] == "ok", f[2] if len(f) > 2 and f[2] != "-" else "", now)
        if kind == "STAT":
            self.stats = dict(item.partition("=")[::2] for item in f)
            return None
        if kind == "PROBED":
            if not f:
                raise ValueError("probed")
            return StationProbed(self.station_id, f[0], tuple(f[1:]), now)
        if kind == "ERR":
            what, detail = (f[0], decode_text(f[1]) if len(f) > 1 else None)
            self.errors = (self.errors + [(what, detail or "")])[-20:]
            log.warning("station %s reports %s: %s", self.station_id, what, detail)
            return None
        return None                    # unknown kinds: a newer firmware's, ignored

    def _answer_bad_frame(self, kind: str, now: int) -> None:
        """A frame whose checksum holds but whose fields the host cannot take (a button out
        of range, a UID that is not hex, a text with a bad escape) is answered as the
        station answers a bad command: ``ERR frame <kind>``. Lines with a bad checksum are
        not: their kind is as unreliable as the rest. Answers are charged to the station's
        event budget, so a station sending nothing else is answered no faster than heard."""
        log.warning("station %s sent a %s frame the host cannot take", self.station_id or self.port, kind)
        if self.station_id is None or (self.flood_limit and not self._events_bucket.try_take(1, now)):
            return
        self.send("ERR", "frame", encode_text(kind[:40]))

    def _progress(self, kind: str, f: tuple[str, ...], now: int) -> StationProgress | None:
        """UPTO n µs / LOST n µs frames: the station's stamp mapped as a press's would be (its
        arrival before clock sync: every press is then stamped at its own, later arrival).
        An answer to no FENCE of ours is ignored: only our asking bounds how many come."""
        number, ticks = int(f[0]), int(f[1])
        lost = int(f[2]) if kind == "LOST" else 0
        if lost < 0 or ticks < 0:
            raise ValueError("progress")
        asked = self._fences.pop(number, None)
        if asked is None:
            self.unasked_progress += 1
            return None
        for older in [n for n, sent in list(self._fences.items()) if sent <= asked]:   # list(): one step
            del self._fences[older]       # the station answers the newest FENCE it has read, once
        backwards = self._last_upto is not None and ticks_diff(ticks, self._last_upto) < 0
        if not backwards:
            self._last_upto = ticks
        mapped = self.sync.to_host_ns(ticks)
        if lost:
            log.warning("station %s dropped %d frame(s) before its progress answer: a press may be lost",
                        self.station_id, lost)
        return StationProgress(self.station_id or "?", now if mapped is None else mapped, asked, lost, backwards,
                               now)

    def _check_seq(self, seq: int) -> int:
        if self._last_seq is not None:
            missing = (seq - self._last_seq - 1) % SEQ_MODULO
            if missing:
                self.gaps += missing
                log.warning("station %s: %d frame(s) lost before seq %d", self.station_id, missing, seq)
        self._last_seq = seq
        return seq

    def _report_lost(self, reason: str) -> None:
        if self._lost:
            return
        self._lost = True
        if not self.reconnect:
            self._stop.set()
        if self.station_id is not None and not self._hello.is_set():
            # lost again while reconnecting, before the station said HELLO (the path opened
            # but was not it yet): the table still has it as lost, once is enough
            log.info("station %s: port %s lost again before its HELLO (%s)", self.station_id, self.port, reason)
            return
        self.events.put(StationLost(self.station_id or self.port, self.port, reason, self.clock()))
