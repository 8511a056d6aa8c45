"""The app as a person starts it: `spieltisch demo partout --headless` in a process of its
own, from launch to its first frame, and its peak memory."""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from controller.bench.measure import Target

TARGETS: dict[str, Target] = {
    "demo_first_frame_s": (1.5, "max", "s", "`spieltisch demo partout --headless`: start → first frame"),
    "demo_peak_mb": (150, "max", "MB", "its peak resident memory"),
}


def demo_start(seed: int) -> tuple[float, float]:
    """(seconds from launch to the first frame drawn, peak RSS in MB) of a headless demo."""
    with tempfile.TemporaryDirectory(dir=os.path.expanduser("~")) as data_dir:
        env = dict(os.environ, SPIELTISCH_DATA=data_dir, SPIELTISCH_REPORT_FIRST_FRAME="1")
        start = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "controller.app.cli", "demo", "partout", "--headless",
                                 "--seed", str(seed)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _, err = proc.communicate(timeout=120)
        # Peak RSS of the largest child so far; the figure reported is the max over runs anyway.
        peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        first = None
        for line in err.decode().splitlines():
            if line.startswith("first-frame "):
                first = float(line.split()[1]) - start
        if proc.returncode != 0 or first is None:
            raise RuntimeError(f"demo failed ({proc.returncode}): {err.decode()[-400:]}")
        return first, peak_kb / 1024


def figures(quick: bool = False) -> dict[str, float]:
    starts = [demo_start(seed) for seed in range(3 if quick else 5)]
    # the largest peak seen: memory is a limit, not an average
    return {"demo_first_frame_s": statistics.median(s for s, _ in starts),
            "demo_peak_mb": max(m for _, m in starts)}
