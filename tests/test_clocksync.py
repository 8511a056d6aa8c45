"""Clock sync pinned (issue 17's surviving mutants of hardware/clocksync.py): nothing is
believed before the first exchange, the offset has the right sign, the fastest round trip
is the one trusted, old exchanges leave the window, and sparse exchanges still map right."""

from __future__ import annotations

import pytest

from hardware.clocksync import ClockSync
from hardware.protocol import STATION_TICKS_MODULO

S, MS, US = 1_000_000_000, 1_000_000, 1_000


def exchange(sync: ClockSync, host_ns: int, offset_ns: int, rtt_ns: int = 200 * US, ppm: float = 0.0,
             turnaround_us: int = 0) -> None:
    """A PING at ``host_ns``; the station's clock reads host − offset (× drift), the wire
    symmetric."""
    station_us = round((host_ns + rtt_ns // 2 - offset_ns) * (1 + ppm / 1e6) / 1000)
    sync.add(sent_ns=host_ns, station_ticks=station_us % STATION_TICKS_MODULO,
             received_ns=host_ns + rtt_ns + turnaround_us * 1000, turnaround_us=turnaround_us)


def test_nothing_is_believed_before_the_first_exchange():
    """A freshly plugged station's stamps map to nothing (the link then uses the arrival
    time), not to a guess that could win a race."""
    sync = ClockSync()
    assert sync.to_host_ns(123_456) is None and sync.offset_ns is None and not sync.ready
    assert sync.round_trip_ns is None


def test_the_offset_is_host_minus_station_time():
    sync = ClockSync()
    for k in range(5):
        exchange(sync, 10 * S + k * S, offset_ns=5 * S)          # the station started 5 s after the host
    assert sync.offset_ns == pytest.approx(5 * S, abs=20 * US)
    sync = ClockSync()
    for k in range(5):
        exchange(sync, 10 * S + k * S, offset_ns=-3 * S)         # or 3 s before it
    assert sync.offset_ns == pytest.approx(-3 * S, abs=20 * US)


def test_a_stamp_maps_to_the_host_time_it_was_made_at():
    sync = ClockSync()
    for k in range(10):
        exchange(sync, 10 * S + k * 40 * MS, offset_ns=7 * S)
    pressed_host = 10 * S + 412 * MS
    assert sync.to_host_ns((pressed_host - 7 * S) // 1000) == pytest.approx(pressed_host, abs=50 * US)


def test_the_fastest_round_trip_is_trusted():
    sync = ClockSync(slot_ns=S)
    exchange(sync, 10 * S, offset_ns=0, rtt_ns=4 * MS)           # slow: its midpoint may be 2 ms off
    exchange(sync, 10 * S + 100 * MS, offset_ns=0, rtt_ns=150 * US)
    exchange(sync, 10 * S + 200 * MS, offset_ns=0, rtt_ns=3 * MS)
    assert sync.round_trip_ns == 150 * US and len(sync.points) == 1 and sync.points[0].rtt_ns == 150 * US
    exchange(sync, 12 * S, offset_ns=0, rtt_ns=2 * MS)           # another slot: a point of its own
    assert len(sync.points) == 2 and sync.round_trip_ns == 150 * US


def test_the_station_turnaround_is_not_counted_as_wire():
    sync = ClockSync()
    exchange(sync, 10 * S, offset_ns=0, rtt_ns=200 * US, turnaround_us=900)
    assert sync.round_trip_ns == 200 * US


def test_old_exchanges_leave_the_window():
    """An evening of pings keeps a window of points, not all of them."""
    sync = ClockSync(slot_ns=500 * MS, window_slots=30)
    for k in range(3 * 60 * 20):                                 # an hour at 20 pings a second
        exchange(sync, 10 * S + k * 50 * MS, offset_ns=S)
    assert len(sync.points) <= 30 and sync.exchanges == 3600


def test_sparse_exchanges_still_map_a_drifting_clock():
    """Pings seconds apart (a busy host), the station's crystal 150 ppm fast: a stamp between
    them maps within 50 µs."""
    sync = ClockSync()
    for k in range(8):
        exchange(sync, 10 * S + k * 3 * S, offset_ns=2 * S, ppm=150)
    host = 10 * S + 19 * S + 500 * MS
    stamp = round((host - 2 * S) * (1 + 150e-6) / 1000)
    assert sync.to_host_ns(stamp % STATION_TICKS_MODULO) == pytest.approx(host, abs=50 * US)
    assert sync.drift_ppm == pytest.approx(150, abs=5)
