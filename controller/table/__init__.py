"""The live table: station events in, one rules core, feedback and snapshots out.

- ``table.py``: :class:`Table`: an event → its seat → the game's input adapter → the
  rules core → the event log → LED and buzzer feedback → a snapshot for the screen
- ``runner.py``: the loop of a turn-based game; ``realtime.py``: the loop of a
  real-time game, with ``arbiter.py`` ordering presses by when they happened
- ``eventlog.py``: the SQLite log every accepted action is committed to
- ``cards.py``: which card a tag is
- ``stations.py``: ``spieltisch stations``, what is plugged in
"""

from __future__ import annotations

from controller.table.table import (
    BUZZ_ACCEPTED, BUZZ_REFUSED, LED_OFF, LED_REFUSED, LED_WINNER, LED_YOUR_TURN, Command, Message,
    SeatSnapshot, Snapshot, Table,
)

__all__ = ["BUZZ_ACCEPTED", "BUZZ_REFUSED", "LED_OFF", "LED_REFUSED", "LED_WINNER", "LED_YOUR_TURN",
           "Command", "Message", "SeatSnapshot", "Snapshot", "Table"]
