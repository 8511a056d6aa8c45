"""Interleaved A/B of `spieltisch bench` between source trees, for a shared, noisy machine:
the trees' runs alternate, so a busy minute hurts both alike, and the medians and ranges
are printed per tree.

    git worktree add /tmp/before <commit>
    python tools/ab_bench.py 6 /tmp/before . --only race --quick

Each run is `python -m controller.app.cli bench --json <options>` with the tree first on
PYTHONPATH, so both use this environment's packages and only the code differs.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path


def run(tree: str, options: list[str]) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(Path(tree).resolve()), SDL_VIDEODRIVER="dummy")
    out = subprocess.run([sys.executable, "-m", "controller.app.cli", "bench", "--json", *options], cwd=tree,
                         env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"ab_bench: the bench failed in {tree}: {out.stderr.strip()[-300:]}")
    return json.loads(out.stdout)


def main(argv: list[str]) -> None:
    if len(argv) < 3 or not argv[0].isdigit():
        raise SystemExit(__doc__)
    rounds, rest = int(argv[0]), argv[1:]
    split = next((k for k, arg in enumerate(rest) if arg.startswith("-")), len(rest))
    trees, options = rest[:split], rest[split:]          # the bench's options follow the trees
    found: dict[str, list[dict[str, float]]] = {tree: [] for tree in trees}
    for n in range(rounds):
        for tree in trees:
            found[tree].append(run(tree, options))
            print(f"round {n + 1}/{rounds}: {tree} done", file=sys.stderr, flush=True)
    for tree in trees:
        print(tree)
        for key in found[tree][0]:
            values = [r[key] for r in found[tree]]
            print(f"  {key:32} median {statistics.median(values):10.3f}   range {min(values):.3f}–{max(values):.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
