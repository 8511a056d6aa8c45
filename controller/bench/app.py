"""The app as a person starts it: `spieltisch demo partout --headless` in a process of its
own, from launch to its first frame; and every game's demo at its largest table, headless
and in a window, for its peak memory.

Memory is a limit, not an average: each figure is the highest resident set seen. A windowed
demo is two or three processes (the table's, its screen's, and for Crazy Kick the simulated
stations'); its figure is the largest of them, beside the table's process alone and all of
them together. The window is full screen on a virtual X display (Xvfb, 1920×1080), as on
the TV; without Xvfb the windowed figures are left out and the bench says so on stderr.
A windowed demo plays on the real clock, so its bots play fast (``WINDOWED_THINK_S``, Crazy
Kick's ``WINDOWED_REACTION``) for ``WINDOWED_S``: a few hundred moves, each drawn."""

from __future__ import annotations

import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Iterator

from controller.bench.measure import Target
from controller.games import GAMES

LIMIT_MB = 150                     # a Pi Zero 2 or a Pi 3 shares its memory with the GPU
WINDOWED_S, WINDOWED_S_LONG = 10.0, 60.0
WINDOWED_THINK_S = 0.02
WINDOWED_REACTION = "100-250"
SAMPLE_S = 0.05                    # how often the processes' memory is looked at

TARGETS: dict[str, Target] = {
    "demo_first_frame_s": (1.5, "max", "s", "`spieltisch demo partout --headless`: start → first frame"),
    "demo_peak_mb": (LIMIT_MB, "max", "MB", "the largest process of any game's demo below, headless or windowed"),
}
for _name in sorted(GAMES):
    _players = max(GAMES[_name].player_counts)
    TARGETS[f"demo_peak_mb_{_name}_headless"] = (
        LIMIT_MB, "max", "MB", f"`spieltisch demo {_name} --players {_players} --headless`: peak resident memory")
    TARGETS[f"demo_peak_mb_{_name}_windowed"] = (
        LIMIT_MB, "max", "MB", "the same in a full-screen window (Xvfb): its largest process (the screen's)")
    TARGETS[f"demo_peak_mb_{_name}_windowed_table"] = (float("nan"), "info", "MB", "… the table's process")
    TARGETS[f"demo_peak_mb_{_name}_windowed_all"] = (
        float("nan"), "info", "MB", "… all its processes at once (highest sample; shared libraries counted in each)")


def _status_kb(pid: int, field: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _descendants(root: int) -> list[int]:
    """``root`` and every process under it, from /proc's parent links."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def peak_memory(argv: list[str], env: dict[str, str], timeout: float) -> tuple[float, float, float, int, str]:
    """Run ``argv``; (its largest process's peak, its own peak, the highest total of all its
    processes at one moment) in MB, its exit code and what it wrote on stderr. The largest process's peak
    is also the kernel's (``wait4``: the largest of the process and the children it waited
    for), so a peak between two samples is not missed."""
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=err)
        own_kb = largest_kb = total_kb = 0
        deadline = time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                proc.returncode = os.waitstatus_to_exitcode(status)
                break
            if time.monotonic() > deadline:
                proc.kill()
                proc.wait()
                raise RuntimeError(f"{' '.join(argv[2:])} did not end within {timeout:.0f} s")
            pids = _descendants(proc.pid)
            own_kb = max(own_kb, _status_kb(proc.pid, "VmHWM"))
            largest_kb = max([largest_kb] + [_status_kb(p, "VmHWM") for p in pids])
            total_kb = max(total_kb, sum(_status_kb(p, "VmRSS") for p in pids))
            time.sleep(SAMPLE_S)
        err.seek(0)
        said = err.read().decode(errors="replace")
    largest_kb = max(largest_kb, usage.ru_maxrss)          # Linux: KB
    return largest_kb / 1024, own_kb / 1024, total_kb / 1024, proc.returncode, said


@contextlib.contextmanager
def virtual_display() -> Iterator[str | None]:
    """A virtual X display at the TV's size (its name, ":N"), or None without Xvfb."""
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        yield None
        return
    read, write = os.pipe()
    server = subprocess.Popen([xvfb, "-displayfd", str(write), "-screen", "0", "1920x1080x24", "-nolisten", "tcp"],
                              pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    try:
        with os.fdopen(read) as answer:
            number = answer.readline().strip()
        yield f":{number}" if number else None
    finally:
        server.terminate()
        server.wait(timeout=10)


def demo_peak(game: str, display: str | None, seconds: float) -> tuple[float, float, float]:
    """A demo of ``game`` at its largest table, headless (``display`` None) or full screen on
    ``display`` for ``seconds`` of play: (largest process, table's process, all) in MB."""
    players = max(GAMES[game].player_counts)
    with tempfile.TemporaryDirectory(dir=os.path.expanduser("~")) as data_dir:
        env = dict(os.environ, SPIELTISCH_DATA=data_dir)
        argv = [sys.executable, "-m", "controller.app.cli", "demo", game, "--players", str(players), "--seed", "1"]
        if display is None:
            env["SDL_VIDEODRIVER"] = "dummy"
            argv.append("--headless")
            timeout = 300.0
        else:
            env.pop("SDL_VIDEODRIVER", None)
            env["DISPLAY"] = display
            argv += ["--fullscreen", "--timeout", f"{seconds:g}", "--think", str(WINDOWED_THINK_S)]
            if GAMES[game].realtime:
                argv += ["--reaction", WINDOWED_REACTION]
            timeout = seconds + 60
        largest, own, total, code, said = peak_memory(argv, env, timeout)
    stopped_in_time = display is not None and code == 1 and "did not finish within" in said
    if code != 0 and not stopped_in_time:
        raise RuntimeError(f"the {'headless' if display is None else 'windowed'} {game} demo failed ({code}): "
                           f"{said[-400:]}")
    return largest, own, total


def demo_start(seed: int) -> float:
    """Seconds from launch to the first frame drawn of a headless demo."""
    with tempfile.TemporaryDirectory(dir=os.path.expanduser("~")) as data_dir:
        env = dict(os.environ, SPIELTISCH_DATA=data_dir, SPIELTISCH_REPORT_FIRST_FRAME="1")
        start = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "controller.app.cli", "demo", "partout", "--headless",
                                 "--seed", str(seed)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _, err = proc.communicate(timeout=120)
        first = None
        for line in err.decode().splitlines():
            if line.startswith("first-frame "):
                first = float(line.split()[1]) - start
        if proc.returncode != 0 or first is None:
            raise RuntimeError(f"demo failed ({proc.returncode}): {err.decode()[-400:]}")
        return first


def figures(quick: bool = False, long: bool = False) -> dict[str, float]:
    out: dict[str, float] = {"demo_first_frame_s": statistics.median(demo_start(seed) for seed in range(3 if quick else 5))}
    for game in sorted(GAMES):
        out[f"demo_peak_mb_{game}_headless"] = demo_peak(game, None, 0)[0]
    with virtual_display() as display:
        if display is None:
            print("bench: no Xvfb, so the windowed demos' memory is not measured (apt-get install xvfb)",
                  file=sys.stderr)
        else:
            for game in sorted(GAMES):
                largest, own, total = demo_peak(game, display, WINDOWED_S_LONG if long else WINDOWED_S)
                out[f"demo_peak_mb_{game}_windowed"] = largest
                out[f"demo_peak_mb_{game}_windowed_table"] = own
                out[f"demo_peak_mb_{game}_windowed_all"] = total
    out["demo_peak_mb"] = max(v for k, v in out.items() if k.startswith("demo_peak_mb_") and
                              k.endswith(("_headless", "_windowed")))
    # the headline first, as before
    return {"demo_first_frame_s": out.pop("demo_first_frame_s"), "demo_peak_mb": out.pop("demo_peak_mb"), **out}
