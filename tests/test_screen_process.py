"""The table's screen in a process of its own (display/screen_process.py): it draws what the
screen draws, a screen that falls behind never holds the table up, keys come back, a
screen that dies comes back, and one that cannot open says why."""

from __future__ import annotations

import logging
import multiprocessing
import threading
import time

import pygame
import pytest

from conftest import gone, stop_group, wait_until
from controller.games.crazykick import RULES
from controller.table import Table
from display.app import Screen
from display.screen_process import ScreenProcess, ScreenUnavailable, draw
from hardware.events import ButtonEvent


def crazy_kick_snapshots(count: int, players: int = 8) -> tuple[Table, list]:
    """A Crazy Kick table of ``players`` after ``count`` presses at random, and each snapshot."""
    import random
    ids = [f"s{i}" for i in range(players)]
    table = Table(RULES, config={"players": players}, seed=1, stations=ids)
    rng = random.Random(1)
    snapshots = []
    for n in range(count):
        table.handle(ButtonEvent(rng.choice(ids), n, rng.randrange(6), True, 0, n, n))
        snapshots.append(table.snapshot())
    return table, snapshots


def pixels(path) -> bytes:
    return pygame.image.tobytes(pygame.image.load(str(path)), "RGB")


def test_the_screens_process_draws_exactly_what_the_screen_draws(tmp_path):
    table, snapshots = crazy_kick_snapshots(40)
    screen = ScreenProcess(headless=True, lang="de")
    try:
        for snapshot in snapshots:
            screen.show(snapshot)
        screen.flush()
        wait_until(lambda: (screen.poll(), screen.frames)[1] >= 2, timeout=10)
        assert len(screen.frame_ns) == screen.frames and all(ns > 0 for ns in screen.frame_ns)
        screen.render(table.snapshot())
        screen.save(tmp_path / "process.png")
    finally:
        screen.close()
    here = Screen(headless=True, lang="de")
    here.render(table.snapshot())
    here.save(str(tmp_path / "here.png"))
    assert pixels(tmp_path / "process.png") == pixels(tmp_path / "here.png")


def test_a_screenshot_that_cannot_be_written_says_where_and_the_screen_goes_on(tmp_path):
    _, snapshots = crazy_kick_snapshots(2, players=4)
    screen = ScreenProcess(headless=True)
    try:
        screen.render(snapshots[-1])
        with pytest.raises(OSError, match="no-such-folder"):
            screen.save(tmp_path / "no-such-folder" / "shot.png")
        screen.save(tmp_path / "shot.png")
        assert (tmp_path / "shot.png").stat().st_size > 0
    finally:
        screen.close()


class PipeScreen(ScreenProcess):
    """A ScreenProcess whose other end is the test's, not a process: the test answers as the
    screen would, or does not."""

    def _start(self, wait: bool) -> None:
        self._conn, self.other = multiprocessing.Pipe()
        self._process, self._started_at, self._unseen = None, time.monotonic(), 0


def sent(other) -> list[tuple]:
    out = []
    while other.poll():
        out.append(other.recv())
    return out


def test_a_screen_that_falls_behind_gets_only_the_newest_snapshot_once_it_catches_up():
    _, snapshots = crazy_kick_snapshots(20, players=4)
    screen = PipeScreen(headless=True)
    for snapshot in snapshots:
        screen.show(snapshot)                   # never blocks: the screen takes nothing yet
    first = sent(screen.other)
    assert [m[1].revision for m in first] == [s.revision for s in snapshots[:ScreenProcess.MAX_UNSEEN]]
    assert not screen.wants_redraw()            # the pipe is full: the newest waits here
    screen.other.send(("seen", ScreenProcess.MAX_UNSEEN, [2_000_000, 3_000_000]))
    assert screen.wants_redraw()                # room again: the runner shows its newest
    screen.show(snapshots[-1])
    assert [m[1].revision for m in sent(screen.other)] == [snapshots[-1].revision]
    assert not screen.wants_redraw()
    assert screen.frames == 2 and list(screen.frame_ns) == [2_000_000, 3_000_000]
    assert not screen.settle(timeout=0.05)      # one snapshot not yet seen
    screen.other.send(("seen", 1, []))
    assert screen.settle(timeout=5)


def test_the_keyboard_at_the_screen_reaches_the_table_and_quit_too():
    screen = PipeScreen(headless=False)
    assert screen.interactive
    screen.other.send(("input", ("button", 2)))
    screen.other.send(("input", ("quit",)))
    wait_until(lambda: screen._conn.poll(), timeout=10)
    assert screen.poll() == [("button", 2), ("quit",)]
    assert screen.poll() == []


class FakeScreen:
    """What the screen's loop drives: it notes what it was told."""

    def __init__(self) -> None:
        self.told: list[tuple] = []
        self.frames = 0
        self.frame_ns: list[int] = []
        self.keys = [("button", 0)]

    def show(self, snapshot):
        self.told.append(("show", snapshot))
        self.frames += 1
        self.frame_ns.append(1000 + snapshot)

    def render(self, snapshot):
        self.told.append(("render", snapshot))

    def flush(self):
        self.told.append(("flush",))

    def set_lang(self, lang):
        self.told.append(("lang", lang))

    def save(self, path):
        if "bad" in path:
            raise OSError("cannot write")
        self.told.append(("save", path))

    def wants_redraw(self):
        return False

    def poll(self):
        keys, self.keys = self.keys, []
        return keys


def test_the_screens_loop_draws_answers_and_passes_the_keys_on_until_closed():
    table_end, screen_end = multiprocessing.Pipe()
    fake = FakeScreen()
    loop = threading.Thread(target=draw, args=(screen_end, fake), daemon=True)
    loop.start()
    for message in (("show", 1), ("show", 2), ("lang", "fr"), ("render", 3), ("save", "a.png"), ("save", "bad.png"),
                    ("flush",)):
        table_end.send(message)
    got = []

    def answered() -> bool:                     # the loop may take the messages over several turns
        got.extend(sent(table_end))
        return sum(m[1] for m in got if m[0] == "seen") == 2 and sum(m[0] == "saved" for m in got) == 2
    wait_until(answered, timeout=10)
    assert ("input", ("button", 0)) in got
    assert [m for m in got if m[0] == "saved"] == [("saved", None), ("saved", "bad.png: cannot write")]
    assert [ns for m in got if m[0] == "seen" for ns in m[2]] == [1001, 1002]     # how long each frame took
    table_end.send(("close",))
    loop.join(timeout=5)
    assert not loop.is_alive()
    assert fake.told == [("show", 1), ("show", 2), ("lang", "fr"), ("render", 3), ("save", "a.png"), ("flush",)]


def test_a_screen_process_that_dies_is_started_again_and_shows_the_newest(caplog):
    _, snapshots = crazy_kick_snapshots(3, players=4)
    screen = ScreenProcess(headless=True)
    try:
        screen.show(snapshots[0])
        wait_until(lambda: (screen.poll(), screen.frames)[1] >= 1, timeout=10)
        screen._process.kill()
        screen._process.join(timeout=5)
        screen.RESTART_S = 0.0
        with caplog.at_level(logging.ERROR, logger="display.screen_process"):
            wait_until(lambda: (screen.show(snapshots[-1]), screen.restarts)[1] >= 1, timeout=10)
        assert "the screen's process ended" in caplog.text
        drawn = screen.frames
        wait_until(lambda: (screen.poll(), screen.frames)[1] > drawn, timeout=30)
    finally:
        screen.close()


def test_a_screen_that_cannot_open_says_why(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "x11")         # the child opens a window on an X display
    monkeypatch.setenv("DISPLAY", ":97")                 # that is not there
    with pytest.raises(ScreenUnavailable, match="error"):
        ScreenProcess(headless=False)


def test_a_game_that_cannot_open_its_screen_stops_with_one_clear_line(monkeypatch):
    import contextlib
    from controller.app.play import make_screen
    monkeypatch.setenv("SDL_VIDEODRIVER", "x11")
    monkeypatch.setenv("DISPLAY", ":97")
    with contextlib.ExitStack() as stack, pytest.raises(SystemExit) as stopped:
        make_screen(stack, lang="en", headless=False, own_process=True)
    assert str(stopped.value).startswith("spieltisch: the screen cannot be opened:")
    assert "--headless" in str(stopped.value)


def test_the_screen_draws_a_held_back_frame_when_it_is_due_and_an_animation_again():
    """What the screen's loop calls when ``wants_redraw``: the frame the frame rate held
    back, once it is due; with none held back, the last snapshot again."""
    _, snapshots = crazy_kick_snapshots(2, players=4)
    now = [100.0]
    screen = Screen(headless=True, max_fps=20, clock=lambda: now[0])     # the frame rate on the test's clock
    screen.show(snapshots[0])
    now[0] += 0.03
    screen.show(snapshots[1])                   # within 50 ms of the first: held back
    assert screen.frames == 1 and not screen.wants_redraw()
    now[0] += 0.03
    assert screen.wants_redraw()                # more than 50 ms after the first: due
    screen.redraw()
    assert screen.frames == 2 and screen.last_snapshot is snapshots[1] and not screen.wants_redraw()
    screen.redraw()                             # an animation's next frame: the same snapshot again
    assert screen.frames == 3 and screen.last_snapshot is snapshots[1]
    assert len(screen.frame_ns) == 3


def test_what_the_snapshots_need_is_imported_before_the_screen_is_ready():
    """The first snapshot used to wait 0.4 s while unpickling imported the table's classes;
    a module that cannot be imported is said at once, as a screen that cannot open."""
    with pytest.raises(ScreenUnavailable, match="no_such_module"):
        ScreenProcess(headless=True, preload=("controller.table.no_such_module",))
    screen = ScreenProcess(headless=True, preload=("controller.table.table",))
    screen.close()


def test_a_closed_screen_is_not_started_again():
    screen = ScreenProcess(headless=True)
    screen.RESTART_S = 0.0
    screen._process.kill()
    screen._process.join(timeout=5)
    screen.close()
    _, snapshots = crazy_kick_snapshots(1, players=4)
    screen.show(snapshots[0])
    assert screen.poll() == [] and screen.restarts == 0 and screen._process is None


TABLE_PROCESS = """
import os, sys, time
sys.path.insert(0, {root!r})
from display.screen_process import ScreenProcess
if __name__ == "__main__":
    screen = ScreenProcess(headless=True)
    if sys.argv[1] == "leave":
        print(screen._process.pid, flush=True)
        sys.exit(0)                                # without closing its screen
    try:                                           # said from inside: a Ctrl-C may come at once
        print(screen._process.pid, flush=True)
        time.sleep(30)
    except KeyboardInterrupt:
        screen.close()
        print("closed", flush=True)
"""


def run_table_process(tmp_path, how: str):
    import subprocess
    import sys
    from pathlib import Path
    script = tmp_path / "table.py"
    script.write_text(TABLE_PROCESS.format(root=str(Path(__file__).resolve().parent.parent)))
    return subprocess.Popen([sys.executable, str(script), how], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)


def test_a_table_that_ends_without_closing_its_screen_takes_the_screen_with_it(tmp_path):
    """SDL turned the SIGTERM that ends a daemon process into a window-close event, and
    the table's process waited for its screen for ever."""
    table = run_table_process(tmp_path, "leave")
    try:
        out, _ = table.communicate(timeout=30)
        assert table.returncode == 0
        wait_until(lambda: gone(int(out.split()[0])), timeout=10)
    finally:
        stop_group(table)


def test_ctrl_c_closes_the_screen_without_a_traceback(tmp_path):
    import os
    import signal
    table = run_table_process(tmp_path, "stay")
    child = int(table.stdout.readline())
    os.killpg(table.pid, signal.SIGINT)               # the terminal's Ctrl-C: the whole group
    try:
        out, err = table.communicate(timeout=30)
        assert "closed" in out and "Traceback" not in err and "KeyboardInterrupt" not in err, err
        wait_until(lambda: gone(child), timeout=10)
    finally:
        stop_group(table)


def test_a_bug_in_drawing_is_one_line_in_the_log_and_the_screen_comes_back(caplog, capfd):
    """A view that fails on a snapshot ends the screen's process: the table's log says what
    and where in one line, no traceback reaches the terminal, and the screen is started
    again and draws the next good snapshot."""
    from types import SimpleNamespace
    _, snapshots = crazy_kick_snapshots(2, players=4)
    screen = ScreenProcess(headless=True, preload=("controller.table.table",))
    try:
        screen.RESTART_S = 0.0
        with caplog.at_level(logging.ERROR, logger="display.screen_process"):
            screen.show(SimpleNamespace(game="crazy-kick", revision=1, view={}, seats=(), message=None))
            wait_until(lambda: (screen.poll(), screen.restarts)[1] >= 1, timeout=10)
        ended = [line for line in caplog.messages if "the screen's process ended" in line]
        assert len(ended) == 1 and "KeyError" in ended[0] and "crazykick_view.py:" in ended[0]
        screen.show(snapshots[-1])
        wait_until(lambda: (screen.poll(), screen.frames)[1] >= 1, timeout=30)
    finally:
        screen.close()
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.skipif(__import__("shutil").which("Xvfb") is None, reason="needs Xvfb (apt-get install xvfb)")
def test_a_window_on_x11_does_not_load_the_gl_stack():
    """X11 takes the window's pixels itself; SDL's default texture path loaded OpenGL (under
    Xvfb, Mesa's llvmpipe: 100 MB more in the screen's process)."""
    import os
    import subprocess
    import sys
    from controller.bench.app import virtual_display
    probe = ("from display.app import Screen\n"
             "screen = Screen(lang='en', fullscreen=True, volume=0)\n"
             "screen.render(__import__('controller.bench.frames', fromlist=['x']).snapshots('partout', 1, 3)[-1])\n"
             "screen.present()\n"
             "maps = open('/proc/self/maps').read()\n"
             "print('gl' if 'libGL' in maps or '_dri.so' in maps or 'libLLVM' in maps else 'no gl', "
             "screen.window.get_size())\n")
    with virtual_display() as display:
        env = {k: v for k, v in os.environ.items() if k not in ("SDL_VIDEODRIVER", "SDL_FRAMEBUFFER_ACCELERATION")}
        out = subprocess.run([sys.executable, "-c", probe], env=dict(env, DISPLAY=display), capture_output=True,
                             text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[:2] == ["no", "gl"] and "(1920, 1080)" in out.stdout, out.stdout


def test_on_kmsdrm_the_screen_asks_sdl_for_gl_es_not_desktop_opengl(monkeypatch):
    """On a console without libGL.so.1, SDL's first choice (desktop OpenGL) was made over
    libGLESv2 and drew every frame black (seen in the virtual machine, tools/box_vm): on
    kmsdrm the screen asks for the GL ES 2 renderer, unless told otherwise."""
    import os
    import subprocess
    import sys
    probe = ("import pygame\n"
             "pygame.display.init()\n"
             "pygame.display.get_driver = lambda: 'KMSDRM'    # what SDL names the console's driver\n"
             "from display.app import Screen\n"
             "Screen(lang='en', fullscreen=True, volume=0)\n"
             "import os; print(os.environ.get('SDL_FRAMEBUFFER_ACCELERATION'))\n")
    env = {k: v for k, v in os.environ.items() if k != "SDL_FRAMEBUFFER_ACCELERATION"}
    out = subprocess.run([sys.executable, "-c", probe], env=dict(env, SDL_VIDEODRIVER="dummy"), capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[-1] == "opengles2", out.stdout
    told = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
                          env=dict(env, SDL_VIDEODRIVER="dummy", SDL_FRAMEBUFFER_ACCELERATION="opengl"))
    assert told.stdout.split()[-1] == "opengl", told.stdout


# -- what waiting costs (reviewer 2, finding 2) ----------------------------------------------------------

class QuietConn:
    """The screen's end of the pipe, with nothing ever coming: each poll's timeout noted, on a
    clock the test moves by it; closed after ``looks`` polls."""

    def __init__(self, clock: list[float], looks: int) -> None:
        self.clock = clock
        self.looks = looks
        self.timeouts: list[float] = []

    def poll(self, timeout: float = 0.0) -> bool:
        if timeout:
            self.timeouts.append(timeout)
            self.clock[0] += timeout
        if len(self.timeouts) >= self.looks:
            return True                                   # the close
        return False

    def recv(self):
        return ("close",)

    def send(self, message):
        pass


def test_a_quiet_screen_looks_ten_times_a_second_not_sixty(monkeypatch):
    """Nothing sent, no key, nothing held back: 60 looks a second for QUIET_AFTER_S, then
    ten (on a clock the test moves)."""
    import display.screen_process as sp
    clock = [0.0]
    monkeypatch.setattr(sp.time, "monotonic", lambda: clock[0])
    fake = FakeScreen()
    fake.keys = []
    fake.next_redraw_s = lambda: None                     # type: ignore[attr-defined]
    conn = QuietConn(clock, looks=600)
    draw(conn, fake)
    quick = [t for t in conn.timeouts if t == sp.POLL_S]
    slow = [t for t in conn.timeouts if t == sp.IDLE_POLL_S]
    assert len(quick) == pytest.approx(sp.QUIET_AFTER_S / sp.POLL_S, abs=2) and len(quick) + len(slow) == 600
    assert clock[0] > 30                                  # 600 looks took 35 s, not the 10 s of 60 a second


def test_a_screen_with_a_frame_due_keeps_looking_sixty_times_a_second(monkeypatch):
    import display.screen_process as sp
    clock = [0.0]
    monkeypatch.setattr(sp.time, "monotonic", lambda: clock[0])
    fake = FakeScreen()
    fake.keys = []
    fake.next_redraw_s = lambda: 0.01                     # type: ignore[attr-defined]
    conn = QuietConn(clock, looks=600)
    draw(conn, fake)
    assert set(conn.timeouts) == {sp.POLL_S}


def test_a_screen_in_its_own_process_wakes_the_table_instead_of_being_looked_at_sixty_times_a_second():
    """The turn-based runner and the how-to pages wait on their queue (a quarter of a second
    at most) when the screen wakes them; a key from the screen's process puts a Wake on it."""
    import queue

    from controller.app.howto import show_pages
    from controller.games import find_game
    from controller.table.runner import TableRunner, Wake

    class WakingScreen:
        interactive = True

        def __init__(self) -> None:
            self.wake = None
            self.shown = 0

        def wake_on_input(self, wake):
            self.wake = wake

        def show(self, snapshot):
            self.shown += 1

        def wants_redraw(self):
            return False

        def poll(self):
            return [("quit",)] if self.wake is None else []

    events: queue.SimpleQueue = queue.SimpleQueue()
    screen = WakingScreen()
    rules = find_game("partout")
    table = Table(rules, config={"players": 3}, seed=1, stations=["a", "b", "c"])
    runner = TableRunner(table, events, {}, screen=screen)
    waited: list[float] = []

    def take(timeout):
        waited.append(timeout)
        runner.stopped = True
        return []

    runner._take = take                                   # type: ignore[method-assign]
    runner.run(until_finished=False)
    assert waited == [0.25] and screen.wake is not None
    screen.wake()
    assert isinstance(events.get_nowait(), Wake)

    got: list[float] = []

    class Timed(queue.SimpleQueue):
        def get(self, block=True, timeout=None):
            got.append(timeout)
            raise queue.Empty

    pages_screen = WakingScreen()
    show_pages(pages_screen, Timed(), "partout", before_game=True, until=lambda: len(got) >= 1)
    assert got == [0.25]
