"""The real firmware in the loop (issue 32): figures of firmware/ itself under MicroPython,
on the simulated Pico and the datasheet-timed PN532 (hardware/sim/firmware_station.py).

These run on MicroPython's WebAssembly build on this machine, not on an RP2040: a pass of
the loop here is not a pass on a Pico (its Cortex-M0+ at 125 MHz runs MicroPython several
times slower than a desktop core runs the WebAssembly build; the I2C transfers and the
chip's times are the same, they are waited out in real time). The names say "wasm".

- a card's tap → the host's TagEvent, p50/p95: a card with the ``st1`` record an enrolled
  card carries (10 pages: one FAST_READ of pages 4-13) laid on the reader at a random moment
  of the 40 ms poll; through the chip's timing, the I2C bus at 100 kHz, the firmware's loop,
  USB (the pseudo-terminal) and the host's link; and of it, the card's text: from the poll
  that found the card to its TAG frame handed to USB (the board's own clock);
- the same taps on a station whose config.py keeps firmware 1.4's I2C timeout (5 ms): one
  answer there carries less than a READ's four pages, so the same firmware reads with READ
  alone, three READs, as 1.4 did. What one FAST_READ saves is the difference of the two
  text reads' medians, measured; the chip's count of FAST_READs and READs a tap says which
  way each station read. The same saving computed from the timing file (the exchanges'
  steps on I2C and on air, no loop) is kept beside it, named a model;
- one pass of the firmware's loop with nothing to do, and with a card poll under way;
- a press's edge (the IRQ's stamp) → its BTN frame handed to USB.
"""

from __future__ import annotations

import random
import time
from typing import TypeVar

from controller.bench.measure import Target, percentile
from controller.table.runner import event_queue
from hardware.events import EventQueue
from hardware.hostclock import now_ns

ST1 = "st1:partout:abcdefghijklmnop"
TAP_GOAL_MS = 100.0
READ_ALONE = {"I2C_TIMEOUT_US": 5_000}       # firmware 1.4's config.py: an answer carries < 4 pages

TARGETS: dict[str, Target] = {
    "loop_tap_to_event_p50_ms_wasm": (float("nan"), "info", "ms", "a card laid down → the host's TagEvent, median (st1 record: one FAST_READ)"),
    "loop_tap_to_event_p95_ms_wasm": (TAP_GOAL_MS, "max", "ms", "the same, 95th percentile (goal ≤ 100 ms)"),
    "loop_text_read_p50_ms_wasm": (float("nan"), "info", "ms", "of which the text: the poll that found the card → its TAG frame handed to USB, median"),
    "loop_fast_reads_per_tap": (float("nan"), "info", "", "FAST_READs the chip passed to the card, a tap"),
    "loop_reads_per_tap": (float("nan"), "info", "", "READs the chip passed to the card, a tap"),
    "loop_tap_to_event_p50_ms_wasm_read": (float("nan"), "info", "ms", "the same taps, READ alone (I2C_TIMEOUT_US 5 ms, as 1.4's config.py), median"),
    "loop_tap_to_event_p95_ms_wasm_read": (float("nan"), "info", "ms", "… 95th percentile"),
    "loop_text_read_p50_ms_wasm_read": (float("nan"), "info", "ms", "… of which the text, median"),
    "loop_reads_per_tap_read": (float("nan"), "info", "", "… READs a tap"),
    "loop_fast_reads_per_tap_read": (float("nan"), "info", "", "… FAST_READs a tap"),
    "loop_fast_read_saves_ms": (float("nan"), "info", "ms", "what one FAST_READ saves: the text's median with READ alone minus with FAST_READ (measured)"),
    "loop_fast_read_saves_model_ms": (float("nan"), "info", "ms", "model: the same computed from the timing file (exchange steps only, no loop)"),
    "loop_pass_idle_p50_us_wasm": (float("nan"), "info", "µs", "one pass of the firmware's loop, nothing to do (WebAssembly, not an RP2040)"),
    "loop_pass_p95_us_wasm": (float("nan"), "info", "µs", "one pass, 95th percentile over a run with taps (I2C transfers included)"),
    "loop_press_to_usb_p50_us_wasm": (float("nan"), "info", "µs", "a press's edge → its frame handed to USB, median"),
    "loop_press_to_usb_p95_us_wasm": (float("nan"), "info", "µs", "the same, 95th percentile"),
}


def exchange_us(timing: dict, command_bytes: int, response_data: int, process_us: float, freq: int = 100_000) -> float:
    """One exchange as the firmware does it on I2C (firmware/pn532.py I2cTransport), by the
    chip model's rules: the command written, the ACK waited for and read, the response
    waited for, its header read, NACK, the resend waited for, the frame read whole."""
    byte_us = timing["i2c_bits_per_byte"] * 1e6 / freq
    write = (1 + 7 + command_bytes + 2) * byte_us             # address, frame around the command
    status = 2 * byte_us                                       # a status read: address and one byte
    ack = timing["ack_us"] + status + (1 + 7) * byte_us         # ACK waited, its status, read
    frame = 1 + 5 + 1 + response_data + 2                      # status, 00 00 FF LEN LCS, TFI, data, DCS, 00
    read = process_us + status + (1 + 7) * byte_us + (1 + 6) * byte_us + timing["nack_resend_us"] + status \
        + (1 + frame) * byte_us
    return write + ack + read


def fast_read_saving_ms(timing: dict) -> float:
    """Model: three READs (InDataExchange, 16 bytes each) against one FAST_READ of pages
    4-13 (InCommunicateThru, 40 bytes), for the st1 record's 10 pages."""
    def rf(sent: int, received: int) -> float:
        return (sent + received) * timing["rf_byte_us"] + timing["rf_turnaround_us"] + timing["rf_command_overhead_us"]
    read = exchange_us(timing, 4, 1 + 1 + 16, rf(4, 18))
    fast = exchange_us(timing, 4, 1 + 1 + 40, rf(5, 42))
    return (3 * read - fast) / 1000


def taps_on(config: dict, taps: int, events_and_presses: int = 0) -> dict:
    """A station (firmware/ under MicroPython, with ``config``'s settings), ``taps`` st1 cards
    laid down at random moments of the poll and lifted again, then ``events_and_presses``
    presses; the latencies (ms) and the board's report."""
    from hardware.events import ButtonEvent, TagEvent, TagGone
    from hardware.sim.firmware_station import firmware_stations
    from hardware.link import StationLink
    (station,) = firmware_stations(["bench-1"], idle_us=0, config=config)     # the board adds no sleep: the firmware rests itself
    events = event_queue()
    link = StationLink(station.port, events, auto_ping=False).open(hello_timeout=60.0)
    rng = random.Random(32)
    try:
        time.sleep(0.5)
        idle = station.stats()["pass_us"]
        latencies = []
        for i in range(taps):
            time.sleep(rng.uniform(0.0, 0.04))                   # any moment of the reader's poll
            uid = "04%012X" % (0xA1B2C3D40000 + i)
            sent = now_ns()
            station.tap(uid, ST1, lift_ms=50)
            tag = _next(events, TagEvent)
            latencies.append((tag.arrived_ns - sent) / 1e6)
            _next(events, TagGone)
        busy = station.stats()
        for _ in range(events_and_presses):
            # any moment of the loop and the reader's poll: pressed as soon as the last
            # release was read, every press came at the same point of the loop's pass
            time.sleep(rng.uniform(0.0, 0.04))
            station.press(rng.randrange(6), hold_ms=40)
            _next(events, ButtonEvent)
            _next(events, ButtonEvent)
        report = station.stats()
    finally:
        link.close()
        station.close()
    return {"latencies": latencies, "idle": idle, "busy": busy, "report": report}


def figures(quick: bool = False) -> dict[str, float]:
    from hardware.sim.pn532_chip import load_timing
    taps = 15 if quick else 60
    fast = taps_on({}, taps, events_and_presses=taps)
    alone = taps_on(READ_ALONE, taps)
    out: dict[str, float] = {}
    for suffix, run in (("", fast), ("_read", alone)):
        busy = run["busy"]
        out.update({
            f"loop_tap_to_event_p50_ms_wasm{suffix}": percentile(run["latencies"], 50),
            f"loop_tap_to_event_p95_ms_wasm{suffix}": percentile(run["latencies"], 95),
            f"loop_text_read_p50_ms_wasm{suffix}": percentile(busy["tag_to_usb_us"], 50) / 1000,
            f"loop_fast_reads_per_tap{suffix}": busy["fast_reads"] / taps,
            f"loop_reads_per_tap{suffix}": busy["reads"] / taps,
        })
    presses = fast["report"]["press_to_usb_us"]
    out.update({
        "loop_fast_read_saves_ms": out["loop_text_read_p50_ms_wasm_read"] - out["loop_text_read_p50_ms_wasm"],
        "loop_fast_read_saves_model_ms": fast_read_saving_ms(load_timing()),
        "loop_pass_idle_p50_us_wasm": percentile(fast["idle"], 50),
        "loop_pass_p95_us_wasm": percentile(fast["busy"]["pass_us"], 95),
        "loop_press_to_usb_p50_us_wasm": percentile(presses, 50),
        "loop_press_to_usb_p95_us_wasm": percentile(presses, 95),
    })
    return out


_Event = TypeVar("_Event")


def _next(events: EventQueue, kind: type[_Event], timeout: float = 10.0) -> _Event:
    deadline = time.monotonic() + timeout
    while True:
        event = events.get(timeout=max(0.01, deadline - time.monotonic()))
        if isinstance(event, kind):
            return event
