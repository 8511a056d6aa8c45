"""Mutation testing: does a module's own test file fail when its code is subtly wrong?

One small change at a time (a comparison flipped, a constant off by one, ``and`` for
``or``, a call's statement dropped, ``min`` for ``max``, a value no longer returned) is
made to a copy of the module in memory, and the tests that run the changed line are run
against it. A mutant is *killed* when a test fails (or runs past the time limit), it
*survives* when they all pass, and it is *not covered* when no test runs its line.

    python tools/mutate.py                       # every module below, all cores
    python tools/mutate.py partout arbiter -j 2  # some of them (names as below)
    python tools/mutate.py arbiter --list        # the mutants, without running them

Prints per module the mutants, the kill rate and each survivor (line, function, change);
``--json FILE`` writes them for machines. Mutants judged equivalent (no behaviour can tell
them from the original) are listed with the reason in ``tools/mutation_equivalents.json``
and left out of the rate. Not run in CI: several minutes per module. The figures and the
judged survivors are in ``docs/mutation.md``.

How it stays fast: one plain run of the module's tests first records which test runs
which line (a line tracer per test); each mutant then runs only those tests, stopping at
the first failure (and, if they all pass, every test of the module before it is called a
survivor: a line run once and cached shows only under the first test that ran it), in a
child forked from a process that has pytest, hypothesis and
pygame loaded already. The mutated module is put in place by an import hook before the
tests import anything, so ``from module import name`` sees the mutant too. Hypothesis runs
derandomized and without its example database, so a run is repeatable."""

from __future__ import annotations

import argparse
import ast
import json
import os
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# module → its own test files (the rule: each module judged by the tests written for it)
TARGETS: dict[str, tuple[str, list[str]]] = {
    "partout": ("controller/games/partout.py", ["tests/test_partout_rules.py", "tests/test_partout_properties.py",
                                               "tests/test_bots_see_only_their_seat.py"]),
    "crazykick": ("controller/games/crazykick.py", ["tests/test_crazykick_rules.py",
                                                    "tests/test_bots_see_only_their_seat.py"]),
    "tadika": ("controller/games/tadika.py", ["tests/test_tadika_rules.py",
                                              "tests/test_bots_see_only_their_seat.py"]),
    "teamplay": ("controller/games/teamplay.py", ["tests/test_teamplay_rules.py",
                                                  "tests/test_bots_see_only_their_seat.py"]),
    "teamup": ("controller/games/teamup.py", ["tests/test_teamup_rules.py",
                                              "tests/test_bots_see_only_their_seat.py"]),
    "teamup_pallet": ("controller/games/teamup_pallet.py", ["tests/test_teamup_rules.py"]),
    "teamup_solver": ("controller/games/teamup_solver.py", ["tests/test_teamup_rules.py", "tests/test_teamup_solver.py"]),
    "teamup_hints": ("controller/games/teamup_hints.py", ["tests/test_teamup_solver.py"]),
    "arbiter": ("controller/table/arbiter.py", ["tests/test_arbiter.py", "tests/test_doctests.py"]),
    "clocksync": ("hardware/clocksync.py", ["tests/test_clocksync.py", "tests/test_doctests.py"]),
    "protocol": ("hardware/protocol.py", ["tests/test_protocol.py", "tests/test_firmware.py"]),
}
RULES_CORES = {"partout", "crazykick", "tadika", "teamplay", "teamup", "teamup_pallet", "teamup_solver", "teamup_hints"}
GOAL = {True: 0.95, False: 0.90}            # rules cores, others
EQUIVALENTS = ROOT / "tools" / "mutation_equivalents.json"


# -- the mutants ------------------------------------------------------------------------------------

COMPARE_SWAP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
                ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
BINOP_SWAP = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.FloorDiv: ast.Div,
              ast.Mod: ast.FloorDiv, ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd, ast.LShift: ast.RShift,
              ast.RShift: ast.LShift, ast.BitXor: ast.BitAnd}
CALL_SWAP = {"min": "max", "max": "min", "any": "all", "all": "any"}


@dataclass
class Mutant:
    number: int
    line: int
    lines: tuple[int, int]          # the statement's lines: the tests that run one of them are run
    function: str
    change: str                     # "a < b → a <= b"
    outcome: str = ""               # killed / survived / timeout / not covered / equivalent
    why: str = ""                   # for an equivalent mutant: the reason


def _show(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 70 else text[:67] + "…"


class Mutator(ast.NodeTransformer):
    """Walks a module; every place a mutation can go gets a number. With ``apply`` set, the
    mutation of that number is made and the rest of the tree is left alone."""

    def __init__(self, apply: int | None = None) -> None:
        self.apply = apply
        self.found: list[Mutant] = []
        self._statement: list[ast.stmt] = []
        self._function: list[str] = []

    # where we are
    def _lines(self) -> tuple[int, int]:
        stmt = self._statement[-1] if self._statement else None
        if stmt is None:
            return (0, 0)
        body = getattr(stmt, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):   # a header: if, for, while, with, def
            return (stmt.lineno, max(stmt.lineno, body[0].lineno - 1))
        return (stmt.lineno, stmt.end_lineno or stmt.lineno)

    def _offer(self, node: ast.AST, before: ast.AST, make) -> ast.AST:
        """A mutation of ``node`` (``make()`` builds its replacement); ``before`` is shown."""
        number = len(self.found)
        after = make()
        self.found.append(Mutant(number, getattr(node, "lineno", 0), self._lines(),
                                 ".".join(self._function) or "<module>", f"{_show(before)} → {_show(after)}"))
        return after if number == self.apply else node

    # what is left alone: docstrings, annotations (not evaluated: ``from __future__ import annotations``)
    def visit_FunctionDef(self, node):
        self._statement.append(node)
        self._function.append(node.name)
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        node.args = self.visit(node.args)
        node.body = self._body(node.body)
        self._function.pop()
        self._statement.pop()
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self._function.append(node.name)
        node.body = self._body(node.body)
        self._function.pop()
        return node

    def visit_arg(self, node):
        return node

    def visit_arguments(self, node):
        node.defaults = [self.visit(d) for d in node.defaults]
        node.kw_defaults = [self.visit(d) if d is not None else None for d in node.kw_defaults]
        return node

    def visit_AnnAssign(self, node):
        self._statement.append(node)
        if node.value is not None:
            node.value = self.visit(node.value)
        self._statement.pop()
        return node

    def visit_JoinedStr(self, node):
        return node                                       # texts shown, not rules

    def _body(self, body: list[ast.stmt]) -> list[ast.stmt]:
        out = []
        for i, stmt in enumerate(body):
            if i == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) \
                    and isinstance(stmt.value.value, str):
                out.append(stmt)                          # a docstring
                continue
            out.append(self.visit(stmt))
        return out

    def visit_Module(self, node):
        node.body = self._body(node.body)
        return node

    def generic_visit(self, node):
        if isinstance(node, ast.stmt):
            self._statement.append(node)
            try:
                return self._statement_mutations(super().generic_visit(node))
            finally:
                self._statement.pop()
        return super().generic_visit(node)

    # the mutations
    def _statement_mutations(self, node):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            return self._offer(node, node, lambda: ast.copy_location(ast.Pass(), node))
        if isinstance(node, ast.Return) and node.value is not None and \
                not (isinstance(node.value, ast.Constant) and node.value.value is None):
            return self._offer(node, node, lambda: ast.copy_location(ast.Return(ast.Constant(None)), node))
        if isinstance(node, ast.Break):
            return self._offer(node, node, lambda: ast.copy_location(ast.Continue(), node))
        if isinstance(node, ast.Continue):
            return self._offer(node, node, lambda: ast.copy_location(ast.Break(), node))
        if isinstance(node, ast.AugAssign) and type(node.op) in (ast.Add, ast.Sub):
            swapped = ast.Sub if isinstance(node.op, ast.Add) else ast.Add
            return self._offer(node, node, lambda: ast.copy_location(
                ast.AugAssign(node.target, swapped(), node.value), node))
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and not _type_alias(node.value):
            return self._offer(node, node, lambda: ast.copy_location(ast.Pass(), node))
        return node

    def visit_Compare(self, node):
        node = self.generic_visit(node)
        for i, op in enumerate(node.ops):
            if type(op) in COMPARE_SWAP:
                def make(i=i, op=op):
                    ops = list(node.ops)
                    ops[i] = COMPARE_SWAP[type(op)]()
                    return ast.copy_location(ast.Compare(node.left, ops, node.comparators), node)
                node = self._offer(node, node, make)
        return node

    def visit_BinOp(self, node):
        node = self.generic_visit(node)
        if type(node.op) in BINOP_SWAP:
            return self._offer(node, node, lambda: ast.copy_location(
                ast.BinOp(node.left, BINOP_SWAP[type(node.op)](), node.right), node))
        return node

    def visit_BoolOp(self, node):
        node = self.generic_visit(node)
        other = ast.Or if isinstance(node.op, ast.And) else ast.And
        return self._offer(node, node, lambda: ast.copy_location(ast.BoolOp(other(), node.values), node))

    def visit_UnaryOp(self, node):
        node = self.generic_visit(node)
        if isinstance(node.op, (ast.Not, ast.USub)):
            return self._offer(node, node, lambda: node.operand)
        return node

    def visit_Constant(self, node):
        value = node.value
        if isinstance(value, bool):
            return self._offer(node, node, lambda: ast.copy_location(ast.Constant(not value), node))
        if isinstance(value, int):
            return self._offer(node, node, lambda: ast.copy_location(ast.Constant(value + 1), node))
        if isinstance(value, float):
            return self._offer(node, node, lambda: ast.copy_location(ast.Constant(value * 2 if value else 1.0), node))
        return node

    def visit_Call(self, node):
        node = self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id in CALL_SWAP:
            return self._offer(node, node, lambda: ast.copy_location(
                ast.Call(ast.copy_location(ast.Name(CALL_SWAP[node.func.id], ast.Load()), node.func),
                         node.args, node.keywords), node))
        return node

    def visit_IfExp(self, node):
        node = self.generic_visit(node)
        return self._offer(node, node, lambda: ast.copy_location(ast.IfExp(node.test, node.orelse, node.body), node))


def _type_alias(value: ast.expr) -> bool:
    """``Choice = Union[int, str, None]``: read only by annotations, which are never evaluated."""
    return isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and \
        value.value.id in ("Union", "Optional")


def mutants(source: str) -> list[Mutant]:
    finder = Mutator()
    finder.visit(ast.parse(source))
    return finder.found


def mutated_code(source: str, path: str, number: int):
    tree = Mutator(apply=number).visit(ast.parse(source))
    return compile(ast.fix_missing_locations(tree), path, "exec")


# -- running the tests against one -------------------------------------------------------------------

class MutantFinder:
    """An import hook that loads ``name`` from the mutated code instead of its file."""

    def __init__(self, name: str, path: Path, code) -> None:
        self.name, self.path, self.code = name, path, code

    def find_spec(self, fullname, target_path=None, target=None):
        if fullname != self.name:
            return None
        import importlib.util
        return importlib.util.spec_from_file_location(fullname, self.path, loader=self)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        exec(self.code, module.__dict__)


def _quiet_pytest(args: list[str], plugins: list = ()) -> int:
    import pytest
    from hypothesis import settings
    settings.register_profile("mutation", database=None, derandomize=True, deadline=None, print_blob=False)
    settings.load_profile("mutation")
    return int(pytest.main(["-q", "-x", "-p", "no:cacheprovider", "--no-header", "-o", "addopts=", *args],
                           plugins=list(plugins)))


class LineRecorder:
    """A pytest plugin: which lines of one file each test runs (its setup included); the
    lines run outside any test (the module's import) under the key ""."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)
        self.lines: dict[str, set[int]] = {"": set()}
        self.order: list[str] = []
        self.seconds: dict[str, float] = {}
        self._started = 0.0
        self._current = ""
        import threading
        threading.settrace(self._trace)
        sys.settrace(self._trace)

    def _trace(self, frame, event, arg):
        if frame.f_code.co_filename != self.path:
            return None
        self.lines[self._current].add(frame.f_lineno)
        return self._line

    def _line(self, frame, event, arg):
        if event == "line":
            self.lines[self._current].add(frame.f_lineno)
        return self._line

    def pytest_runtest_logstart(self, nodeid, location):
        self._current = nodeid
        self.lines.setdefault(nodeid, set())
        self.order.append(nodeid)
        self._started = time.perf_counter()
        sys.settrace(self._trace)                 # pytest or a test may have replaced it

    def pytest_runtest_logfinish(self, nodeid, location):
        self.seconds[nodeid] = time.perf_counter() - self._started
        self._current = ""


def module_name(path: str) -> str:
    return path[:-3].replace("/", ".")


@dataclass
class Result:
    target: str
    path: str
    tests: list[str]
    baseline_s: float = 0.0
    mutants: list[Mutant] = field(default_factory=list)

    def count(self, outcome: str) -> int:
        return sum(1 for m in self.mutants if m.outcome == outcome)

    @property
    def rate(self) -> float:
        judged = [m for m in self.mutants if m.outcome != "equivalent"]
        killed = sum(1 for m in judged if m.outcome in ("killed", "timeout"))
        return killed / len(judged) if judged else 1.0


def _forked(work) -> int:
    """Runs ``work()`` (it returns an exit code) in a child forked from this process, its
    output silenced, in a process group of its own (so a timeout kills all it started)."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            os.setpgid(0, 0)
            code = work()
        finally:
            os._exit(code)
    return pid


def coverage_map(path: Path, tests: list[str]) -> tuple[dict[str, set[int]], list[str], float]:
    """Per test, the lines of ``path`` it runs; the tests, quickest first; how long the run took."""
    read, write = os.pipe()
    start = time.monotonic()

    def work() -> int:
        os.close(read)
        recorder = LineRecorder(path.resolve())
        code = _quiet_pytest(tests, [recorder])
        sys.settrace(None)
        with os.fdopen(write, "w") as out:
            # the quickest tests first: a mutant is most often killed by a quick test
            order = sorted(recorder.order, key=lambda t: recorder.seconds.get(t, 0.0))
            json.dump({"code": code, "order": order,
                       "lines": {k: sorted(v) for k, v in recorder.lines.items()}}, out)
        return 0
    pid = _forked(work)
    os.close(write)
    with os.fdopen(read) as inp:
        data = json.loads(inp.read() or "{}")
    os.waitpid(pid, 0)
    if data.get("code") != 0:
        raise SystemExit(f"the tests {' '.join(tests)} do not pass on the unchanged code (pytest exit "
                         f"{data.get('code')}): fix them before measuring")
    return {k: set(v) for k, v in data["lines"].items()}, data["order"], time.monotonic() - start


def load_equivalents() -> list[dict]:
    return json.loads(EQUIVALENTS.read_text(encoding="utf-8")) if EQUIVALENTS.exists() else []


def judged_equivalent(target: str, mutant: Mutant, source_lines: list[str], known: list[dict],
                      alike: list[Mutant]) -> str:
    """The reason ``mutant`` was judged equivalent, or "". An entry names the module, the
    function, the change and the line's text; ``nth`` (from 1) picks one of several mutants
    that all match (the same change on two alike lines of one function)."""
    def text(m: Mutant) -> str:
        return source_lines[m.line - 1].strip() if m.line else ""
    for entry in known:
        if entry["module"] != target or entry["function"] != mutant.function or entry["change"] != mutant.change \
                or entry["line"] != text(mutant):
            continue
        if "nth" in entry:
            twins = [m for m in alike if m.function == mutant.function and m.change == mutant.change
                     and text(m) == entry["line"]]
            if twins.index(mutant) + 1 != entry["nth"]:
                continue
        return entry["why"]
    return ""


def earlier_outcomes(file: str, target: str, made: list[Mutant]) -> dict[int, tuple[str, str]]:
    """``--again``: an earlier run's outcomes by mutant number, if it ran this module as it
    is now (the same mutants on the same lines); else SystemExit with what to do."""
    rel = TARGETS[target][0]
    earlier = next((r for r in json.loads(Path(file).read_text(encoding="utf-8")) if r["module"] == rel), None)
    if earlier is None:
        raise SystemExit(f"{file} has no run of {target}")
    same = [(m["number"], m["line"], m["change"]) for m in earlier["mutants"]] == \
        [(m.number, m.line, m.change) for m in made]
    if not same:
        raise SystemExit(f"{target} has changed since {file} was written: run it whole")
    return {m["number"]: (m["outcome"], m.get("why", "")) for m in earlier["mutants"]}


def run_target(target: str, jobs: int, only_list: bool = False, again: str | None = None) -> Result:
    rel, tests = TARGETS[target]
    path = ROOT / rel
    source = path.read_text(encoding="utf-8")
    result = Result(target, rel, tests, mutants=mutants(source))
    if only_list:
        return result
    before = earlier_outcomes(again, target, result.mutants) if again else {}
    source_lines = source.splitlines()
    known = load_equivalents()
    cover, order, result.baseline_s = coverage_map(path, [str(ROOT / t) for t in tests])
    timeout = max(10.0, 4 * result.baseline_s)
    name = module_name(rel)
    queue = []
    for m in result.mutants:
        why = judged_equivalent(target, m, source_lines, known, result.mutants)
        if why:
            m.outcome, m.why = "equivalent", why
            continue
        if before.get(m.number, ("",))[0] in ("killed", "timeout"):
            m.outcome = before[m.number][0]          # tests were only added since: still killed
            continue
        first, last = m.lines
        lines = set(range(first, last + 1))
        if lines & cover[""]:
            chosen = order                                   # run at import: every test sees it
        else:
            chosen = [t for t in order if cover.get(t, set()) & lines]
        if not chosen:
            m.outcome = "not covered"
            continue
        queue.append((m, chosen))
    running: dict[int, tuple[Mutant, float, list[str]]] = {}

    def start(m: Mutant, chosen: list[str]) -> None:
        code = mutated_code(source, str(path), m.number)

        def work() -> int:
            sys.meta_path.insert(0, MutantFinder(name, path, code))
            return _quiet_pytest(chosen)                 # node ids, as the traced run named them
        running[_forked(work)] = (m, time.monotonic(), chosen)

    done = 0
    total = len(queue)
    while queue or running:
        while queue and len(running) < jobs:
            start(*queue.pop(0))
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid:
            m, _, chosen = running.pop(pid)
            passed = os.waitstatus_to_exitcode(status) == 0
            if passed and len(chosen) < len(order):
                # the tests that ran its line passed: every test now, as a line run once and
                # cached (a deck loaded, a table built) shows only under the first test that ran it
                queue.append((m, order))
                continue
            m.outcome = "survived" if passed else "killed"
            done += 1
            if sys.stderr.isatty():
                print(f"\r  {target}: {done}/{total}", end="", file=sys.stderr, flush=True)
            continue
        now = time.monotonic()
        for pid, (m, began, _) in list(running.items()):
            if now - began > timeout:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                os.waitpid(pid, 0)
                running.pop(pid)
                m.outcome = "timeout"
                done += 1
        time.sleep(0.005)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    return result


def report(results: list[Result]) -> str:
    lines = ["| module | mutants | killed | survived | not covered | equivalent | kill rate | goal |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results:
        goal = GOAL[r.target in RULES_CORES]
        killed = r.count("killed") + r.count("timeout")
        lines.append(f"| {r.path} | {len(r.mutants)} | {killed} | {r.count('survived')} | {r.count('not covered')} "
                     f"| {r.count('equivalent')} | {100 * r.rate:.1f} % | ≥ {100 * goal:.0f} % "
                     f"{'ok' if r.rate >= goal else 'MISSED'} |")
    for r in results:
        left = [m for m in r.mutants if m.outcome in ("survived", "not covered")]
        if left:
            lines.append(f"\n{r.path} ({', '.join(r.tests)}): {len(left)} left")
            for m in left:
                lines.append(f"  line {m.line:4d}  {m.function:28s} {m.change}" +
                             ("   [not covered]" if m.outcome == "not covered" else ""))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("targets", nargs="*", help=f"some of: {', '.join(TARGETS)} (default: all)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    parser.add_argument("--json", metavar="FILE", help="write every mutant and its outcome to FILE")
    parser.add_argument("--again", metavar="FILE", help="run only what FILE (an earlier --json of the same "
                        "code) has as survived or not covered; its killed stay killed (after adding tests)")
    args = parser.parse_args(argv)
    unknown = [t for t in args.targets if t not in TARGETS]
    if unknown:
        parser.error(f"unknown module {', '.join(unknown)}; known: {', '.join(TARGETS)}")
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    # loaded once here, shared by every forked run (but nothing of ours: the mutant must come first)
    import pytest  # noqa: F401
    import hypothesis  # noqa: F401
    import pygame  # noqa: F401
    results = []
    for target in args.targets or list(TARGETS):
        started = time.monotonic()
        result = run_target(target, args.jobs, args.list, args.again)
        results.append(result)
        if args.list:
            for m in result.mutants:
                print(f"{target} #{m.number:4d} line {m.line:4d} {m.function:28s} {m.change}")
        else:
            print(f"{target}: {len(result.mutants)} mutants in {time.monotonic() - started:.0f} s "
                  f"(tests alone {result.baseline_s:.1f} s), kill rate {100 * result.rate:.1f} %", file=sys.stderr)
            print(report([result]), flush=True)                 # each module as soon as it is done
            if args.json:                                        # and so the file: a long run can be read midway
                Path(args.json).write_text(json.dumps([{
                    "module": r.path, "tests": r.tests, "rate": r.rate,
                    "mutants": [m.__dict__ for m in r.mutants]} for r in results], indent=1, ensure_ascii=False),
                    encoding="utf-8")
    if not args.list and len(results) > 1:
        print("\n" + report(results).split("\n\n")[0])          # the summary table of them all
    return 0


if __name__ == "__main__":
    sys.exit(main())
