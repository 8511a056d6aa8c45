"""``spieltisch enroll DECK``: teach the table a deck of real cards, one tap each, with the
card to tap drawn on the screen.

The session walks the deck in its own order (``GameRules.card_names``: Partout's 42 cards,
Teamplay's 64 number cards, each its own tag, the NumNum deck, Team UP!'s 36 order cards)
and binds each tag's UID to its card in the table's registry (the event log's ``cards``).
A tag already bound to another card, of this deck or another, is refused with what it is;
a tag whose written text names another card too. An interrupted enrollment goes on at the
first card without a tag (``--again`` starts the deck afresh). With ``--write`` each tag
also gets a record that names its card for any table holding this table's card key (see
``docs/cards.md``), and is write-protected with a password made from that key (NTAG21x
password protection): written by the station, read back, and only then counted.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.games import find_game
from controller.games.core import IllegalAction
from controller.table.cards import CardKeys, parse_text
from controller.table.eventlog import EventLog, TableLock, default_data_dir
from controller.table.runner import event_queue

WRITE_TIMEOUT_S = 3.0           # a station that says nothing about a write in this long: try again
# why a station could not write a sticker (WROTE fail <why>) that tapping again will not mend
WRITE_REFUSALS = {"auth": "enroll_write_locked", "kind": "enroll_write_kind"}
PROTECTING_FIRMWARE = (1, 2)    # from this version on a station write-protects what it writes


@dataclass(frozen=True)
class Note:
    key: str
    params: dict[str, Any] = field(default_factory=dict)
    refusal: bool = False


@dataclass(frozen=True)
class EnrollSnapshot:
    """What the enrollment screen shows (``display/enroll_view.py``)."""

    game: str                    # "enroll": the screen's view
    deck: str                    # the deck's game
    title: str
    card: str | None             # the card to tap now (None: the deck is done)
    index: int
    total: int
    note: Note | None
    writing: bool = False        # waiting for the station to write and read back the record
    revision: int = 0


class Enrollment:
    """The session, without the hardware: taps in, bindings and notes out."""

    def __init__(self, deck_game: str, bound: dict[str, tuple[str, str]], *, again: bool = False,
                 keys: CardKeys | None = None, write: bool = False) -> None:
        self.rules = find_game(deck_game)
        self.deck = self.rules.card_names()
        if not self.deck:
            raise IllegalAction("enroll_no_cards", game=self.rules.title)
        self.bound = dict(bound)                     # uid → (game, card): the whole registry
        self.keys = keys
        self.write = write
        if again:
            self.bound = {u: gc for u, gc in self.bound.items() if gc[0] != self.rules.name}
        self.index = self._first_without_tag()
        self.note: Note | None = None
        self.pending_write: tuple[str, str] | None = None      # (uid, card) the station is writing
        self.revision = 0

    def _first_without_tag(self) -> int:
        have = {card for game, card in self.bound.values() if game == self.rules.name}
        return next((i for i, card in enumerate(self.deck) if card not in have), len(self.deck))

    @property
    def card(self) -> str | None:
        return self.deck[self.index] if self.index < len(self.deck) else None

    @property
    def done(self) -> bool:
        return self.index >= len(self.deck)

    def tap(self, uid: str, text: str | None) -> tuple[str, str] | None:
        """A tag on the reader. Returns (uid, card) to bind now, or None (refused, or the
        same tag again); ``note`` says what happened."""
        self.revision += 1
        card = self.card
        if card is None or self.pending_write is not None:
            return None
        uid = uid.upper()
        said = self._says(uid, text)
        if said is not None and said != (self.rules.name, card):
            self.note = Note("enroll_tag_says", {"game": find_game(said[0]).title, "card": said[1],
                                                 "take": card}, True)
            return None
        known = self.bound.get(uid)
        if known is not None and known != (self.rules.name, card):
            self.note = Note("enroll_tag_taken", {"game": find_game(known[0]).title, "card": known[1],
                                                  "take": card}, True)
            return None
        return uid, card

    def _says(self, uid: str, text: str | None) -> tuple[str, str] | None:
        try:
            return parse_text(text, uid, self.keys)
        except IllegalAction:
            return None                                # a record from another table: the UID decides

    def bound_now(self, uid: str, card: str) -> None:
        """The registry holds ``uid`` → ``card``: the next card, or the write first."""
        self.bound[uid] = (self.rules.name, card)
        if self.write:
            self.pending_write = (uid, card)
            self.note = Note("enroll_writing", {"card": card})
            return
        self._next(card)

    def written(self, uid: str, ok: bool, reason: str = "") -> None:
        self.revision += 1
        if self.pending_write is None or self.pending_write[0] != uid.upper():
            return
        card = self.pending_write[1]
        self.pending_write = None
        if ok:
            self._next(card)
        elif reason in WRITE_REFUSALS:                 # the sticker, not the tap: another one, or no --write
            self.note = Note(WRITE_REFUSALS[reason], {"card": card}, True)
        else:
            self.note = Note("enroll_write_failed", {"card": card, "reason": reason}, True)

    def _next(self, card: str) -> None:
        self.index += 1
        self.note = Note("enroll_bound", {"card": card, "n": self.index})

    def snapshot(self) -> EnrollSnapshot:
        return EnrollSnapshot("enroll", self.rules.name, self.rules.title, self.card, self.index, len(self.deck),
                              self.note, self.pending_write is not None, self.revision)


def enroll(deck_game: str, port: str, *, again: bool = False, write: bool = False, lang: str = "en",
           headless: bool = False, fullscreen: bool = False, data_dir: str | Path | None = None,
           timeout: float | None = None, screenshot: str | None = None) -> dict[str, Any]:
    """The session at a station on ``port``, shown on the screen; returns how far it got."""
    from controller.app.play import QUIT, make_screen, next_input, open_links
    from hardware.events import StationLost, TagEvent, TagWritten
    folder = Path(data_dir or default_data_dir())
    events = event_queue()
    with contextlib.ExitStack() as stack:
        stack.enter_context(TableLock(folder))
        store = EventLog(folder / "spieltisch.db")
        stack.callback(store.close)
        keys = CardKeys.load(folder)
        bound = store.all_cards()
        session = Enrollment(deck_game, bound, again=again, keys=keys, write=write)
        if again:
            store.forget_cards(session.rules.name)
        screen = make_screen(stack, lang=lang, headless=headless, fullscreen=fullscreen)
        links = open_links([port], events, stack)
        link = next(iter(links.values()))
        if write and not hasattr(link, "write_tag"):
            raise IllegalAction("enroll_cannot_write")      # a bare PN532: it reads, the host cannot write
        if write and not protects_what_it_writes(link.firmware):
            raise IllegalAction("enroll_firmware_old", firmware=link.firmware or "?")
        deadline = None if timeout is None else time.monotonic() + timeout
        write_sent = 0.0
        screen.show(session.snapshot())
        while not session.done:
            event = next_input(screen, events, deadline)
            if event is QUIT:
                break
            if event is None:
                if session.pending_write and time.monotonic() - write_sent > WRITE_TIMEOUT_S:
                    session.written(session.pending_write[0], False, "no answer")
                    screen.show(session.snapshot())
                continue
            if isinstance(event, StationLost):
                session.note = Note("enroll_station_lost", {}, True)
                screen.show(session.snapshot())
                continue
            if isinstance(event, TagWritten):
                session.written(event.uid, event.ok, event.reason)
                link.led("00c000" if event.ok else "ff0000", 200 if event.ok else 300)
            elif isinstance(event, TagEvent):
                found = session.tap(event.uid, event.text)
                if found is None:
                    if session.note is not None and session.note.refusal:
                        link.led("ff0000", 300)
                        link.buzz(220, 120)
                else:
                    uid, card = found
                    store.register_card(uid, session.rules.name, card)
                    session.bound_now(uid, card)
                    if write:
                        link.write_tag(uid, keys.record(session.rules.name, card, uid), keys.tag_password(uid),
                                       keys.opening_password(event.text, uid))
                        write_sent = time.monotonic()
                    else:
                        link.led("00c000", 200)
                        link.buzz(880, 60)
            screen.show(session.snapshot())
        screen.flush()
        if screen.interactive and session.done:
            screen.show(session.snapshot())
        if screenshot:
            screen.render(session.snapshot())
            screen.save(screenshot)
        return {"deck": session.rules.name, "enrolled": session.index, "cards": len(session.deck),
                "finished": session.done}




def protects_what_it_writes(firmware: str | None) -> bool:
    """Whether a station of this firmware write-protects the records it writes: 1.2 and
    newer, and the simulated station (it models what 1.2 does). An older one would write
    the record and leave it open to any phone, and say "ok"."""
    from hardware.sim.station import is_simulated
    if is_simulated(firmware):
        return True
    try:
        version = tuple(int(part) for part in (firmware or "").split(".")[:2])
    except ValueError:
        return False
    return version >= PROTECTING_FIRMWARE
