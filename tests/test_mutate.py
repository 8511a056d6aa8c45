"""The mutation tool (tools/mutate.py): the mutants it makes, and that every mutant judged
equivalent in tools/mutation_equivalents.json still exists in the code as judged (an edit
of its line must drop or renew the judgement, not leave a stale one behind)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("mutate", ROOT / "tools" / "mutate.py")
mutate = importlib.util.module_from_spec(spec)
sys.modules["mutate"] = mutate                       # its dataclasses look their module up
spec.loader.exec_module(mutate)

SOURCE = '''"""A docstring is left alone."""
from typing import Union
Choice = Union[int, None]


def f(a: int, items: list) -> int:
    """So is this one."""
    if a < 1 and not items:
        return max(items)
    total = a + 2
    items.append(total)
    return f"{a}" if a else total
'''


def test_the_mutants_of_a_small_function():
    changes = [(m.function, m.change) for m in mutate.mutants(SOURCE)]
    assert ("f", "a < 1 → a <= 1") in changes and ("f", "1 → 2") in changes
    assert ("f", "a < 1 and (not items) → a < 1 or not items") in changes
    assert ("f", "not items → items") in changes
    assert ("f", "max(items) → min(items)") in changes
    assert ("f", "return max(items) → return None") in changes
    assert ("f", "a + 2 → a - 2") in changes and ("f", "total = a + 2 → pass") in changes
    assert ("f", "items.append(total) → pass") in changes
    assert ("f", "f'{a}' if a else total → total if a else f'{a}'") in changes
    assert not [c for c in changes if "docstring" in c[1] or "Union" in c[1] or "int" == c[1].split(" ")[0]]


def test_each_mutant_compiles_and_differs_from_the_original():
    import marshal
    unchanged = marshal.dumps(mutate.mutated_code(SOURCE, "x.py", -1))     # no mutant has number -1
    found = mutate.mutants(SOURCE)
    assert [m.number for m in found] == list(range(len(found)))
    for m in found:
        assert marshal.dumps(mutate.mutated_code(SOURCE, "x.py", m.number)) != unchanged, m.change


@pytest.mark.parametrize("entry", json.loads((ROOT / "tools" / "mutation_equivalents.json").read_text(encoding="utf-8")),
                         ids=lambda e: f"{e['module']}:{e['function']}:{e['change'][:30]}")
def test_every_equivalent_mutant_judged_still_exists(entry):
    path = ROOT / mutate.TARGETS[entry["module"]][0]
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    found = mutate.mutants(source)
    matching = [m for m in found if mutate.judged_equivalent(entry["module"], m, lines, [entry], found)]
    assert len(matching) >= 1, f"no longer in {path.name}: judge it again or remove it"
    assert len(matching) == 1 or "nth" not in entry      # nth picks one of alike mutants
    assert entry["why"].strip()


def test_again_takes_an_earlier_runs_outcomes_only_for_the_same_code(tmp_path):
    """``--again FILE`` reruns only the survivors of an earlier run; an earlier run of other
    code (mutants renumbered or moved) is refused, never mixed in."""
    rel = mutate.TARGETS["arbiter"][0]
    made = mutate.mutants((ROOT / rel).read_text(encoding="utf-8"))
    entries = [dict(m.__dict__, outcome="killed" if m.number % 2 else "survived") for m in made]
    earlier = tmp_path / "earlier.json"
    earlier.write_text(json.dumps([{"module": rel, "tests": [], "rate": 0.5, "mutants": entries}]))
    outcomes = mutate.earlier_outcomes(str(earlier), "arbiter", made)
    assert outcomes[1][0] == "killed" and outcomes[2][0] == "survived" and len(outcomes) == len(made)
    entries[0]["line"] += 1                                # the code moved since
    earlier.write_text(json.dumps([{"module": rel, "tests": [], "rate": 0.5, "mutants": entries}]))
    with pytest.raises(SystemExit, match="changed"):
        mutate.earlier_outcomes(str(earlier), "arbiter", made)
    with pytest.raises(SystemExit, match="no run"):
        mutate.earlier_outcomes(str(earlier), "clocksync", made)
