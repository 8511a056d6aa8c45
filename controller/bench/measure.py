"""What every area of the bench shares: medians, percentiles, and the targets table."""

from __future__ import annotations

import statistics
from typing import Any, Callable

# name → (target, "min", "max", "range" or "info", unit, what it measures); a range's target
# is (lowest, highest)
Target = tuple[Any, str, str, str]


def median_of(runs: int, measure: Callable[[], float]) -> float:
    return statistics.median(measure() for _ in range(runs))


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def format_table(figures: dict[str, float], targets: dict[str, Target]) -> str:
    """The figures as a table for people: value, target, whether it is met, what it measures."""
    rows = [("figure", "value", "target", "", "what")]
    for name, value in figures.items():
        target, kind, unit, what = targets.get(name, (float("nan"), "info", "", ""))
        if kind == "min":
            verdict, shown = ("ok" if value >= target else "MISSED"), f"≥ {target:g} {unit}"
        elif kind == "max":
            verdict, shown = ("ok" if value <= target else "MISSED"), f"≤ {target:g} {unit}"
        elif kind == "range":
            low, high = target
            verdict, shown = ("ok" if low <= value <= high else "MISSED"), f"{low:g}-{high:g} {unit}"
        else:
            verdict, shown = "", unit
        rows.append((name, f"{value:g}", shown, verdict, what))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)
