"""Which card a tag is. A tag enrolled here (``spieltisch enroll``) is the card its UID is
bound to in the card registry, whatever text it carries: a phone can rewrite a sticker's
text, never its UID. Only a tag the registry does not know is read by its NDEF text, which
is either plain (``partout:red5``, written by hand with any NFC phone app: anyone's phone
can read it, and so the face of a card lying face down) or a record written at
enrollment, ``st1:<game>:<token>``, whose token is an HMAC of the game, the card and the
tag's UID under this table's card key: a phone learns only the game, a table holding the
key (it can be exported to another table) finds the card, and copied to another tag it is
worth nothing. Plain text never names a card the registry binds to another sticker (that
would be a second king). A sticker's text is anyone's input: whatever it says is a card,
nothing, or a refusal (IllegalAction), never another exception. ``docs/cards.md`` says
what each choice reveals and decides. Simulated decks carry plain text."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path
from typing import Any, TypeGuard

from controller.table.eventlog import EventLog, make_data_folder
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
        """Into a new file that is its owner's alone (0600) before its first byte: the key
        is never readable by others, not for a moment, whatever the umask."""
        if self.path is None:
            return
        make_data_folder(self.path.parent)
        tmp = self.path.with_suffix(".tmp")
        tmp.unlink(missing_ok=True)                  # left by a save a power cut broke off
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            os.fchmod(fd, 0o600)                     # the umask takes bits away from O_CREAT's mode, never adds
            f.write(json.dumps({"keys": [k.hex() for k in self.keys]}))
        os.replace(tmp, self.path)

    def record(self, game: str, card: str, uid: str) -> str:
        """The text an enrolled tag carries: the game in clear, the card only for a key holder."""
        return f"{TOKEN_PREFIX}:{game}:{card_token(self.own, game, card, uid)}"

    def card_of(self, game: str, token: str, uid: str) -> str | None:
        """The card of ``game`` whose token on the tag ``uid`` is ``token`` under any key
        here; None for a game this table does not have or a token no key made."""
        found = self._find(game, token, uid)
        return found[0] if found else None

    def _find(self, game: str, token: str, uid: str) -> tuple[str, bytes] | None:
        from controller.games import GAMES
        if game not in GAMES or not token.isascii():       # compare_digest refuses other text
            return None
        deck = GAMES[game].card_names()
        for key in self.keys:
            for card in deck:
                if hmac.compare_digest(card_token(key, game, card, uid), token):
                    return card, key
        return None

    def tag_password(self, uid: str, key: bytes | None = None) -> bytes:
        """The password (PWD, 4 bytes) and its acknowledgement (PACK, 2) that write-protect
        the tag ``uid`` (NTAG21x), from ``key`` (this table's own when not given): each
        sticker its own, any table holding the key can open it, a phone cannot."""
        return hmac.new(key or self.own, f"ntag-pwd:{uid.upper()}".encode(), hashlib.sha256).digest()[:6]

    def opening_password(self, text: str | None, uid: str) -> bytes:
        """The password that opens the tag ``uid`` as it is now: that of the key its record
        was written with (another table's, imported), else this table's own."""
        if is_record(text):
            _, game, token = (text.strip().split(":", 2) + ["", ""])[:3]
            found = self._find(game.strip().lower(), token.strip().lower(), uid)
            if found is not None:
                return self.tag_password(uid, found[1])
        return self.tag_password(uid)

    def export(self, path: str | os.PathLike[str]) -> None:
        """This table's own key into ``path``, readable by its owner only from the first byte
        on; a folder that is not there (or takes no writes) is refused with the reason."""
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as f:
                os.fchmod(fd, 0o600)                 # before the key: a file that was there keeps its mode otherwise
                f.write(json.dumps({"keys": [self.own.hex()]}))
        except OSError as exc:
            raise IllegalAction("card_key_unwritable", path=str(path), reason=exc.strerror or str(exc)) from exc

    def import_from(self, path: str | os.PathLike[str]) -> int:
        """Another table's key(s); returns how many were new."""
        try:
            theirs = [bytes.fromhex(k) for k in json.loads(Path(path).read_text())["keys"]]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise IllegalAction("card_keys_unreadable", path=str(path), reason=str(exc)) from exc
        self.own  # noqa: B018 - made now if new: this table's own key stays the first
        new = [k for k in theirs if k not in self.keys and len(k) == 16]
        self.keys += new
        self._save()
        return len(new)


TOKEN_ALPHABET = frozenset("abcdefghijklmnopqrstuvwxyz234567")     # base32, as card_token writes it


def is_record(text: str | None) -> TypeGuard[str]:
    """Whether a tag's text is a record of this table's kind (signed), not plain text."""
    return text is not None and text.strip().startswith(TOKEN_PREFIX + ":")


def parse_text(text: str | None, uid: str, keys: CardKeys | None) -> tuple[str, str] | None:
    """(game, card) a tag's text names, None when it names none (blank, a URL, another
    app's text). A record of this table's kind is refused (IllegalAction) when it names no
    game of this table or no card (a token that is not one: written by hand), or when its
    key is unknown here. Any other text is no refusal: the UID decides."""
    if not text:
        return None
    words = text.strip()
    from controller.games import GAMES
    if is_record(words):
        _, game, token = (words.split(":", 2) + ["", ""])[:3]
        game, token = game.strip().lower(), token.strip().lower()
        if game not in GAMES or len(token) != 16 or not set(token) <= TOKEN_ALPHABET:
            raise IllegalAction("tag_record_unreadable")
        card = keys.card_of(game, token, uid) if keys is not None else None
        if card is None:
            raise IllegalAction("card_key_unknown", game=GAMES[game].title)
        return game, card
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
        """The card a tap names for the game on the table, or IllegalAction with the reason.
        An enrolled UID decides alone: its text is not read, so neither a phone's plain
        text nor a stale record (the deck enrolled again without ``--write``) changes it."""
        known = self.log.card_for_uid(uid) if self.log is not None else None
        if known is not None:
            return self._for_this_game(*known)
        said = parse_text(text, uid, self._keys() if is_record(text) else None)
        if said is None:
            raise IllegalAction("unknown_tag", uid=uid)
        game, card = said
        card = self._for_this_game(game, card)
        if not is_record(text) and self.log is not None and card in self.log.cards(game).values():
            raise IllegalAction("tag_text_enrolled_elsewhere", card=card)
        return card

    def _for_this_game(self, game: str, card: str) -> str:
        if game != self.game:
            raise IllegalAction("tag_other_game", game=_title(game))
        return card


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
