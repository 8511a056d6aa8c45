"""Tap to screen: from a card touching a station's reader to its event on the host, and on
to the screen, budgeted per step and measured.

- **The station** (measured in simulated time): the firmware's own reader state machine
  (``firmware/pn532.py``'s ``Reader``, the very code a Pico runs) and its card presence
  logic, driven pass by pass as ``main.py`` drives them, against a PN532 model with the
  timing of the real parts: I2C at 100 kHz (90 µs a byte, a transaction's start and stop
  0.1 ms), the chip's ACK 0.5 ms after a command, ISO 14443A activation of a 7-byte UID
  (REQA, two cascade levels) 4 ms, an NTAG READ 2 ms (a FAST_READ of n pages 85 µs a byte
  more or less: 4n bytes against READ's 16, at 106 kbit/s), "no card" 1.5 ms, and a loop
  pass's other work 0.3 ms. Cards arrive at random moments of the poll cycle; the figure is the
  time to the TAG frame being ready to leave.
- **USB**: a full-speed device's frame goes at the host's next 1 ms poll (uniform 0-1 ms:
  the model, not measured here).
- **The host** (measured): a TAG frame from a simulated station through a pseudo-terminal
  and the real ``StationLink`` reader thread to the event on the table's queue.
- **The screen**: the next frame at 60 frames a second (uniform 0-16.7 ms: the model).

The station's figure needs the firmware sources (a checkout); an installed table without
them reports only the host's part.
"""

from __future__ import annotations

import importlib.util
import random
import statistics
import time
from pathlib import Path
from typing import Any

from controller.bench.measure import Target, percentile
from controller.table.runner import event_queue

FIRMWARE = Path(__file__).resolve().parent.parent.parent / "firmware"
TAPS = 400

TARGETS: dict[str, Target] = {
    "tap_to_screen_ms_p95": (100.0, "max", "ms", "a card touching the reader → on the screen, 95th percentile (sum below)"),
    "tap_to_screen_ms_median": (float("nan"), "info", "ms", "the same, median"),
    "tap_station_ms_median": (float("nan"), "info", "ms", "station: card arrives → TAG frame ready (firmware code, simulated chip timing), median"),
    "tap_station_ms_p95": (float("nan"), "info", "ms", "the same, 95th percentile"),
    "tap_station_wait_ms_p95": (float("nan"), "info", "ms", "of which waiting for the next poll, 95th percentile"),
    "tap_station_read_ms_median": (float("nan"), "info", "ms", "of which listing the card and reading its text (one FAST_READ), median"),
    "tap_host_ms_median": (float("nan"), "info", "ms", "host: TAG frame written → event on the table's queue (pty, real link), median"),
    "tap_host_ms_p95": (float("nan"), "info", "ms", "the same, 95th percentile"),
    "tap_model_usb_ms_max": (1.0, "info", "ms", "model: USB full-speed polling, at most"),
    "tap_model_frame_ms_max": (16.7, "info", "ms", "model: the screen's next frame at 60 fps, at most"),
}


class SimClock:
    """MicroPython's ``time`` for the firmware, on a simulated microsecond clock."""

    PERIOD = 1 << 30

    def __init__(self) -> None:
        self.us = 0

    def ticks_us(self) -> int:
        return self.us % self.PERIOD

    def ticks_ms(self) -> int:
        return (self.us // 1000) % self.PERIOD

    def ticks_diff(self, a: int, b: int) -> int:
        half = self.PERIOD // 2
        return ((a - b + half) % self.PERIOD) - half

    def ticks_add(self, a: int, b: int) -> int:
        return (a + b) % self.PERIOD

    def sleep_ms(self, ms: int) -> None:
        self.us += ms * 1000


BYTE_US, TRANSACTION_US = 90, 100          # I2C at 100 kHz
ACK_US, LIST_CARD_US, LIST_EMPTY_US, READ_US, WRITE_US = 500, 4000, 1500, 2000, 4500
RF_BYTE_US = 85                              # ISO 14443A at 106 kbit/s: 9 bits a byte
LOOP_US = 300                                # the rest of a loop pass (buttons, USB, LED)


class TimedChip:
    """A PN532 with one NTAG, answering on its own time; every bus transfer costs time."""

    def __init__(self, clock: SimClock, memory: bytes) -> None:
        self.clock = clock
        self.memory = memory
        self.card_present = False
        self.queue: list[tuple[int, bytes]] = []     # (ready at µs, frame)
        self.last: bytes | None = None

    def _transfer(self, n: int) -> None:
        self.clock.us += TRANSACTION_US + BYTE_US * n

    def writeto(self, address: int, data: bytes) -> int:
        self._transfer(len(data))
        data = bytes(data)
        if data == b"\x00\x00\xff\xff\x00\x00":
            if self.last is not None:
                self.queue.insert(0, (self.clock.us, self.last))
            return len(data)
        if len(data) < 7:
            return len(data)
        command = data[6:5 + data[3]]
        now = self.clock.us
        self.queue.append((now + ACK_US, b"\x00\x00\xff\x00\xff\x00"))
        answer, took = self._answer(command)
        self.queue.append((now + ACK_US + took, answer))
        return len(data)

    def readfrom(self, address: int, n: int) -> bytes:
        self._transfer(n)
        if not self.queue or self.queue[0][0] > self.clock.us:
            return b"\x00" * n
        if n < 2:
            return b"\x01"                 # the status byte alone: the frame stays (as hardware/sim/pn532_chip.py)
        _, current = self.queue.pop(0)
        if current[3:5] != b"\x00\xff":
            self.last = current
        out = b"\x01" + current
        return (out + bytes(max(0, n - len(out))))[:n]

    def _answer(self, command: bytes) -> tuple[bytes, int]:
        code = command[0]
        if code == 0x02:
            return _frame([0x03, 0x32, 0x01, 0x06, 0x07]), 200
        if code in (0x14, 0x32):
            return _frame([code + 1]), 200
        if code == 0x4A:
            if not self.card_present:
                return _frame([0x4B, 0x00]), LIST_EMPTY_US
            uid = bytes.fromhex("04A1B2C3D4E5F6")
            return _frame(bytes([0x4B, 0x01, 0x01, 0x00, 0x44, 0x00, 7]) + uid), LIST_CARD_US
        if code == 0x40:
            at = (command[3] - 4) * 4
            data = (self.memory[at:at + 16] + bytes(16))[:16]
            return _frame(bytes([0x41, 0x00]) + data), READ_US
        if code == 0x42 and command[1:2] == b"\x3a":       # FAST_READ, start and end page
            at, size = (command[2] - 4) * 4, (command[3] - command[2] + 1) * 4
            data = (self.memory[at:at + size] + bytes(size))[:size]
            return _frame(bytes([0x43, 0x00]) + data), READ_US + (size - 16) * RF_BYTE_US
        return b"\x00\x00\xff\x01\xff\x7f\x81\x00", 200


def _frame(data: Any) -> bytes:
    body = b"\xd5" + bytes(data)
    return b"\x00\x00\xff" + bytes([len(body), (0x100 - len(body)) & 0xFF]) + body + \
        bytes([(0x100 - (sum(body) & 0xFF)) & 0xFF, 0])


def _firmware_module(name: str, clock: SimClock) -> Any:
    spec = importlib.util.spec_from_file_location(f"_fw_{name}", FIRMWARE / f"{name}.py")
    if spec is None or spec.loader is None:
        raise ImportError(f"no firmware module {name}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    vars(module)["time"] = clock                     # MicroPython's ticks, simulated
    return module


def text_memory(text: str) -> bytes:
    payload = b"\x02en" + text.encode()
    record = bytes([0xD1, 0x01, len(payload)]) + b"T" + payload
    tlv = bytes([0x03, len(record)]) + record + b"\xfe"
    return tlv + bytes(144 - len(tlv))


def station_taps(taps: int = TAPS, seed: int = 5) -> list[tuple[float, float, float]]:
    """(card arrives → TAG frame ready, of which waiting for the poll, of which list and read), ms."""
    clock = SimClock()
    pn532 = _firmware_module("pn532", clock)
    poll_ms = _config_value("READER_POLL_MS", 60)
    chip = TimedChip(clock, text_memory("partout:red5"))
    transport = pn532.I2cTransport(chip, freq=_config_value("I2C_FREQ", 100_000),
                                   timeout_us=_config_value("I2C_TIMEOUT_US", 10_000))
    reader = pn532.Reader(transport, poll_ms, retries=1)
    rng = random.Random(seed)
    out = []
    for _ in range(taps):
        # the card comes at a random moment, some while after the last one left
        leave_until = clock.us + rng.randrange(150_000, 400_000)
        present_uid = None
        while clock.us < leave_until or reader.state != "poll":
            result = reader.step(clock.ticks_ms())
            clock.us += LOOP_US
            if result is not None and result[0] == "uid":
                present_uid = result[1]
        arrived = clock.us
        chip.card_present = True
        first_list = None
        done = None
        while done is None:
            sent_before = len(chip.queue)
            result = reader.step(clock.ticks_ms())
            if first_list is None and reader.exchange is not None and reader.exchange.code == 0x4A \
                    and len(chip.queue) > sent_before:
                first_list = clock.us
            clock.us += LOOP_US
            if result is None:
                continue
            if result[0] == "uid" and result[1] is not None and present_uid is None:
                present_uid = result[1]
                reader.read_text(result[1])
            elif result[0] == "text":
                done = clock.us
        chip.card_present = False
        wait = ((first_list or arrived) - arrived) / 1000
        out.append(((done - arrived) / 1000, wait, (done - (first_list or arrived)) / 1000))
    return out


def _config_value(name: str, default: Any) -> Any:
    import ast
    try:
        tree = ast.parse((FIRMWARE / "config.py").read_text())
    except OSError:
        return default
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == name:
            return ast.literal_eval(node.value)
    return default


def host_taps(taps: int = 60) -> list[float]:
    """A TAG frame written by a simulated station → the event on the table's queue, ms."""
    from hardware.events import TagEvent
    from hardware.link import StationLink
    from hardware.sim.station import SimulatedStation
    events = event_queue()
    out = []
    with SimulatedStation("bench-cards") as station:
        link = StationLink(station.port, events, flood_limit=False).open()
        try:
            for i in range(taps):
                start = time.monotonic_ns()
                station.tap(f"04{i:012X}", "partout:red5")
                while True:
                    event = events.get(timeout=5)
                    if isinstance(event, TagEvent):
                        out.append((time.monotonic_ns() - start) / 1e6)
                        break
                time.sleep(0.01)
        finally:
            link.close()
    return out


def figures(quick: bool = False) -> dict[str, float]:
    out: dict[str, float] = {}
    host = host_taps(20 if quick else 60)
    out["tap_host_ms_median"] = statistics.median(host)
    out["tap_host_ms_p95"] = percentile(host, 95)
    out["tap_model_usb_ms_max"] = 1.0
    out["tap_model_frame_ms_max"] = 16.7
    if not (FIRMWARE / "pn532.py").is_file():
        return out                                   # an installed table: no firmware sources to run
    station = station_taps(100 if quick else TAPS)
    totals = [s[0] for s in station]
    out["tap_station_ms_median"] = statistics.median(totals)
    out["tap_station_ms_p95"] = percentile(totals, 95)
    out["tap_station_wait_ms_p95"] = percentile([s[1] for s in station], 95)
    out["tap_station_read_ms_median"] = statistics.median(s[2] for s in station)
    rng = random.Random(9)
    whole = [s + rng.uniform(0, 1.0) + rng.choice(host) + rng.uniform(0, 16.7) for s in totals]
    out["tap_to_screen_ms_median"] = statistics.median(whole)
    out["tap_to_screen_ms_p95"] = percentile(whole, 95)
    return out
