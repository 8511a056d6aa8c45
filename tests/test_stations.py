"""Real-station faults through the real link: unplug and replug mid-game (the table
pauses and resumes, nothing accepted is lost), a station that hangs, a station that
floods, and clock sync over a link with delay, jitter, offset and drift."""

from __future__ import annotations

import collections
import json
import queue
import threading
import time

import pytest

from conftest import next_event, wait_until
from controller.table.eventlog import EventLog
from controller.games import find_game
from controller.table import Table
from hardware.events import ButtonEvent, StationHello, StationLost
from hardware.hostclock import now_ns
from hardware.link import StationLink, stable_path
from hardware.sim.station import SimulatedStation, StationClock


@pytest.fixture
def by_id(tmp_path):
    return tmp_path / "by-id"


def test_stable_path_finds_the_by_id_name(by_id):
    with SimulatedStation("s1", by_id_dir=by_id) as sim:
        assert stable_path(sim.pty, str(by_id)) == sim.port
        assert stable_path("/dev/not-a-station", str(by_id)) == "/dev/not-a-station"


def test_an_unplugged_station_is_reopened_by_its_by_id_path(by_id):
    events: queue.Queue = queue.Queue()
    sim = SimulatedStation("s1", by_id_dir=by_id).start()
    link = StationLink(sim.port, events).open()
    try:
        assert isinstance(events.get(timeout=2), StationHello)
        sim.unplug()
        lost = next_event(events, StationLost)
        assert lost.station == "s1" and not link.connected
        tried = link.reopen_attempts        # unplugged for a while: the link keeps trying
        wait_until(lambda: link.reopen_attempts >= tried + 3, what="three tries to reopen")
        assert not link.connected
        sim.replug()
        back = next_event(events, StationHello)
        assert back.station == "s1" and link.connected and link.reconnects >= 1
        sim.press(4)                        # the rebooted station counts from 0 again: no gap
        press = next_event(events, ButtonEvent)
        assert press.button == 4 and press.seq == 0 and link.gaps == 0
        assert link.led("00ff00") and sim.wait_for(lambda s: s.led == "00ff00")
    finally:
        link.close()
        sim.close()


def test_a_station_that_stops_answering_is_lost_and_found_again(by_id):
    events: queue.Queue = queue.Queue()
    sim = SimulatedStation("s1", by_id_dir=by_id).start()
    link = StationLink(sim.port, events)
    link.SILENCE_NS = 300_000_000
    link.open()
    try:
        next_event(events, StationHello)
        sim.freeze()                        # the firmware hangs, the cable stays in
        assert "stopped answering" in next_event(events, StationLost).reason
        sim.thaw()
        assert next_event(events, StationHello).station == "s1"
    finally:
        link.close()
        sim.close()


class Table3:
    """Partout for three at simulated stations behind real links, as `spieltisch play`."""

    def __init__(self, tmp_path, by_id):
        self.events: queue.Queue = queue.Queue()
        self.sims = [SimulatedStation(f"s{i}", by_id_dir=by_id).start() for i in range(3)]
        self.links = {}
        for sim in self.sims:
            link = StationLink(sim.port, self.events, flood_limit=False).open()
            self.links[link.station_id] = link
        self.store = EventLog(tmp_path / "t.db")
        self.table = Table(find_game("partout"), config={"players": 3, "mode": "virtual"}, seed=5,
                           stations=[s.station_id for s in self.sims], log_store=self.store)

    def pump(self, until, timeout=5.0):
        deadline = time.monotonic() + timeout
        while not until():
            event = self.events.get(timeout=max(0.01, deadline - time.monotonic()))
            for c in self.table.handle(event):
                self.links[c.station].send(c.kind, *c.args)

    def press(self, seat, button):
        sim = self.sims[seat]
        seq = sim.press(button)
        self.pump(lambda: self.table.processed.get(sim.station_id) == seq)

    def close(self):
        for link in self.links.values():
            link.close()
        for sim in self.sims:
            sim.close()
        self.store.close()


def test_unplug_mid_game_pauses_the_table_and_replug_resumes_it(tmp_path, by_id):
    t = Table3(tmp_path, by_id)
    try:
        t.pump(lambda: all(t.table.connected.values()) and t.events.empty())
        seat = t.table.rules.to_act(t.table.state)
        t.press(seat, 4)                       # OK: the bid shown (0) is made
        assert len(t.table.actions) == 1
        accepted = list(t.table.actions)

        t.sims[2].unplug()
        t.pump(lambda: t.table.paused_for == (2,))
        snap = t.table.snapshot()
        assert snap.paused_for == (2,) and not snap.seats[2].connected

        other = 0                              # a seat whose station is still there
        before = t.table.state
        t.press(other, 4)                      # nothing moves while seat 3 cannot play
        assert t.table.state is before and t.table.actions == accepted
        assert t.table.message.key == "paused" and t.table.message.refusal
        assert t.sims[other].wait_for(lambda s: ("LED", ("ff0000", "300")) in s.commands)

        t.sims[2].replug()
        t.pump(lambda: t.table.paused_for == ())
        assert t.table.message.key == "station_back"
        t.press(t.table.rules.to_act(t.table.state), 4)
        assert len(t.table.actions) == 2 and t.table.actions[0] == accepted[0]
        saved = t.store.unfinished("partout")[0]
        assert len(saved.actions) == 2          # every accepted action is in the log
    finally:
        t.close()


def test_a_flooding_station_is_held_to_its_budget_and_the_others_still_get_through():
    events: queue.Queue = queue.Queue()
    flooder, person = SimulatedStation("stuck").start(), SimulatedStation("person").start()
    links = [StationLink(s.port, events).open() for s in (flooder, person)]
    try:
        while not events.empty():
            events.get_nowait()
        started = time.monotonic()
        worker = threading.Thread(target=flooder.flood, args=(20_000,), daemon=True)
        worker.start()
        presses = [person.press(i % 6, release=False) for i in range(20)]
        got = []
        deadline = time.monotonic() + 10
        while len([e for e in got if e.station == "person"]) < 20 and time.monotonic() < deadline:
            got.append(events.get(timeout=5))
        while links[0].flood_dropped == 0 and time.monotonic() < deadline:
            got.append(events.get(timeout=5))  # the person may be through before the flood mounts
        flooder.close()                        # the stuck loop ends with the cable
        worker.join(5)
        elapsed = time.monotonic() - started
        from_person = [e.seq for e in got if isinstance(e, ButtonEvent) and e.station == "person"]
        assert from_person == presses           # every press of the person, in order
        while not events.empty():
            got.append(events.get_nowait())
        from_flooder = [e for e in got if isinstance(e, ButtonEvent) and e.station == "stuck"]
        budget = StationLink.EVENT_BURST + StationLink.EVENT_RATE * (elapsed + 0.5)
        assert len(from_flooder) <= budget and links[0].flood_dropped > 0
    finally:
        for link in links:
            link.close()
        flooder.close()
        person.close()


def test_an_event_budget_keeps_its_rate_during_a_flood_and_forgives_it_at_once():
    """10 s of a stuck loop at 10,000 events a second: the documented 100 a second still
    pass (not fewer: a dropped event costs nothing), and a press 20 ms after the flood is
    let through (before: a debt of about 41,000 tokens muted the station for minutes)."""
    from hardware.link import TokenBucket
    bucket = TokenBucket(StationLink.EVENT_RATE, StationLink.EVENT_BURST, 0)
    passed = sum(bucket.try_take(1, t * 100_000) for t in range(100_000))          # every 0.1 ms for 10 s
    assert StationLink.EVENT_RATE * 10 <= passed <= StationLink.EVENT_BURST + StationLink.EVENT_RATE * 10
    assert bucket.try_take(1, 10_000_000_000 + 20_000_000)


def test_the_byte_budgets_debt_is_bounded_by_one_burst():
    from hardware.link import TokenBucket
    bucket = TokenBucket(StationLink.BYTE_RATE, StationLink.BYTE_BURST, 0)
    for t in range(10_000):
        bucket.take(4096, t * 1_000_000)                      # 4 MB/s for 10 s
    assert bucket.take(10, 10_000_000_000) <= StationLink.BYTE_BURST + 10
    assert bucket.take(10, 10_000_000_000 + int(1e9 * 2 * StationLink.BYTE_BURST / StationLink.BYTE_RATE)) == 0


def test_a_station_that_flooded_plays_again_within_a_second_and_its_seat_is_told():
    """Once the link has read the flood (what the station sent before the press), the next
    press gets through: nothing of the flood is held against the station after it. Within
    a second of the flood's end on the link's own clock (the budgets forgive any flood in
    less: ``test_the_budgets_forgive_a_flood_of_any_length_within_a_burst``); how long a
    busy machine takes to read the flood is the machine's, so the test waits for it."""
    from hardware.events import StationFlooding
    frames = 5_000
    events: queue.Queue = queue.Queue()
    sim = SimulatedStation("stuck").start()
    link = StationLink(sim.port, events).open()
    try:
        while not events.empty():
            events.get_nowait()
        first = sim.last_seq + 1
        last = sim.flood(frames)                              # a stuck loop, then it recovers
        got: list = []

        def flood_read() -> bool:                             # every frame of it passed on or dropped
            try:
                while True:
                    got.append(events.get_nowait())
            except queue.Empty:
                pass
            passed = sum(1 for e in got if isinstance(e, ButtonEvent) and first <= e.seq <= last)
            return passed + link.flood_dropped >= frames
        wait_until(flood_read, 60, "the link to read the whole flood")
        dropped = link.flood_dropped
        seq = sim.press(2, release=False)                     # the person presses once it is quiet
        press = next_event(events, ButtonEvent, timeout=60)
        seen = collections.Counter(type(e).__name__ for e in got)
        assert press.seq == seq, (
            f"events {dict(seen)}, dropped {link.flood_dropped}, connected {link.connected}, "
            f"reconnects {link.reconnects}, bad frames {link.decoder.bad_frames}")
        assert link.flood_dropped == dropped > 0              # the press was not charged to the flood
        told = [e for e in got if isinstance(e, StationFlooding)]
        assert told and told[0].station == "stuck" and told[0].dropped >= 1
    finally:
        link.close()
        sim.close()


def test_the_budgets_forgive_a_flood_of_any_length_within_a_burst():
    """On the link's clock (virtual here): a flood of 10 s leaves the byte budget in debt by
    one burst at most, paid back in ``BYTE_BURST / BYTE_RATE`` s, and the event budget
    grants the next event within ``1 / EVENT_RATE`` s of the flood's end."""
    from hardware.link import TokenBucket
    second = 1_000_000_000
    rate, burst = StationLink.BYTE_RATE, StationLink.BYTE_BURST
    assert burst / rate < 1.0 and 1 / StationLink.EVENT_RATE < 1.0
    data = TokenBucket(rate, burst, 0)
    events = TokenBucket(StationLink.EVENT_RATE, StationLink.EVENT_BURST, 0)
    for ms in range(10_000):                                  # 4 kB and 200 events every millisecond
        data.take(4096, ms * 1_000_000)
        for _ in range(200):
            events.try_take(1, ms * 1_000_000)
    end = 10 * second
    assert 0 < data.take(0, end) <= burst                     # the debt: one burst at most, however long the flood
    assert data.take(0, end + second * burst // rate + 1_000) == 0
    assert not events.try_take(1, end)
    assert events.try_take(1, end + second // StationLink.EVENT_RATE)


def test_presses_carry_their_time_over_a_delayed_jittery_link():
    """0-4 ms each way at random, a station clock far off and 200 ppm fast: after a second
    of sync, the press time on the host clock is within a millisecond or two."""
    events: queue.Queue = queue.Queue()
    sim = SimulatedStation("far", link_delay_ms=(0, 4), station_clock=StationClock(123_456_789, 200), seed=3)
    sim.start()
    link = StationLink(sim.port, events).open()
    try:
        wait_until(lambda: len(link.sync.points) >= 3, timeout=10, what="a drift fit (3 sync slots)")
        errors = []
        for i in range(10):
            pressed_at = now_ns()
            sim.press(i % 6, release=False)
            event = next_event(events, ButtonEvent)
            assert event.arrived_ns >= pressed_at
            errors.append(abs(event.pressed_ns - pressed_at))
            time.sleep(0.02)
        errors.sort()
        assert errors[len(errors) // 2] < 2_000_000, errors
    finally:
        link.close()
        sim.close()


def test_spieltisch_stations_lists_stations_readers_and_silent_ports(tmp_path, capsys, monkeypatch):
    import os
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path / "data"))       # no table's log here
    import tty
    import controller.table.stations as stations
    from controller.app.cli import main
    from hardware.pn532 import PN532
    from hardware.sim.pn532_hsu import SimulatedPN532
    # the simulated devices answer from this process's threads, which a busy machine holds
    # back: generous deadlines, so that a late answer is not taken for none (a real station
    # or chip answers within milliseconds; the silent port waits them out)
    monkeypatch.setattr(stations, "HELLO_TIMEOUT_S", 3.0)
    monkeypatch.setattr(PN532, "TIMEOUT_S", 2.0)
    master, slave = os.openpty()
    tty.setraw(slave)
    station = SimulatedStation("e6614103e7452d2f", by_id_dir=tmp_path, link_delay_ms=(0.5, 1.5)).start()
    chip = SimulatedPN532("A10K3ZQ1", by_id_dir=tmp_path).start()
    try:
        code = main(["stations", "--port", station.port, "--port", chip.port, "--port", os.ttyname(slave)])
        listing = capsys.readouterr().out
        out = listing.splitlines()
        assert code == 0, listing
        assert out[0].split() == ["port", "kind", "station", "id", "firmware", "clock", "offset", "round", "trip",
                                  "clock", "error", "last", "seen", "late", "presses", "health"]
        row = next(line for line in out if "e6614103e7452d2f" in line)
        assert " station " in row and "sim-1.0" in row and row.count(" ms") == 3 and "s ago" in row, listing
        assert "loop ≤ 0.8 ms" in row and "reader ok" in row and "KB free" in row, listing
        rtt = float(row.split(" ms")[1].split()[-1])
        assert rtt >= 1.0, listing                 # the two delays at least, each way
        assert any("pn532:usb-FTDI" in line and " reader " in line and "pn532-1.6" in line for line in out), listing
        assert any(os.ttyname(slave) in line and "no HELLO" in line for line in out), listing
        main(["stations", "--json", "--port", station.port])
        row = json.loads(capsys.readouterr().out.splitlines()[0])
        assert row["id"] == "e6614103e7452d2f" and row["capabilities"]["buttons"] == "6"
        assert row["round_trip_ms"] >= 1.0 and row["clock_offset_ms"] is not None
        assert row["stats"]["reader"] == "ok" and int(row["stats"]["loop_us"]) > 0    # the station's STAT
        # the sync's bound (µs) and the exchanges answered of those asked, in its 1.5 s of listening
        assert 0 < row["clock_error_us"] < 5000 and 10 <= row["exchanges"][0] <= row["exchanges"][1]
    finally:
        station.close()
        chip.close()
        os.close(master)
        os.close(slave)


def test_the_stations_own_delay_is_taken_out_of_the_round_trip():
    """Firmware 1.1 stamps when the PING came and when the PONG left (NTP style): a station
    that answers 5 ms late is as well synchronised as a quick one."""
    from hardware.clocksync import ClockSync
    quick, slow = ClockSync(), ClockSync()
    offset_us = 7_000_000                           # host µs = station µs + 7 s
    for k in range(20):
        sent = 1_000_000_000 + k * 600_000_000      # host ns
        wire = 400_000                               # 0.4 ms each way
        arrives_us = (sent + wire) // 1000 - offset_us
        quick.add(sent, arrives_us, sent + 2 * wire)
        slow.add(sent, arrives_us, sent + 2 * wire + 5_000_000, turnaround_us=5_000)
    assert quick.round_trip_ns == slow.round_trip_ns == 800_000
    assert abs(quick.offset_ns - slow.offset_ns) < 1_000
    stamp = 1_000_000 + 123                           # a press, station µs
    assert abs(slow.to_host_ns(stamp) - (stamp + offset_us) * 1000) < 1_000


def test_stat_and_err_frames_are_kept_and_a_pong_with_two_stamps_syncs(tmp_path):
    import queue
    from hardware.link import StationLink
    from hardware.protocol import Frame
    link = StationLink("/dev/null", queue.Queue())
    link.station_id = "e6614103e7452d2f"
    link._hello.set()
    link._to_event(Frame("STAT", ("loop_us=1500", "reader=missing", "reader_failures=4", "free=90000")), 10)
    link._to_event(Frame("ERR", ("command", "LED")), 11)
    link._to_event(Frame("ERR", ("crash", "ValueError%20boom")), 12)
    assert link.stats == {"loop_us": "1500", "reader": "missing", "reader_failures": "4", "free": "90000"}
    assert link.errors == [("command", "LED"), ("crash", "ValueError boom")]
    from controller.table.stations import health
    words = health({"stats": link.stats, "errors": link.errors})
    assert words == "loop ≤ 1.5 ms, reader missing (4 failures), 87 KB free, last error: crash ValueError boom"
    # firmware 1.5: how often its reader's answers were made shorter after one was cut off
    assert health({"stats": {"reader": "ok", "reader_cut": "2", "free": "90000"}}) == \
        "reader ok, 2 card reads cut short, 87 KB free"
    link._pings[3] = 1_000_000
    link._to_event(Frame("PONG", ("3", "500", "2500")), 4_200_000)
    assert link.sync.round_trip_ns == 3_200_000 - 2_000_000


def test_spieltisch_stations_shows_the_late_presses_the_table_counted(tmp_path, capsys, monkeypatch):
    """A press that comes after its race was decided is counted for its station in the
    match's result, which the log keeps; ``spieltisch stations`` shows the count beside the
    station, so an owner sees which link loses races."""
    import queue
    from controller.app.cli import main
    from controller.games.crazykick import RULES
    from controller.table import Table
    from controller.table.eventlog import EventLog
    from controller.table.realtime import RealtimeRunner
    from hardware.events import ButtonEvent
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    station = SimulatedStation("e6614103e7452d2f").start()
    ids = ["e6614103e7452d2f", "other-b", "other-c", "other-d"]
    with EventLog(tmp_path / "spieltisch.db") as store:
        for late_ones in (2, 1):                          # two matches; the station at seat 0 is slow
            table = Table(RULES, config={"players": 4}, seed=1, stations=ids, log_store=store)
            runner = RealtimeRunner(table, queue.Queue(), {})
            runner.accept(ButtonEvent("other-b", 1, 3, True, 0, 1_000_500_000, 1_000_000_000))
            runner.clock = lambda: 1_100_000_000
            runner.release()
            for k in range(late_ones):                     # stamped before the press already released
                runner.accept(ButtonEvent(ids[0], 2 + k, 3, True, 0, 1_030_000_000, 990_000_000))
            assert table.result()["late_presses"] == {"0": late_ones}
            store.finish(table.game_id, table.result())    # as the table does when the match ends
    try:
        assert main(["stations", "--port", station.port]) == 0
        row = next(line for line in capsys.readouterr().out.splitlines() if "e6614103e7452d2f" in line)
        assert "3 in 2 games" in row
        main(["stations", "--json", "--port", station.port])
        assert json.loads(capsys.readouterr().out.splitlines()[0])["late_presses"] == {"presses": 3, "games": 2}
    finally:
        station.close()


def test_a_station_whose_clock_is_unsure_is_named_in_spieltisch_stations():
    from controller.table.stations import clock_error_text, format_table
    sure = {"clock_error_us": 40, "exchanges": [75, 75]}
    unsure = {"clock_error_us": 320, "exchanges": [2, 75]}
    assert clock_error_text(sure) == "±40 µs (75/75)"
    assert clock_error_text(unsure) == "±320 µs (2/75) UNSURE: close presses tie"
    assert clock_error_text({"clock_error_us": None}) == "–"
    row = dict(unsure, port="/dev/ttyACM0", kind="station", id="e661", firmware="1.5.1", clock_offset_ms=1.0,
               round_trip_ms=0.4, last_seen_s=0.1)
    assert "±320 µs (2/75) UNSURE" in format_table([row])


def test_spieltisch_stations_listens_as_long_as_the_screen_waits_while_a_bound_is_unsure():
    """A station whose bound comes down under 0.25 ms after 6 s (a fresh sync over a slow
    link) is not named: the command listens on while a bound is above it, up to the 10 s the
    screen waits before it names one; with every bound under it, 1.5 s is enough; a bound
    that wavers about the line is not named; one above it all 10 s is. On a fake clock
    (reviewer 2, finding 1: a 1.5 s listen named healthy stations)."""
    from controller.table.realtime import POOR_CLOCK_NS
    from controller.table.stations import clock_error_text, listen

    class Sync:
        ready = True

        def __init__(self, error):
            self.error = error

        def error_ns(self, at_host_ns):
            return self.error(at_host_ns)

    class Found:
        def __init__(self, error):
            self.sync = Sync(error)

    now = [0]

    def sleep(seconds):
        now[0] += int(seconds * 1e9)

    clock = lambda: now[0]                                   # noqa: E731
    settling = Found(lambda at: 400_000 if at < 6_000_000_000 else 200_000)
    assert listen([Found(lambda at: 40_000), settling, "a port that said nothing"], 1.5, clock=clock,
                  sleep=sleep) == [False, False, False]
    assert 6_000_000_000 <= now[0] < 6_200_000_000
    now[0] = 0
    assert listen([Found(lambda at: 40_000)], 1.5, clock=clock, sleep=sleep) == [False]
    assert now[0] == 1_500_000_000
    now[0] = 0
    wavering = Found(lambda at: 240_000 if 4_000_000_000 <= at < 4_300_000_000 else 290_000)
    assert listen([Found(lambda at: 400_000), wavering], 1.5, clock=clock, sleep=sleep) == [True, False]
    assert POOR_CLOCK_NS <= now[0] < POOR_CLOCK_NS + 200_000_000
    row = {"clock_error_us": 290, "exchanges": [500, 500]}
    assert clock_error_text(dict(row, clock_unsure=False)) == "±290 µs (500/500)"
    assert clock_error_text(dict(row, clock_unsure=True)).endswith("UNSURE: close presses tie")
