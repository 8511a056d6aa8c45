"""Simulated stations in a process of their own (hardware/sim/process.py): what a person
does at them reaches the table's links as from the stations in the table's process, the
sequence numbers counted on the table's side are the frames', and the process ends with
the table's, whatever way that ends."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import time

import pytest

from hardware.events import ButtonEvent, TagEvent, TagGone
from hardware.hostclock import now_ns
from hardware.link import StationLink
from hardware.protocol import STATION_TICKS_MODULO
from hardware.sim.process import StationsProcess, StationsProcessError
from tests.conftest import gone, next_event, stop_group, wait_until

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def two_stations():
    events: queue.Queue = queue.Queue()
    process = StationsProcess([{"station_id": "far-1", "seed": 1}, {"station_id": "far-2", "seed": 2}])
    links = [StationLink(station.port, events, flood_limit=False).open() for station in process.stations]
    yield process, events
    for link in links:
        link.close()
    process.close()


def test_presses_and_taps_reach_the_table_with_the_sequence_numbers_counted_here(two_stations):
    process, events = two_stations
    first, second = process.stations
    assert [link.station_id for link in (first, second)] == ["far-1", "far-2"]
    at = now_ns() - 3_000_000                      # the moment the finger went down
    assert first.press(4, at_ns=at) == 1                     # D is frame 0, U frame 1
    down = next_event(events, ButtonEvent)
    up = next_event(events, ButtonEvent)
    assert (down.station, down.seq, down.button, down.pressed) == ("far-1", 0, 4, True)
    assert down.station_us == (at // 1000) % STATION_TICKS_MODULO     # stamped when it was made
    assert (up.seq, up.pressed) == (1, False)
    assert second.tap("04a1b2c3d4e5f6", "partout:red5") == 0 and second.last_seq == 0
    tag = next_event(events, TagEvent)
    assert (tag.station, tag.seq, tag.uid, tag.text) == ("far-2", 0, "04A1B2C3D4E5F6", "partout:red5")
    assert second.take_away("04a1b2c3d4e5f6") == 1
    assert isinstance(next_event(events, TagGone), TagGone)
    assert first.press(0, release=False) == 2                 # a press held down: one frame
    held = next_event(events, ButtonEvent)
    assert (held.seq, held.pressed) == (2, True) and isinstance(held, ButtonEvent)
    assert isinstance(tag, TagEvent)


def test_a_button_the_station_does_not_have_is_refused_and_costs_no_sequence_number(two_stations):
    process, events = two_stations
    station = process.stations[0]
    with pytest.raises(ValueError, match="buttons 0..5"):
        station.press(6)
    assert station.press(2) == 1 and station.last_seq == 1
    assert next_event(events, ButtonEvent).seq == 0


def test_a_line_the_stations_cannot_do_is_one_line_and_they_go_on(capfd):
    events: queue.Queue = queue.Queue()
    with StationsProcess([{"station_id": "far-1"}]) as process:       # started here: its stderr is captured
        link = StationLink(process.stations[0].port, events, flood_limit=False).open()
        try:
            process._process.stdin.write(b'["press", 7, 0, true, 0]\n["jump", 0]\nnot json\n')
            process._process.stdin.flush()
            assert process.stations[0].press(3) == 1
            assert next_event(events, ButtonEvent).station == "far-1"
        finally:
            link.close()
    err = capfd.readouterr().err
    assert err.count("simulated stations: cannot do") == 3 and len(err.strip().splitlines()) == 3, err
    assert "'jump'" in err and "Traceback" not in err


def test_pressing_after_the_process_ended_says_the_station_is_not_plugged_in(two_stations):
    process, _ = two_stations
    process._process.kill()
    process._process.wait(timeout=10)
    with pytest.raises(StationsProcessError, match="far-1 is not plugged in") as raised:
        process.stations[0].press(1)
    assert isinstance(raised.value, RuntimeError)          # as an unplugged simulated station: bots wait


def test_stations_that_cannot_start_say_so_in_one_line(capfd):
    with pytest.raises(StationsProcessError, match="did not start"):
        StationsProcess([{"station_id": "far-1", "wheels": 4}])
    err = capfd.readouterr().err
    assert "simulated stations: TypeError" in err and "Traceback" not in err


TABLE = """
import sys, time
sys.path.insert(0, {root!r})
from hardware.sim.process import StationsProcess
process = StationsProcess([{{"station_id": "far-1"}}])
try:
    print(process._process.pid, flush=True)
    time.sleep(30)
except KeyboardInterrupt:
    process.close()
    print("closed", flush=True)
"""


@pytest.mark.parametrize("how", ["killed", "ctrl-c"])
def test_the_stations_process_ends_with_the_tables_without_a_traceback(tmp_path, how):
    script = tmp_path / "table.py"
    script.write_text(TABLE.format(root=ROOT))
    table = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, start_new_session=True)
    try:
        stations = int(table.stdout.readline())
        if how == "killed":                          # no clean-up at all: the pipe closes with it
            table.kill()
        else:
            os.killpg(table.pid, signal.SIGINT)      # the terminal's Ctrl-C reaches the whole group
        out, err = table.communicate(timeout=30)
        wait_until(lambda: gone(stations), timeout=10, what="the stations' process to end")
        if how == "ctrl-c":
            assert "closed" in out and "Traceback" not in err and "KeyboardInterrupt" not in err, err
    finally:
        stop_group(table)


# -- who uses it ----------------------------------------------------------------------------------------

def test_a_real_time_games_stations_on_the_real_clock_are_in_a_process_of_their_own():
    import contextlib
    from controller.app.demo import demo_stations
    from controller.app.play import seat_bots
    from controller.table.realtime import SimulatedTime
    from hardware.sim.station import SimulatedStation
    from hardware.sim.process import RemoteStation
    with contextlib.ExitStack() as stack:
        watched = demo_stations(3, stack, realtime=True, simulated=None)      # a demo someone watches
        assert all(isinstance(s, RemoteStation) for s in watched)
        assert [s.station_id for s in watched] == ["sim-1", "sim-2", "sim-3"]
        headless = demo_stations(2, stack, realtime=True, simulated=SimulatedTime(0))
        turns = demo_stations(2, stack, realtime=False, simulated=None)
        assert all(isinstance(s, SimulatedStation) for s in headless + turns)
        bots = seat_bots(2, stack, realtime=True)
        assert all(isinstance(s, RemoteStation) for s in bots) and [s.station_id for s in bots] == ["bot-1", "bot-2"]
        assert all(isinstance(s, SimulatedStation) for s in seat_bots(1, stack, realtime=False))
        assert seat_bots(0, stack, realtime=True) == []
        process = watched[0]._process._process
    assert process.returncode == 0                          # closed with the stack


def test_a_watched_crazy_kick_demo_plays_on_the_real_clock_through_the_stations_process(tmp_path, monkeypatch):
    """The windowed demo's path (real clock, USB's 0-4 ms, stations in their own process),
    with an in-process screen that says it is watched."""
    import controller.app.demo as demo
    from controller.bots.crazykick import Reaction
    from display.app import Screen
    from hardware.events import ButtonEvent
    shown = []
    delays = []

    def watched_screen(stack, **options):
        screen = Screen(lang="en", headless=True, max_fps=30, volume=0)
        screen.interactive = True
        stack.callback(screen.close)
        original = screen.show
        screen.show = lambda snapshot: (shown.append(snapshot), original(snapshot))
        return screen
    monkeypatch.setattr(demo, "make_screen", watched_screen)
    accept = demo.RealtimeRunner.accept

    def noted(self, event):
        if isinstance(event, ButtonEvent) and event.pressed:
            delays.append(event.arrived_ns - event.pressed_ns)
        return accept(self, event)
    monkeypatch.setattr(demo.RealtimeRunner, "accept", noted)
    with pytest.raises(TimeoutError):                     # a match takes minutes at human speed
        demo.run_demo("crazy-kick", players=3, seed=4, headless=False, data_dir=tmp_path, timeout=5,
                      reaction=Reaction.parse("150-300"))
    last = shown[-1]
    assert last.action_count > 0 and set(last.processed) == {"sim-1", "sim-2", "sim-3"}
    # the presses went through the stations' process, which holds each frame for USB's 0-4 ms
    # (its median 2 ms; a busy machine only adds to it). How late they come on this machine
    # is a figure, not a test: `spieltisch bench --only race` (the link's delay, the
    # simulation's own lateness)
    assert len(delays) >= 10 and sorted(delays)[len(delays) // 2] >= 1_000_000


# -- the simulated USB wire ---------------------------------------------------------------------

def test_each_wire_delivers_in_order_never_sooner_than_its_delay_and_a_closed_one_drops_what_it_carries():
    """Every simulated wire of a process shares one timeline (hardware/sim/station.py, _Timeline):
    each item leaves no sooner than the delay drawn for it, a wire's items leave in the order
    they were given (USB does not reorder), two wires do not wait on each other, and a wire
    unplugged drops what it still carries."""
    import random
    import threading
    from hardware.sim.station import _DelayLine
    left: list[tuple[str, int, float]] = []
    done = threading.Event()
    fast = _DelayLine((0.5, 1.0), random.Random(1))
    slow = _DelayLine((30.0, 40.0), random.Random(2))
    dropped = _DelayLine((30.0, 40.0), random.Random(3))
    given: dict[tuple[str, int], float] = {}
    for n in range(40):
        for name, wire in (("fast", fast), ("slow", slow), ("dropped", dropped)):
            given[(name, n)] = time.monotonic()
            wire.later(lambda name=name, n=n: left.append((name, n, time.monotonic())))
    dropped.close()
    slow.later(done.set)
    assert done.wait(5.0), "the slow wire's last item never left"
    by_wire = {name: [(n, at) for w, n, at in left if w == name] for name in ("fast", "slow", "dropped")}
    assert [n for n, _ in by_wire["fast"]] == list(range(40))
    assert [n for n, _ in by_wire["slow"]] == list(range(40))
    assert by_wire["dropped"] == []
    low = {"fast": 0.5e-3, "slow": 30e-3}
    assert all(at - given[(name, n)] >= low[name] for name in low for n, at in by_wire[name])
    # the fast wire's items did not wait behind the slow wire's
    assert max(at for _, at in by_wire["fast"]) < min(at for _, at in by_wire["slow"])
    assert len(fast.lateness_ns) == 40 and min(fast.lateness_ns) >= 0


def test_a_station_whose_host_does_not_read_holds_up_no_other_station():
    """The wires' one thread never waits for a port: a station whose host stopped reading
    keeps what it cannot send, and the other stations' frames still leave on time (their
    host is reading)."""
    import select as select_module
    from hardware.sim.station import SimulatedStation
    with SimulatedStation("unread", link_delay_ms=(0.5, 1.0)) as unread, \
            SimulatedStation("read", link_delay_ms=(0.5, 1.0)) as read:
        port = os.open(read.port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        held = os.open(unread.port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)   # open, never read
        try:
            import threading                            # (a flood waiting on the port must not hang the test)
            threading.Thread(target=unread.flood, args=(20_000,), daemon=True).start()   # ~0.4 MB
            time.sleep(0.3)                             # its frames are due, and the pty is full
            read.press(0)
            got = b""
            deadline = time.monotonic() + 5.0
            while b"BTN" not in got and time.monotonic() < deadline:
                ready, _, _ = select_module.select([port], [], [], 0.1)
                if ready:
                    got += os.read(port, 4096)
            assert b"BTN" in got, got[-200:]
        finally:
            os.close(port)
            os.close(held)
