"""The bring-up probe as the box runs it: in "Test this station", once every check has
passed, the owner presses 1 to measure the station's reader (firmware/probe.py, as
``spieltisch stations --probe`` does on the command line) with the cards off it, lays one
blank sticker on it when asked, and sees the figures beside the model's on the TV; the file
goes to the data folder's ``probes/`` (``probe_file``), where the guide says to send it
from (firmware/README.md, "Measuring the reader").

Nothing here blocks: the self-test's loop hands in the station's events and presses, and
shows ``snapshot()``. A refusal (no reader, a firmware without the probe, a card on the
reader, no sticker, a station that does not answer) is one message; nothing is sent to the
station or written, and 1 tries again."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from controller.app.probe import PHASE_TIMEOUT_S, measured_timing

START, FINISH = 0, 5                   # buttons 1 and 6 on the screen
PROBE_FIRMWARE = (1, 6)                # the first firmware with PROBE
ROWS = (("ack_us", "probe_row_ack"), ("nack_resend_us", "probe_row_resend"),
        ("no_card_try_us", "probe_row_no_card"), ("rf_command_overhead_us", "probe_row_rf"),
        ("ntag_write_us", "probe_row_write"))
FAILS = {"reader": "probe_fail_reader", "no-ack": "probe_fail_reader", "version": "probe_fail_reader",
         "card-on-reader": "probe_fail_card_on_reader", "no-card": "probe_fail_no_card", "read": "probe_fail_read"}


def probe_file(folder: Path, station: str) -> Path:
    """Where the box keeps a station's probe (the last one; the doctor looks there too)."""
    return folder / "probes" / f"probe-{station}.json"


def firmware_has_probe(firmware: str | None) -> bool:
    found = re.match(r"(\d+)\.(\d+)", firmware or "")
    return found is not None and (int(found[1]), int(found[2])) >= PROBE_FIRMWARE


@dataclass(frozen=True)
class ProbeSnapshot:
    stage: str                                   # offer, chip, lay, card, done
    said: tuple[str, dict[str, Any]] | None      # a refusal, or the result: text key and params
    rows: tuple[tuple[str, int, int], ...] = ()  # (label key, the model's µs, the measured µs)


class ProbeSession:
    def __init__(self, link: Any, folder: Path, *, clock: Callable[[], float] = time.monotonic,
                 timeout_s: float = PHASE_TIMEOUT_S) -> None:
        self.link = link
        self.folder = folder
        self.clock = clock
        self.timeout_s = timeout_s
        self.stage = "offer"
        self.said: tuple[str, dict[str, Any]] | None = None
        self.rows: tuple[tuple[str, int, int], ...] = ()
        self.frames: list[tuple[str, tuple[str, ...]]] = []
        self.deadline: float | None = None
        self.finished = False

    # -- what the owner does -----------------------------------------------------------------
    def press(self, button: int) -> None:
        if self.stage in ("offer", "done") and button == FINISH:
            self.finished = True
        elif self.stage in ("offer", "done") and button == START:
            self._start()
        elif self.stage == "lay" and button == FINISH:      # no sticker after all: back, nothing measured with one
            self.stage, self.deadline, self.frames = "offer", None, []

    def _start(self) -> None:
        link = self.link
        if link.capabilities.get("reader", "none") in ("none", ""):
            self._refuse("probe_refused_no_reader")
        elif not firmware_has_probe(link.firmware):
            self._refuse("probe_refused_old_firmware", firmware=link.firmware or "?")
        else:
            self.frames, self.rows, self.said = [], (), None
            self._ask("chip")

    def _ask(self, phase: str) -> None:
        if not self.link.probe(phase):
            self._refuse("probe_refused_no_answer")
            return
        self.stage = phase
        self.deadline = self.clock() + self.timeout_s

    def _refuse(self, key: str, **params: Any) -> None:
        self.stage, self.said, self.deadline, self.frames = "offer", (key, params), None, []

    # -- what the station does ---------------------------------------------------------------
    def event(self, event: Any) -> None:
        from hardware.events import StationProbed, TagEvent
        if isinstance(event, TagEvent) and self.stage == "lay":
            self._ask("card")
        elif isinstance(event, StationProbed) and self.stage in ("chip", "card"):
            if event.name == "fail":
                why = event.fields[0] if event.fields else "-"
                self._refuse(FAILS.get(why, "probe_fail_other"), why=why)
            elif event.name == "end":
                if self.stage == "chip":
                    self.stage, self.deadline = "lay", self.clock() + self.timeout_s
                else:
                    self._finish(event.fields[1] if len(event.fields) > 1 else "-")
            else:
                self.frames.append((event.name, event.fields))

    def tick(self) -> None:
        if self.deadline is not None and self.clock() > self.deadline:
            self._refuse("probe_fail_no_card" if self.stage == "lay" else "probe_refused_no_answer")

    def _finish(self, chip: str) -> None:
        from hardware.probe_timing import shipped_timing
        path = probe_file(self.folder, self.link.station_id)
        try:
            shipped = shipped_timing()
            figures, timing = measured_timing(self.frames, self.link, chip)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(timing, indent=2) + "\n")
        except (ValueError, KeyError, TypeError) as exc:     # a model file or figures it cannot take
            self._refuse("probe_fail_other", why=f"{type(exc).__name__}: {exc}")
            return
        except OSError as exc:
            self._refuse("probe_not_saved", path=str(path), reason=exc.strerror or str(exc))
            return
        self.rows = tuple((label, int(shipped[key]), int(timing[key])) for key, label in ROWS
                          if str(timing.get(f"{key}_source", "")).startswith("measured"))
        self.stage, self.deadline, self.frames = "done", None, []
        self.said = ("probe_done", {"n": len(figures), "path": str(path)})

    def snapshot(self) -> ProbeSnapshot:
        return ProbeSnapshot(self.stage, self.said, self.rows)
