"""Which card a tag is. A tag is known by the NDEF text it carries (``partout:red5``,
written once with any NFC phone app) or, for plain tags, by its UID in the card
registry (``spieltisch cards learn``). Simulated decks carry both."""

from __future__ import annotations

import hashlib
from typing import Any

from controller.table.eventlog import EventLog
from controller.games.core import IllegalAction


class CardResolver:
    def __init__(self, game: str, log: EventLog | None = None) -> None:
        self.game = game
        self.log = log

    def resolve(self, uid: str, text: str | None) -> str:
        if text:
            game, sep, card = text.strip().partition(":")
            if sep:
                if game.lower() != self.game:
                    raise IllegalAction("tag_other_game", game=game)
                return card.strip().lower()
        known = self.log.card_for_uid(uid) if self.log is not None else None
        if known is None:
            raise IllegalAction("unknown_tag", uid=uid)
        if known[0] != self.game:
            raise IllegalAction("tag_other_game", game=known[0])
        return known[1]


def tag_text(game: str, card: str) -> str:
    return f"{game}:{card}"


def tap_virtual_card(station: Any, game: str, card: str) -> int:
    """Tap a simulated card (its UID and NDEF text) on a simulated station; returns the frame's seq."""
    return station.tap(virtual_uid(game, card), tag_text(game, card))


def virtual_uid(game: str, card: str) -> str:
    """A stable 7-byte UID for a simulated card (first byte 04: NXP, as on NTAG stickers)."""
    return "04" + hashlib.sha1(f"{game}:{card}".encode()).hexdigest()[:12].upper()
