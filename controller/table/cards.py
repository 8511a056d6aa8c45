"""Which card a tag is. A tag is known by the NDEF text it carries or, for plain tags, by
its UID in the card registry (``spieltisch enroll``). The text is either plain
(``partout:red5``, written by hand with any NFC phone app: anyone's phone can read it, and
so the face of a card lying face down) or a record written at enrollment,
``st1:<game>:<token>``, whose token is an HMAC of the game, the card and the tag's UID
under this table's card key: a phone learns only the game, a table holding the key (it can
be exported to another table) finds the card, and copied to another tag it is worth
nothing. ``docs/cards.md`` says what each choice reveals. Simulated decks carry plain text."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path
from typing import Any

from controller.table.eventlog import EventLog
from controller.games.core import IllegalAction


TOKEN_PREFIX = "st1"


def card_token(key: bytes, game: str, card: str, uid: str) -> str:
    """The token naming ``card`` on the tag ``uid`` under ``key``: 80 bits of an HMAC, base32."""
    digest = hmac.new(key, f"{game}:{card}:{uid.upper()}".encode(), hashlib.sha256).digest()
    return base64.b32encode(digest[:10]).decode().lower()


class CardKeys:
    """This table's card key (made on first use) and keys imported from other tables, in
    ``card-keys.json`` beside the database (readable by its owner only)."""

    FILE = "card-keys.json"

    def __init__(self, keys: list[bytes], path: Path | None = None) -> None:
        self.keys = keys
        self.path = path

    @classmethod
    def load(cls, folder: str | os.PathLike[str] | None) -> "CardKeys":
        path = Path(folder) / cls.FILE if folder is not None else None
        keys: list[bytes] = []
        if path is not None and path.is_file():
            try:
                keys = [bytes.fromhex(k) for k in json.loads(path.read_text())["keys"]]
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise IllegalAction("card_keys_unreadable", path=str(path), reason=str(exc)) from exc
        return cls(keys, path)

    @property
    def own(self) -> bytes:
        if not self.keys:
            self.keys = [secrets.token_bytes(16)]
            self._save()
        return self.keys[0]

    def _save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"keys": [k.hex() for k in self.keys]}))
        os.chmod(tmp, 0o600)
        os.replace(tmp, self.path)

    def record(self, game: str, card: str, uid: str) -> str:
        """The text an enrolled tag carries: the game in clear, the card only for a key holder."""
        return f"{TOKEN_PREFIX}:{game}:{card_token(self.own, game, card, uid)}"

    def card_of(self, game: str, token: str, uid: str) -> str | None:
        from controller.games import find_game
        deck = find_game(game).card_names()
        for key in self.keys:
            for card in deck:
                if hmac.compare_digest(card_token(key, game, card, uid), token):
                    return card
        return None

    def export(self, path: str | os.PathLike[str]) -> None:
        """This table's own key into ``path``, readable by its owner only from the first byte
        on; a folder that is not there (or takes no writes) is refused with the reason."""
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(json.dumps({"keys": [self.own.hex()]}))
            os.chmod(path, 0o600)                    # a file that was there keeps its old mode otherwise
        except OSError as exc:
            raise IllegalAction("card_key_unwritable", path=str(path), reason=exc.strerror or str(exc)) from exc

    def import_from(self, path: str | os.PathLike[str]) -> int:
        """Another table's key(s); returns how many were new."""
        try:
            theirs = [bytes.fromhex(k) for k in json.loads(Path(path).read_text())["keys"]]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise IllegalAction("card_keys_unreadable", path=str(path), reason=str(exc)) from exc
        self.own                                    # this table's own key stays the first
        new = [k for k in theirs if k not in self.keys and len(k) == 16]
        self.keys += new
        self._save()
        return len(new)


def parse_text(text: str | None, uid: str, keys: CardKeys | None) -> tuple[str, str] | None:
    """(game, card) a tag's text names, None when it names none (blank, a URL, another
    app's text). A record of this table's kind whose key is unknown here is refused."""
    if not text:
        return None
    words = text.strip()
    if words.startswith(TOKEN_PREFIX + ":"):
        _, game, token = (words.split(":", 2) + ["", ""])[:3]
        card = keys.card_of(game.lower(), token.lower(), uid) if keys is not None and game else None
        if card is None:
            raise IllegalAction("card_key_unknown", game=game)
        return game.lower(), card
    from controller.games import GAMES
    game, sep, card = words.partition(":")
    game = game.strip().lower()
    if not sep or game not in GAMES or not card.strip():
        return None                                 # a URL, another app's text: the UID decides
    return game, card.strip().lower()


class CardResolver:
    def __init__(self, game: str, log: EventLog | None = None, keys: CardKeys | None = None) -> None:
        self.game = game
        self.log = log
        self.keys = keys

    def _keys(self) -> CardKeys | None:
        if self.keys is None and self.log is not None and getattr(self.log, "path", None) is not None:
            self.keys = CardKeys.load(Path(self.log.path).parent)
        return self.keys

    def resolve(self, uid: str, text: str | None) -> str:
        try:
            said = parse_text(text, uid, self._keys() if text and text.startswith(TOKEN_PREFIX) else None)
        except IllegalAction:
            said = None
            if self.log is None or self.log.card_for_uid(uid) is None:
                raise                              # another table's card, unknown here too
        if said is not None:
            game, card = said
            if game != self.game:
                raise IllegalAction("tag_other_game", game=_title(game))
            return card
        known = self.log.card_for_uid(uid) if self.log is not None else None
        if known is None:
            raise IllegalAction("unknown_tag", uid=uid)
        if known[0] != self.game:
            raise IllegalAction("tag_other_game", game=_title(known[0]))
        return known[1]


def _title(game: str) -> str:
    """A game's printed title for a player's message ("Team UP!"), its name if unknown."""
    from controller.games import GAMES
    return GAMES[game].title if game in GAMES else game


def tag_text(game: str, card: str) -> str:
    return f"{game}:{card}"


def tap_virtual_card(station: Any, game: str, card: str) -> int:
    """Tap a simulated card (its UID and NDEF text) on a simulated station; returns the frame's seq."""
    return station.tap(virtual_uid(game, card), tag_text(game, card))


def virtual_uid(game: str, card: str) -> str:
    """A stable 7-byte UID for a simulated card (first byte 04: NXP, as on NTAG stickers)."""
    return "04" + hashlib.sha1(f"{game}:{card}".encode()).hexdigest()[:12].upper()
