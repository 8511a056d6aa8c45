"""``spieltisch stations``: what is plugged in, and how well each station is synchronised.

Every serial device under /dev/serial/by-id/ (and any ttyACM/ttyUSB without a by-id
name) is asked for a HELLO; a device that does not answer is tried as a bare PN532 in
HSU mode. Stations are then pinged for a moment so their clock offset and round trip
are measured. A Pico in BOOTSEL mode (no serial port: its boot ROM's drive,
``hardware/bootsel.py``) is listed as such, with what makes it a station. Composition
root: it may wire hardware."""

from __future__ import annotations

import contextlib
import glob
import json
import os
import time
from typing import TYPE_CHECKING, Any, Callable

from controller.table.runner import event_queue
from hardware.events import EventQueue
from hardware.hostclock import now_ns

if TYPE_CHECKING:
    from hardware.bootsel import BootselPico, UsbRoots


def candidate_ports() -> list[str]:
    """Serial devices that may be stations: the names the table's udev rules give
    (/dev/spieltisch/*, ``spieltisch install-pi``) first, then the kernel's by-id names, then
    bare ttyACM/ttyUSB devices; each device once."""
    ours = sorted(glob.glob("/dev/spieltisch/*"))
    seen = {os.path.realpath(p) for p in ours}
    by_id = [p for p in sorted(glob.glob("/dev/serial/by-id/*")) if os.path.realpath(p) not in seen]
    seen |= {os.path.realpath(p) for p in by_id}
    bare = [p for p in sorted(glob.glob("/dev/ttyACM*") + glob.glob("/dev/ttyUSB*")) if p not in seen]
    return ours + by_id + bare


HELLO_TIMEOUT_S = 1.0          # a station says HELLO within milliseconds of WHO; a silent port costs this


def probe(port: str, events: EventQueue, stack: contextlib.ExitStack) -> Any:
    """An open link to whatever answers on ``port``, or a string saying why nothing does."""
    from hardware.link import StationError, StationLink
    from hardware.pn532 import PN532Reader
    try:
        link = StationLink(port, events, reconnect=False).open(hello_timeout=HELLO_TIMEOUT_S)
        stack.callback(link.close)
        return link
    except StationError as exc:
        station_error = str(exc)
    try:
        reader = PN532Reader(port, events).open()
        stack.callback(reader.close)
        return reader
    except StationError:
        return station_error


def late_presses_on_record() -> dict[str, tuple[int, int]]:
    """From the table's log (the data directory's): per station id, the presses that came
    after their race was decided in its last real-time games, and how many games. Nothing
    when there is no log yet (it is not made here) or it cannot be read."""
    import sqlite3
    from controller.table.eventlog import EventLog, StorageError, default_data_dir
    path = default_data_dir() / "spieltisch.db"
    if not path.exists():
        return {}
    try:
        with EventLog(path) as log:
            return log.late_presses()
    except (StorageError, sqlite3.Error, OSError):
        return {}


def describe(port: str, found: Any, now_ns: int, late: dict[str, tuple[int, int]] | None = None) -> dict[str, Any]:
    if isinstance(found, str):
        return {"port": port, "kind": "-", "id": "-", "firmware": "-", "problem": found}
    on_record = (late or {}).get(found.station_id)
    sync = found.sync
    offset = sync.offset_ns if sync is not None else None
    rtt = sync.round_trip_ns if sync is not None else None
    kind = "reader" if found.capabilities.get("buttons") == "0" else "station"
    return {
        "port": port, "kind": kind, "id": found.station_id, "firmware": found.firmware,
        "capabilities": found.capabilities,
        "clock_offset_ms": None if offset is None else round(offset / 1e6, 3),
        "drift_ppm": None if sync is None or not sync.ready else round(sync.drift_ppm, 1),
        "round_trip_ms": None if rtt is None else round(rtt / 1e6, 3),
        # the sync's bound on its own error now (µs), and the exchanges the station answered
        "clock_error_us": None if sync is None or not sync.ready else sync.error_ns(now_ns) // 1000,
        "exchanges": None if sync is None else [sync.exchanges, getattr(found, "pings_sent", sync.exchanges)],
        "last_seen_s": None if found.last_seen_ns is None else round((now_ns - found.last_seen_ns) / 1e9, 2),
        "stats": dict(getattr(found, "stats", {}) or {}),
        "errors": [list(e) for e in getattr(found, "errors", [])],
        "late_presses": None if on_record is None else {"presses": on_record[0], "games": on_record[1]},
    }


def describe_bootsel(pico: BootselPico) -> dict[str, Any]:
    """A Pico in BOOTSEL mode: its drive, and what makes it a station."""
    return {"port": str(pico.drive) if pico.drive else f"USB {pico.usb}", "kind": "bootsel", "id": pico.serial or "-",
            "firmware": None, "usb": pico.usb, "drive": None if pico.drive is None else str(pico.drive),
            "mount": None if pico.mount is None else str(pico.mount),
            "problem": f"a Pico in BOOTSEL mode on USB {pico.usb} (its RPI-RP2 drive): no MicroPython yet; "
                       "spieltisch stations --flash puts MicroPython and the firmware on it"}


def listen(found: list[Any], at_least_s: float, *, clock: Callable[[], int] | None = None,
           sleep: Callable[[float], None] = time.sleep) -> list[bool]:
    """Let the links exchange with their stations for ``at_least_s``, and longer while a
    station's bound is above UNSURE_ERROR_NS, up to the time the table's screen waits before
    it names such a station (POOR_CLOCK_NS). Which stations' bounds stayed above it all that
    time, looked at every 0.1 s: the ones the screen would name too. A healthy station is
    not named for a bound that had no time to come down, nor for one that wavers about the
    line (docs/stations.md, "Keeping the clocks")."""
    from controller.table.realtime import POOR_CLOCK_NS
    from hardware.link import UNSURE_ERROR_NS
    clock = clock or now_ns
    start = clock()
    syncs = [getattr(item, "sync", None) for item in found]
    above = [sync is not None for sync in syncs]
    while True:
        now = clock()
        unsure = [sync is not None and (not sync.ready or sync.error_ns(now) > UNSURE_ERROR_NS) for sync in syncs]
        above = [was and now_above for was, now_above in zip(above, unsure)]
        if now - start >= POOR_CLOCK_NS or (now - start >= at_least_s * 1e9 and not any(unsure)):
            return above if now - start >= POOR_CLOCK_NS else [False] * len(found)
        sleep(0.1)


def list_stations(ports: list[str] | None = None, *, listen_s: float = 1.5, as_json: bool = False,
                  usb: UsbRoots | None = None) -> int:
    """The table of what is plugged in (``--json``: a line each); 0 when a station or a
    reader answered (a Pico in BOOTSEL mode is listed, but plays nothing yet)."""
    from hardware.bootsel import bootsel_picos
    booting = [] if ports else bootsel_picos(usb)
    ports = ports or candidate_ports()
    if not ports and not booting:
        print("No serial devices found. Plug in a station (a Pico with the Spieltisch firmware) or a PN532 "
              "reader; see firmware/README.md.")
        return 1
    events = event_queue()
    with contextlib.ExitStack() as stack:
        found = {port: probe(port, events, stack) for port in ports}
        for item in found.values():
            if hasattr(item, "racing"):
                item.racing = True                # 50 sync exchanges a second meanwhile, as in a race
        unsure = listen(list(found.values()), listen_s) if found else []
        now = now_ns()
        late = late_presses_on_record()
        rows = [dict(describe(port, item, now, late), clock_unsure=named)
                for (port, item), named in zip(found.items(), unsure)]
    rows += [describe_bootsel(pico) for pico in booting]
    if as_json:
        for row in rows:
            print(json.dumps(row))
    else:
        print(format_table(rows))
    return 0 if any(row["kind"] not in ("-", "bootsel") for row in rows) else 1


def health(row: dict[str, Any]) -> str:
    """The station's own report (STAT, firmware 1.1): the slowest loop pass, the reader,
    what it dropped or refused; and its last error."""
    stats = row.get("stats") or {}
    parts = []
    if "loop_us" in stats:
        parts.append(f"loop ≤ {int(stats['loop_us']) / 1000:.1f} ms")
    if "reader" in stats:
        failures = stats.get("reader_failures", "0")
        parts.append(f"reader {stats['reader']}" + (f" ({failures} failures)" if failures not in ("", "0") else ""))
    for key, words in (("reader_cut", "card reads cut short"), ("dropped", "frames dropped"),
                       ("bad_commands", "commands refused"), ("texts_cut", "tag texts cut")):
        if stats.get(key) not in (None, "", "0"):
            parts.append(f"{stats[key]} {words}")
    if "free" in stats:
        parts.append(f"{int(stats['free']) // 1024} KB free")
    errors = row.get("errors") or []
    if errors:
        parts.append(f"last error: {errors[-1][0]} {errors[-1][1]}".strip())
    return ", ".join(parts) or "–"


def late_text(late: dict[str, int] | None) -> str:
    """"3 in 5 games": presses that came after their race was decided, in its last
    real-time games (a station with many is on a slow link: docs/stations.md)."""
    if late is None:
        return "–"
    return f"{late['presses']} in {late['games']} game{'' if late['games'] == 1 else 's'}"


def clock_error_text(row: dict[str, Any]) -> str:
    """"±40 µs (75/75)": the sync's bound on its error and the exchanges answered of those
    asked; a bound above UNSURE_ERROR_NS is named, as a slow link is: that station's
    presses 0.5 ms apart from another's may tie (docs/stations.md, "Keeping the clocks").
    ``clock_unsure``, when the row has it (``listen``): whether the bound stayed above it
    as long as the screen waits, which decides instead of the bound at the last moment."""
    from hardware.link import UNSURE_ERROR_NS
    error, exchanges = row.get("clock_error_us"), row.get("exchanges")
    if error is None:
        return "–"
    text = f"±{error} µs" + (f" ({exchanges[0]}/{exchanges[1]})" if exchanges else "")
    unsure = row.get("clock_unsure")
    named = error * 1000 > UNSURE_ERROR_NS if unsure is None else unsure
    return text + (" UNSURE: close presses tie" if named else "")


def format_table(rows: list[dict[str, Any]]) -> str:
    def ms(value: float | None) -> str:
        return "–" if value is None else f"{value:.3f} ms"

    header = ("port", "kind", "station id", "firmware", "clock offset", "round trip", "clock error", "last seen",
              "late presses", "health")
    lines = [header]
    for r in rows:
        if "problem" in r:
            lines.append((r["port"], "?" if r["kind"] == "-" else r["kind"], r["problem"], "", "", "", "", "", "", ""))
            continue
        seen = "–" if r["last_seen_s"] is None else f"{r['last_seen_s']:.2f} s ago"
        lines.append((r["port"], r["kind"], r["id"], r["firmware"], ms(r["clock_offset_ms"]),
                      ms(r["round_trip_ms"]), clock_error_text(r), seen, late_text(r.get("late_presses")), health(r)))
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(header))]
    return "\n".join("  ".join(str(cell).ljust(w) for cell, w in zip(line, widths)).rstrip() for line in lines)


def require_tables_firmware(links: Any, wanted: str | None = None) -> None:
    """A game does not start while a station runs another firmware than the table's: its
    frames may mean something else (a newer table's, an older station's). Simulated
    stations model this table's firmware; a bare reader has none of ours."""
    from controller.games.core import IllegalAction
    from hardware.sim.station import is_simulated
    from hardware.stationflash import table_firmware_version
    wanted = wanted or table_firmware_version()
    for station, link in dict(links).items():
        firmware = getattr(link, "firmware", None)
        if getattr(link, "capabilities", {}).get("buttons") == "0" or is_simulated(firmware):
            continue
        if firmware != wanted:
            raise IllegalAction("station_firmware_other", station=station, has=firmware or "?", wants=wanted)
