"""Figures in the chip's own cycles (issue 43): firmware/ on MicroPython's rp2 port on an
emulated RP2040 (hardware/sim/rp2040_station.py, docs/rp2040.md), measured by the emulator's
clock (the Cortex-M0+'s cycles at 125 MHz), not modelled and not the host's clock: they are
the same at any load. On demand (``--only silicon``): on this machine an emulated station
runs some 20 times slower than a Pico, so a run takes minutes.

- one pass of the firmware's loop (the time between two feeds of its watchdog, which it
  feeds once a pass), with the reader polling and no card, and over a run with card reads;
- a press's edge (the firmware's IRQ stamp) → its BTN frame handed to USB, p50 and p95;
- a card laid on the reader → its TAG frame handed to USB (st1 record: one FAST_READ);
- the heap free (the firmware's STAT, ``gc.mem_free()``) at the start and after the run's
  taps and presses; the longest pass the firmware itself reports (STAT ``loop_us``: its
  garbage collections fall in some pass, so this bounds the longest pause);
- how fast the emulator ran here (emulated ms per wall second), and beside the figures what
  the Pico link model of the race bench assumes (controller/bench/fairness.py's PICO_NS).
"""

from __future__ import annotations

import queue
import time

from controller.bench.measure import Target, percentile

ST1 = "st1:partout:abcdefghijklmnop"

TARGETS: dict[str, Target] = {
    "rp2_pass_idle_p50_us": (float("nan"), "info", "µs", "one pass of the firmware's loop, reader polling, no card (emulated RP2040's clock)"),
    "rp2_pass_idle_p95_us": (float("nan"), "info", "µs", "… 95th percentile"),
    "rp2_pass_reading_p95_us": (float("nan"), "info", "µs", "one pass, 95th percentile over a run with card reads (I2C transfers included)"),
    "rp2_pass_reading_max_us": (float("nan"), "info", "µs", "… the longest"),
    "rp2_press_to_usb_p50_us": (float("nan"), "info", "µs", "a press's edge (IRQ stamp) → its frame handed to USB, median"),
    "rp2_press_to_usb_p95_us": (float("nan"), "info", "µs", "… 95th percentile"),
    "rp2_tap_to_tag_p50_ms": (float("nan"), "info", "ms", "a card laid down → its TAG frame handed to USB, median (st1: one FAST_READ)"),
    "rp2_tap_to_tag_p95_ms": (float("nan"), "info", "ms", "… 95th percentile"),
    "rp2_heap_free_start_kb": (float("nan"), "info", "kB", "the heap free at the first STAT (gc.mem_free())"),
    "rp2_heap_free_end_kb": (float("nan"), "info", "kB", "… at the last STAT, after the run's taps and presses"),
    "rp2_longest_pass_us": (float("nan"), "info", "µs", "the longest pass the firmware reported (STAT loop_us; bounds a GC pause)"),
    "rp2_taps": (float("nan"), "info", "", "taps in the run"),
    "rp2_presses": (float("nan"), "info", "", "presses in the run"),
    "rp2_emulated_ms_per_wall_s": (float("nan"), "info", "ms", "how far the emulator got per second of wall time here (load dependent)"),
    "rp2_model_pico_link_max_ms": (float("nan"), "info", "ms", "model (race bench): a Pico's link delay each way at most (PICO_NS)"),
    "rp2_model_pico_link_min_ms": (float("nan"), "info", "ms", "model: … at least"),
}


def _us(values: list[float], p: float) -> float:
    return percentile(values, p) if values else float("nan")


def figures(quick: bool = False) -> dict[str, float]:
    from controller.bench.fairness import PICO_NS
    from hardware.sim.firmware_station import FirmwareUnavailable
    from hardware.link import StationLink
    from hardware.sim.rp2040_station import rp2040_stations
    taps, presses = (2, 6) if quick else (10, 40)
    try:
        (station,) = rp2040_stations(["bench-1"])
    except FirmwareUnavailable:
        return {}                                          # no image here: nothing measured, the table says so
    events: queue.Queue = queue.Queue()
    wall = time.monotonic()
    try:
        link = StationLink(station.port, events)
        link.PING_INTERVAL_NS = link.WHO_INTERVAL_NS = station.ping_interval_ns
        link.open(hello_timeout=600)
        try:
            station.run_for(1000)                          # idle: the reader polls, nobody there
            idle = list(station.stats()["pass_us"])
            for i in range(presses):
                station.press(i % 6, hold_ms=60.0)
            for i in range(taps):
                station.tap("04A1B2C3D4E5%02X" % i, ST1)
            _wait(events, "ButtonEvent", 2 * presses)
            _wait(events, "TagGone", taps)
            station.run_for(5500)                          # one more STAT after the run
            stats = station.stats()
        finally:
            link.close()
    finally:
        station.close()
    wall = time.monotonic() - wall
    heap = [s["free"] for s in stats["stat"] if s["free"] == s["free"]]
    return {
        "rp2_pass_idle_p50_us": _us(idle, 50), "rp2_pass_idle_p95_us": _us(idle, 95),
        "rp2_pass_reading_p95_us": _us(stats["pass_us"], 95),
        "rp2_pass_reading_max_us": max(stats["pass_us"], default=float("nan")),
        "rp2_press_to_usb_p50_us": _us(stats["press_to_usb_us"], 50),
        "rp2_press_to_usb_p95_us": _us(stats["press_to_usb_us"], 95),
        "rp2_tap_to_tag_p50_ms": _us(stats["tap_to_tag_us"], 50) / 1000,
        "rp2_tap_to_tag_p95_ms": _us(stats["tap_to_tag_us"], 95) / 1000,
        "rp2_heap_free_start_kb": heap[0] / 1024 if heap else float("nan"),
        "rp2_heap_free_end_kb": heap[-1] / 1024 if heap else float("nan"),
        "rp2_longest_pass_us": max((s["loop_us"] for s in stats["stat"]), default=float("nan")),
        "rp2_taps": float(len(stats["tap_to_tag_us"])), "rp2_presses": float(len(stats["press_to_usb_us"])),
        "rp2_emulated_ms_per_wall_s": stats["emulated_ns"] / 1e6 / wall,
        "rp2_model_pico_link_max_ms": PICO_NS[1] / 1e6, "rp2_model_pico_link_min_ms": PICO_NS[0] / 1e6,
    }


def _wait(events: queue.Queue, kind: str, count: int, timeout_s: float = 3600.0) -> None:
    """``count`` events of one kind (the emulator takes its time; its figures are its own)."""
    end = time.monotonic() + timeout_s
    while count:
        event = events.get(timeout=max(0.01, end - time.monotonic()))
        if type(event).__name__ == kind:
            count -= 1
