"""Figures in the chip's own cycles (issue 43): firmware/ on MicroPython's rp2 port on an
emulated RP2040 (hardware/sim/rp2040_station.py, docs/rp2040.md), measured by the emulator's
clock (the Cortex-M0+'s cycles at 125 MHz), not modelled and not the host's clock: they are
the same at any load. On demand (``--only silicon``): one emulated station, unpaced (its
clock runs as fast as this machine lets it), some minutes; ``--long``: 10,000 presses and
1,000 taps, for the heap, about half an hour here.

- one pass of the firmware's loop (the core's time between two feeds of its watchdog, which
  it feeds once a pass, less the time it slept resting), with the reader polling and no
  card, and over a run with card reads; the share of that idle time the core slept;
- a press's edge (the firmware's IRQ stamp) → its BTN frame handed to USB, p50 and p95;
- a card laid on the reader → its TAG frame handed to USB (st1 record: one FAST_READ);
- the heap free (the firmware's STAT, ``gc.mem_free()`` right after a ``gc.collect()``) at
  the start and after the run's taps and presses: a leak is the difference; the longest
  garbage collection (STAT ``gc_us``, the chip's timer) and the longest pass the firmware
  itself reports (STAT ``loop_us``);
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
    "rp2_idle_asleep_pct": (float("nan"), "info", "%", "the share of an idle second the core slept (Firmware.rest: WFE)"),
    "rp2_pass_reading_p95_us": (float("nan"), "info", "µs", "one pass, 95th percentile over a run with card reads (I2C transfers included)"),
    "rp2_pass_reading_max_us": (float("nan"), "info", "µs", "… the longest"),
    "rp2_press_to_usb_p50_us": (float("nan"), "info", "µs", "a press's edge (IRQ stamp) → its frame handed to USB, median"),
    "rp2_press_to_usb_p95_us": (float("nan"), "info", "µs", "… 95th percentile"),
    "rp2_tap_to_tag_p50_ms": (float("nan"), "info", "ms", "a card laid down → its TAG frame handed to USB, median (st1: one FAST_READ)"),
    "rp2_tap_to_tag_p95_ms": (float("nan"), "info", "ms", "… 95th percentile"),
    "rp2_heap_free_start_kb": (float("nan"), "info", "kB", "the heap free after a collection at the first STAT (before the taps and presses)"),
    "rp2_heap_free_end_kb": (float("nan"), "info", "kB", "… at the last STAT, after them"),
    "rp2_heap_lost_kb": (float("nan"), "info", "kB", "start − end: what the run's taps and presses kept (a leak)"),
    "rp2_gc_longest_us": (float("nan"), "info", "µs", "the longest garbage collection (STAT gc_us, the chip's timer)"),
    "rp2_longest_pass_us": (float("nan"), "info", "µs", "the longest pass the firmware reported (STAT loop_us; a collection's pass among them)"),
    "rp2_taps": (float("nan"), "info", "", "taps in the run"),
    "rp2_presses": (float("nan"), "info", "", "presses in the run"),
    "rp2_emulated_s": (float("nan"), "info", "s", "the run's emulated time"),
    "rp2_emulated_ms_per_wall_s": (float("nan"), "info", "ms", "how far the emulator got per second of wall time here (load dependent)"),
    "rp2_model_pico_link_max_ms": (float("nan"), "info", "ms", "model (race bench): a Pico's link delay each way at most (PICO_NS)"),
    "rp2_model_pico_link_min_ms": (float("nan"), "info", "ms", "model: … at least"),
}
RUNS = {"quick": (2, 6), "default": (10, 40), "long": (1000, 10_000)}   # (taps, presses)
HOLD_MS = 40.0              # a press held this long (more than the firmware's 15 ms lockout)
LIFT_MS = 50.0              # a card lifted this long after its TAG went out
STAT_S = 5.5                # one STAT surely comes in this much emulated time (firmware: every 5 s)


def _us(values: list[float], p: float) -> float:
    return percentile(values, p) if values else float("nan")


def figures(quick: bool = False, long: bool = False) -> dict[str, float]:
    from controller.bench.fairness import PICO_NS
    from hardware.link import StationLink
    from hardware.sim.firmware_station import FirmwareUnavailable
    from hardware.sim.rp2040_station import rp2040_stations
    taps, presses = RUNS["long" if long else "quick" if quick else "default"]
    try:
        (station,) = rp2040_stations(["bench-1"], paced=False)
    except FirmwareUnavailable:
        return {}                                          # no image here: nothing measured, the table says so
    events: queue.Queue = queue.Queue()
    wall = time.monotonic()
    timeout = 600.0 + 2.0 * (presses + 3 * taps)           # wall time, at this machine's worst
    try:
        link = StationLink(station.port, events)
        link.PING_INTERVAL_NS = link.WHO_INTERVAL_NS = station.ping_interval_ns
        link.open(hello_timeout=600)
        try:
            station.run_for(STAT_S * 1000)                 # idle: the reader polls, nobody there; a STAT
            before = station.stats()
            station.run_for(1000)
            idle = station.stats()
            for i in range(presses):
                station.press(i % 6, hold_ms=HOLD_MS)
            for i in range(taps):
                station.tap("04A1B2C3D4%04X" % i, ST1, lift_ms=LIFT_MS)
            _wait(events, "ButtonEvent", 2 * presses, timeout)
            _wait(events, "TagGone", taps, timeout)
            station.run_for(STAT_S * 1000)                 # one more STAT after the run
            stats = station.stats()
        finally:
            link.close()
    finally:
        station.close()
    wall = time.monotonic() - wall
    idle_passes = idle["pass_us"][-max(1, idle["passes"] - before["passes"]):]
    idle_ns = idle["emulated_ns"] - before["emulated_ns"]
    stat = [s for s in stats["stat"] if s["free"] == s["free"]]
    first = next((s for s in stat if s["at_ns"] <= before["emulated_ns"]), None)
    start_kb = first["free"] / 1024 if first else float("nan")
    end_kb = stat[-1]["free"] / 1024 if stat else float("nan")
    return {
        "rp2_pass_idle_p50_us": _us(idle_passes, 50), "rp2_pass_idle_p95_us": _us(idle_passes, 95),
        "rp2_idle_asleep_pct": 100.0 * (idle["asleep_ns"] - before["asleep_ns"]) / idle_ns,
        "rp2_pass_reading_p95_us": _us(stats["pass_us"], 95),
        "rp2_pass_reading_max_us": max(stats["pass_us"], default=float("nan")),
        "rp2_press_to_usb_p50_us": _us(stats["press_to_usb_us"], 50),
        "rp2_press_to_usb_p95_us": _us(stats["press_to_usb_us"], 95),
        "rp2_tap_to_tag_p50_ms": _us(stats["tap_to_tag_us"], 50) / 1000,
        "rp2_tap_to_tag_p95_ms": _us(stats["tap_to_tag_us"], 95) / 1000,
        "rp2_heap_free_start_kb": start_kb, "rp2_heap_free_end_kb": end_kb, "rp2_heap_lost_kb": start_kb - end_kb,
        "rp2_gc_longest_us": max((s.get("gc_us", float("nan")) for s in stat), default=float("nan")),
        "rp2_longest_pass_us": max((s["loop_us"] for s in stat), default=float("nan")),
        "rp2_taps": float(taps), "rp2_presses": float(presses),
        "rp2_emulated_s": stats["emulated_ns"] / 1e9,
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
