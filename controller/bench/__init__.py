"""``spieltisch bench``: the speed and memory figures the issues ask for, as medians over
repeated runs (this machine is shared and noisy; nothing here is a pass/fail test).

One module per area, each with its ``TARGETS`` and ``figures(quick)`` (and ``long``, when
the area has a longer run: ``spieltisch bench --long``); a figure is one entry of a flat
name → value mapping, so a new game adds its own. The default run takes about five minutes
on a quiet 2-core machine (ten at most on a busy one). Each area's time and CPU time go to
stderr: an area that took far longer than its CPU time waited for a busy machine's cores.
The areas:

- ``rules.py``: each rules core alone (rounds/s, whole bot matches)
- ``balance.py``: Crazy Kick with equal bots: each team's, the kick-off team's and each
  side's share of wins and goals
- ``teamup.py``: Team UP!'s placement checks and its solver
- ``table.py``: a station's frame → the action durably in the log, beside a bare flush of
  the same disk; Crazy Kick's press → answer on a slow disk; resuming 10,000 logged actions
- ``app.py``: the demo as a person starts it (first frame), and every game's peak memory
  at its largest table, headless and in a window
- ``fairness.py``: clock sync, the arbiter's ordering and hold on a model (real-time games)
- ``race.py``: the same on the real path: pty stations, links with their pings, the runner,
  on the host's clock (about 40 s: 10 s of sync first)
- ``stations.py``: decoding, and a press → the table's queue, alone and beside a flood
- ``cards.py``: tap to screen: the firmware's reader on simulated chip timing, the host's link, per step
- ``loop.py``: the real firmware in the loop, under MicroPython (WebAssembly, not an RP2040):
  a card's tap → the host's event through the datasheet-timed PN532, one loop pass, a
  press's IRQ → its frame on USB, and what a FAST_READ would save
- ``frames.py``: a frame of each game at its largest player count: the regions a move
  changed, the frame drawn whole, and the frame shown in a window (Xvfb)
- ``faults.py``: power cuts, unplugging, a flood, bad input (``--faults``; minutes, so not
  in the default run)
"""

from __future__ import annotations

import inspect
import json
import os
import sys
import time
from importlib import import_module

from controller.bench.measure import Target, format_table

AREAS = ("rules", "balance", "teamup", "table", "app", "fairness", "race", "stations", "cards", "loop", "frames",
         "idle")
ON_DEMAND = ("faults", "silicon")   # long: only when asked for


def _area(name: str):
    return import_module(f"{__name__}.{name}")


def targets() -> dict[str, Target]:
    merged: dict[str, Target] = {}
    for name in AREAS + ON_DEMAND:
        merged.update(_area(name).TARGETS)
    return merged


def _cpu_seconds() -> float:
    """CPU time of the bench and of the processes it has waited for (demos, workers): an area
    whose CPU time falls far short of its time × the cores it uses waited for a busy machine."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def run(quick: bool = False, areas: tuple[str, ...] = AREAS, long: bool = False) -> dict[str, float]:
    figures: dict[str, float] = {}
    for name in areas:
        area = _area(name)
        takes_long = "long" in inspect.signature(area.figures).parameters
        wall, cpu = time.monotonic(), _cpu_seconds()
        figures.update(area.figures(quick, long=long) if takes_long else area.figures(quick))
        wall, cpu = time.monotonic() - wall, _cpu_seconds() - cpu
        print(f"bench: {name} took {wall:.0f} s, {cpu:.0f} s of CPU", file=sys.stderr, flush=True)
    return {k: round(v, 4) for k, v in figures.items()}


def as_table(figures: dict[str, float]) -> str:
    """The figures for people (``table`` would be shadowed by the ``table`` area's module)."""
    return format_table(figures, targets())


def main(as_json: bool, quick: bool, areas: tuple[str, ...] = AREAS, long: bool = False) -> int:
    figures = run(quick=quick, areas=areas, long=long)
    print(json.dumps(figures) if as_json else as_table(figures))
    return 0
