"""The host's clock for every time the table compares: when a frame came in, when a PING
left and its PONG came back (the clock sync), a press's mapped time, and the arbiter's
holds and fences.

``CLOCK_MONOTONIC_RAW``: the kernel's clock counted from the hardware oscillator alone.
``CLOCK_MONOTONIC`` (``time.monotonic_ns``) is slewed by NTP: systemd-timesyncd corrects an
offset through the kernel's PLL, an eighth of it a second at short poll intervals, so 1 ms
of offset bends the clock's rate by about 125 ppm at once. The clock sync assumes the
host's rate changes no faster than a crystal's wander (hardware/clocksync.py,
``WANDER_PER_S``); a 20 ppm step took presses outside the sync's bound for half a minute
(reviewer 2, finding 4). The raw clock's rate is the oscillator's own: it drifts with its
temperature, slowly, as a station's crystal does.

Every process on the host reads the same raw clock, so a simulated station in a process
of its own stamps on it too (hardware/sim/). Where the system has no raw clock (not
Linux), the monotonic one.

>>> a = now_ns(); b = now_ns()
>>> b >= a
True
"""

from __future__ import annotations

import functools
import time
from typing import Callable


def _raw() -> Callable[[], int] | None:
    clock_id = getattr(time, "CLOCK_MONOTONIC_RAW", None)
    if clock_id is None:
        return None
    try:
        time.clock_gettime_ns(clock_id)
    except OSError:
        return None
    return functools.partial(time.clock_gettime_ns, clock_id)


now_ns: Callable[[], int] = _raw() or time.monotonic_ns


def now_s() -> float:
    """The same clock in seconds (a float): for the places that wait by it."""
    return now_ns() / 1e9
