"""Clock sync pinned (issue 17's surviving mutants of hardware/clocksync.py): nothing is
believed before the first exchange, the offset has the right sign, the fastest round trip
is the one trusted, old exchanges leave the window, and sparse exchanges still map right."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware import clocksync
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


def test_a_window_whose_slots_are_not_all_filled_keeps_more_of_them():
    """Every slot filled (ten exchanges a second or more): the newest 150, 15 s. Four a
    second (an unsure station asked more often): 375 over 94 s, so a fit costs the same
    for a second's exchanges. One a second: 150 s of them, the window's longest."""
    def window(per_second: int, seconds: int) -> tuple[int, float]:
        sync = ClockSync()
        for k in range(per_second * seconds):
            host = 10 * S + k * S // per_second
            station_us = (host + 100 * US - S) // 1000
            sync.add(host, station_us % STATION_TICKS_MODULO, host + 200 * US, fit=False)   # the window alone
        points = sync.points
        return len(points), (points[-1].sent_ns - points[0].sent_ns) / S

    assert window(10, 60) == (150, 14.9)
    held, spans = window(4, 200)
    assert 370 <= held <= 376 and 92 <= spans <= 94
    held, spans = window(1, 300)
    assert held == 150 and 149 <= spans <= 150


def test_a_sparse_window_shrinks_within_seconds_when_every_slot_fills():
    """A box waiting keeps 300 slots over 150 s (two exchanges a second); a race starts and
    every slot fills: within FILL_SLOTS (5 s) the window is back at 150, not fitting
    hundreds of slots over 150 s for the race's first seconds (reviewer, 2026-11-28)."""
    sync = ClockSync()
    host = 10 * S
    largest = 0
    for per_second, seconds in ((2, 200), (50, 6)):
        for _ in range(per_second * seconds):
            station_us = (host + 100 * US - S) // 1000
            sync.add(host, station_us % STATION_TICKS_MODULO, host + 200 * US, fit=False)
            host += S // per_second
            if per_second == 50:
                largest = max(largest, len(sync.points))
    assert largest <= 320
    assert len(sync.points) == 150


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


def test_the_line_rests_on_the_quickest_way_out_and_the_quickest_way_back_of_different_exchanges():
    """Exchange A's PING took no time and its PONG 3 ms; exchange B's PING 1 ms and its PONG
    none. A says the line is on or above (10 s, host 10 s), B that it is on or below its
    answer's point: both on the true line, so the line is exact. (The midpoints of the
    round trips were 1.5 ms and 0.5 ms off; their weighted mean 0.43 ms.)"""
    sync = ClockSync()
    sync.add(sent_ns=10 * S, station_ticks=10_000_000, received_ns=10 * S + 3 * MS)
    sync.add(sent_ns=11 * S, station_ticks=11_001_000, received_ns=11 * S + 1 * MS)
    assert sync.to_host_ns(10_500_000) == 10 * S + 500 * MS
    assert sync.margin_ns == 0


def test_a_busy_host_that_reads_the_answers_late_does_not_move_the_line():
    """Eight stations, 0-4 ms each way (the race bench's wire), and two of their ten seconds
    with every answer read up to 20 ms late (the way back only): each such exchange raises
    only its own upper bound, and every line stays within 80 µs of the truth (54 µs at the
    worst of these sixteen stamps; the midpoints' weighted line was 158 µs off)."""
    import random
    rng = random.Random(5)
    worst = 0
    for _station in range(8):
        sync = ClockSync()
        offset = rng.randrange(1 << 40)
        t = 10 * S
        for _ in range(10 * 50):                         # 10 s of pings, 50 a second
            down, up = rng.randrange(0, 4 * MS), rng.randrange(0, 4 * MS)
            late = rng.randrange(0, 20 * MS) if 6 * S <= t - 10 * S < 8 * S else 0
            sync.add(sent_ns=t, station_ticks=((t + down - offset) // 1000) % STATION_TICKS_MODULO,
                     received_ns=t + down + up + late)
            t += 20 * MS
        for press in (t - 3 * S, t + 5 * MS):
            worst = max(worst, abs(sync.to_host_ns(((press - offset) // 1000) % STATION_TICKS_MODULO) - press))
    assert worst < 80 * US, worst


def test_the_drift_is_the_slope_that_leaves_the_most_room():
    """A crystal 150 ppm fast, each exchange quick one way and 0-4 ms the other: the line is
    the true one to a microsecond, whichever leg was quick."""
    import random
    rng = random.Random(7)
    sync = ClockSync()
    t = 10 * S
    for k in range(300):
        quick, slow = rng.randrange(0, 20 * US), rng.randrange(0, 4 * MS)
        down, up = (quick, slow) if k % 2 else (slow, quick)
        sync.add(sent_ns=t, station_ticks=round((t + down) * (1 + 150e-6) / 1000), received_ns=t + down + up)
        t += 20 * MS
    assert sync.drift_ppm == pytest.approx(150, abs=1)
    host = t + 3 * MS
    assert abs(sync.to_host_ns(round(host * (1 + 150e-6) / 1000)) - host) < 25 * US


def test_a_slope_is_believed_once_the_window_spans_a_second():
    """Three slots over a second of the station's clock, from the oldest PING's arrival to
    the newest PONG's departure (a crystal 500 ppm fast, each answer 10 µs after its PING):
    believed; a microsecond less: not, the nominal slope until then."""
    for span_us, believed in ((1_000_000, True), (999_999, False)):
        sync = ClockSync()
        for ticks in (10_000_000, 10_500_000, 10_000_000 + span_us - 10):
            host = round(ticks * 1000 / (1 + 500e-6))
            sync.add(sent_ns=host, station_ticks=ticks, received_ns=host + 10_000, turnaround_us=10)
        assert (sync.drift_ppm != 0.0) is believed, span_us
        if believed:
            assert sync.drift_ppm == pytest.approx(500, abs=1)


def test_the_room_left_is_half_the_quickest_ways_and_negative_when_the_stamps_contradict():
    sync = ClockSync()
    sync.add(sent_ns=10 * S, station_ticks=10_000_100, received_ns=10 * S + 300 * US)
    assert sync.margin_ns == 150 * US                    # out 100 µs, back 200 µs: half of both
    sync = ClockSync()                                   # A: out 500 µs, back 50; B: out 100, back 300
    sync.add(sent_ns=10 * S, station_ticks=10_000_500, received_ns=10 * S + 550 * US)
    sync.add(sent_ns=11 * S, station_ticks=11_000_100, received_ns=11 * S + 400 * US)
    assert sync.margin_ns == 75 * US                     # half of B's way out and A's way back
    assert sync.to_host_ns(10_500_000) == 10 * S + 500 * MS - 25 * US     # midway between the two bounds
    sync = ClockSync()
    sync.add(sent_ns=10 * S, station_ticks=10_000_000, received_ns=10 * S)
    sync.add(sent_ns=10 * S + 200 * MS, station_ticks=10_250_000, received_ns=10 * S + 200 * MS)
    assert sync.margin_ns < 0                            # a clock that jumped 50 ms: no line fits
    assert sync.to_host_ns(10_250_000) == 10 * S + 225 * MS      # the least wrong: halfway


def test_the_hulls_kept_between_slots_give_the_line_a_fit_afresh_gives():
    """The slots before the newest are hulled when a slot comes or goes; the newest's
    bounds are added at each fit. After five minutes of pings (the window gone round 20
    times) the line is the one a fit of the whole window from nothing gives."""
    import random
    rng = random.Random(3)
    kept, afresh = ClockSync(), ClockSync()
    t = 10 * S
    for _ in range(5 * 60 * 50):
        down, up = rng.randrange(0, 4 * MS), rng.randrange(0, 4 * MS)
        ticks = round((t + down - 123 * S) * (1 + 150e-6) / 1000) % STATION_TICKS_MODULO
        kept.add(sent_ns=t, station_ticks=ticks, received_ns=t + down + up)
        afresh._settled = None
        afresh.add(sent_ns=t, station_ticks=ticks, received_ns=t + down + up)
        t += 20 * MS
        if len(kept.points) in (3, 70, 150) and kept.points[-1].sent_ns == t - 20 * MS:    # now and then
            assert kept._line == pytest.approx(fresh_line(kept), rel=1e-12)
    assert kept._line == afresh._line and len(kept.points) == 150
    assert kept._line == pytest.approx(fresh_line(kept), rel=1e-12)
    assert kept.drift_ppm == pytest.approx(150, abs=2)


def test_the_kept_hulls_are_made_when_a_slot_comes_not_at_every_exchange():
    sync = ClockSync()
    made = []
    t = 10 * S
    for k in range(50 * 10):                             # 10 s, 50 pings a second: 100 slots
        sync.add(sent_ns=t, station_ticks=t // 1000, received_ns=t + (100 + k % 7 * 300) * US)
        if not made or sync._settled is not made[-1]:
            made.append(sync._settled)
        t += 20 * MS
    assert len(made) == 100                              # once per slot


def fresh_line(sync: ClockSync) -> tuple:
    """The line from the window's bounds with nothing kept between fits: the hulls of
    every slot's bounds; once the band's middle slope is known, the centre of every line
    between the hulls (a window under 20 s: straight ones only); before, the band's middle
    slope (or the nominal one), midway between the hulls."""
    origin = sync.points[0].low
    lows = clocksync._one_per_x([(x - origin[0], y - origin[1]) for x, y in (p.low for p in sync.points)], max)
    highs = clocksync._one_per_x([(x - origin[0], y - origin[1]) for x, y in (p.high for p in sync.points)], min)
    upper, lower = clocksync._upper_hull(lows), clocksync._lower_hull(highs)

    def room(b):
        return min(y - b * x for x, y in lower) - max(y - b * x for x, y in upper)
    slope = 1000.0
    span = sync.points[-1].high[0] - sync.points[0].low[0]
    assert span < clocksync.CURVED_SPAN_US                # the straight lines' centre: this test's windows
    if len(sync.points) >= 3 and span >= 1_000_000:
        middle = clocksync._middle_slope(upper, lower, room)
        centre = clocksync._centroid(upper, lower, highs[-1][0]) if middle is not None else None
        if centre is not None and centre[0] > 0:
            _, slope, value = centre
            return slope, origin[0], origin[1] + value - slope * highs[-1][0]
        slope = middle or 1000.0
    top, bottom = min(y - slope * x for x, y in lower), max(y - slope * x for x, y in upper)
    return slope, origin[0], origin[1] + (top + bottom) / 2


def test_hulls_by_hand_on_scales_as_unlike_as_station_µs_and_host_ns():
    assert clocksync._upper_hull([(0, 0), (1, 5000), (2, 1000), (3, 3000), (4, 0)]) == [
        (0, 0), (1, 5000), (3, 3000), (4, 0)]
    assert clocksync._lower_hull([(0, 4000), (1, 1000), (2, 3000), (3, 0), (4, 4000)]) == [
        (0, 4000), (1, 1000), (3, 0), (4, 4000)]
    assert clocksync._upper_hull([(0, 0), (1000, 5), (2000, 1), (3000, 3), (4000, 0)]) == [
        (0, 0), (1000, 5), (3000, 3), (4000, 0)]
    assert clocksync._lower_hull([(0, 4), (1000, 1), (2000, 3), (3000, 0), (4000, 4)]) == [
        (0, 4), (1000, 1), (3000, 0), (4000, 4)]


def test_hulls_by_hand():
    assert clocksync._upper_hull([(0, 0), (1, 5), (2, 1), (3, 3), (4, 0)]) == [(0, 0), (1, 5), (3, 3), (4, 0)]
    assert clocksync._lower_hull([(0, 0), (1, 5), (2, 1), (3, 3), (4, 0)]) == [(0, 0), (4, 0)]
    assert clocksync._lower_hull([(0, 4), (1, 1), (2, 3), (3, 0), (4, 4)]) == [(0, 4), (1, 1), (3, 0), (4, 4)]
    assert clocksync._upper_hull([(0, 0), (1, 1), (2, 2)]) == [(0, 0), (2, 2)]      # no corner in a straight line
    assert clocksync._lower_hull([(0, 0), (1, 1), (2, 2)]) == [(0, 0), (2, 2)]
    assert clocksync._upper_hull([(0, 0), (2, 1), (3, 3)]) == [(0, 0), (3, 3)]
    assert clocksync._lower_hull([(0, 0), (2, 1), (3, 3)]) == [(0, 0), (2, 1), (3, 3)]
    assert clocksync._one_per_x([(2, 1), (0, 5), (2, 7), (0, 3)], max) == [(0, 5), (2, 7)]


def test_the_band_s_middle_by_hand():
    """Lows and highs a straight line apart but for one corner each: the room at slope b
    is known in closed form, its most (at 1000.5) and the band of at least half of it."""
    upper = [(0, 0), (1_000_000, 1_000_000_000)]               # lows: the line through them has slope 1000
    lower = [(0, 1_000_000), (1_000_000, 1_001_000_000)]       # highs 1 ms above
    room = lambda b: min(y - b * x for x, y in lower) - max(y - b * x for x, y in upper)   # noqa: E731
    assert room(1000.0) == 1_000_000
    # room falls by 1e6 ns per ns/µs of slope either side: half of it (0.5 ms) at 999.5 and 1000.5
    assert clocksync._middle_slope(upper, lower, room) == pytest.approx(1000.0, abs=1e-9)
    skewed = [(0, 1_000_000), (1_000_000, 1_002_000_000)]      # highs rising faster: most room at 1001
    room2 = lambda b: min(y - b * x for x, y in skewed) - max(y - b * x for x, y in upper)   # noqa: E731
    # room2(b) = min(1e6, 1e6 + (1002 - b)·1e6 ... ) − max(0, (1000 - b)·1e6): 1e6 at 1000 ≤ b ≤ 1001,
    # half of it at 999.5 and 1001.5: the band's middle is 1000.5
    assert clocksync._middle_slope(upper, skewed, room2) == pytest.approx(1000.5, abs=1e-9)
    # room falling twice as fast below its most as above it: the band's middle leans away from it
    long_low = [(0, 0), (2_000_000, 2_000_000_000)]
    # room: 1e6 from 1000 to 1001; below, 2e6 less per unit of slope (half of it at 999.75); above,
    # 1e6 less per unit (half at 1001.5): the middle is 1000.625
    assert clocksync._middle_slope(long_low, skewed, rooms(long_low, skewed)) == pytest.approx(1000.625, abs=1e-9)
    # stamps that contradict (every high 1 µs under its low): no room at any slope, the least wrong
    under = [(0, -1000), (1_000_000, 999_999_000)]
    assert clocksync._middle_slope(upper, under, rooms(upper, under)) == pytest.approx(1000.0)
    # 5 s of room at the nominal slope and plenty at both bounds: the band runs into them, the most room
    wide = [(0, 5_000_000_000), (1_000_000, 6_000_000_000)]
    assert clocksync._middle_slope(upper, wide, rooms(upper, wide)) == pytest.approx(1000.0)
    # the most room at 1003 (a crystal 3000 ppm slow): beyond the bound, not believed
    steep_low, steep_high = [(0, 0), (1_000_000, 1_003_000_000)], [(0, 1_000_000), (1_000_000, 1_004_000_000)]
    assert clocksync._middle_slope(steep_low, steep_high, rooms(steep_low, steep_high)) is None


def rooms(upper, lower):
    return lambda b: min(y - b * x for x, y in lower) - max(y - b * x for x, y in upper)


def test_an_exchange_no_faster_than_the_slots_best_does_not_replace_it():
    sync = ClockSync(slot_ns=S)
    exchange(sync, 10 * S, offset_ns=0, rtt_ns=200 * US)
    exchange(sync, 10 * S + 100 * MS, offset_ns=50 * US, rtt_ns=200 * US)
    assert sync.points[0].sent_ns == 10 * S


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
    for ppm, believed in ((1500, True), (3000, False), (-1500, True), (-3000, False)):
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


# -- few exchanges, and a bound on the error (issue 39; the model: controller/bench/syncmodel.py) ------

def test_one_answered_exchange_a_second_holds_a_wandering_crystal():
    """A station that answers one PING in fifty (one exchange a second) over a Pico's link,
    its crystal 50 ppm fast ± 150 and wandering ±10 ppm over hours, in virtual time: the
    window keeps 150 s of its exchanges, and the error's p99 is 0.074 ms at this seed
    (0.45-0.55 ms with the 15 s window before; docs/crazy-kick.md, "Clock sync"). No press is
    beyond the sync's own bound, whose median is 0.18 ms and p99 0.34 ms; the bound that
    holds whatever the delays each way is 0.24 and 0.40: pairs 0.5 ms apart need not tie."""
    import statistics

    from controller.bench import syncmodel
    from controller.bench.measure import percentile
    found = syncmodel.sync_errors(seed=1, stations=10, seconds=300, answered=50, link="pico")
    assert percentile([abs(e) for e in found.errors_ns], 99) < 80 * US
    assert found.outside == 0                            # and no press beyond the sync's own bound
    assert statistics.median(found.bounds_ns) < 190 * US
    assert percentile(found.bounds_ns, 99) < 350 * US


def test_the_likely_bound_is_tighter_than_the_worst_and_still_holds():
    """Every exchange answered over a Pico's link (0.1-1.8 ms each way), in virtual time: the
    bound that holds whatever the delays each way cannot be under half the two ways' 0.1 ms
    floors (a delay the same both ways is an offset), 0.13 ms at its median; the likely one
    leaves out the lines that would need every quickest delay far from its floor: a fifth of
    that, and still no press beyond it."""
    import statistics

    from controller.bench import syncmodel

    class Worst(ClockSync):
        def error_ns(self, at_host_ns: int) -> int:
            return self.worst_error_ns(at_host_ns)

    likely = syncmodel.sync_errors(seed=3, stations=3, seconds=40, answered=1, link="pico")
    worst = syncmodel.sync_errors(seed=3, stations=3, seconds=40, answered=1, link="pico", make=Worst)
    assert likely.errors_ns == worst.errors_ns                      # the same line: only its bound differs
    assert likely.outside == worst.outside == 0 and likely.pairs_beyond_tie_window()[0] == 0
    assert statistics.median(worst.bounds_ns) > 100 * US
    assert statistics.median(likely.bounds_ns) < 40 * US
    assert all(b <= w for b, w in zip(likely.bounds_ns, worst.bounds_ns, strict=True))


def test_with_delays_all_alike_the_likely_bound_is_the_worst():
    """Every exchange takes 300 µs there and back: nothing says how far the quickest are from
    their floor (no spread near it), so no line is left out: the bound is half the round
    trip, as whatever the delays each way."""
    sync = ClockSync()
    for k in range(100):
        exchange(sync, 10 * S + k * S, offset_ns=0, rtt_ns=300 * US, ppm=40)
    now = 10 * S + 99 * S
    assert sync.error_ns(now) == sync.worst_error_ns(now)
    assert 150 * US <= sync.error_ns(now) < 160 * US


def test_a_crystal_wandering_as_fast_as_the_sync_allows_stays_within_the_bound():
    """The sync takes a drift's change to be at most WANDER_PER_S (0.05 ppm a second); a
    crystal wandering ±10 ppm over 1257 s changes exactly that fast at its quickest, and its
    change turns as fast as WANDER_TURN_PER_S2 allows: no press beyond the bound, one
    exchange a second or fifty, over a Pico's link and a USB-serial bridge's."""
    from controller.bench import syncmodel
    period = 2 * 3.141592653589793 * 10e-6 / clocksync.WANDER_PER_S
    assert 1250 < period < 1260
    for link, answered, seconds in (("pico", 50, 300), ("adapter", 50, 300), ("pico", 1, 40)):
        found = syncmodel.sync_errors(seed=4, stations=2, seconds=seconds, answered=answered, link=link,
                                      period_s=(period, period))
        assert found.errors_ns and found.outside == 0, (link, answered, found.outside)


def test_a_link_slower_one_way_moves_every_station_alike():
    """Two stations on the same kind of link, its quickest delay 1 ms longer out than back
    (1.1-2.8 ms out, 0.1-1.8 ms back): each sync maps a stamp about half that (0.5 ms) early
    and neither can know (an offset cannot be told from a delay one way longer),
    beyond its likely bound, which takes the quickest delays alike; the bound that holds
    whatever the delays each way holds it. Between the two stations the half millisecond
    cancels: two presses' stamps differ by their true gap within the two bounds together,
    the only thing a race asks of them."""
    import random

    from controller.bench.syncmodel import Link, WanderingCrystal, uniform
    from controller.table.arbiter import together
    rng = random.Random(7)
    link = Link(uniform(1_100_000, 2_800_000), uniform(100_000, 1_800_000))
    stations = []
    for _ in range(2):
        crystal = WanderingCrystal(rng.randrange(1 << 30), rng.uniform(-150, 150), 10, rng.uniform(3600, 10800),
                                   rng.uniform(0, 6.28))
        sync = ClockSync()
        stations.append((crystal, sync))
    t = S
    while t < 200 * S:
        for crystal, sync in stations:
            at_station, back = link.exchange(rng, t)
            sync.add(t, crystal.ticks(at_station), int(back))
        t += S
    for _ in range(200):
        press_a = t + rng.uniform(0, S)
        press_b = press_a + rng.uniform(-1 * MS, 1 * MS)
        (crystal_a, sync_a), (crystal_b, sync_b) = stations
        error_a = sync_a.to_host_ns(crystal_a.ticks(press_a)) - press_a
        error_b = sync_b.to_host_ns(crystal_b.ticks(press_b)) - press_b
        assert abs(error_a) > sync_a.error_ns(int(press_a)) and abs(error_b) > sync_b.error_ns(int(press_b))
        assert abs(error_a) <= sync_a.worst_error_ns(int(press_a))
        assert abs(error_a - error_b) <= together(sync_a.error_ns(int(press_a)), sync_b.error_ns(int(press_b)))


@pytest.mark.parametrize("link", ["adapter", "pico", "bursts", "host"])
def test_the_bound_holds_a_wandering_crystal_over_every_link_and_many_seeds(link):
    """One exchange a second, crystals wandering ±10 ppm over 1-3 hours, in virtual time:
    no press's error is beyond the sync's own bound on any link of the model, and no two
    stations' errors differ by more than their tie window (the bounds in quadrature). Until
    2026-11-28 the window's bend was added to the straight lines' spread, not counted in it
    (the lines between bounds each moved by it), and over a USB-serial bridge's 0-4 ms
    (seeds 2 and 5) hundreds of presses a seed were outside it, by up to twice it."""
    from controller.bench import syncmodel
    for seed in (2, 5):
        found = syncmodel.sync_errors(seed=seed, stations=2, seconds=200, answered=50, link=link)
        assert found.errors_ns and found.outside == 0, (seed, found.outside)
        # and no two stations' errors differ by more than their tie window (the bounds in quadrature)
        assert found.pairs_beyond_tie_window()[0] == 0, seed


def test_the_centre_of_the_lines_between_bounds_by_hand():
    """Lows (under the line) at x 0 and 1000 µs, highs 100 ns above them: the lines that
    pass make a parallelogram of (slope, value at x = 1000) whose centre is the nominal
    slope, 50 ns above the lows; a third low that cuts off the lines passing low at x = 0
    moves the centre up and the slope down, by the share it cut."""
    lows, highs = [(0, 0), (1000, 1_000_000)], [(0, 100), (1000, 1_000_100)]
    area, slope, value = clocksync._centroid(clocksync._upper_hull(lows), clocksync._lower_hull(highs), 1000)
    assert slope == pytest.approx(1000.0, abs=1e-9) and value == pytest.approx(1_000_050, abs=1e-6)
    assert area == pytest.approx(100 * 0.1)               # 100 ns of values by 0.1 ns/µs of slopes
    cut = clocksync._upper_hull(sorted(lows + [(1, 1050)]))     # at x = 1 µs: the line is 50 ns above the low at 0
    area2, slope2, value2 = clocksync._centroid(cut, clocksync._lower_hull(highs), 1000)
    assert area2 < area and slope2 < 1000.0 and value2 == pytest.approx(1_000_050, abs=1)
    assert clocksync._centroid(clocksync._upper_hull([(0, 0), (1000, 1_000_200)]),
                               clocksync._lower_hull(highs), 1000)[0] == 0      # no line passes
    # one exchange says nothing of the slope: the drift's bounds would cut the set
    assert clocksync._centroid([(0, 0)], [(0, 100)], 1000) is None


def test_the_centred_line_beats_the_middle_of_the_band_with_one_exchange_a_second():
    """One exchange a second over a Pico's link, crystals 50 ppm fast ± 150 wandering ±10 ppm
    over 1-3 hours, in the model's virtual time: the line that is the centre of every line
    the bounds allow over the drift's possible bends, fitted over 150 s, is nearer the true
    time than the middle of the band's slopes over 90 s (the line until 2026-11-28), seed by
    seed; and the sync's own bound still holds every press."""
    from controller.bench import syncmodel
    from controller.bench.measure import percentile

    class BandMiddle(ClockSync):
        """The line before: the middle of the slopes with at least half the most room."""

        def __init__(self) -> None:
            super().__init__(max_window_ns=90 * S)

        def _centred_line(self, *args, **kwargs):
            return None

    for seed in (1, 4):
        new = syncmodel.sync_errors(seed=seed, stations=3, seconds=300, answered=50, link="pico")
        old = syncmodel.sync_errors(seed=seed, stations=3, seconds=300, answered=50, link="pico", make=BandMiddle)
        p99_new, p99_old = (percentile([abs(e) for e in f.errors_ns], 99) for f in (new, old))
        assert p99_new < p99_old, (seed, p99_new, p99_old)
        assert new.outside == 0


def test_the_window_is_long_when_exchanges_are_few_and_short_when_they_are_many():
    sparse, dense = ClockSync(), ClockSync()
    for k in range(200):                                 # 200 s, one exchange a second
        exchange(sparse, 10 * S + k * S, offset_ns=0)
    for k in range(50 * 60):                             # a minute, fifty a second
        exchange(dense, 10 * S + k * 20 * MS, offset_ns=0)
    assert 149 <= len(sparse.points) <= 150              # the last 150 s
    assert len(dense.points) == 150                      # the last 15 s


def test_a_long_window_s_error_is_bounded_from_its_last_seconds_too():
    """One exchange a second keeps 150 s of them for the line, whose bend a wandering crystal
    could make 155 µs; the line's error is also bounded from its last 20-120 s alone, which
    bend far less, and the least bound holds: half the 300 µs round trip and a few µs, not
    the whole window's."""
    sync = ClockSync()
    for k in range(200):
        exchange(sync, 10 * S + k * S, offset_ns=0, rtt_ns=300 * US, ppm=40)
    now = 10 * S + 199 * S
    assert len(sync.points) == 150
    assert 150 * US <= sync.error_ns(now) < 160 * US


@settings(max_examples=60, deadline=None)
@given(ppm=st.floats(-1000, 1000), offset_us=st.integers(0, STATION_TICKS_MODULO - 1),
       gaps_ms=st.lists(st.integers(1, 3000), min_size=1, max_size=40),
       delays_us=st.lists(st.tuples(st.integers(0, 5000), st.integers(0, 5000)), min_size=40, max_size=40),
       press_after_ms=st.integers(0, 5000))
def test_a_straight_crystal_is_always_within_the_bound(ppm, offset_us, gaps_ms, delays_us, press_after_ms):
    """Whatever the exchanges' times and delays each way: a crystal whose drift does not
    change maps every stamp within the sync's bound that holds whatever the delays
    (``worst_error_ns``; a µs of the stamps' own rounding aside). The likely bound takes the
    quickest delays alike each way and spread near their floor, which such delays need not
    be."""
    sync = ClockSync()

    def ticks(host_ns: int) -> int:
        return (int(host_ns * (1 + ppm * 1e-6)) // 1000 + offset_us) % STATION_TICKS_MODULO

    t = 10 * S
    for gap, (down, up) in zip(gaps_ms, delays_us, strict=False):
        t += gap * MS
        sync.add(sent_ns=t, station_ticks=ticks(t + down * US), received_ns=t + (down + up) * US)
    press = t + press_after_ms * MS
    mapped = sync.to_host_ns(ticks(press))
    assert abs(mapped - press) <= sync.worst_error_ns(press) + 2 * US
    assert sync.error_ns(press) <= sync.worst_error_ns(press)


def test_the_bound_grows_with_the_time_since_the_newest_exchange_and_is_large_before_any():
    sync = ClockSync()
    assert sync.error_ns(10 * S) == clocksync.UNSYNCED_ERROR_NS
    for k in range(30):
        exchange(sync, 10 * S + k * S, offset_ns=0, rtt_ns=300 * US, ppm=40)
    now = 10 * S + 29 * S
    assert sync.error_ns(now) < 300 * US
    assert sync.error_ns(now) < sync.error_ns(now + 5 * S) < sync.error_ns(now + 30 * S)


def test_the_newest_exchange_is_known_to_the_link_s_quick_pings():
    """When the newest slot's tightest exchange came (its PONG's arrival): the link asks a
    station quickly when it is long ago (hardware.link.QuickPings); None before any."""
    sync = ClockSync()
    assert sync.newest_exchange_ns is None
    for k in range(30):
        exchange(sync, 10 * S + k * S, offset_ns=0, rtt_ns=300 * US, ppm=40)
    assert sync.newest_exchange_ns == 10 * S + 29 * S + 300 * US
