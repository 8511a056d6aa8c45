"""The station wire protocol, version 1: one frame per line of printable ASCII.

    KIND FIELD FIELD ... *CRC\\n

``CRC`` is the CRC-32 (``binascii.crc32``, present on MicroPython and CPython) of
everything before `` *``, as eight lower-case hex digits. A person can watch a station
with any serial terminal, and after garbage the decoder finds the next frame at the next
newline. Fields never contain spaces: free text (a tag's NDEF text) is percent-encoded.

Station → host::

    HELLO <protocol> <station-id> <firmware> <capabilities>   e.g. buttons=6,reader=pn532,led=rgb
    BTN <seq> <button 0-5> <D|U> <station-µs>
    TAG <seq> <uid-hex> <station-µs> <ndef-text or ->
    GONE <seq> <uid-hex> <station-µs>                         the card was taken off the reader
    PONG <n> <received-µs> <sent-µs>    when the PING came, when this left (NTP style)
    UPTO <n> <µs>                        the answer to FENCE n: every event stamped before µs was sent ahead of it
    LOST <n> <µs> <frames>               the same answer after ``frames`` frames were dropped since the last
                                         one (a full queue): an event stamped before µs may be missing
    STAT <key=value> ...                 loop_us reader reader_failures reader_cut dropped bad_commands texts_cut free gc_us
    WROTE <uid-hex> ok | fail <why>      the answer to WRITE
    PROBED <name> <n> <median> <min> <max>   one figure of the bring-up probe (µs, or a code its name says)
    PROBED end <phase> <chip-version>     … its end; PROBED fail <why>: it could not measure
    ERR <what> <detail>                  a refused command (command LED), a crash (crash <reason>)

Host → station::

    WHO                       ask for HELLO
    LED <rrggbb> <flash-ms>   steady colour (flash-ms 0) or a flash that returns to it
    BUZZ <hz> <ms>
    PING <n>
    WRITE <uid-hex> <text> <key> [<opening>]
                              write an NDEF text record on the card on the reader and
                              write-protect it with <key> (NTAG21x PWD and PACK, 12 hex
                              digits; <opening> opens it if another key protects it) → WROTE
    ERR frame <kind>          the answer to a frame the host cannot take (below)
    UPDATE <station-id>       restart into MicroPython's REPL for one boot, so the table can
                              copy new firmware with mpremote (``spieltisch stations --flash``);
                              a station that does not know it (before the version that has
                              it) carries on as if nothing came
    FENCE <n>                 what have you sent? (answered with UPTO or LOST)
    PROBE chip|card           the bring-up probe (firmware 1.6): measure the reader's PN532
                              with no card on it, or with one (``spieltisch stations --probe``)
                              → PROBED frames; the station's loop runs one measurement a
                              pass meanwhile, and sets the reader up again after

Every number a command carries is bounded by the station (flash ≤ 60 s, 20–20 000 Hz or 0,
tones ≤ 10 s); out of bounds or malformed, it answers ``ERR command <kind>`` and does
nothing. The host answers the same way: a frame whose checksum holds but whose fields it
cannot take (a button out of range, a UID that is not hex, a text with a bad ``%`` escape)
gets ``ERR frame <kind>``, and a TAG whose text alone is bad still counts by its UID (as a
text the station could not read: the card registry decides). A line whose checksum fails
is not answered: its kind is as unreliable as the rest of it. Both sides ignore kinds they
do not know (the other side may be newer).

``seq`` counts a station's events modulo 65536 so the host sees lost frames.

**Progress (a watermark).** A station whose HELLO lists ``fence=1`` answers ``FENCE n``
this way: it takes its clock first (µs), then sends every event it still holds that was
stamped before µs (pressed, but not yet written: its IRQ's ring, a change its button
lockout still hides), then ``UPTO n µs``; so on the in-order serial link no event stamped
before µs can come after that answer. A station that dropped frames since its last
answer cannot promise that: it answers ``LOST n µs frames`` instead, and the host decides
without what was lost. It answers the newest FENCE of each read of the host's commands
once (the firmware reads them twice a loop pass, before and after its reader's step), and
never sends a progress stamp unasked. Crazy Kick's arbiter decides a race once every
station in it has answered past the race (docs/stations.md, "Progress: who pressed first,
by construction").

The station's half is ``firmware/wire.py`` (MicroPython); both halves are held to the
same vectors, ``tests/vectors/wire.json``.
"""

from __future__ import annotations

import binascii
from typing import NamedTuple

PROTOCOL_VERSION = 1
MAX_FRAME = 200          # bytes including the newline; longer lines are dropped whole
SEQ_MODULO = 1 << 16
STATION_TICKS_MODULO = 1 << 30   # MicroPython's ticks_us wraps here
FENCE_CAPABILITY = "fence"       # HELLO's capability of a station that answers FENCE (value "1")
FENCE_MODULO = 1 << 30           # FENCE numbers wrap here (the station bounds them as PING's)


HEX_DIGITS = frozenset(b"0123456789abcdefABCDEF")


class FrameError(ValueError):
    """A line that is not a valid frame."""


class Frame(NamedTuple):
    kind: str
    fields: tuple[str, ...]


def encode_frame(kind: str, *fields: object) -> bytes:
    parts = [kind, *(str(f) for f in fields)]
    for part in parts:
        if not part or any(not 0x21 <= ord(ch) <= 0x7E for ch in part) or "*" in part:
            raise ValueError(f"frame field {part!r} must be printable ASCII without spaces or '*'")
    body = " ".join(parts).encode("ascii")
    line = body + b" *" + b"%08x" % (binascii.crc32(body) & 0xFFFFFFFF) + b"\n"
    if len(line) > MAX_FRAME:
        raise ValueError(f"frame of {len(line)} bytes is longer than {MAX_FRAME}")
    return line


def decode_line(line: bytes) -> Frame:
    """One line without its newline (a trailing CR is tolerated) → Frame, or FrameError."""
    if line.endswith(b"\r"):
        line = line[:-1]
    body, sep, crc = line.rpartition(b" *")
    if not sep or len(crc) != 8:
        raise FrameError("no checksum")
    if any(byte not in HEX_DIGITS for byte in crc):      # int() would take "+", "_" and spaces too
        raise FrameError("checksum is not hex")
    expected = int(crc, 16)
    if binascii.crc32(body) & 0xFFFFFFFF != expected:
        raise FrameError("checksum mismatch")
    if any(not 0x20 <= byte <= 0x7E for byte in body):
        raise FrameError("not printable ASCII")
    text = body.decode("ascii")
    parts = text.split(" ")
    if not parts[0] or any(not p for p in parts):
        raise FrameError("empty field")
    return Frame(parts[0], tuple(parts[1:]))


class FrameDecoder:
    """Bytes in, frames out. Never raises on bad input: bad lines are counted and dropped,
    a line longer than MAX_FRAME is discarded up to its newline, so the buffer is bounded."""

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self.max_frame = max_frame
        self._buffer = bytearray()
        self._skipping = False
        self.frames = 0
        self.bad_frames = 0

    def feed(self, data: bytes) -> list[Frame]:
        frames: list[Frame] = []
        buffer = self._buffer
        buffer += data
        start = 0
        while True:
            end = buffer.find(b"\n", start)
            if end < 0:
                break
            if self._skipping:
                self._skipping = False
            elif end - start > 0:
                if end - start + 1 > self.max_frame:
                    self.bad_frames += 1
                else:
                    try:
                        frames.append(decode_line(bytes(buffer[start:end])))
                        self.frames += 1
                    except FrameError:
                        self.bad_frames += 1
            start = end + 1
        del buffer[:start]
        if len(buffer) >= self.max_frame:
            # an overlong line: drop what we have and skip to its newline
            buffer.clear()
            if not self._skipping:
                self.bad_frames += 1
            self._skipping = True
        return frames


# --- text fields ---------------------------------------------------------------------------

def encode_text(text: str | None) -> str:
    """Percent-encode UTF-8 so free text fits one field; ``None`` and "" become ``-``."""
    if not text:
        return "-"
    out = []
    for byte in text.encode("utf-8"):
        if 0x21 <= byte <= 0x7E and byte not in (0x25, 0x2A, 0x2D):   # % * -
            out.append(chr(byte))
        else:
            out.append("%%%02X" % byte)
    return "".join(out)


def decode_text(field: str) -> str | None:
    if field == "-":
        return None
    raw = bytearray()
    i = 0
    while i < len(field):
        ch = field[i]
        if ch == "%":
            digits = field[i + 1:i + 3]
            if len(digits) != 2 or any(ord(d) not in HEX_DIGITS for d in digits):
                raise FrameError("bad percent escape")
            raw.append(int(digits, 16))
            i += 3
        else:
            raw.append(ord(ch))
            i += 1
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise FrameError("text is not UTF-8") from None


def ticks_diff(later: int, earlier: int) -> int:
    """Difference of two station tick counts across the 2^30 wrap (as MicroPython's)."""
    half = STATION_TICKS_MODULO // 2
    return ((later - earlier + half) % STATION_TICKS_MODULO) - half
