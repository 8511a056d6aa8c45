"""The examples in docstrings run."""

from __future__ import annotations

import doctest

import pytest

import controller.games
import controller.games.core
import controller.games.partout


@pytest.mark.parametrize("module", [controller.games, controller.games.core, controller.games.partout])
def test_docstring_examples(module):
    failures, tried = doctest.testmod(module)
    assert tried > 0 and failures == 0
