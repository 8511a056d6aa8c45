"""A bare PN532 reader in HSU mode on a USB-serial adapter, so a seat can be a reader
without buttons ("tap only").

The PN532's binary frames::

    frame  00 00 FF LEN LCS TFI DATA... DCS 00     TFI D4 host → chip, D5 chip → host
    ACK    00 00 FF 00 FF 00                        NACK 00 00 FF FF 00 00
    error  00 00 FF 01 FF 7F 81 00

The same codec runs on the stations (``firmware/pn532.py``, MicroPython); both are held
to ``tests/vectors/pn532.json``. :class:`PN532Reader` wakes the chip (``55 55`` and
zeros), configures the SAM, limits passive activation retries so that "no card" comes
back at once, then polls InListPassiveTarget and puts a :class:`TagEvent` on the table's
queue when a card arrives and a :class:`TagGone` when it is taken away.

USB-serial bridges hold received bytes up to 16 ms by default (the FTDI latency timer);
see docs/stations.md for setting it to 1 ms.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Callable, Iterator

import serial

from hardware.events import EventQueue, StationHello, StationLost, TagEvent, TagGone
from hardware.hostclock import now_ns
from hardware.supervised import SupervisedPort

log = logging.getLogger(__name__)

ACK = bytes.fromhex("0000ff00ff00")
NACK = bytes.fromhex("0000ffff0000")
WAKE = b"\x55\x55" + bytes(14)
GET_FIRMWARE_VERSION = 0x02
SAM_CONFIGURATION = 0x14
RF_CONFIGURATION = 0x32
IN_DATA_EXCHANGE = 0x40
IN_LIST_PASSIVE_TARGET = 0x4A
NTAG_READ = 0x30
# the chip's errors on air (UM0701-02 7.1): the card's answer did not come or came garbled,
# so the page is read again; the firmware's reader has the same list (firmware/pn532.py
# AIR_ERRORS, tests/test_pn532.py keeps the two equal)
AIR_ERRORS = (0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x0A, 0x0B)


def build_frame(data: bytes) -> bytes:
    body = b"\xd4" + bytes(data)
    return b"\x00\x00\xff" + bytes([len(body), -len(body) & 0xFF]) + body + bytes([-sum(body) & 0xFF, 0])


@dataclass(frozen=True)
class Reply:
    kind: str                # "ack", "nack", "error" or "frame"
    data: bytes = b""        # a frame's bytes after TFI D5, starting with the response code


class ReplyParser:
    """Bytes from the chip → replies. Never raises; garbage and bad checksums are skipped
    and counted, and the buffer never holds more than one frame. ``tfi=0xD4`` parses the
    other direction (what the simulated chip hears)."""

    def __init__(self, tfi: int = 0xD5) -> None:
        self._buffer = bytearray()
        self.tfi = tfi
        self.bad = 0

    def feed(self, data: bytes) -> list[Reply]:
        buf = self._buffer
        buf += data
        replies: list[Reply] = []
        while True:
            start = buf.find(b"\x00\xff")
            if start < 0:
                del buf[:-1 if buf.endswith(b"\x00") else len(buf)]
                return replies
            del buf[:start]
            if len(buf) < 4:
                return replies
            length, lcs = buf[2], buf[3]
            if (length, lcs) == (0x00, 0xFF):
                replies.append(Reply("ack"))
                del buf[:4]
            elif (length, lcs) == (0xFF, 0x00):
                replies.append(Reply("nack"))
                del buf[:4]
            elif (length + lcs) & 0xFF or length == 0:
                self.bad += 1
                del buf[:1]
            elif len(buf) < 5 + length:
                return replies
            else:
                body, dcs = bytes(buf[4:4 + length]), buf[4 + length]
                if (sum(body) + dcs) & 0xFF:
                    self.bad += 1                 # not a frame after all: a real one may start inside
                    del buf[:1]
                    continue
                del buf[:5 + length]
                if body == b"\x7f":
                    replies.append(Reply("error"))
                elif body[0] == self.tfi and length >= 2:
                    replies.append(Reply("frame", body[1:]))
                else:
                    self.bad += 1


def target_uid(response: bytes) -> str | None:
    """InListPassiveTarget's response (4B NbTg Tg SENS_RES×2 SEL_RES LEN UID…) → UID hex."""
    if len(response) < 7 or response[0] != IN_LIST_PASSIVE_TARGET + 1 or response[1] == 0:
        return None
    uid = response[7:7 + response[6]]
    return uid.hex().upper() if uid and len(uid) == response[6] else None


def ndef_text(memory: bytes) -> str | None:
    """NTAG user memory from page 4 → the text of the first NDEF text record, if any."""
    message = next((value for tag, value in _tlvs(memory) if tag == 0x03), None)
    if message is None:
        return None
    for tnf, record_type, payload in _records(message):
        if tnf == 0x01 and record_type == b"T" and payload:
            if payload[0] & 0x80:                  # UTF-16: not on our cards
                return None
            try:
                return payload[1 + (payload[0] & 0x3F):].decode("utf-8")
            except UnicodeDecodeError:
                return None
    return None


def _tlvs(memory: bytes) -> Iterator[tuple[int, bytes]]:
    i = 0
    while i < len(memory):
        tag = memory[i]
        if tag == 0x00:
            i += 1
            continue
        if tag == 0xFE or i + 1 >= len(memory):
            return
        length, i = memory[i + 1], i + 2
        if length == 0xFF:
            if i + 2 > len(memory):
                return
            length, i = int.from_bytes(memory[i:i + 2], "big"), i + 2
        if i + length > len(memory):
            return
        yield tag, memory[i:i + length]
        i += length


def _records(message: bytes) -> Iterator[tuple[int, bytes, bytes]]:
    i = 0
    while i + 3 <= len(message):
        header, type_len = message[i], message[i + 1]
        i += 2
        size = 1 if header & 0x10 else 4
        payload_len, i = int.from_bytes(message[i:i + size], "big"), i + size
        id_len = 0
        if header & 0x08:
            if i >= len(message):
                return
            id_len, i = message[i], i + 1
        record_type = message[i:i + type_len]
        i += type_len + id_len
        payload = message[i:i + payload_len]
        if len(payload) < payload_len:
            return
        i += payload_len
        yield header & 0x07, record_type, payload
        if header & 0x40:                          # ME: the message's last record
            return


class PN532Error(RuntimeError):
    """The chip did not answer as a PN532 does."""


class PN532:
    """The chip on a serial port in HSU mode. Every exchange is bounded by ``timeout``
    (``TIMEOUT_S``: a chip answers within milliseconds)."""

    TIMEOUT_S = 0.1

    def __init__(self, port: serial.Serial, *, timeout: float | None = None, retries: int = 1) -> None:
        self.port = port
        self.timeout = self.TIMEOUT_S if timeout is None else timeout
        self.retries = retries
        self.parser = ReplyParser()

    def command(self, data: bytes, timeout: float | None = None) -> bytes | None:
        """Send a command; its response (starting with the response code), or None when the
        chip refused it or did not answer in time."""
        self.parser = ReplyParser()
        self.port.write(build_frame(data))
        deadline = time.monotonic() + (timeout or self.timeout)
        acked = False
        while time.monotonic() < deadline:
            chunk = self.port.read(self.port.in_waiting or 1)
            for reply in self.parser.feed(chunk):
                if reply.kind == "ack":
                    acked = True
                elif reply.kind == "frame" and acked and reply.data[:1] == bytes([data[0] + 1]):
                    return reply.data
                elif reply.kind in ("nack", "error"):
                    return None
        return None

    def begin(self) -> str:
        """Wake the chip and configure it; its firmware version ("1.6"), or PN532Error."""
        self.port.reset_input_buffer()
        self.port.write(WAKE)
        version = self.command(bytes([GET_FIRMWARE_VERSION]))
        if version is None or len(version) < 4:
            raise PN532Error(f"no PN532 answers on {self.port.port}")
        if self.command(bytes([SAM_CONFIGURATION, 0x01, 0x14, 0x00])) is None:
            raise PN532Error("the PN532 refused SAMConfiguration")
        # MxRtyATR, MxRtyPSL, MxRtyPassiveActivation: few tries, so no card answers at once
        self.command(bytes([RF_CONFIGURATION, 0x05, 0xFF, 0x01, self.retries]))
        return f"{version[2]}.{version[3]}"

    def read_uid(self) -> str | None:
        """The UID of the card on the reader, None when there is none; PN532Error when the
        chip does not answer."""
        response = self.command(bytes([IN_LIST_PASSIVE_TARGET, 0x01, 0x00]))
        if response is None:
            raise PN532Error("the PN532 did not answer InListPassiveTarget")
        return target_uid(response)

    READ_TRIES = 3               # a page garbled on air (a card at the field's edge) is read this often

    def read_text(self, pages: int = 32) -> str | None:
        memory = bytearray()
        for page in range(4, 4 + pages, 4):
            for _ in range(self.READ_TRIES):
                response = self.command(bytes([IN_DATA_EXCHANGE, 0x01, NTAG_READ, page]))
                if response is None or len(response) < 2 or (response[1] & 0x3F) not in AIR_ERRORS:
                    break
            if response is None or len(response) < 2 or response[1] != 0:
                break                    # the card's NAK (past its end), or it left
            memory += response[2:]
            if 0xFE in memory[2:] or ndef_text(bytes(memory)) is not None:
                break
        return ndef_text(bytes(memory))


class PN532Reader(SupervisedPort):
    """A seat that is only a reader: polls the chip on a thread, tags onto the queue.

    Its station id is ``pn532:`` and the port's name, so a reader keeps its seat when it
    is plugged in again at the same ``/dev/serial/by-id/`` path."""

    GONE_POLLS = 3               # a card missing this many polls in a row was taken away
    SILENT_POLLS = 10            # this many unanswered polls in a row: the reader is lost

    def __init__(self, port: str, events: EventQueue, *, poll_interval: float = 0.05,
                 clock: Callable[[], int] = now_ns) -> None:
        super().__init__(port)
        self.events = events
        self.poll_interval = poll_interval
        self.clock = clock
        self.station_id = "pn532:" + port.rsplit("/", 1)[-1]
        self.firmware: str | None = None
        self.capabilities = {"buttons": "0", "reader": "pn532-hsu", "led": "none"}
        self.last_seen_ns: int | None = None
        self.sync = None                 # no clock of its own: tags are stamped on arrival
        self._seq = 0

    def open(self) -> "PN532Reader":
        from hardware.link import StationError
        try:
            self._connect()
        except (serial.SerialException, OSError, ValueError, PN532Error) as exc:
            self.close()
            raise StationError(f"cannot open reader {self.port}: {exc}") from exc
        self._start(f"pn532 {self.port}")
        return self

    def _connect(self) -> None:
        self._serial = serial.serial_for_url(self.port, baudrate=115200, timeout=0.005,
                                             write_timeout=0.2, exclusive=True)
        self.firmware = "pn532-" + PN532(self._serial).begin()
        self.last_seen_ns = self.clock()
        self.events.put(StationHello(self.station_id, self.port, 1, self.firmware, dict(self.capabilities),
                                     self.last_seen_ns))

    def send(self, kind: str, *fields: object) -> bool:
        return self.is_open              # no LED or buzzer on a bare reader

    def _reopen(self) -> bool:
        try:
            self._connect()
            return True
        except (serial.SerialException, OSError, ValueError, PN532Error):
            self._close_port()
            return False

    def _serve(self) -> None:
        """Poll while the reader answers; when it stops, say so (the reopening is the base's)."""
        try:
            self._poll()
        except (serial.SerialException, OSError, TypeError, PN532Error) as exc:
            if not self._stop.is_set():
                self.events.put(StationLost(self.station_id, self.port, f"reader lost: {exc}", self.clock()))

    def _poll(self) -> None:
        if self._serial is None:                  # closed under us: nothing to poll
            return
        chip = PN532(self._serial)
        present, misses, silent = None, 0, 0
        while not self._stop.wait(self.poll_interval):
            try:
                uid = chip.read_uid()
                silent = 0
            except PN532Error:
                silent += 1
                if silent >= self.SILENT_POLLS:
                    raise
                continue
            now = self.clock()
            self.last_seen_ns = now
            if uid is not None:
                misses = 0
                if uid != present:
                    present = uid
                    self.events.put(TagEvent(self.station_id, self._next_seq(), uid, chip.read_text(), 0, now))
            elif present is not None:
                misses += 1
                if misses >= self.GONE_POLLS:
                    self.events.put(TagGone(self.station_id, self._next_seq(), present, now))
                    present, misses = None, 0

    def _next_seq(self) -> int:
        seq, self._seq = self._seq, (self._seq + 1) % (1 << 16)
        return seq
