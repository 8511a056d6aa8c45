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

Faults a real table meets are simulated too: ``link_delay_ms=(low, high)`` delays every
frame each way by a random time (in order, as USB keeps it), ``station_clock`` gives the
station its own clock offset and drift, ``unplug()`` and ``replug()`` pull the cable and
put it back (the station reboots: its sequence numbers and clock start again), and with
``by_id_dir`` the station appears under a stable ``usb-Spieltisch_Station_<id>-if00``
link there, as ``/dev/serial/by-id/`` gives a real one.

It answers FENCE as the firmware does, and keeps the same promise by construction, not by
timing: an event's stamp is taken inside the lock that numbers and writes it, and the
answer takes its stamp inside that lock too, after writing every press made before it
(``will_press``); an event a caller dates before a progress stamp already sent (a press
``at_ns`` in the past) is dated at that stamp instead, and counted (``restamped``).
"""

from __future__ import annotations

import collections
import heapq
import itertools
import os
import random
import select
import sys
import threading
import time
import tty
from pathlib import Path
from typing import Callable

from hardware.hostclock import now_ns
from hardware.sim import ntag
from hardware.sim.ntag import Ntag, ndef_text_memory
from hardware.pn532 import ndef_text
from hardware.protocol import (
    FENCE_CAPABILITY, PROTOCOL_VERSION, SEQ_MODULO, STATION_TICKS_MODULO, FrameDecoder, decode_text, encode_frame,
    encode_text, ticks_diff,
)

FIRMWARE = "sim-1.0"


class _Stamp:
    """An event's stamp, taken when the event is numbered and written (inside the write
    lock): ``at_ns``, when it happened on the host's clock, or now."""

    __slots__ = ("at_ns",)

    def __init__(self, at_ns: int | None = None) -> None:
        self.at_ns = at_ns


def is_simulated(firmware: str | None) -> bool:
    """A station that says this firmware in its HELLO is one of ours, simulated on the host:
    its frames are only as late as the host makes them."""
    return firmware is not None and firmware.startswith("sim-")


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


class PtyDevice:
    """A USB serial device on a pseudo-terminal: plug, unplug, replug, a stable by-id link,
    an optional delay line, and a thread that hands received bytes to ``_received`` (with a
    delay line, the process's one wire thread, ``_Timeline``, does, a delay later)."""

    BY_ID_NAME = "usb-Device_{name}-if00"

    def __init__(self, name: str, *, link_delay_ms: tuple[float, float] | None = None,
                 by_id_dir: str | Path | None = None, seed: int = 0) -> None:
        self.name = name
        self.link_delay_ms = link_delay_ms
        self.by_id = Path(by_id_dir) / self.BY_ID_NAME.format(name=name) if by_id_dir else None
        self.pty = ""
        self._rng = random.Random(seed)
        self._master: int | None = None
        self._slave: int | None = None
        self._write_lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._wire: _DelayLine | None = None
        self._outbox = bytearray()        # with a delay line: what the host has not taken yet

    @property
    def port(self) -> str:
        """Where the host opens it: the stable by-id link, or the pseudo-terminal."""
        return str(self.by_id) if self.by_id is not None else self.pty

    @property
    def plugged(self) -> bool:
        return self._master is not None

    def start(self):
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)           # no echo, no line editing: bytes as a USB CDC port
        os.set_blocking(self._master, False)
        self.pty = os.ttyname(self._slave)
        if self.by_id is not None:
            self.by_id.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.by_id.with_name(self.by_id.name + ".new")
            tmp.unlink(missing_ok=True)
            tmp.symlink_to(self.pty)
            tmp.replace(self.by_id)       # atomically, as udev does
        self._stop.clear()
        if self.link_delay_ms is not None:
            # what the host writes is read by the wires' own thread, and delivered a delay later
            wire = self._wire = _DelayLine(self.link_delay_ms, self._rng)
            wire.timeline.listen(self._master, lambda data: wire.later(lambda: self._arrived(wire, data)),
                                 self._flush_outbox)
            return self
        self._thread = threading.Thread(target=self._serve, name=f"sim {self.name}", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._wire is not None:
            if self._master is not None:
                self._wire.timeline.forget(self._master)
            self._wire.close()
            self._wire = None
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=1.0)
            self._thread = None
        with self._write_lock:            # an action of the wire's under way ends first
            self._outbox.clear()
            for fd in (self._master, self._slave):
                if fd is not None:
                    try:
                        os.close(fd)
                    except OSError:
                        pass
            self._master = self._slave = None
        if self.by_id is not None:
            self.by_id.unlink(missing_ok=True)

    def unplug(self) -> None:
        """Pull the cable: the host's port fails at once, the by-id link disappears."""
        self.close()

    def replug(self):
        """Plug it in again: a new port behind the same by-id link, a rebooted device."""
        self.close()
        self._rebooted()
        return self.start()

    def _rebooted(self) -> None:
        pass

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _write(self, data: bytes) -> None:
        wire = self._wire
        if wire is not None:
            wire.later(lambda: self._leave(wire, data))
        else:
            self._write_now(data)

    def _leave(self, wire: "_DelayLine", data: bytes) -> None:
        """On the wires' thread, a delay after ``_write``: out, unless the cable was pulled
        meanwhile (and perhaps plugged in again: the old session's frames are not the new one's)."""
        with self._write_lock:
            if self._wire is wire:
                self._write_now(data)

    def _arrived(self, wire: "_DelayLine", data: bytes) -> None:
        """On the wires' thread, a delay after the host wrote ``data``: handled under the write
        lock, so an unplug waits for it, and what it answers goes out on the port it came from."""
        with self._write_lock:
            if self._wire is wire:
                self._received(data)

    def _write_now(self, data: bytes) -> None:
        with self._write_lock:
            if self._master is None:
                raise RuntimeError(f"{self.name} is not plugged in")
            if self._wire is not None:
                # on the wires' thread, which serves every station: never wait there. What the
                # host does not take now waits here, and the thread writes it when it can
                self._outbox += data
                if self._flush_outbox():
                    self._wire.timeline.wants_out(self._master)
                return
            view = memoryview(data)
            while view:
                try:
                    view = view[os.write(self._master, view):]
                except BlockingIOError:
                    # the host is not reading: wait as a USB device would, but not past an unplug
                    if self._stop.is_set():
                        return
                    select.select([], [self._master], [], 0.05)

    def _serve(self) -> None:
        master = self._master
        while not self._stop.is_set() and master is not None:
            ready, _, _ = select.select([master], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(master, 4096)
            except BlockingIOError:
                continue
            except OSError:
                return
            self._received(data)

    def _flush_outbox(self) -> bool:
        """As much of the outbox as the host takes now; whether some is left."""
        with self._write_lock:
            while self._outbox and self._master is not None:
                try:
                    del self._outbox[:os.write(self._master, self._outbox)]
                except BlockingIOError:
                    break
                except OSError:
                    self._outbox.clear()          # unplugged
            return bool(self._outbox)

    def _received(self, data: bytes) -> None:
        raise NotImplementedError


class SimulatedStation(PtyDevice):
    BY_ID_NAME = "usb-Spieltisch_Station_{name}-if00"

    def __init__(self, station_id: str, *, buttons: int = 6, reader: str = "sim",
                 clock: Callable[[], int] = now_ns, station_clock: StationClock | None = None,
                 link_delay_ms: tuple[float, float] | None = None, by_id_dir: str | Path | None = None,
                 seed: int = 0, fences: bool = True, answers_pings: int = 1) -> None:
        super().__init__(station_id, link_delay_ms=link_delay_ms, by_id_dir=by_id_dir, seed=seed)
        self.station_id = station_id
        # one PING in this many answered: a station whose loop is busy (a card read holds a
        # pass) or whose hub is slow gives the host's clock sync few exchanges (issue 39)
        self.answers_pings = answers_pings
        self._pings = 0
        self.buttons = buttons
        self.reader = reader
        self.fences = fences                  # answers FENCE (False: as firmware 1.1, which does not)
        self.written: dict[str, str | None] = {}    # UID → the record a WRITE put on that card
        self.tags: dict[str, Ntag] = {}             # UID → the sticker a WRITE wrote (an NTAG213)
        self.clock = clock                                       # the host's clock (or a simulated one)
        self.station_clock = station_clock or StationClock()     # the Pico's crystal
        self.commands: list[tuple[str, tuple[str, ...]]] = []   # what the host sent, in order
        self.led = "000000"                                      # steady colour now
        self.last_seq = -1
        self.frozen = False
        self.restamped = 0            # events dated before a progress stamp already sent: dated at it
        self._seq = 0
        self._spoken: int | None = None     # the last progress stamp sent (station ticks)
        self._presses: list[tuple[int, int, int]] = []   # will_press: (host ns, order, button), a heap
        self._press_order = itertools.count()
        self._decoder = FrameDecoder()
        self._changed = threading.Condition()

    def __repr__(self) -> str:
        return f"<SimulatedStation {self.station_id} {self.pty or 'unplugged'} led={self.led}>"

    def _rebooted(self) -> None:
        """Sequence numbers from 0, ``ticks_us`` from somewhere else, as a rebooted Pico."""
        with self._write_lock:
            self._seq = 0
            self.last_seq = -1
            self._spoken = None
            self._presses = []
        self._decoder = FrameDecoder()
        self.station_clock = StationClock(self._rng.randrange(1 << 30), self.station_clock.drift_ppm)

    # -- what a person does -------------------------------------------------------------------
    def press(self, button: int, release: bool = True, at_ns: int | None = None) -> int:
        """Press (and release) a button; returns the sequence number of the last frame sent.
        ``at_ns``: when the finger went down, on the host's clock (a race's exact press time;
        the frame still leaves now, as the firmware sends after its IRQ stamped the edge)."""
        if not 0 <= button < self.buttons:
            raise ValueError(f"station has buttons 0..{self.buttons - 1}")
        with self._write_lock:           # D and U together: no progress answer between them
            seq = self._event("BTN", button, "D", _Stamp(at_ns))
            if release:
                seq = self._event("BTN", button, "U", _Stamp())
        return seq

    def will_press(self, button: int, at_ns: int) -> None:
        """A press (and release) at ``at_ns`` on the host's clock, made then as a Pico's IRQ
        stamps it: from that moment it is in the station, and its frames leave at the next
        ``flush_presses`` or before the next progress answer, whichever comes first (a
        caller that wakes late delays the frames, as a busy station loop would, never their
        stamp). Numbered when its frames are written."""
        if not 0 <= button < self.buttons:
            raise ValueError(f"station has buttons 0..{self.buttons - 1}")
        with self._write_lock:
            heapq.heappush(self._presses, (at_ns, next(self._press_order), button))

    def flush_presses(self) -> int:
        """Write the frames of every press ``will_press`` made that has happened by now;
        how many."""
        with self._write_lock:
            return self._flush_presses(self.clock())

    def tap(self, uid: str, text: str | None = None) -> int:
        """Hold a tag on the reader: its UID and, if it carries one, its NDEF text (what is
        on the sticker a WRITE wrote, when no text is given)."""
        tag = self.tags.get(uid.upper())
        if text is None and tag is not None:
            text = ndef_text(tag.user_memory())
        return self._event("TAG", uid.upper(), _Stamp(), encode_text(text))

    def take_away(self, uid: str) -> int:
        return self._event("GONE", uid.upper(), _Stamp())

    def flood(self, frames: int, button: int = 0) -> int:
        """A stuck loop: ``frames`` button frames as fast as the port takes them, or until
        the station is unplugged."""
        seq = self.last_seq
        try:
            for i in range(frames):
                seq = self._event("BTN", button, "D" if i % 2 == 0 else "U", _Stamp())
        except RuntimeError:
            pass
        return seq

    def freeze(self) -> None:
        """The firmware hangs with the cable in: nothing answered, nothing sent."""
        self.frozen = True

    def thaw(self) -> None:
        self.frozen = False

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
        with self._write_lock:           # stamped, numbered and written in one go: in order on the wire
            fields = tuple(self._stamp(f) if isinstance(f, _Stamp) else f for f in fields)
            seq = self._seq
            self._seq = (self._seq + 1) % SEQ_MODULO
            self.last_seq = seq
            self._write(encode_frame(kind, seq, *fields))
        return seq

    def _stamp(self, stamp: _Stamp) -> int:
        """An event's stamp (station ticks), never before a progress stamp already sent:
        that answer promised nothing earlier would come after it."""
        ticks = self.station_clock.ticks(self.clock() if stamp.at_ns is None else stamp.at_ns)
        if self._spoken is not None and ticks_diff(ticks, self._spoken) < 0:
            self.restamped += 1
            ticks = self._spoken
        return ticks

    def _flush_presses(self, now_ns: int) -> int:
        written = 0
        while self._presses and self._presses[0][0] <= now_ns:
            at_ns, _, button = heapq.heappop(self._presses)
            self._event("BTN", button, "D", _Stamp(at_ns))
            self._event("BTN", button, "U", _Stamp())
            written += 1
        return written

    def _answer_fence(self, number: str) -> None:
        """UPTO: the stamp first, then every press made before it, then the answer, all
        inside the write lock: no event stamped before the answer can be written after it."""
        with self._write_lock:
            now = self.clock()
            ticks = self.station_clock.ticks(now)
            self._flush_presses(now)
            if self._spoken is not None and ticks_diff(ticks, self._spoken) < 0:
                ticks = self._spoken             # a clock set back (a test's): the promise stands
            self._spoken = ticks
            self._write(encode_frame("UPTO", number, ticks))

    def _received(self, data: bytes) -> None:
        for kind, fields in self._decoder.feed(data):
            self._on_command(kind, fields)

    def _write_sticker(self, uid: str, text: str | None, password: bytes, opening: bytes) -> str | None:
        tag = self.tags.get(uid)
        if tag is None:
            tag = Ntag(uid)                         # a blank NTAG213, as it comes
        failed = _write_sticker(tag, text, password, opening)
        self.tags[uid] = tag
        return failed

    def _on_command(self, kind: str, fields: tuple[str, ...]) -> None:
        if self.frozen:
            return
        try:
            if kind == "WHO":
                caps = f"buttons={self.buttons},reader={self.reader},led=rgb"
                if self.fences:
                    caps += f",{FENCE_CAPABILITY}=1"
                self._write(encode_frame("HELLO", PROTOCOL_VERSION, self.station_id, FIRMWARE, caps))
                # as firmware 1.1 after its first pass: how it is doing
                self._write(encode_frame("STAT", "loop_us=812", f"reader={'ok' if self.reader != 'none' else 'none'}",
                                         "reader_failures=0", "reader_cut=0", "dropped=0", "bad_commands=0", "texts_cut=0",
                                         "free=151232"))
            elif kind == "WRITE":
                # as firmware 1.2 with the card on its reader: written, protected, answered
                uid, text = fields[0].upper(), decode_text(fields[1])
                int(uid, 16)
                password = bytes.fromhex(fields[2])
                opening = bytes.fromhex(fields[3]) if len(fields) > 3 else password
                if len(password) != 6 or len(opening) != 6:
                    raise ValueError("a password is 6 bytes")
                failed = self._write_sticker(uid, text, password, opening)
                if failed is None:
                    self.written[uid] = text
                    self._write(encode_frame("WROTE", uid, "ok"))
                else:
                    self._write(encode_frame("WROTE", uid, "fail", failed))
            elif kind == "PING":
                self._pings += 1
                if self._pings % self.answers_pings:
                    return
                received = self._ticks()            # as firmware 1.1: when it came, when it left
                self._write(encode_frame("PONG", fields[0], received, self._ticks()))
                return                        # clock sync, 50 a second: not kept in ``commands``
            elif kind == "FENCE":
                if self.fences:
                    self._answer_fence(fields[0])
                return                        # a race's question, several a press: not kept either
        except (ValueError, IndexError):      # as the firmware: a malformed command is answered
            try:
                self._write(encode_frame("ERR", "command", encode_text(kind)))
            except RuntimeError:
                return
        except RuntimeError:                  # unplugged meanwhile
            return
        with self._changed:
            self.commands.append((kind, fields))
            if kind == "LED" and fields and fields[1:2] == ("0",):
                self.led = fields[0]
            self._changed.notify_all()


def _write_sticker(tag: Ntag, text: str | None, password: bytes, opening: bytes) -> str | None:
    """What firmware 1.2 does to the sticker on its reader (``firmware/pn532.py``,
    ``Reader.write_text``), through the sticker's own commands: open it if it is protected,
    write the record, then PWD, PACK, ACCESS (PROT clear) and AUTH0 last. The reason it
    failed, or None."""
    memory = ndef_text_memory(text) if text is not None else b""
    if text is None or len(memory) > tag.user_bytes:
        return "text"
    cfg = tag.cfg
    tag.activate()                                  # listed by the station's last poll
    if tag.page(cfg)[3] <= cfg + 3 and tag.command(bytes([ntag.PWD_AUTH]) + opening[:4]) != opening[4:6]:
        return "auth"
    for at in range(0, len(memory), 4):
        if tag.command(bytes([ntag.WRITE, 4 + at // 4]) + memory[at:at + 4]) != ntag.ACK:
            return "write"
    cfg0, cfg1 = tag.page(cfg), tag.page(cfg + 1)
    for page, data in ((cfg + 2, password[:4]), (cfg + 3, password[4:] + bytes(2)),
                       (cfg + 1, bytes([cfg1[0] & 0x7F]) + cfg1[1:]), (cfg, cfg0[:3] + b"\x04")):
        if tag.command(bytes([ntag.WRITE, page]) + data) != ntag.ACK:
            return "protect"
    return None


class _DelayLine:
    """A wire that delivers each item a random time later, in order (USB does not reorder).
    Every wire of the process is served by one timeline (``_Timeline``): one thread, not one
    a wire, so the delays it means are the delays it makes."""

    def __init__(self, delay_ms: tuple[float, float], rng: random.Random) -> None:
        self.low, self.high = delay_ms
        self.rng = rng
        self._last_due = 0.0
        self._lock = threading.Lock()
        self.closed = False
        # how late each item left after its time (ns), the latest few thousand: what the
        # simulation itself adds to the delay it means to make (race bench)
        self.lateness_ns: collections.deque[int] = collections.deque(maxlen=4096)
        self.timeline = _Timeline.shared()

    def later(self, action: Callable[[], None]) -> None:
        with self._lock:
            due = max(time.monotonic() + self.rng.uniform(self.low, self.high) / 1000, self._last_due)
            self._last_due = due
            self.timeline.at(due, self, action)

    def close(self) -> None:
        self.closed = True            # what it still carries is dropped: the cable is out


class _Timeline:
    """Runs every simulated wire of this process in one thread: it reads what the host
    writes to each delayed device's port and delivers every item at its time. With two
    threads a station (its port's reader and its wire), sixteen threads woke for a race's
    frames and waited on each other for the interpreter: items left 0.07-0.08 ms late at the
    median and 0.4-0.5 ms at the 99th percentile, slower links than the ones drawn (the race
    bench's ``ck_race_sim_lateness_ms_p99``). The thread waits in one ``select`` on every
    port until ``SPIN_S`` before the next item's time, then waits the rest out awake (a
    sleeping thread wakes 0.04-0.09 ms late on a quiet machine; what the table's own threads
    meet is theirs to meet). It never waits for a port: what a host does not take waits in
    its station's outbox, written when the port takes more (``wants_out``)."""

    SPIN_S = 0.0001
    _shared: "_Timeline | None" = None
    _shared_lock = threading.Lock()

    @classmethod
    def shared(cls) -> "_Timeline":
        with cls._shared_lock:
            if cls._shared is None or not cls._shared._thread.is_alive():
                cls._shared = cls()
            return cls._shared

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, _DelayLine, Callable[[], None]]] = []
        self._order = itertools.count()
        self._lock = threading.RLock()
        self._ports: dict[int, tuple[Callable[[bytes], None], Callable[[], bool]]] = {}   # received, flush
        self._out: set[int] = set()                  # ports with bytes the host has not taken yet
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._wake_read, False)
        os.set_blocking(self._wake_write, False)
        self._thread = threading.Thread(target=self._run, name="sim wires", daemon=True)
        self._thread.start()

    def _wake(self) -> None:
        try:
            os.write(self._wake_write, b"!")
        except BlockingIOError:
            pass                                     # woken already

    def at(self, due: float, wire: _DelayLine, action: Callable[[], None]) -> None:
        with self._lock:
            heapq.heappush(self._heap, (due, next(self._order), wire, action))
            sooner = self._heap[0][2] is wire and self._heap[0][3] is action
        if sooner and threading.current_thread() is not self._thread:
            self._wake()                             # sooner than what the thread waits for

    def listen(self, fd: int, received: Callable[[bytes], None], flush: Callable[[], bool]) -> None:
        """``received(bytes)`` for what the host writes to ``fd``, until ``forget(fd)``;
        ``flush()`` (whether some is left) once the host can take more, after ``wants_out``."""
        with self._lock:
            self._ports[fd] = (received, flush)
        self._wake()

    def wants_out(self, fd: int) -> None:
        with self._lock:
            self._out.add(fd)
        if threading.current_thread() is not self._thread:
            self._wake()

    def forget(self, fd: int) -> None:
        """No more reads of ``fd``: once this returns, the caller may close it."""
        with self._lock:
            self._ports.pop(fd, None)
            self._out.discard(fd)
        self._wake()

    def _run(self) -> None:
        while True:
            with self._lock:
                while self._heap and self._heap[0][2].closed:
                    heapq.heappop(self._heap)
                ports = list(self._ports)
                out = [fd for fd in self._out if fd in self._ports]
                left = None if not self._heap else self._heap[0][0] - time.monotonic() - self.SPIN_S
            if left is None or left > 0:
                waited = _wait([self._wake_read, *ports], out, left)
                if waited is None:
                    with self._lock:                     # closed unforgotten (a stale list is asked again)
                        for fd in [fd for fd in self._ports if not _open(fd)]:
                            self._ports.pop(fd, None)
                    continue
                ready, writable = waited
                for fd in writable:
                    with self._lock:
                        port = self._ports.get(fd)
                    if port is not None and not port[1]():
                        with self._lock:
                            self._out.discard(fd)
                for fd in ready:
                    if fd == self._wake_read:
                        try:
                            os.read(fd, 4096)
                        except BlockingIOError:
                            pass
                        continue
                    with self._lock:                     # not forgotten (and so not closed) meanwhile
                        port = self._ports.get(fd)
                        if port is None:
                            continue
                        try:
                            data = os.read(fd, 4096)
                        except BlockingIOError:
                            continue
                        except OSError:
                            self._ports.pop(fd, None)    # unplugged
                            continue
                    if data:
                        self._safely(port[0], data)
                continue
            with self._lock:
                entry = self._heap[0]
            due, _, wire, action = entry
            while time.monotonic() < due and self._heap[0] is entry:
                time.sleep(0)                            # at most SPIN_S awake, offering the interpreter
            with self._lock:
                if not self._heap or self._heap[0] is not entry:
                    continue                             # a sooner item came meanwhile: that one first
                heapq.heappop(self._heap)
            if wire.closed:
                continue
            self._safely(action)
            wire.lateness_ns.append(int((time.monotonic() - due) * 1e9))

    @staticmethod
    def _safely(action: Callable[..., None], *args: object) -> None:
        """One station's trouble is not every station's: the thread serves them all."""
        try:
            action(*args)
        except (RuntimeError, OSError):
            pass                                         # unplugged meanwhile
        except Exception as exc:                         # noqa: BLE001 - a bug in one simulated station
            print(f"simulated wire: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)


def _wait(readable: list[int], writable: list[int], timeout: float | None) -> tuple[list[int], list[int]] | None:
    """``select`` to the microsecond; ``poll`` (to the millisecond) when a port's number is
    past what ``select`` takes (1024); None when one of them was closed meanwhile."""
    try:
        ready, able, _ = select.select(readable, writable, [], timeout)
        return ready, able
    except ValueError:
        pass
    except OSError:
        return None                                              # a port closed meanwhile
    poller = select.poll()
    for fd in set(readable) | set(writable):
        poller.register(fd, (select.POLLIN if fd in readable else 0) | (select.POLLOUT if fd in writable else 0))
    events = poller.poll(None if timeout is None else max(0.0, timeout) * 1000)
    return ([fd for fd, ev in events if ev & (select.POLLIN | select.POLLHUP | select.POLLERR) and fd in readable],
            [fd for fd, ev in events if ev & select.POLLOUT and fd in writable])


def _open(fd: int) -> bool:
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False

