"""The examples in docstrings run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["controller.games", "controller.games.core", "controller.games.partout", "controller.games.teamup_pallet",
           "controller.bots", "controller.table.arbiter", "hardware.clocksync", "hardware.hostclock"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    failures, tried = doctest.testmod(importlib.import_module(name))
    assert tried > 0 and failures == 0
