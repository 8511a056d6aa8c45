"""Who may import whom (design.md): the rules core is pure, the display never touches
hardware, hardware never touches the table or the screen."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

FORBIDDEN = {
    "controller/games": {"pygame", "serial", "gpiozero", "sqlite3", "display", "hardware", "controller.table",
                         "controller.table.eventlog", "socket", "threading", "time"},
    "display": {"hardware", "serial", "gpiozero", "sqlite3", "controller.table", "controller.table.eventlog"},
    "hardware": {"controller", "display", "pygame"},
}


def imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.parametrize("folder", sorted(FORBIDDEN))
def test_imports_respect_the_house(folder):
    files = list((ROOT / folder).rglob("*.py"))
    assert files
    for path in files:
        for name in imports(path):
            for banned in FORBIDDEN[folder]:
                assert not (name == banned or name.startswith(banned + ".")), f"{path.relative_to(ROOT)} imports {name}"


def test_display_reads_only_the_rules_core_from_controller():
    for path in (ROOT / "display").rglob("*.py"):
        for name in imports(path):
            if name.startswith("controller"):
                assert name.startswith("controller.games"), f"{path.name} imports {name}"
