"""The bring-up probe's figures (PROBED frames, firmware/probe.py) → a timing file in the
shape of ``hardware/data/pn532_timing.json``, which the simulated chip loads in place of
the shipped one (``SPIELTISCH_PN532_TIMING``, ``hardware/sim/pn532_chip.load_timing``).

What the probe measures on the Pico is a command's time on the whole (from its last bit
to its ACK, to its answer); the model's figures are parts of that, so each is the
difference of two medians, the documented parts (ISO/IEC 14443's byte and turnaround
times) taken out where the model adds them back:

- ``ack_us``: the ACK, as measured; ``nack_resend_us``: the frame ready again after NACK;
- ``process_us``: a command's answer less its ACK; the answer is seen only once the ACK
  has been read (8 bytes, 0.7 ms at 100 kHz), so when no status poll after that found the
  chip busy (``polls_answer_<command>`` 0) the figure is only a bound: the shipped
  estimate stays, and its source says the bound;
- ``no_card_try_us``: InListPassiveTarget with no card (one try) less its ACK;
- ``rf_command_overhead_us``: READ's answer less its ACK and its 22 bytes and one
  turnaround on air;
- ``ntag_write_us``: WRITE less READ, and the 13 bytes fewer a WRITE has on air.

Every measured figure gets ``<name>_source`` ("measured: …" with the station, its
firmware and chip, the date) and ``<name>_spread`` (n, median, min, max of what it came
from). What the probe does not measure keeps the shipped file's figure and source; what
it found out besides (the longest FAST_READ passed, a NAK's status, what a cut transfer
leaves) is under ``probe``, with every raw figure.
"""

from __future__ import annotations

import copy
import datetime
import json
from pathlib import Path
from typing import Any

Figure = tuple[int, int, int, int]           # n, median, min, max
COMMANDS = ("GetFirmwareVersion", "SAMConfiguration", "RFConfiguration")


SHIPPED = Path(__file__).resolve().parent / "data" / "pn532_timing.json"


def shipped_timing() -> dict[str, Any]:
    """The model's figures as shipped (``hardware/data/pn532_timing.json``), whatever file
    ``SPIELTISCH_PN532_TIMING`` names for the simulated chip: what a probe's figures are
    compared with and stand in for where it could not measure."""
    with SHIPPED.open(encoding="utf-8") as f:
        loaded: dict[str, Any] = json.load(f)
    return loaded


def parse_figures(frames: list[tuple[str, tuple[str, ...]]]) -> dict[str, Figure]:
    """PROBED frames (name, fields) → {name: (n, median, min, max)}; ``end``/``fail`` left out.
    A frame whose fields are not four integers is left out too (a newer firmware's)."""
    figures: dict[str, Figure] = {}
    for name, fields in frames:
        if name in ("end", "fail") or len(fields) != 4:
            continue
        try:
            n, median, low, high = (int(f) for f in fields)
        except ValueError:
            continue
        figures[name] = (n, median, low, high)
    return figures


def timing_from_probe(figures: dict[str, Figure], shipped: dict[str, Any], *, station: str, firmware: str,
                      chip: str, when: datetime.date | None = None) -> dict[str, Any]:
    """The shipped timing with every figure the probe measured replaced (see the module)."""
    timing = copy.deepcopy(shipped)
    day = (when or datetime.date.today()).isoformat()
    who = f"station {station}, firmware {firmware}, PN532 firmware {chip}, {day}"

    def median(name: str) -> int | None:
        found = figures.get(name)
        return found[1] if found else None

    def put(key: str, value: float, how: str, *parts: str) -> None:
        timing[key] = max(0, round(value))
        timing[f"{key}_source"] = f"measured: {how} (bring-up probe, medians; {who})"
        timing[f"{key}_spread"] = {p: {"n": figures[p][0], "median": figures[p][1], "min": figures[p][2],
                                       "max": figures[p][3]} for p in parts if p in figures}

    ack = median("ack_us")
    if ack is not None:
        put("ack_us", ack, "from a command's last bit to its ACK's ready status", "ack_us")
    resend = median("nack_resend_us")
    if resend is not None and resend >= 0:
        put("nack_resend_us", resend, "from the host's NACK to the frame's ready status again", "nack_resend_us")
    if ack is None:
        return _with_probe(timing, figures, who)
    process = dict(timing["process_us"])
    spreads = {}
    bounds = []
    for command in COMMANDS:
        answer = median(f"answer_{command}_us")
        if answer is None:
            continue
        found = figures[f"answer_{command}_us"]
        if seen_busy(figures, f"answer_{command}"):
            process[command] = max(0, answer - ack)
            spreads[command] = {"n": found[0], "median": found[1], "min": found[2], "max": found[3]}
        else:
            bounds.append(f"{command} at most {max(0, answer - ack)}")
    timing["process_us"] = process
    if spreads:
        timing["process_us_source"] = f"measured: each command's answer less its ACK (bring-up probe, medians; {who})"
        timing["process_us_spread"] = spreads
    if bounds:
        timing["process_us_source"] += (f"; the probe saw {', '.join(bounds)} us (ready before its ACK was read: "
                                        f"a bound, the estimate kept; {who})")
    no_card = median("list_no_card_us")
    if no_card is not None and not seen_busy(figures, "list_no_card"):
        timing["no_card_try_us_source"] += (f"; the probe saw at most {no_card - ack} us (ready before its ACK was "
                                            f"read: a bound, the estimate kept; {who})")
    elif no_card is not None:
        put("no_card_try_us", no_card - ack, "InListPassiveTarget with one try and no card, less its ACK",
            "list_no_card_us", "ack_us")
    byte, turnaround = timing["rf_byte_us"], timing["rf_turnaround_us"]
    read = median("read_us")
    if read is not None:
        put("rf_command_overhead_us", read - ack - 22 * byte - turnaround,
            "READ's answer less its ACK, its 22 bytes and one turnaround on air", "read_us", "ack_us")
    write = median("write_us")
    if write is not None and read is not None:
        put("ntag_write_us", write - read + 13 * byte, "WRITE's answer less READ's, and the 13 bytes fewer on air",
            "write_us", "read_us")
    return _with_probe(timing, figures, who)


def seen_busy(figures: dict[str, Figure], name: str) -> bool:
    """Whether a status poll after the ACK's read found the chip still busy (median of the
    samples): only then is an answer's time measured, not bounded. Without the count (a
    probe that did not send it) it counts as measured."""
    polls = figures.get(f"polls_{name}")
    return polls is None or polls[1] > 0


def _with_probe(timing: dict[str, Any], figures: dict[str, Figure], who: str) -> dict[str, Any]:
    def code(name: str) -> int | None:
        found = figures.get(name)
        return found[1] if found else None
    held = code("cut_rebuilt_errno")
    if held is not None and held in (5, 110):
        timing["held_sda_errno"] = held
        timing["held_sda_errno_source"] = (f"measured: what a transfer gets while the chip holds SDA after a cut "
                                           f"one, the controller made again ({who})")
    timing["probe"] = {
        "who": who,
        "fast_read_longest_pages": code("fast_read_longest_pages"),
        "nak_status": code("nak_status"),
        "stretch_us": code("stretch_us"),
        "cut": {name[4:]: f[1] for name, f in sorted(figures.items()) if name.startswith("cut_")},
        "raw": {name: {"n": f[0], "median": f[1], "min": f[2], "max": f[3]} for name, f in sorted(figures.items())},
    }
    return timing
