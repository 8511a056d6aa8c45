"""Per-game input adapters: station presses and taps → actions for the rules core.
Each game's adapter lives in ``controller/inputs/<game>.py`` and is exported there as
``INPUT``."""

from __future__ import annotations

from importlib import import_module

from controller.games.core import GameRules
from controller.inputs.base import InputAdapter, SoftKey, Step


def adapter_class(rules: GameRules) -> type[InputAdapter]:
    """The game's adapter: ``INPUT`` of ``controller/inputs/<game>.py``."""
    return import_module(f"{__name__}.{rules.module}").INPUT


def adapter_for(rules: GameRules) -> InputAdapter:
    return adapter_class(rules)(rules)


__all__ = ["InputAdapter", "SoftKey", "Step", "adapter_class", "adapter_for"]
