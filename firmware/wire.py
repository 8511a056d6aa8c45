# The station's half of the wire protocol (see hardware/protocol.py for the whole
# description). Pure: runs on MicroPython and CPython, checked against the same test
# vectors as the host (tests/vectors/wire.json).
#
#   KIND FIELD FIELD ... *crc32hex\n

import binascii

PROTOCOL_VERSION = 1
HEX_TEXT = "0123456789abcdefABCDEF"
MAX_FRAME = 200          # bytes including the newline; longer lines are dropped whole


def encode_frame(kind, fields):
    body = kind
    for field in fields:
        body += " " + str(field)
    data = body.encode()
    line = data + b" *" + ("%08x" % (binascii.crc32(data) & 0xFFFFFFFF)).encode() + b"\n"
    if len(line) > MAX_FRAME:
        return None            # never sent: the host would drop it anyway
    return line


def decode_line(line):
    """A line without its newline -> (kind, [fields]) or None if it is not a frame."""
    if line[-1:] == b"\r":
        line = line[:-1]
    star = line.rfind(b" *")
    if star < 0 or len(line) - star != 10:
        return None
    body = line[:star]
    for byte in line[star + 2:]:                 # int() would take "+" (and CPython "_") too
        if not (0x30 <= byte <= 0x39 or 0x41 <= byte <= 0x46 or 0x61 <= byte <= 0x66):
            return None
    crc = int(line[star + 2:], 16)
    if binascii.crc32(body) & 0xFFFFFFFF != crc:
        return None
    for byte in body:
        if byte < 0x20 or byte > 0x7E:
            return None
    parts = body.decode().split(" ")
    for part in parts:
        if not part:
            return None
    return parts[0], parts[1:]


class LineDecoder:
    """Bytes in, frames out; a bounded buffer, an overlong line skipped to its newline."""

    def __init__(self, max_frame=MAX_FRAME):
        self.max_frame = max_frame
        self.buffer = bytearray()
        self.skipping = False
        self.bad = 0

    def feed(self, data):
        frames = []
        for byte in data:
            if byte == 10:
                if self.skipping:
                    self.skipping = False
                elif self.buffer:
                    frame = decode_line(bytes(self.buffer))
                    if frame is None:
                        self.bad += 1
                    else:
                        frames.append(frame)
                self.buffer = bytearray()
            elif not self.skipping:
                if len(self.buffer) >= self.max_frame - 1:
                    self.buffer = bytearray()
                    self.skipping = True
                    self.bad += 1
                else:
                    self.buffer.append(byte)
        return frames


def encode_text(text):
    """Percent-encode UTF-8 text so it fits one field; empty or None becomes '-'."""
    if not text:
        return "-"
    out = []
    for byte in text.encode():
        if 0x21 <= byte <= 0x7E and byte not in (0x25, 0x2A, 0x2D):
            out.append(chr(byte))
        else:
            out.append("%%%02X" % byte)
    return "".join(out)


def decode_text(field):
    """The inverse of encode_text; raises ValueError on a bad escape or bad UTF-8."""
    if field == "-":
        return None
    raw = bytearray()
    i = 0
    while i < len(field):
        ch = field[i]
        if ch == "%":
            digits = field[i + 1:i + 3]
            if len(digits) != 2 or digits[0] not in HEX_TEXT or digits[1] not in HEX_TEXT:
                raise ValueError(field)
            raw.append(int(digits, 16))
            i += 3
        else:
            raw.append(ord(ch))
            i += 1
    return bytes(raw).decode()
