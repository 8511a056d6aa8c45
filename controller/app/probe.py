"""``spieltisch stations --probe --port PORT --out FILE``: the bring-up probe. With a
station (firmware 1.6 or newer) and one blank NTAG sticker, it measures on the station's
own PN532 what the simulated chip's timing file assumes (firmware/probe.py does the
measuring, one measurement a loop pass), prints each figure beside the model's, and
writes them as a timing file in the shape of ``hardware/data/pn532_timing.json``
(``hardware/probe_timing.py``), which the simulated chip loads in place of the shipped
one (``SPIELTISCH_PN532_TIMING=FILE``). ``--stations firmware`` probes a simulated
station (the firmware under MicroPython over the simulated chip) instead, ``--stations
rp2040`` an emulated one (MicroPython's rp2 port on rp2040js, over the same chip model):
each prints the model's own figures, as measured through the firmware. What a stand-in
does not model (its ``probe_not_modelled``) is said so and left out of the file, never
turned into a figure."""

from __future__ import annotations

import json
import queue
import sys
import time
from pathlib import Path
from typing import Any, Callable

PHASES = (("chip", "Take every card off the reader, then press Enter."),
          ("card", "Lay one blank NTAG213/215/216 sticker on the reader (not a card the table wrote: the probe "
                   "writes its page 4 back as it is, which a protected card refuses), then press Enter."))
PHASE_TIMEOUT_S = 60.0
EMULATED_PHASE_TIMEOUT_S = 900.0         # an emulated Pico runs some 20 times slower (docs/rp2040.md)
EMULATED_SILENCE_NS = 120_000_000_000
SIM_UID = "04B0B1B2B3B4B5"               # the blank sticker laid on a simulated station


class ProbeError(Exception):
    """Why the probe could not measure, in one sentence for the person at the station."""


def probe_phase(link: Any, events: "queue.Queue", phase: str,
                timeout_s: float = PHASE_TIMEOUT_S) -> tuple[list[tuple[str, tuple[str, ...]]], str]:
    """PROBE <phase> sent; its PROBED frames (name, fields) and the chip's version."""
    from hardware.events import StationLost, StationProbed
    if not link.probe(phase):
        raise ProbeError("the station went away")
    frames: list[tuple[str, tuple[str, ...]]] = []
    deadline = time.monotonic() + timeout_s
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise ProbeError(f"the station (firmware {link.firmware}) did not answer PROBE: the probe needs "
                             "firmware 1.6 or newer (spieltisch stations --flash)")
        try:
            event = events.get(timeout=min(left, 0.5))
        except queue.Empty:
            continue
        if isinstance(event, StationLost):
            raise ProbeError(f"the station went away: {event.reason}")
        if not isinstance(event, StationProbed):
            continue
        if event.name == "fail":
            why = event.fields[0] if event.fields else "-"
            raise ProbeError(FAIL_REASONS.get(why, f"the probe could not measure ({why})"))
        if event.name == "end":
            return frames, event.fields[1] if len(event.fields) > 1 else "-"
        frames.append((event.name, event.fields))


FAIL_REASONS = {
    "reader": "this station has no PN532 on I2C to probe (config.py's READER)",
    "no-ack": "the PN532 does not answer on I2C: see firmware/README.md, \"Bringing up the reader\"",
    "version": "the PN532 does not say its version: see firmware/README.md, \"Bringing up the reader\"",
    "card-on-reader": "a card lies on the reader: take it off and probe again",
    "no-card": "no card on the reader: lay one blank sticker on it and probe again",
    "read": "the card on the reader cannot be read (READ): try another blank NTAG sticker",
}


def format_figures(figures: dict[str, tuple[int, int, int, int]], shipped: dict[str, Any],
                   timing: dict[str, Any]) -> str:
    """The model's figures beside the measured ones, one a line."""
    lines = [f"{'figure':<24}{'model':>10}{'measured':>10}   from (median, min-max, n)"]
    keys = ["ack_us", "nack_resend_us", "no_card_try_us", "rf_command_overhead_us", "ntag_write_us"]
    rows: list[tuple[str, Any, Any, str]] = []
    for key in keys:
        spread = timing.get(f"{key}_spread")
        if spread is None:
            continue
        came = ", ".join(f"{name} {s['median']} ({s['min']}-{s['max']}, {s['n']})" for name, s in spread.items())
        rows.append((key, shipped.get(key), timing[key], came))
    for command, spread in timing.get("process_us_spread", {}).items():
        rows.append((f"process_us {command}", shipped["process_us"].get(command), timing["process_us"][command],
                     f"answer {spread['median']} ({spread['min']}-{spread['max']}, {spread['n']}) less ack_us"))
    for key, model, measured, came in rows:
        lines.append(f"{key:<24}{model!s:>10}{measured!s:>10}   {came}")
    probe = timing.get("probe", {})
    unmodelled = probe.get("not_modelled", {})
    stretch = (f"not measured ({unmodelled['stretch_us']})" if "stretch_us" in unmodelled
               else f"{probe.get('stretch_us')} us")
    lines.append(f"longest FAST_READ passed: {probe.get('fast_read_longest_pages')} pages; "
                 f"a card's NAK comes back with status {probe.get('nak_status')}; "
                 f"clock stretching (median, a transfer against its bytes): {stretch}")
    cut = probe.get("cut", {})
    if "cut" in unmodelled:
        lines.append(f"a transfer cut off on purpose: not measured ({unmodelled['cut']})")
    elif cut:
        lines.append("a transfer cut off on purpose: " + ", ".join(f"{k}={v}" for k, v in cut.items()))
    return "\n".join(lines)


def without_unmodelled(figures: dict[str, tuple[int, int, int, int]],
                       unmodelled: dict[str, str]) -> dict[str, tuple[int, int, int, int]]:
    """The figures a stand-in models: ``unmodelled`` names figures (``stretch_us``) or a
    prefix's group (``cut``: every ``cut_*``); what the firmware measured there is the
    emulator's artefact, not the chip model's, and is dropped."""
    return {name: figure for name, figure in figures.items()
            if name not in unmodelled and name.split("_", 1)[0] not in unmodelled}


def measured_timing(frames: list[tuple[str, tuple[str, ...]]], link: Any, chip: str,
                    unmodelled: dict[str, str] | None = None,
                    simulated: str | None = None) -> tuple[dict[str, tuple[int, int, int, int]], dict[str, Any]]:
    """The PROBED frames of both phases → (the figures, the timing file's contents)."""
    from hardware.probe_timing import parse_figures, shipped_timing, timing_from_probe
    figures = without_unmodelled(parse_figures(frames), unmodelled or {})
    timing = timing_from_probe(figures, shipped_timing(), station=link.station_id or "-",
                               firmware=link.firmware or "-", chip=chip)
    timing["probe"].update(firmware=link.firmware, chip=chip, station=link.station_id, simulated=simulated or False)
    if unmodelled:
        timing["probe"]["not_modelled"] = unmodelled
    return figures, timing


def simulated_stations(kind: str) -> list[Any]:
    """One started station of ``kind`` (firmware, rp2040) for the probe."""
    if kind == "rp2040":
        from hardware.sim.rp2040_station import rp2040_stations
        return list(rp2040_stations(["probe"], paced=False))
    from hardware.sim.firmware_station import firmware_stations
    return list(firmware_stations(["probe"]))


def probe_command(port: str | None, out: Path, *, simulated: str | None = None,
                  ask: Callable[[str], object] | None = None) -> int:
    """The probe of the station on ``port`` (or of a simulated one: ``simulated`` "firmware"
    or "rp2040"); 0 when the file was written, 1 when the probe could not measure, 2 for a
    wrong call."""
    from hardware.link import StationError, StationLink
    from hardware.probe_timing import shipped_timing
    if (port is None) == (not simulated):
        print("spieltisch: the probe takes one station: --port DEV (or --stations firmware|rp2040, a simulated one)",
              file=sys.stderr)
        return 2
    ask = ask or input
    stations: list[Any] = []
    events: queue.Queue = queue.Queue()
    link = None
    unmodelled: dict[str, str] = {}
    try:
        timeout = PHASE_TIMEOUT_S
        if simulated:
            stations = simulated_stations(simulated)
            port = stations[0].port
            unmodelled = dict(getattr(stations[0], "probe_not_modelled", {}))
        assert port is not None
        link = StationLink(port, events, reconnect=False)
        slow = getattr(stations[0], "ping_interval_ns", None) if stations else None
        if slow:                                  # an emulated Pico: pinged at its pace (open_links)
            link.PING_INTERVAL_NS = slow
            link.WHO_INTERVAL_NS = max(link.WHO_INTERVAL_NS, slow)
            # a probe's step (fifteen commands in one loop pass) keeps an emulated Pico
            # from answering for seconds of wall time, not for a hang
            link.SILENCE_NS = max(link.SILENCE_NS, EMULATED_SILENCE_NS)
            timeout = EMULATED_PHASE_TIMEOUT_S
        link.open(hello_timeout=timeout if slow else 30.0 if simulated else 3.0)
        frames: list[tuple[str, tuple[str, ...]]] = []
        chip = "-"
        for phase, request in PHASES:
            if simulated:
                if phase == "card":
                    stations[0].place(SIM_UID, None)
                    time.sleep(0.5)               # the reader lists it (the probe lists it again itself)
            else:
                ask(request + " ")
            got, chip = probe_phase(link, events, phase, timeout)
            frames += got
        shipped = shipped_timing()
        figures, timing = measured_timing(frames, link, chip, unmodelled, simulated)
    except (StationError, ProbeError) as exc:
        print(f"spieltisch: the probe stopped: {exc}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, EOFError):
        print("spieltisch: the probe stopped (interrupted)", file=sys.stderr)
        return 1
    finally:
        if link is not None:
            link.close()
        for station in stations:
            station.close()
    try:
        out.write_text(json.dumps(timing, indent=2) + "\n")
    except OSError as exc:
        print(f"spieltisch: could not write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(format_figures(figures, shipped, timing))
    print(f"Written to {out}: station {timing['probe']['station']}, firmware {timing['probe']['firmware']}, "
          f"PN532 firmware {chip}.")
    if not simulated:
        print("Please send this file to the project (firmware/README.md, \"Measuring the reader\", says where): "
              "a real chip's figures replace our estimates.")
    return 0
