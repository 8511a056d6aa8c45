"""Per-game input adapters: station presses and taps → actions for the rules core."""

from __future__ import annotations

from controller.games.core import GameRules
from controller.inputs.base import InputAdapter, SoftKey, Step
from controller.inputs.crazykick import CrazyKickInput
from controller.inputs.partout import PartoutInput

ADAPTERS: dict[str, type[InputAdapter]] = {"partout": PartoutInput, "crazy-kick": CrazyKickInput}


def adapter_for(rules: GameRules) -> InputAdapter:
    return ADAPTERS[rules.name](rules)  # type: ignore[arg-type]


__all__ = ["ADAPTERS", "InputAdapter", "SoftKey", "Step", "adapter_for"]
