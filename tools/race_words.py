"""A Crazy Kick match (one goal unless --goals says more) on the stations you choose, and what the arbiter made
of the stations' words: the races it decided, those it decided without a station's word
at the 15 ms bound, and for each of those whether the silent station was the presser's
own, how far its last word fell short of what the race needed, and whether it had
answered the last question; the holds (a race's first press from its arrival to its
release); each station's answers' round trips. Issue 43: on the firmware's stations
1.6.0 left the presser's own station silent in every race whose press bounced.

    python tools/race_words.py [--players 2] [--seed 5] [--goals 1] [--stations firmware] [--json]

It watches the arbiter by wrapping three of its methods (it changes nothing they do);
figures in ms, as n, min, p50, p95, max.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import controller.table.arbiter as arbiter_module
from controller.app.demo import run_demo


def spread(values: list[float]) -> dict[str, float] | None:
    xs = sorted(values)
    if not xs:
        return None
    return {"n": len(xs), "min": round(xs[0], 2), "p50": round(xs[len(xs) // 2], 2),
            "p95": round(xs[int(len(xs) * 0.95)], 2), "max": round(xs[-1], 2)}


def watch() -> dict[str, Any]:
    """Wrap the arbiter's race count, release and answers; what they saw goes in the dict."""
    seen: dict[str, Any] = {"races": 0, "races_without": 0, "without": [], "holds": [],
                            "round_trips": collections.defaultdict(list)}
    Arbiter = arbiter_module.Arbiter
    count, due, progress = Arbiter._count_race, Arbiter.due, Arbiter.progress
    arrivals: list[int] = []

    def counted(self: Any, first: Any, silent: list[str]) -> None:
        seen["races"] += 1
        seen["races_without"] += bool(silent)
        arrivals.append(first.arrived_ns)
        for station in silent:
            spoken = self._progress.get(station)
            seen["without"].append({
                "presser": station == first.station,
                "short_ms": None if spoken is None else (self._need(first, station) - spoken) / 1e6,
                "answered": station in self._answered})
        count(self, first, silent)

    def released(self: Any, now_ns: int) -> list[Any]:
        out = due(self, now_ns)
        seen["holds"].extend((now_ns - arrived) / 1e6 for arrived in arrivals)
        arrivals.clear()
        return out

    def answered(self: Any, station: str, **kw: Any) -> None:
        if kw.get("asked_ns") is not None:
            seen["round_trips"][station].append((kw["arrived_ns"] - kw["asked_ns"]) / 1e6)
        progress(self, station, **kw)

    Arbiter._count_race, Arbiter.due, Arbiter.progress = counted, released, answered  # type: ignore[method-assign]
    return seen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--goals", type=int, default=1, help="the goals that win (the game's own rule: 5)")
    parser.add_argument("--stations", choices=("sim", "firmware", "rp2040"), default="firmware")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    seen = watch()
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as data:
        result = run_demo("crazy-kick", players=args.players, seed=args.seed, headless=True, data_dir=data,
                          timeout=1800, options={"goals": args.goals}, stations=args.stations)
    without = seen["without"]
    report = {
        "finished": result.get("finished"), "winner": result.get("winner"), "actions": result.get("actions"),
        "wall_s": round(time.monotonic() - started, 1),
        "races": seen["races"], "decided_without": result.get("decided_without", {}),
        "races_without": seen["races_without"],
        "words_missing": len(without),
        "silent_was_the_presser": sum(w["presser"] for w in without),
        "silent_had_answered_its_last_question": sum(w["answered"] for w in without),
        "short_of_the_need_ms": spread([w["short_ms"] for w in without if w["short_ms"] is not None]),
        "hold_ms": spread(seen["holds"]),
        "round_trip_ms": {station[-4:]: spread(trips) for station, trips in seen["round_trips"].items()},
    }
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
