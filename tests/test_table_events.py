"""Every kind of event the hardware puts on the table's queue has its case in
``Table.handle``: one the table acts on (what it shows or sends changes), or one of
``IGNORED_EVENTS`` (nothing changes). The table tells them apart by their classes, so an
event class renamed, added, or matched by its name instead falls out here (and in mypy:
``handle``'s last case takes what is left of ``InputEvent``, which must be nothing)."""

from __future__ import annotations

import dataclasses
import inspect
import logging
import typing

import pytest

from controller.games import GAMES
from controller.table.table import IGNORED_EVENTS, Table
from hardware import events

STATIONS = ["s0", "s1", "s2", "s3"]

# one of each, from seat 0's station
ACTED_ON = {
    events.StationLost: events.StationLost("s0", "/dev/ttyACM0", "unplugged", 1),
    events.StationHello: events.StationHello("s0", "/dev/ttyACM0", 1, "1.0", {"buttons": "6"}, 1),
    events.StationFlooding: events.StationFlooding("s0", 50, 1),
    events.PanelEvent: events.PanelEvent("menu", 1),
    events.ButtonEvent: events.ButtonEvent("s0", 1, 1, True, 0, 1, 1),      # (button 0 is back: its refusal waits)
    events.TagEvent: events.TagEvent("s0", 1, "04A1B2C3D4E5F6", None, 0, 1),
}
IGNORED = {
    events.StationProgress: events.StationProgress("s0", 1, 1, 0, False, 1),
    events.TagGone: events.TagGone("s0", 1, "04A1B2C3D4E5F6", 1),
    events.TagWritten: events.TagWritten("s0", "04A1B2C3D4E5F6", True, "", 1),
    events.StationProbed: events.StationProbed("s0", "ack", ("5", "600", "550", "700"), 1),
}


def event_classes() -> set[type]:
    return {cls for _, cls in inspect.getmembers(events, inspect.isclass)
            if dataclasses.is_dataclass(cls) and cls.__module__ == events.__name__}


def new_table() -> Table:
    return Table(GAMES["partout"], config={"players": 4, "mode": "virtual"}, seed=1, stations=STATIONS)


def test_every_event_class_is_acted_on_or_ignored_on_purpose():
    assert set(ACTED_ON) | set(IGNORED) == event_classes()
    assert set(IGNORED) == set(IGNORED_EVENTS)
    assert set(typing.get_args(events.InputEvent)) == event_classes()      # the type handle takes names them all


@pytest.mark.parametrize("kind", list(ACTED_ON), ids=lambda kind: kind.__name__)
def test_an_event_the_table_acts_on_changes_what_it_shows_or_sends(kind):
    table = new_table()
    before = table.revision
    commands = table.handle(ACTED_ON[kind])
    assert commands or table.revision > before, f"{kind.__name__} fell through to nothing"


@pytest.mark.parametrize("kind", list(IGNORED), ids=lambda kind: kind.__name__)
def test_an_ignored_event_changes_nothing(kind):
    table = new_table()
    snapshot = table.snapshot()
    assert table.handle(IGNORED[kind]) == []
    assert table.revision == snapshot.revision and table.message is None


def test_an_object_of_no_event_class_is_logged_and_changes_nothing(caplog):
    @dataclasses.dataclass(frozen=True)
    class ButtonEvent:                   # an event's name, not its class
        station: str = "s0"
        seq: int = 1
        button: int = 0
        pressed: bool = True
    table = new_table()
    with caplog.at_level(logging.WARNING, logger="controller.table.table"):
        assert table.handle(ButtonEvent()) == []   # type: ignore[arg-type]
    assert table.revision == 0 and table.message is None
    assert "does not know" in caplog.text
