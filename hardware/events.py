"""What the stations tell the table: small immutable events on one queue.

Every event names the station by its unique id (from its HELLO) and carries
``arrived_ns``, the host's clock (``hardware.hostclock.now_ns``) taken as the bytes came in, before
any decoding. Presses also carry ``pressed_ns``, the press time on the host clock: the
station's own stamp (``station_us``) mapped by the link's clock sync, or the arrival
time before the first sync exchange.
"""

from __future__ import annotations

import queue
from dataclasses import dataclass
from typing import Any, TypeAlias


@dataclass(frozen=True, slots=True)
class StationHello:
    station: str
    port: str
    protocol: int
    firmware: str
    capabilities: dict[str, str]
    arrived_ns: int


@dataclass(frozen=True, slots=True)
class ButtonEvent:
    station: str
    seq: int
    button: int          # 0-2 top row, 3-5 bottom row, left to right
    pressed: bool        # False: released
    station_us: int
    arrived_ns: int
    pressed_ns: int
    # when the link looked at its port before these bytes (it read all there was then, so
    # they came in after): a reader held up between the two (the interpreter busy elsewhere)
    # stamps ``arrived_ns`` that much late, and this is the earliest the bytes could have
    # been read. None: not known (``arrived_ns`` stands for it).
    looked_ns: int | None = None


@dataclass(frozen=True, slots=True)
class StationProgress:
    """A station's answer to a FENCE (protocol: UPTO or LOST): every event it stamped
    before ``upto_ns`` (its stamp mapped to the host clock; the arrival before clock sync)
    has come ahead of this. ``asked_ns``: when the FENCE it answers left the host.
    ``lost``: frames the station dropped since its last answer, so an event before
    ``upto_ns`` may be missing. ``backwards``: its stamp is earlier than its last answer's,
    on the station's own clock (a clock or a firmware gone wrong)."""
    station: str
    upto_ns: int
    asked_ns: int
    lost: int
    backwards: bool
    arrived_ns: int


@dataclass(frozen=True, slots=True)
class TagEvent:
    station: str
    seq: int
    uid: str             # upper-case hex
    text: str | None     # the tag's NDEF text record, if it carries one
    station_us: int
    arrived_ns: int


@dataclass(frozen=True, slots=True)
class TagGone:
    """The card was taken off the reader."""
    station: str
    seq: int
    uid: str
    arrived_ns: int


@dataclass(frozen=True, slots=True)
class TagWritten:
    """The station's answer to WRITE: the record is on the card and read back (``ok``), or
    why not ("absent": the card left; "write", "verify", "reader", "text")."""
    station: str
    uid: str
    ok: bool
    reason: str
    arrived_ns: int


@dataclass(frozen=True, slots=True)
class PanelEvent:
    """A button of the host panel: "undo", "menu" (a short press) or "menu_held"."""
    button: str
    arrived_ns: int


@dataclass(frozen=True, slots=True)
class StationFlooding:
    """The station sends more than its budget: ``dropped`` of its events so far were not
    passed on (a stuck button, a broken firmware)."""
    station: str
    dropped: int
    arrived_ns: int


@dataclass(frozen=True, slots=True)
class StationProbed:
    """One frame of the bring-up probe's answer (PROBE, firmware 1.6): ``name`` a figure's
    with (n, median, min, max), or "end" with (phase, chip version), or "fail" with (why,)."""
    station: str
    name: str
    fields: tuple[str, ...]
    arrived_ns: int


@dataclass(frozen=True, slots=True)
class StationLost:
    station: str
    port: str
    reason: str
    arrived_ns: int


InputEvent = (StationHello | ButtonEvent | StationProgress | TagEvent | TagGone | TagWritten | StationLost
              | StationFlooding | PanelEvent | StationProbed)

# The queue the events are put on: the table's loop takes them from a queue.SimpleQueue
# (controller/table/runner.event_queue); a tool or a test may hand a queue.Queue.
EventQueue: TypeAlias = "queue.Queue[Any] | queue.SimpleQueue[Any]"
