# The station's protocol logic, without the hardware: commands from the host in, event
# frames out through a bounded queue with sequence numbers. main.py wires it to the
# Pico's pins and USB; the tests wire it to fakes.

from led import parse_rgb
from wire import PROTOCOL_VERSION, encode_frame, encode_text

FIRMWARE_VERSION = "1.0.0"
SEQ_MODULO = 1 << 16


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


class Station:
    def __init__(self, station_id, capabilities, led, buzzer, ticks_us, out_limit=64):
        self.station_id = station_id
        self.capabilities = capabilities
        self.led = led
        self.buzzer = buzzer
        self.ticks_us = ticks_us
        self.out_limit = out_limit
        self.out = []                 # frames waiting for the host
        self.seq = 0
        self.dropped = 0

    # -- host -> station -----------------------------------------------------------------
    def command(self, kind, fields):
        """One frame from the host. Bad commands are ignored: the host may be newer."""
        try:
            if kind == "PING":
                # stamped now, and put first: a PONG that waits behind events is a bad sample
                self.out.insert(0, encode_frame("PONG", (int(fields[0]), self.ticks_us())))
            elif kind == "WHO":
                self._queue(encode_frame("HELLO", (PROTOCOL_VERSION, self.station_id, FIRMWARE_VERSION,
                                                   self.capabilities)))
            elif kind == "LED":
                self.led.set(parse_rgb(fields[0]), int(fields[1]) if len(fields) > 1 else 0)
            elif kind == "BUZZ":
                self.buzzer.tone(int(fields[0]), int(fields[1]))
        except (ValueError, IndexError):
            pass

    # -- station -> host -----------------------------------------------------------------
    def button(self, button, down, stamp):
        self._event("BTN", (button, "D" if down else "U", stamp))

    def tag(self, uid, text, stamp):
        self._event("TAG", (uid, stamp, encode_text(text)))

    def tag_gone(self, uid, stamp):
        self._event("GONE", (uid, stamp))

    def _event(self, kind, fields):
        frame = encode_frame(kind, (self.seq,) + fields)
        self.seq = (self.seq + 1) % SEQ_MODULO    # counted even if dropped: the host sees the gap
        if frame is not None:
            self._queue(frame)

    def _queue(self, frame):
        if len(self.out) >= self.out_limit:
            self.out.pop(0)
            self.dropped += 1
        self.out.append(frame)

    def take(self):
        """The next frame to write, or None."""
        return self.out.pop(0) if self.out else None
