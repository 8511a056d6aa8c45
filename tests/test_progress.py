"""A station's progress (FENCE → UPTO / LOST, docs/stations.md "Progress"): the link turns
the answers into StationProgress events, and the simulated stations keep the promise by
construction: no event stamped before an answer's stamp is ever written after it."""

from __future__ import annotations

import os
import queue
import threading
import time
import tty

import pytest

from hardware.events import ButtonEvent, StationProgress
from hardware.hostclock import now_ns
from hardware.link import StationLink
from hardware.protocol import Frame, FrameDecoder, encode_frame, ticks_diff
from hardware.sim.station import SimulatedStation, StationClock

STATION_ID = f"prog{os.getpid()}"


def next_of(events: queue.Queue, kind: type, timeout: float = 3.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        event = events.get(timeout=max(0.01, deadline - time.monotonic()))
        if isinstance(event, kind):
            return event
    raise AssertionError(f"no {kind.__name__} within {timeout} s")


@pytest.fixture
def station():
    sim = SimulatedStation(STATION_ID).start()
    events: queue.Queue = queue.Queue()
    link = StationLink(sim.port, events).open()
    yield sim, link, events
    link.close()
    sim.close()


def test_a_fence_is_answered_after_the_stations_presses_with_its_progress_on_the_host_clock(station):
    sim, link, events = station
    assert link.fences
    sim.press(2, release=False)
    before = now_ns()
    assert link.fence()
    got: list = []
    while not got or not isinstance(got[-1], StationProgress):
        got.append(events.get(timeout=3))
    assert any(isinstance(e, ButtonEvent) and e.button == 2 for e in got)     # the press came ahead of it
    answer = got[-1]
    after = now_ns()
    assert answer.station == STATION_ID and answer.lost == 0 and not answer.backwards
    assert before <= answer.asked_ns <= answer.arrived_ns <= after
    # the station's stamp, mapped by clock sync: after the question left, before the answer came
    assert answer.asked_ns - 1_000_000 <= answer.upto_ns <= answer.arrived_ns + 1_000_000
    assert link.pending_fences == 0


def test_a_station_that_does_not_answer_fences_says_so_in_its_hello():
    sim = SimulatedStation(STATION_ID + "old", fences=False).start()
    events: queue.Queue = queue.Queue()
    link = StationLink(sim.port, events).open()
    try:
        assert not link.fences and "fence" not in link.capabilities
        link.fence()
        sim.press(1)                              # it still plays: its presses come
        assert isinstance(next_of(events, ButtonEvent), ButtonEvent)
        time.sleep(0.1)
        assert link.pending_fences == 1           # no answer came
    finally:
        link.close()
        sim.close()


def link_with_hello(clock=None) -> StationLink:
    link = StationLink("/dev/null", queue.Queue(), **({"clock": clock} if clock else {}))
    link.station_id = "e6614103e7452d2f"
    link._hello.set()
    return link


def test_an_answer_maps_the_stations_stamp_and_before_clock_sync_counts_from_its_arrival():
    link = link_with_hello()
    link._fences[3] = 1_000_000
    unsynced = link._to_event(Frame("UPTO", ("3", "500")), 4_000_000)
    assert unsynced == StationProgress("e6614103e7452d2f", 4_000_000, 1_000_000, 0, False, 4_000_000)
    link.sync.add(10_000_000, 10_000, 10_000_000)          # station µs 10 000 is host 10 ms
    link._fences[4] = 11_000_000
    synced = link._to_event(Frame("UPTO", ("4", "11500")), 12_000_000)
    assert synced.upto_ns == 11_500_000 and synced.asked_ns == 11_000_000 and synced.arrived_ns == 12_000_000


def test_an_answer_to_no_question_of_ours_is_ignored_and_an_answer_clears_the_older_questions():
    link = link_with_hello()
    assert link._to_event(Frame("UPTO", ("9", "500")), 1_000) is None and link.unasked_progress == 1
    link._fences.update({5: 1_000, 6: 2_000, 7: 3_000})
    answer = link._to_event(Frame("UPTO", ("6", "500")), 4_000)
    assert answer.asked_ns == 2_000 and link._fences == {7: 3_000}     # 5 will never be answered on its own
    for bad in (("7",), ("7", "x"), ("7", "-5"), ("7", "5", "-1")):
        with pytest.raises((ValueError, IndexError)):
            link._to_event(Frame("LOST" if len(bad) == 3 else "UPTO", bad), 5_000)


def test_lost_frames_and_a_stamp_that_went_back_are_said_in_the_event():
    link = link_with_hello()
    link._fences.update({1: 1_000, 2: 2_000, 3: 3_000, 4: 4_000})
    first = link._to_event(Frame("LOST", ("1", "1000", "38")), 10_000)
    assert first.lost == 38 and not first.backwards
    back = link._to_event(Frame("UPTO", ("2", "999")), 11_000)
    assert back.backwards and back.lost == 0
    again = link._to_event(Frame("UPTO", ("3", "1000")), 12_000)    # the stamp before it stands
    assert not again.backwards
    # across ticks_us's wrap at 2^30 µs: forwards, not backwards
    link._last_upto = (1 << 30) - 10
    assert not link._to_event(Frame("UPTO", ("4", "5")), 13_000).backwards


def test_the_answers_are_not_charged_to_a_flooding_stations_budget(station):
    """A race asks each station several times: its answers must come even when its
    presses are over budget (they are bounded by the table's own questions)."""
    sim, link, events = station
    link._events_bucket.tokens = -link.EVENT_BURST                 # its budget spent
    link.fence()
    assert isinstance(next_of(events, StationProgress), StationProgress)


# -- the simulated station keeps the promise by construction -----------------------------------------

def raw_station(**kw):
    """A simulated station read and written directly: (station, master side, decoder)."""
    sim = SimulatedStation(STATION_ID + "raw", **kw).start()
    fd = os.open(sim.port, os.O_RDWR | os.O_NOCTTY)
    tty.setraw(fd)
    return sim, fd


def read_frames(fd: int, until, timeout: float = 5.0) -> list:
    import select
    decoder, frames = FrameDecoder(), []
    deadline = time.monotonic() + timeout
    while not until(frames) and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            frames += decoder.feed(os.read(fd, 4096))
    return frames


def test_no_press_stamped_before_an_answer_is_written_after_it_whatever_the_threads_do():
    """Presses from one thread, questions from another, as fast as they come: in the
    bytes the station wrote, every press before an answer's stamp is ahead of it."""
    sim, fd = raw_station()
    frames: list = []
    try:
        stop = threading.Event()

        def press():
            for _ in range(2000):
                if stop.is_set():
                    return
                sim.press(0)

        def read():                              # the host's side reads all along, as a link does
            frames.extend(read_frames(fd, lambda f: stop.is_set() and any(
                k == "UPTO" and int(x[0]) == 200 for k, x in f), timeout=20))

        threads = [threading.Thread(target=press), threading.Thread(target=read)]
        for thread in threads:
            thread.start()
        for n in range(1, 201):
            os.write(fd, encode_frame("FENCE", n))
            time.sleep(0.0005)
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
    finally:
        os.close(fd)
        sim.close()
    answers = [(i, int(f.fields[1])) for i, f in enumerate(frames) if f.kind == "UPTO"]
    presses = [(i, int(f.fields[3])) for i, f in enumerate(frames) if f.kind == "BTN"]
    assert len(answers) > 100 and len(presses) > 100
    for i, upto in answers:
        assert all(j < i for j, stamp in presses if ticks_diff(stamp, upto) < 0)
    assert sim.restamped == 0


def test_a_press_dated_before_an_answer_already_sent_is_dated_at_that_answer():
    sim, fd = raw_station(station_clock=StationClock(offset_us=1000))
    try:
        os.write(fd, encode_frame("FENCE", 1))
        frames = read_frames(fd, lambda f: any(k == "UPTO" for k, _ in f))
        upto = int([f for f in frames if f.kind == "UPTO"][0].fields[1])
        sim.press(3, release=False, at_ns=now_ns() - 50_000_000)     # 50 ms ago: too late to say
        sim.press(4, release=False, at_ns=now_ns())
        frames = read_frames(fd, lambda f: len(f) >= 2)
    finally:
        os.close(fd)
        sim.close()
    assert [f.fields[1] for f in frames] == ["3", "4"]
    assert int(frames[0].fields[3]) == upto and ticks_diff(int(frames[1].fields[3]), upto) > 0
    assert sim.restamped == 1


def test_a_press_made_ahead_goes_out_at_its_time_or_before_the_next_answer_whichever_is_first():
    sim, fd = raw_station()
    try:
        now = now_ns()
        sim.will_press(1, now + 20_000_000)       # made in 20 ms
        sim.will_press(2, now + 10_000_000_000)   # and one in 10 s
        os.write(fd, encode_frame("FENCE", 1))
        first = read_frames(fd, lambda f: any(k == "UPTO" for k, _ in f))
        assert [f.kind for f in first] == ["UPTO"]                       # nothing has happened yet
        time.sleep(0.03)
        os.write(fd, encode_frame("FENCE", 2))    # the loop has not come to the press: the answer sends it
        second = read_frames(fd, lambda f: any(k == "UPTO" for k, _ in f))
        assert [(f.kind, f.fields[1:3]) for f in second[:2]] == [("BTN", ("1", "D")), ("BTN", ("1", "U"))]
        assert [(f.kind, f.fields[0]) for f in second[2:]] == [("UPTO", "2")]
        assert sim.station_clock.ticks(now + 20_000_000) == int(second[0].fields[3])
        assert sim.flush_presses() == 0           # already sent; the one in 10 s not yet made
    finally:
        os.close(fd)
        sim.close()


def test_the_stations_own_process_answers_fences_after_its_presses():
    """The simulated stations in a process of their own (a windowed demo's, the bots' at
    play) are the same SimulatedStation: a press made there comes ahead of the answer to a
    FENCE asked after it, and the answer's stamp is past the press."""
    from hardware.sim.process import StationsProcess
    with StationsProcess([{"station_id": STATION_ID + "proc", "seed": 1}]) as process:
        remote = process.stations[0]
        events: queue.Queue = queue.Queue()
        link = StationLink(remote.port, events).open()
        try:
            assert link.fences
            seq = remote.press(4, release=False)
            press = next_of(events, ButtonEvent)
            assert press.seq == seq and press.button == 4
            link.fence()
            answer = next_of(events, StationProgress)
            assert answer.upto_ns >= press.pressed_ns and answer.lost == 0 and not answer.backwards
        finally:
            link.close()
