# The station's protocol logic, without the hardware: commands from the host in, event
# frames out through a bounded queue with sequence numbers. main.py wires it to the
# Pico's pins and USB; the tests wire it to fakes.

import binascii

from led import parse_rgb
from wire import PROTOCOL_VERSION, decode_text, encode_frame, encode_text

FIRMWARE_VERSION = "1.6.1"
SEQ_MODULO = 1 << 16

# Every number a command carries is bounded: anything else is answered with an ERR frame
# and changes nothing (a 600 000 000 ms flash would overflow the ticks arithmetic).
FLASH_MS_MAX = 60_000
BUZZ_HZ = (20, 20_000)               # 0 Hz: silence
BUZZ_MS_MAX = 10_000
PING_MAX = 1 << 30


class TagPresence:
    """Poll results -> "the card arrived" and "the card was taken away", once each.
    A card left on the reader is reported once; a card must be missing ``gone_polls``
    polls in a row before it counts as taken away (a poll can miss a card that is there)."""

    def __init__(self, gone_polls):
        self.gone_polls = gone_polls
        self.uid = None
        self.misses = 0

    def poll(self, uid):
        """-> ("on", uid), ("off", uid) or None."""
        if uid is not None:
            self.misses = 0
            if uid != self.uid:
                self.uid = uid
                return ("on", uid)
            return None
        if self.uid is None:
            return None
        self.misses += 1
        if self.misses >= self.gone_polls:
            gone, self.uid, self.misses = self.uid, None, 0
            return ("off", gone)
        return None


def _key(text):
    """A card's password and its acknowledgement (PWD, PACK): 12 hex digits -> 6 bytes."""
    if len(text) != 12:
        raise ValueError(text)
    return binascii.unhexlify(text)          # ValueError for anything but hex digits


def _bounded(text, low, high):
    value = int(text)
    if not low <= value <= high:
        raise ValueError(text)
    return value


class Station:
    def __init__(self, station_id, capabilities, led, buzzer, ticks_us, out_limit=64):
        self.station_id = station_id
        self.capabilities = capabilities
        self.led = led
        self.buzzer = buzzer
        self.ticks_us = ticks_us
        self.out_limit = out_limit
        self.out = []                 # frames waiting for the host
        self.pong = None              # (n, received at): one answer waits, the newest
        self.fence = None             # the newest FENCE's n read, until main.py answers it
        self.spoke_dropped = 0        # self.dropped when the last progress answer left
        self.seq = 0
        self.dropped = 0
        self.bad_commands = 0
        self.texts_cut = 0            # tags sent without their text: it made the frame too long
        self.write_request = None     # (uid, text, key, auth) the host asked to write on a card
        self.probe_request = None     # "chip" or "card": the bring-up probe the host asked for (probe.py)

    # -- host -> station -----------------------------------------------------------------
    def command(self, kind, fields, received_at=None):
        """One frame from the host, decoded at ``received_at`` (station µs). A PING is
        answered before anything else (``take``), carrying when it came and when the answer
        leaves, so the host can take the station's own delay out of the round trip. A
        command with a number out of bounds or a malformed one gets an ERR frame and
        changes nothing; an unknown kind is ignored (the host may be newer). A FENCE is
        answered by main.py (``progress``), which holds the buttons."""
        try:
            if kind == "FENCE":
                self.fence = _bounded(fields[0], 0, PING_MAX)
            elif kind == "PING":
                n = _bounded(fields[0], 0, PING_MAX)
                self.pong = (n, self.ticks_us() if received_at is None else received_at)
            elif kind == "WHO":
                self._queue(encode_frame("HELLO", (PROTOCOL_VERSION, self.station_id, FIRMWARE_VERSION,
                                                   self.capabilities)))
            elif kind == "LED":
                if len(fields[0]) != 6:
                    raise ValueError(fields[0])
                rgb = parse_rgb(fields[0])
                self.led.set(rgb, _bounded(fields[1], 0, FLASH_MS_MAX) if len(fields) > 1 else 0)
            elif kind == "WRITE":
                uid = fields[0].upper()
                int(uid, 16)
                key = _key(fields[2])
                auth = _key(fields[3]) if len(fields) > 3 else key
                self.write_request = (uid, decode_text(fields[1]), key, auth)
            elif kind == "PROBE":
                if fields[0] not in ("chip", "card"):
                    raise ValueError(fields[0])
                self.probe_request = fields[0]
            elif kind == "BUZZ":
                hz = int(fields[0])
                if hz != 0:
                    hz = _bounded(fields[0], BUZZ_HZ[0], BUZZ_HZ[1])
                self.buzzer.tone(hz, _bounded(fields[1], 0, BUZZ_MS_MAX))
        except (ValueError, IndexError):
            self.bad_commands += 1
            self.error("command", kind)

    # -- station -> host -----------------------------------------------------------------
    def button(self, button, down, stamp):
        self._event("BTN", (button, "D" if down else "U", stamp))

    def tag(self, uid, text, stamp):
        frame = encode_frame("TAG", (self.seq, uid, stamp, encode_text(text)))
        if frame is None:                 # the text would not fit a frame: the UID alone
            self.texts_cut += 1
            frame = encode_frame("TAG", (self.seq, uid, stamp, encode_text(None)))
        self._sequenced(frame)

    def tag_gone(self, uid, stamp):
        self._event("GONE", (uid, stamp))

    def written(self, uid, ok, reason):
        """WROTE <uid> ok, or WROTE <uid> fail <why>: the answer to WRITE."""
        fields = (uid, "ok") if ok else (uid, "fail", reason or "-")
        self._queue(encode_frame("WROTE", fields))

    def progress(self, n, stamp):
        """The answer to FENCE n: every event stamped before ``stamp`` is queued ahead of
        it (main.py took the stamp first, then queued every press it held). Queued as a
        mark and written as UPTO, or as LOST when the queue dropped frames since the last
        answer left: a dropped frame was ahead of it, so "everything before" would be false."""
        self._queue(("progress", n, stamp))

    def probed(self, fields):
        """PROBED <name> <n> <median> <min> <max>, PROBED end <phase> <chip version>, or
        PROBED fail <why>: the bring-up probe's figures (probe.py)."""
        self._queue(encode_frame("PROBED", fields))

    def error(self, what, detail):
        """ERR <what> <detail>: a malformed command, a crash (main.py), ..."""
        frame = encode_frame("ERR", (what, encode_text(str(detail)[:60])))
        if frame is not None:
            self._queue(frame)

    def stat(self, longest_loop_us, reader, reader_failures, reader_cut, free_bytes):
        """STAT: how the station has been doing since the last one (``reader_cut``: since it
        started, the times the reader's answers got shorter after one was cut off)."""
        self._queue(encode_frame("STAT", (
            "loop_us=%d" % longest_loop_us, "reader=%s" % reader, "reader_failures=%d" % reader_failures,
            "reader_cut=%d" % reader_cut,
            "dropped=%d" % self.dropped, "bad_commands=%d" % self.bad_commands, "texts_cut=%d" % self.texts_cut,
            "free=%d" % free_bytes)))

    def _event(self, kind, fields):
        self._sequenced(encode_frame(kind, (self.seq,) + fields))

    def _sequenced(self, frame):
        self.seq = (self.seq + 1) % SEQ_MODULO    # counted even if dropped: the host sees the gap
        if frame is not None:
            self._queue(frame)

    def _queue(self, frame):
        if len(self.out) >= self.out_limit:
            self.out.pop(0)
            self.dropped += 1
        self.out.append(frame)

    def pending(self):
        return self.pong is not None or bool(self.out)

    def take(self):
        """The next frame to write, or None: a waiting PONG first, stamped as it leaves."""
        if self.pong is not None:
            n, received = self.pong
            self.pong = None
            return encode_frame("PONG", (n, received, self.ticks_us()))
        if not self.out:
            return None
        frame = self.out.pop(0)
        if isinstance(frame, tuple):           # a progress answer, decided as it leaves
            lost = self.dropped - self.spoke_dropped
            self.spoke_dropped = self.dropped
            if lost:
                return encode_frame("LOST", (frame[1], frame[2], lost))
            return encode_frame("UPTO", (frame[1], frame[2]))
        return frame
