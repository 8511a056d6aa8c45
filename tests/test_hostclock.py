"""The host's clock for every time the table compares is the raw monotonic one, which NTP
does not slew (reviewer 2, finding 4): a slewed clock changes its rate by tens of ppm at
once, faster than the clock sync's bound allows for."""

from __future__ import annotations

import importlib
import inspect
import time

import pytest

from hardware import hostclock

ORIGINAL = hostclock.now_ns          # what every module imported


def _reloaded() -> object:
    return importlib.reload(hostclock).now_ns


def _restored() -> None:
    importlib.reload(hostclock)
    hostclock.now_ns = ORIGINAL


def test_the_host_clock_reads_the_raw_monotonic_clock(monkeypatch):
    if not hasattr(time, "CLOCK_MONOTONIC_RAW"):
        pytest.skip("no CLOCK_MONOTONIC_RAW on this system")
    asked: list[int] = []

    def clock_gettime_ns(clock_id: int) -> int:
        asked.append(clock_id)
        return 42_000 if clock_id == time.CLOCK_MONOTONIC_RAW else 7

    try:
        monkeypatch.setattr(time, "clock_gettime_ns", clock_gettime_ns)
        now_ns = _reloaded()
        assert now_ns() == 42_000                               # type: ignore[operator]
        assert set(asked) == {time.CLOCK_MONOTONIC_RAW}
    finally:
        monkeypatch.undo()
        _restored()


def test_without_a_raw_clock_the_monotonic_one(monkeypatch):
    try:
        monkeypatch.delattr(time, "CLOCK_MONOTONIC_RAW", raising=False)
        assert _reloaded() is time.monotonic_ns
    finally:
        monkeypatch.undo()
        _restored()


def test_every_stamp_the_table_compares_is_taken_on_the_host_clock():
    """The link's arrival stamps and PING times, the runners' now, a panel's and a reader's
    stamps, and the simulated stations' (a process of their own: the same clock)."""
    from controller.table.realtime import RealtimeRunner
    from controller.table.runner import TableRunner
    from hardware.link import StationLink
    from hardware.panel import HostPanel
    from hardware.pn532 import PN532Reader
    from hardware.sim.station import SimulatedStation
    for kind in (StationLink, TableRunner, RealtimeRunner, HostPanel, PN532Reader, SimulatedStation):
        default = inspect.signature(kind).parameters["clock"].default
        assert default is hostclock.now_ns, kind
