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


def test_the_clock_before_and_after_the_first_exchange():
    sync = ClockSync()
    assert sync.drift_ppm is None and sync.offset_ns is None
    sync.add(sent_ns=S, station_ticks=0, received_ns=S + 200 * US)   # the station's clock at 0
    assert sync.ready and sync.drift_ppm == 0.0
    assert sync.offset_ns == S + 100 * US                # the PING reached it half-way


def test_a_turnaround_is_split_between_the_stations_two_stamps():
    """The PING left the host at 1.0 ms and took 100 µs each way; the station stamped it at
    500 µs and answered 300 µs later: its 500 is the host's 1.1 ms, its 800 the host's 1.4 ms."""
    sync = ClockSync()
    sync.add(sent_ns=MS, station_ticks=500, received_ns=MS + 500 * US, turnaround_us=300)
    assert sync.to_host_ns(500) == MS + 100 * US
    assert sync.to_host_ns(800) == MS + 400 * US
    sync = ClockSync()                                    # no turnaround given: none taken out
    sync.add(sent_ns=MS, station_ticks=500, received_ns=MS + 200 * US)
    assert sync.to_host_ns(500) == MS + 100 * US


def test_an_instant_answer_is_used_and_a_backwards_one_is_not():
    sync = ClockSync()
    sync.add(sent_ns=5 * MS, station_ticks=100, received_ns=5 * MS)      # a zero round trip: the best
    assert sync.ready and sync.round_trip_ns == 0 and sync.to_host_ns(100) == 5 * MS
    sync = ClockSync()                                    # an answer before its question: garbage
    sync.add(sent_ns=5 * MS, station_ticks=100, received_ns=4 * MS, turnaround_us=-2000)
    assert not sync.ready and sync.exchanges == 0


def test_a_slot_is_a_tenth_of_a_second_and_the_window_150_slots():
    sync = ClockSync()
    exchange(sync, 10 * S, offset_ns=0)
    exchange(sync, 10 * S + 99 * MS, offset_ns=0, rtt_ns=100 * US)    # same slot: replaces
    assert len(sync.points) == 1 and sync.round_trip_ns == 100 * US
    exchange(sync, 10 * S + 100 * MS, offset_ns=0)                   # the next slot
    assert len(sync.points) == 2
    sync = ClockSync()
    for k in range(151):                                 # one exchange in the middle of each of 151 slots
        exchange(sync, 10 * S + k * 100 * MS + 50 * MS, offset_ns=0)
    assert len(sync.points) == 150
    assert sync.points[0].sent_ns == 10 * S + 100 * MS + 50 * MS


def batch_line(points) -> tuple[float, float, float]:
    """The weighted least-squares line through ``points`` the plain way, for comparison."""
    weights = [(p.rtt_ns + 20_000.0) ** -3 for p in points]
    total = sum(weights)
    x_mean = sum(w * p.station_us for w, p in zip(weights, points)) / total
    y_mean = sum(w * p.host_ns for w, p in zip(weights, points)) / total
    sxx = sum(w * (p.station_us - x_mean) ** 2 for w, p in zip(weights, points))
    sxy = sum(w * (p.station_us - x_mean) * (p.host_ns - y_mean) for w, p in zip(weights, points))
    return sxy / sxx, x_mean, y_mean


def test_the_line_kept_from_running_sums_is_the_plain_fit_after_half_an_hour_of_pings():
    """The fit's sums follow every point in, replaced and out; after half an hour of pings
    (the origin of the sums moved 120 times) the line is the one a plain fit of the window
    gives, and maps a stamp to within a microsecond of it."""
    import random
    rng = random.Random(3)
    sync = ClockSync()
    offset, ppm = 123 * S, 150.0
    t = 10 * S
    for _ in range(30 * 60 * 50):                        # 50 pings a second
        exchange(sync, t, offset_ns=offset, rtt_ns=rng.randrange(100 * US, 4 * MS), ppm=ppm)
        t += 20 * MS
    slope, x_mean, y_mean = batch_line(sync.points)
    assert len(sync.points) == 150
    assert sync._line[0] == pytest.approx(slope, rel=1e-9)
    stamp = sync.points[-1].station_us + 5_000
    plain = y_mean + (stamp - x_mean) * slope
    assert abs(sync.to_host_ns(stamp % STATION_TICKS_MODULO) - plain) < 1_000
    assert sync.drift_ppm == pytest.approx(ppm, abs=5)


def test_an_exchange_no_faster_than_the_slots_best_does_not_replace_it():
    sync = ClockSync(slot_ns=S)
    exchange(sync, 10 * S, offset_ns=0, rtt_ns=200 * US)
    exchange(sync, 10 * S + 100 * MS, offset_ns=50 * US, rtt_ns=200 * US)
    assert sync.points[0].sent_ns == 10 * S


def test_fast_exchanges_weigh_more_by_the_cube_of_their_round_trip_plus_20_us():
    """Two points 1 s apart (too few for a slope): the fit passes through their weighted
    mean. Round trips 0 and 180 µs weigh 1/(20 µs)³ and 1/(200 µs)³, 1000 : 1; the slow
    one's station clock reads 1001 µs off, so the fit is 1 µs off at the fast one's time."""
    sync = ClockSync()
    sync.add(sent_ns=10 * S, station_ticks=10_000_000, received_ns=10 * S)
    sync.add(sent_ns=11 * S, station_ticks=11_000_000 + 90 - 1001, received_ns=11 * S + 180 * US)
    assert sync.to_host_ns(10_000_000) == 10 * S + 1 * US


def test_three_exchanges_are_enough_to_fit_the_drift():
    sync = ClockSync()
    for k in range(3):
        exchange(sync, 10 * S + k * S, offset_ns=0, rtt_ns=0, ppm=100)
    assert sync.drift_ppm == pytest.approx(100, abs=2)
    sync = ClockSync()
    for k in range(2):
        exchange(sync, 10 * S + k * S, offset_ns=0, rtt_ns=0, ppm=100)
    assert sync.drift_ppm == 0.0                         # two points: no slope believed yet


def test_a_drift_beyond_any_crystal_is_not_believed():
    """2000 ppm is the limit: a crystal runs within a few hundred; beyond is noise."""
    for ppm, believed in ((1500, True), (3000, False)):
        sync = ClockSync()
        for k in range(4):
            exchange(sync, 10 * S + k * S, offset_ns=0, rtt_ns=0, ppm=ppm)
        assert (sync.drift_ppm != 0.0) is believed, ppm
        if believed:
            assert sync.drift_ppm == pytest.approx(ppm, abs=5)


def test_a_stuck_station_clock_does_not_break_the_fit():
    sync = ClockSync()
    for k in range(4):
        sync.add(sent_ns=10 * S + k * S, station_ticks=777, received_ns=10 * S + k * S + 100 * US)
    assert sync.drift_ppm == 0.0 and sync.to_host_ns(777) is not None


def test_stamps_across_the_wrap_of_the_station_clock():
    """ticks_us wraps at 2^30 µs: an exchange 1 ms before the wrap and one 1 ms after it,
    then a stamp 2 ms after the wrap is 3 ms after the first exchange's stamp."""
    sync = ClockSync()
    before = STATION_TICKS_MODULO - 1000
    sync.add(sent_ns=10 * S, station_ticks=before, received_ns=10 * S)
    sync.add(sent_ns=10 * S + 2 * MS, station_ticks=1000, received_ns=10 * S + 2 * MS)
    assert sync.to_host_ns(2000) == 10 * S + 3 * MS
    assert sync.offset_ns == 10 * S + 2 * MS - (STATION_TICKS_MODULO + 1000) * 1000


def test_a_slow_link_still_fits_the_drift():
    """Round trips of 4 ms (a hub, a busy host) weigh little, but three of them half a
    second apart are enough to see a 150 ppm crystal."""
    sync = ClockSync()
    for k in range(3):
        exchange(sync, 10 * S + k * 500 * MS, offset_ns=0, rtt_ns=4 * MS, ppm=150)
    assert sync.drift_ppm == pytest.approx(150, abs=5)


def test_the_sums_are_counted_afresh_every_two_windows_not_at_every_point(monkeypatch):
    """A fit costs the same however many points the window holds: the sums are counted
    afresh only when their origin (the oldest point when it was set) is two windows old,
    about every 15 s, not at each exchange."""
    sync = ClockSync()
    recounts = []
    original = ClockSync._recount
    monkeypatch.setattr(ClockSync, "_recount", lambda self: (recounts.append(self.points[-1].sent_ns), original(self)))
    t = 10 * S
    for k in range(5 * 60 * 50):                         # five minutes of pings, 50 a second
        exchange(sync, t, offset_ns=0, rtt_ns=(100 + k % 7 * 300) * US)
        t += 20 * MS
    gaps = [b - a for a, b in zip(recounts, recounts[1:])]
    assert len(recounts) == 19 and 30 * S <= gaps[0] <= 30 * S + 200 * MS      # the first: at the first point
    assert all(15 * S <= gap <= 15 * S + 300 * MS for gap in gaps[1:])
