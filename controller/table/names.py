"""A person's name as the table shows it. Names are typed at the stations from a few rows
of letters, but the database holds whatever was put there (a hand-edited file, a damaged
one, another program): a NUL stops pygame drawing a text (and the screen's process with
it), an escape sequence printed by `spieltisch results` drives the owner's terminal. So a
name read back from the database passes through ``readable_name`` before anything shows it."""

from __future__ import annotations


def readable_name(stored: object) -> str:
    """``stored`` as it may be drawn on the TV and printed to a terminal: control and format
    characters dropped (NUL, ESC and with it any escape sequence's power, a bidirectional
    override), any other space or line break one plain space, no spaces at either end.
    Undecodable bytes become U+FFFD; anything but text or bytes is no name ("")."""
    if isinstance(stored, bytes):
        stored = stored.decode("utf-8", "replace")
    if not isinstance(stored, str):
        return ""
    kept = "".join(ch if ch.isprintable() else " " if ch.isspace() else "" for ch in stored)
    return " ".join(kept.split())
