# PN532 NFC reader: its binary frames (pure, shared test vectors with the host driver in
# hardware/pn532.py: tests/vectors/pn532.json), NDEF text from NTAG pages, and the
# reader itself on I2C or UART.
#
#   frame: 00 00 FF LEN LCS TFI DATA... DCS 00    TFI D4 to the chip, D5 from it
#   ACK:   00 00 FF 00 FF 00                      NACK: 00 00 FF FF 00 00

import time

ACK = b"\x00\x00\xff\x00\xff\x00"
NACK = b"\x00\x00\xff\xff\x00\x00"
ETIMEDOUT = 110                     # errno: an I2C transfer the bus's timeout cut off
HOST_TO_PN532 = 0xD4
PN532_TO_HOST = 0xD5
MAX_DATA = 254                      # normal frames only; nothing we ask for is longer
# A normal frame's data after TFI is at most 254 bytes (UM0701-02 6.2.1; a longer answer
# comes in an extended frame, which this parser does not take): the response code, the
# status and 252 bytes of the card's answer, 63 pages.
FRAME_PAGES = (MAX_DATA - 2) // 4

GET_FIRMWARE_VERSION = 0x02
SAM_CONFIGURATION = 0x14
RF_CONFIGURATION = 0x32
IN_DATA_EXCHANGE = 0x40
IN_COMMUNICATE_THRU = 0x42           # a raw command to the card: the ones InDataExchange does not know
IN_LIST_PASSIVE_TARGET = 0x4A
NTAG_READ = 0x30
NTAG_FAST_READ = 0x3A                # start page, end page: all of them in one answer (NTAG21x)
NTAG_WRITE = 0xA2
NTAG_GET_VERSION = 0x60
NTAG_PWD_AUTH = 0x1B

# RFConfiguration item 02h, the PN532's own waits for an answer (UM0701-02 7.3.1): RFU, then
# ATR_RES's (0Bh, 102.4 ms, its default) and TimeOut, the wait for a card's answer to
# InDataExchange or InCommunicateThru, 100 us x 2^(n-1): 09h, 25.6 ms. Its default (0Ah,
# 51.2 ms) left the firmware's 60 ms exchange 8.8 ms to hear the chip say "no answer",
# less than a slow chip's ACK and a few loop passes; nfcpy sets it for each exchange. An
# NTAG21x needs far less: its longest command, WRITE, answers within 10 ms at most (NXP,
# NTAG213F/216F datasheet Rev. 3.1, Table 32 "WRITE timing", TTimeOut; READ's is 5 ms,
# Table 28), which 25.6 ms covers with room for the chip's own work around it.
CARD_TIMEOUT = bytes([0x32, 0x02, 0x00, 0x0B, 0x09])

# NTAG213/215/216 (NXP datasheet): GET_VERSION's storage size byte -> the page of CFG0
# (MIRROR, RFUI, MIRROR_PAGE, AUTH0); CFG1 (ACCESS, RFUI x3), PWD and PACK follow it, the
# dynamic lock bytes come right before it, user memory runs from page 4 up to them.
NTAG_CONFIG_PAGE = {0x0F: 0x29, 0x11: 0x83, 0x13: 0xE3}
PROTECT_FROM = 4                     # AUTH0: writing needs the password from the first user page on
ACCESS_PROT = 0x80                   # ACCESS bit 7: set, reading needs it too (the table keeps it clear)


def build_frame(data):
    """Command bytes (without TFI) -> a normal information frame to the PN532."""
    body = bytes([HOST_TO_PN532]) + bytes(data)
    length = len(body)
    checksum = (0x100 - (sum(body) & 0xFF)) & 0xFF
    return b"\x00\x00\xff" + bytes([length, (0x100 - length) & 0xFF]) + body + bytes([checksum, 0])


class FrameParser:
    """Bytes from the PN532 -> ("ack",), ("nack",), ("error",) or ("frame", data) where data
    starts with the response code. Resynchronises on the 00 FF start code after garbage."""

    def __init__(self):
        self.buffer = bytearray()
        self.bad = 0

    def feed(self, data):
        self.buffer.extend(data)
        out = []
        buf = self.buffer
        while True:
            start = buf.find(b"\x00\xff")
            if start < 0:
                # keep a trailing 00 that may start the next start code
                self.buffer = buf = buf[-1:] if buf[-1:] == b"\x00" else bytearray()
                return out
            if start:
                buf = buf[start:]
            if len(buf) < 4:
                self.buffer = buf
                return out
            length, lcs = buf[2], buf[3]
            if length == 0 and lcs == 0xFF:
                out.append(("ack",))
                buf = buf[4:]
                continue
            if length == 0xFF and lcs == 0x00:
                out.append(("nack",))
                buf = buf[4:]
                continue
            if (length + lcs) & 0xFF or length == 0:
                self.bad += 1                # not a start after all: look further
                buf = buf[1:]
                continue
            if len(buf) < 4 + length + 1:
                self.buffer = buf
                return out
            body = buf[4:4 + length]
            dcs = buf[4 + length]
            if (sum(body) + dcs) & 0xFF:
                self.bad += 1                # not a frame after all: a real one may start inside
                buf = buf[1:]
                continue
            buf = buf[5 + length:]
            if length == 1 and body[0] == 0x7F:
                out.append(("error",))
            elif body[0] == PN532_TO_HOST and length >= 2:
                out.append(("frame", bytes(body[1:])))
            else:
                self.bad += 1


def target_uid(response):
    """An InListPassiveTarget response (4B NbTg Tg SENS_RES SEL_RES LEN UID...) -> the UID
    as upper-case hex, or None when no card answered."""
    if len(response) < 2 or response[0] != IN_LIST_PASSIVE_TARGET + 1 or response[1] == 0:
        return None
    if len(response) < 7:
        return None
    uid_len = response[6]
    uid = response[7:7 + uid_len]
    if len(uid) != uid_len or uid_len == 0:
        return None
    return "".join("%02X" % b for b in uid)


MORE, DONE = 0, 1                    # ndef_scan: read more pages / the answer is in


def ndef_scan(memory):
    """NTAG user memory read so far (from page 4) -> (DONE, text or None) when the memory
    settles it (a text record, a message without one, an empty tag), or (MORE, end) when
    the NDEF message runs on past what was read: ``end`` is how many bytes of user memory
    hold it whole, as its TLV's length says, or None while not even that was read. Walks
    the TLVs: no byte searches, which MicroPython's bytearray does not all have."""
    i = 0
    n = len(memory)
    while True:
        if i >= n:
            return MORE, None
        tlv = memory[i]
        if tlv == 0x00:                  # NULL TLV
            i += 1
            continue
        if tlv == 0xFE:                  # terminator: no NDEF message on this tag
            return DONE, None
        if i + 1 >= n:
            return MORE, None
        length = memory[i + 1]
        i += 2
        if length == 0xFF:
            if i + 2 > n:
                return MORE, None
            length = (memory[i] << 8) | memory[i + 1]
            i += 2
        if tlv == 0x03:
            if i + length > n:
                return MORE, i + length
            return DONE, _first_text_record(memory[i:i + length])
        i += length


def ndef_text(memory):
    """NTAG user memory (from page 4) -> the first NDEF text record's text, or None."""
    status, text = ndef_scan(memory)
    return text if status == DONE else None


def ndef_text_tlv(text):
    """NTAG user memory from page 4 holding one NDEF text record (language "en") and the
    terminator, padded to whole pages: what enrollment writes. A short record (SR) holds
    up to 255 payload bytes; the TLV's length is one byte up to 254 and the three-byte
    form (FF, then two bytes) from 255 on, since a length byte FF means that form (NFC
    Forum Type 2 Tag, TLV blocks). None when the text does not fit a short record."""
    payload = b"\x02en" + text.encode()
    if len(payload) > 255:
        return None
    record = bytes([0xD1, 0x01, len(payload)]) + b"T" + payload
    if len(record) < 0xFF:
        tlv = bytes([0x03, len(record)]) + record + b"\xfe"
    else:
        tlv = bytes([0x03, 0xFF, len(record) >> 8, len(record) & 0xFF]) + record + b"\xfe"
    return tlv + bytes((4 - len(tlv) % 4) % 4)


def _first_text_record(message):
    i = 0
    while i + 3 <= len(message):
        header = message[i]
        short = header & 0x10
        has_id = header & 0x08
        tnf = header & 0x07
        type_len = message[i + 1]
        i += 2
        if short:
            payload_len = message[i]
            i += 1
        else:
            if i + 4 > len(message):
                return None
            payload_len = (message[i] << 24) | (message[i + 1] << 16) | (message[i + 2] << 8) | message[i + 3]
            i += 4
        id_len = 0
        if has_id:
            if i >= len(message):
                return None
            id_len = message[i]
            i += 1
        record_type = bytes(message[i:i + type_len])
        i += type_len + id_len
        payload = message[i:i + payload_len]
        if len(payload) < payload_len:
            return None
        i += payload_len
        if tnf == 0x01 and record_type == b"T" and payload_len >= 1:
            status = payload[0]
            if status & 0x80:            # UTF-16 text: not on our cards
                return None
            start = 1 + (status & 0x3F)
            try:
                return bytes(payload[start:]).decode()
            except UnicodeError:
                return None
        if header & 0x40:                # ME: the last record
            return None
    return None


FAILED = object()                    # an exchange's end without an answer
# The looks past an exchange's deadline that may still move it on (Exchange): on I2C the
# ACK and the answer's header (the answer asked for again); the answer itself ends it. One
# more for an answer a UART hands over in pieces.
LATE_STEPS = 3
TIGHT = 70                           # per cent of the bus's timeout a FAST_READ's answer may take to read

# The pages a table's own record fills: its TLV's type and length (2 bytes), the record's
# header (4), the language ("\x02en", 3) and st1:<game>:<16-character token> for a game
# name of up to 10 characters (31), 40 bytes. A card's first FAST_READ asks for these, so
# an enrolled card is read in one exchange; a longer record's TLV says how much more to ask.
FIRST_PAGES = 10

# A card's capability container (page 3, NFC Forum Type 2 Tag 6.1): E1h, the version, the
# data area's size in units of 8 bytes, the access byte. A message that fits the smallest
# card a table uses (an NTAG213's 144 bytes) is read without it; a longer one, or one
# whose TLV has not come yet (NULL TLVs, an all-zero sticker), is read no further than
# the data area the CC names, so a sticker without a proper record is "no record" at its
# end, not a read past the card's end (a NAK) and again three times.
CC_PAGE = 3
CC_MAGIC = 0xE1
WITHOUT_CC = 144
RESET_WAKE_MS = 10                   # from RSTPDN high to the first command (PN532 oscillator start)
TIMEOUT_STATUS = 0x01                # the PN532's status when the card did not answer at all
# the PN532's errors on air (UM0701-02 7.1): the card's answer did not come (01h) or came
# garbled (CRC 02h, parity 03h, bit count 04h, framing 05h, bit collision 06h, RF field 0Ah,
# RF protocol 0Bh): a card at the field's edge, tried again; any other error is the card's NAK
AIR_ERRORS = (0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x0A, 0x0B)

# the steps of a write (Reader.write_text) -> the reason it fails when a step cannot be done
WRITING = {"version": "version", "config": "write", "auth": "auth", "write": "write", "protect": "protect",
           "check": "verify"}


class Exchange:
    """One command to the chip, never waiting: ``poll(now_ms)`` reads what is there and
    returns the response (bytes), FAILED (a NACK, an error frame, no answer in time, a
    bus error, an answer the transport lost), or None while it is still under way.

    "In time" is the chip's time: ``timeout_ms`` from the command, and only a look at the
    chip tells whether it has answered. An exchange takes a few looks, one a loop pass
    (on I2C: the ACK, the answer's header, the answer asked for again), and a pass can be
    long (a card's read, a garbage collection, USB; a loaded host under the simulated
    Pico): a look past the deadline that moves the exchange on (bytes came, or the
    transport asked for the answer again) is the chip answering in its time, seen late,
    and the exchange goes on; a look past it that brings nothing is a chip that did not
    answer in time, and the exchange fails. The deadline stays where the command put it
    (measured from each step instead, a chip could take the whole timeout for each of
    them), and LATE_STEPS bounds the looks past it, so a chip that keeps sending
    something that is not its answer cannot hold the reader either. (Before 1.7.0 the
    exchange failed at the first look past its deadline: with passes 60 ms apart every
    exchange failed, and a card laid down was never read.)"""

    def __init__(self, transport, data, now_ms, timeout_ms):
        self.transport = transport
        self.code = data[0]
        self.started = now_ms
        self.timeout_ms = timeout_ms
        self.parser = FrameParser()
        self.acked = False
        self.late = 0                    # looks past the deadline that moved the exchange on
        self.unfinished = False          # it ended with the chip perhaps still on it: abort that
        self.sent = transport.write(build_frame(data))

    def poll(self, now_ms):
        if not self.sent:
            return FAILED
        asked_again = getattr(self.transport, "resend", 0)
        chunk = self.transport.read_available()
        if self.transport.lost:
            self.unfinished = True
            return FAILED                # the frame left the chip and never arrived whole
        if chunk:
            for item in self.parser.feed(chunk):
                if item[0] == "ack":
                    self.acked = True
                elif item[0] == "frame" and self.acked and item[1][0] == self.code + 1:
                    return item[1]
                elif item[0] in ("nack", "error"):
                    return FAILED
        if time.ticks_diff(now_ms, self.started) >= self.timeout_ms:
            # past the chip's time: go on only if this look moved the exchange on
            moved = bool(chunk) or (not asked_again and getattr(self.transport, "resend", 0))
            self.late += 1
            if not moved or self.late > LATE_STEPS:
                self.unfinished = True
                return FAILED
        return None


class Reader:
    """The PN532 as a state machine the main loop steps: at most one exchange with the chip
    per ``step``, so a silent chip or a stuck bus costs one bounded bus transfer per loop
    pass, never a wait. It sets the chip up (and checks each answer), polls for a card every
    ``poll_ms``, reads the NDEF text of a new card, and after failures backs off and sets
    the chip up again (a brown-out leaves it unconfigured).

    A card's memory is read until its NDEF message ends (an NTAG216 holds 222 pages; text
    longer than a frame is not sent anyway, so ``max_pages`` stops at 128), with FAST_READ
    (3Ah, through InCommunicateThru: InDataExchange is for the commands the PN532 knows):
    first the FIRST_PAGES an enrolled card's record fills, then, when its TLV says the
    message runs on, up to the message's end, as many pages an answer as the transport
    carries (``transport.longest_answer`` bytes). A FAST_READ that does not bring the
    pages asked for was refused (a NAK: an NTAG203 or a MIFARE Ultralight does not know
    3Ah), not answered (the card left, or ignores it: the PN532 says so after its own
    25.6 ms, CARD_TIMEOUT), or lost on the bus (a transfer cut off by the I2C timeout); the card may be
    silent until it is listed again (NTAG21x datasheet: a NAK returns it to IDLE), so it
    is listed again and, still there, read on four pages at a time with READ (30h,
    InDataExchange), as firmware 1.4 did; not there, the read has failed (main.py sends
    the UID alone, then GONE). A READ that fails is asked again, twice. A message that may
    not fit an NTAG213 (or whose TLV has not come in the first answer) has the card's
    capability container read first (page 3), and the read stops at the data size it
    names: a sticker without a proper record is "no record" there (``_bounded``); past the
    record's start a card's NAK is the card's end, "no record" too, not a refusal.

    ``step(now_ms)`` returns None, ("uid", uid or None) after each poll, ("text", uid, text
    or None, ok) when a card's text was read (``read_text(uid)`` starts that; ok False when
    a page could not be read three times), or ("wrote", uid, ok, reason) after
    ``write_text``.

    A write also write-protects the card with the password the host gives (NTAG213/215/216
    password protection, not the permanent lock bits): GET_VERSION says which NTAG it is
    and so where its configuration is; its configuration is read; a card already protected
    is opened with PWD_AUTH; the text is written as the NFC Forum Type 2 Tag's NDEF write
    procedure says (page 4 with the TLV's length 0 first, the other pages, page 4 with its
    length last), then PWD, PACK, ACCESS (PROT clear: anyone may read) and AUTH0 last; the
    text and the configuration are read back.
    The reasons a write fails: "version" (no NTAG21x answer), "kind" (another chip),
    "text" (too long for this card), "auth" (the password did not open it), "write" (a
    page refused: the card moved, or its lock bits are set), "protect" (a configuration
    page refused), "verify" (what was read back differs).

    ``reset_pin`` (a machine.Pin on the chip's RSTPDN, config.py's PN532_RESET_PIN) is held
    low for each backoff and let go RESET_WAKE_MS before the set-up: a chip that does not
    answer even once the bus is free comes back only from a reset."""

    def __init__(self, transport, poll_ms, retries=1, timeout_ms=60, max_pages=128, reset_pin=None):
        self.transport = transport
        self.reset_pin = reset_pin       # machine.Pin on the chip's RSTPDN, or None
        self.in_reset = False            # RSTPDN held low: it goes high before the next set-up
        self.hard_resets = 0
        self.poll_ms = poll_ms
        self.retries = retries
        self.timeout_ms = timeout_ms
        self.max_pages = max_pages
        self.state = "setup"
        self.setup_step = 0
        self.exchange = None
        self.abort = False               # an ACK goes to the chip before the next command
        self.next_at = None
        self.version = None
        self.failures = 0                # every failed exchange, for STAT
        self.streak = 0                  # failures in a row
        self.backoff_ms = 0
        self.resets = 0                  # set-ups after the first
        self.uid = None
        self.memory = bytearray()
        self.page = 4
        self.page_tries = 0
        # the pages one FAST_READ answer may carry; fewer than a READ's four: READ alone
        self.chunk = min(FRAME_PAGES, getattr(transport, "longest_answer", 0) // 4)
        self.shrinks = 0                 # times ``chunk`` was halved (STAT: reader_cut)
        self.fast = False                # this read uses FAST_READ (until the card refuses it)
        self.asked = 4                   # the pages the read under way asked for
        self.end = None                  # the bytes of user memory the NDEF message fills, once known
        self.data_size = None            # the bytes of user memory the card's CC names, once read
        self.verify = None               # the text a write expects to read back
        self.write_data = b""
        self.write_pages = []            # (page, 4 bytes) the text is written as, in order
        self.key = b""                   # PWD (4 bytes) and PACK (2) to protect the card with
        self.auth = b""                  # … and those that open it, if it is protected already
        self.cfg = 0                     # the card's CFG0 page
        self.protect_pages = []          # (page, 4 bytes) written after the text

    @property
    def ready(self):
        return self.version is not None and self.state not in ("setup", "backoff")

    def read_text(self, uid):
        self.uid = uid
        self._read_from_start()
        self.verify = None
        self.next_at = None              # at once: not at the next poll

    def _read_from_start(self):
        self.memory = bytearray()
        self.page = 4
        self.page_tries = 0
        self.fast = self.chunk >= 4
        self.end = None
        self.data_size = None
        self.state = "read"

    def write_text(self, uid, text, key, auth=None):
        """Write ``text`` as the NDEF record of the card ``uid`` now on the reader and
        protect it with ``key`` (PWD and PACK, 6 bytes; ``auth`` opens it if it is
        protected already, ``key`` when not given), then read both back; ``step`` ends it
        with ("wrote", uid, ok, reason)."""
        data = ndef_text_tlv(text)
        if data is None or len(key) != 6 or (auth is not None and len(auth) != 6):
            return False
        self.uid = uid
        self.write_data = data
        # NFC Forum Type 2 Tag, NDEF write: the TLV's length 0 first (page 4 with 00 in its
        # length byte), the message's other pages, the length last; a card lifted midway
        # holds an empty message, never a length over half-written pages
        first = data[:4]
        self.write_pages = [(4, first[:1] + b"\x00" + first[2:])]
        self.write_pages += [(4 + i // 4, data[i:i + 4]) for i in range(4, len(data), 4)]
        self.write_pages.append((4, first))
        self.key = bytes(key)
        self.auth = bytes(auth if auth is not None else key)
        self.page = 0                    # the index into write_pages, then into protect_pages
        self.page_tries = 0
        self.verify = text
        self.state = "version"
        self.next_at = None
        return True

    def step(self, now_ms):
        if self.exchange is None:
            return self._start(now_ms)
        answer = self.exchange.poll(now_ms)
        if answer is None:
            return None
        if answer is FAILED and self.exchange.unfinished:
            self.abort = True
        self.exchange = None
        if self.state == "read" and self.fast and self._tight():
            self._shrink()
        if answer is FAILED:
            return self._failed(now_ms)
        self.streak = 0
        self.backoff_ms = 0
        return self._answered(answer, now_ms)

    # -- starting the next exchange ------------------------------------------------------------
    def _start(self, now_ms):
        if self.next_at is not None and time.ticks_diff(now_ms, self.next_at) < 0:
            return None
        self.next_at = None
        if self.abort:
            # the last exchange ended without its answer (lost on the bus, or none in time):
            # the chip may still be on it, or halfway through handing it out, and a PN532
            # takes no new command then. An ACK from the host aborts what it does (UM0701-02
            # 6.2.1.3; libnfc's pn532_i2c.c: "Send an ACK frame from host to abort the
            # command"); a transfer of its own, so a pass still makes at most one.
            self.abort = False
            self.transport.write(ACK)
            return None
        if self.state == "backoff":
            self.state, self.setup_step = "setup", 0
            if self.in_reset:
                # let the chip out of reset, and give it RESET_WAKE_MS to start before the
                # set-up wakes it (Adafruit's driver waits 10 ms too)
                self.in_reset = False
                self.reset_pin.value(1)
                self.next_at = time.ticks_add(now_ms, RESET_WAKE_MS)
                return None
        if self.state == "setup":
            if self.setup_step == 0:             # waking takes a bus transfer: a pass of its own
                self.transport.wake()
                self.setup_step = 1
                return None
            if self.setup_step == 1:
                command = bytes([GET_FIRMWARE_VERSION])
            elif self.setup_step == 2:
                command = bytes([SAM_CONFIGURATION, 0x01, 0x14, 0x00])      # normal mode, no IRQ pin
            elif self.setup_step == 3:
                # MxRtyPassiveActivation: a bounded number of tries, so "no card" comes back at once
                command = bytes([RF_CONFIGURATION, 0x05, 0xFF, 0x01, self.retries])
            else:
                command = CARD_TIMEOUT
        elif self.state == "read":
            if self.fast:
                self.asked = self._pages_to_ask()
                command = bytes([IN_COMMUNICATE_THRU, NTAG_FAST_READ, self.page, self.page + self.asked - 1])
            else:
                self.asked = 4
                command = bytes([IN_DATA_EXCHANGE, 0x01, NTAG_READ, self.page])
        elif self.state == "relist":
            command = bytes([IN_LIST_PASSIVE_TARGET, 0x01, 0x00])
        elif self.state == "cc":
            command = bytes([IN_DATA_EXCHANGE, 0x01, NTAG_READ, CC_PAGE])
        elif self.state == "write":
            page, data = self.write_pages[self.page]
            command = bytes([IN_DATA_EXCHANGE, 0x01, NTAG_WRITE, page]) + data
        elif self.state == "version":
            command = bytes([IN_COMMUNICATE_THRU, NTAG_GET_VERSION])
        elif self.state in ("config", "check"):
            command = bytes([IN_DATA_EXCHANGE, 0x01, NTAG_READ, self.cfg])
        elif self.state == "auth":
            command = bytes([IN_COMMUNICATE_THRU, NTAG_PWD_AUTH]) + self.auth[:4]
        elif self.state == "protect":
            page, data = self.protect_pages[self.page]
            command = bytes([IN_DATA_EXCHANGE, 0x01, NTAG_WRITE, page]) + data
        else:
            command = bytes([IN_LIST_PASSIVE_TARGET, 0x01, 0x00])
        self.exchange = Exchange(self.transport, command, now_ms, self.timeout_ms)
        return None

    def _tight(self):
        """Whether the FAST_READ's answer just read was cut off by the bus's timeout, or
        took more than TIGHT per cent of it."""
        transport = self.transport
        timeout_us = getattr(transport, "timeout_us", None)
        return bool(timeout_us) and (transport.lost or transport.read_us * 100 > timeout_us * TIGHT)

    def _shrink(self):
        """An answer was cut off by the bus's timeout, or nearly: this chip and bus carry less
        than ``chunk`` pages in time (a chip that stretches the clock longer than the
        firmware leaves for it). Half as many pages an answer for the rest of the session;
        fewer than a READ's four: READ alone, from the page the read is at."""
        self.chunk //= 2
        if self.chunk < 4:
            self.chunk = 0
            self.fast = False
        self.shrinks += 1

    def _pages_to_ask(self):
        """The next FAST_READ's pages: an enrolled card's record at first, then up to the
        NDEF message's end when its TLV says where that is (else as many as an answer
        carries), never more than an answer carries or past ``max_pages``."""
        if not self.memory:
            want = FIRST_PAGES
        elif self.end is None:
            want = self.chunk
        else:
            want = (self.end - len(self.memory) + 3) // 4
        if self.data_size is not None:
            want = min(want, (self.data_size - len(self.memory) + 3) // 4)
        return max(1, min(want, self.chunk, 4 + self.max_pages - self.page))

    # -- what came back ------------------------------------------------------------------------
    def _answered(self, answer, now_ms):
        if self.state == "setup":
            if self.setup_step == 1:
                if len(answer) < 4:
                    return self._failed(now_ms)
                self.version = "%d.%d" % (answer[2], answer[3])
            self.setup_step += 1
            if self.setup_step == 5:
                self.state = "poll"
            return None
        if self.state in WRITING:
            if len(answer) < 2 or answer[1] != 0:
                return self._page_failed(now_ms)
            self.page_tries = 0
            return self._writing(answer, now_ms)
        if self.state == "read":
            size = 4 * self.asked
            if self.page > 4 and _card_nak(answer):
                return self._text_done(None, now_ms)     # past the record's start: the card's end
            if self.fast and (len(answer) < 2 + size or answer[1] != 0):
                return self._refused()                   # an error status, or a NAK handed back as data
            if len(answer) < 2 or answer[1] != 0:
                return self._page_failed(now_ms)
            if len(answer) < 2 + size:
                return self._page_failed(now_ms)         # a short answer: not the pages asked for
            self.memory.extend(answer[2:2 + size])
            self.page_tries = 0
            self.page += self.asked
            status, found = ndef_scan(self.memory)
            if status == DONE:
                return self._text_done(found, now_ms)
            if self.page >= 4 + self.max_pages:
                return self._text_done(None, now_ms)
            self.end = found
            return self._bounded(now_ms)
        if self.state == "cc":
            if len(answer) < 18 or answer[1] != 0:
                return self._page_failed(now_ms)
            self.page_tries = 0
            # not NDEF formatted: no record (0: nothing of it is read)
            self.data_size = answer[4] * 8 if answer[2] == CC_MAGIC else 0
            self.state = "read"
            return self._bounded(now_ms)
        if self.state == "relist":
            if target_uid(answer) != self.uid:
                return self._text_done(None, now_ms, failed=True)     # it left (or another came)
            self.state = "read"                                       # still there: READ from here on
            return None
        self.next_at = time.ticks_add(now_ms, self.poll_ms)
        return ("uid", target_uid(answer))

    def _bounded(self, now_ms):
        """A read that goes on past what was read: first the CC when the message may not fit
        the smallest card (WITHOUT_CC) or its TLV has not come yet, then never past the data
        area it names: a TLV whose length runs past it, or a data area read to its end
        without one, is no record."""
        if self.data_size is None:
            if self.end is None or self.end > WITHOUT_CC:
                self.state = "cc"
            return None
        if (self.end is not None and self.end > self.data_size) or len(self.memory) >= self.data_size:
            return self._text_done(None, now_ms)
        return None

    def _writing(self, answer, now_ms):
        """One step of a write answered (status 00): the next one."""
        if self.state == "version":
            if len(answer) < 10 or answer[3:6] != b"\x04\x04\x02" or answer[8] not in NTAG_CONFIG_PAGE:
                return self._written(False, "kind", now_ms)      # not an NTAG213/215/216
            self.cfg = NTAG_CONFIG_PAGE[answer[8]]
            if len(self.write_data) > (self.cfg - 1 - 4) * 4:
                return self._written(False, "text", now_ms)      # it would run into the lock bytes
            self.state = "config"
        elif self.state == "config":
            if len(answer) < 18:
                return self._page_failed(now_ms)
            cfg0, cfg1 = answer[2:6], answer[6:10]
            # PWD, PACK, ACCESS with PROT clear (its other bits kept), AUTH0 last: a card that
            # applies AUTH0 at once must not refuse the pages written after it
            self.protect_pages = [(self.cfg + 2, self.key[:4]), (self.cfg + 3, self.key[4:6] + b"\x00\x00"),
                                  (self.cfg + 1, bytes([cfg1[0] & ~ACCESS_PROT & 0xFF]) + cfg1[1:4]),
                                  (self.cfg, cfg0[0:3] + bytes([PROTECT_FROM]))]
            self.state = "auth" if cfg0[3] <= self.cfg + 3 else "write"
        elif self.state == "auth":
            if answer[2:4] != self.auth[4:6]:
                return self._written(False, "auth", now_ms)      # PACK: not the card the key was made for
            self.state = "write"
        elif self.state == "write":
            self.page += 1
            if self.page >= len(self.write_pages):
                self.page, self.state = 0, "protect"
        elif self.state == "protect":
            self.page += 1
            if self.page >= len(self.protect_pages):        # all written: read the text back
                self._read_from_start()
        else:                                               # "check": the configuration read back
            if len(answer) < 10 or answer[5] != PROTECT_FROM or answer[6] & ACCESS_PROT:
                return self._written(False, "verify", now_ms)
            return self._written(True, "", now_ms)
        return None

    def _refused(self):
        """A FAST_READ not answered with the pages asked for: an error status (the card's
        NAK, or no answer: it left, or it ignores 3Ah), a NAK the chip hands back as data
        (status 00 and one byte, as a PN532 with its CRC check off does: nfcpy's pn53x
        driver reads Type 2 NAKs so), or no answer from the chip at all (a transfer the
        bus's timeout cut off). The card may be
        IDLE now, silent until it is listed again, so it is listed again and, still there,
        read with READ. Counts as one of the page's tries."""
        self.page_tries += 1
        self.fast = False
        self.state = "relist"
        return None

    def _page_failed(self, now_ms):
        self.page_tries += 1
        if self.state == "auth":         # a refused password: the card is silent until listed again
            return self._written(False, "auth", now_ms)
        if self.page_tries <= 2:
            return None                  # the same page again, while the card stays
        if self.state in WRITING:
            return self._written(False, WRITING[self.state], now_ms)
        return self._text_done(None, now_ms, failed=True)

    def _text_done(self, text, now_ms, failed=False):
        if self.verify is not None:      # the read-back of a write: the text, then the protection
            if text == self.verify and not failed:
                self.state, self.page_tries = "check", 0
                return None
            return self._written(False, "verify", now_ms)
        uid, self.uid = self.uid, None
        self.state = "poll"
        self.next_at = time.ticks_add(now_ms, self.poll_ms)
        return ("text", uid, text, not failed)

    def _written(self, ok, reason, now_ms):
        uid, self.uid, self.verify = self.uid, None, None
        self.state = "poll"
        self.next_at = time.ticks_add(now_ms, self.poll_ms)
        return ("wrote", uid, ok, reason)

    def _failed(self, now_ms):
        self.failures += 1
        if self.state == "read" and self.fast:
            return self._refused()
        if self.state in ("read", "relist", "cc") or self.state in WRITING:
            return self._page_failed(now_ms)
        self.streak += 1
        if self.state == "poll" and self.streak < 3:
            self.next_at = time.ticks_add(now_ms, self.poll_ms)
            return None
        # the chip does not answer as set up: wait, longer each time, and set it up again
        self.backoff_ms = min(8000, max(250, self.backoff_ms * 2))
        if self.version is not None or self.state == "poll":
            self.resets += 1
        self.version = None
        self.state = "backoff"
        self.next_at = time.ticks_add(now_ms, self.backoff_ms)
        if self.reset_pin is not None:
            # a chip that does not answer even after the bus was set free (a latch-up, a
            # brown-out gone wrong) comes back only from a reset: RSTPDN low for the backoff
            self.reset_pin.value(0)
            self.in_reset = True
            self.hard_resets += 1
        return None


def bus_clear(sda, scl, freq, most):
    """The I2C bus clear (UM10204 3.1.16): SCL clocked by hand on the two pins (open drain)
    until the chip lets SDA go, at most ``most`` clocks, then a STOP (SDA rises while SCL is
    high); the clocks it took. The station's rebuild after a cut transfer and the probe's
    measurement of it both use it."""
    half = 500_000 // freq + 1                  # half a clock at the bus's speed, in µs
    clocks = 0
    while not sda.value() and clocks < most:
        scl.value(0)
        time.sleep_us(half)
        scl.value(1)
        time.sleep_us(half)
        clocks += 1
    scl.value(0)
    sda.value(0)
    time.sleep_us(half)
    scl.value(1)
    time.sleep_us(half)
    sda.value(1)
    time.sleep_us(half)
    return clocks


def _card_nak(answer):
    """Whether the card refused the command (its NAK): an error status that is not one of
    the air's (the card's answer lost or garbled: tried again), or status 00 with the
    card's 4-bit NAK handed back as one byte. The status's two top bits are flags (MI, NAD),
    not the error (UM0701-02 7.1)."""
    if len(answer) < 2:
        return False
    error = answer[1] & 0x3F
    return (error != 0x00 and error not in AIR_ERRORS) or (error == 0x00 and len(answer) == 3)


class UartTransport:
    """HSU: wake with 55 55 and zeros. An answer comes in over as many reads as it takes, so
    one could carry a whole normal frame; but a 63-page FAST_READ answer spends about 22 ms
    on air and, 262 bytes at 115200 baud (10 bits a byte), 23 ms more on the wire: most of
    the exchange's 60 ms. ``UART_PAGES`` a FAST_READ leave half of it."""

    UART_PAGES = 32
    longest_answer = UART_PAGES * 4
    lost = False                          # what comes in stays in the UART's buffer

    def __init__(self, uart):
        self.uart = uart

    def wake(self):
        self.uart.write(b"\x55\x55" + b"\x00" * 14)

    def write(self, data):
        try:
            self.uart.write(data)
        except OSError:
            return False
        return True

    def read_available(self):
        try:
            return self.uart.read() or b""
        except OSError:
            return b""


class I2cTransport:
    """I2C at address 0x24. Every read starts with the status byte, whose bit 0 says the
    chip has a frame waiting (UM0701-02 6.2.4); the status byte alone is read first (two
    bytes on the bus), and only a ready chip is read further. The answer's length is only
    known from its header, so a read takes the header first, and for a longer frame asks
    the chip (NACK) to send it again whole, sized to it. After a NACK the chip is busy
    again until the frame is ready once more: the read waits for the ready status at the
    next passes (as ESPHome's driver does), bounded by the exchange's timeout, and a new
    command forgets it. With a missing chip a transfer fails at once (EIO); a stuck bus
    costs the I2C timeout.

    A transfer the timeout cuts off (ETIMEDOUT, errno 110) leaves the bus stuck: pico-sdk's
    i2c_read_blocking_internal returns on its timeout without a STOP and without an abort,
    the RP2040's controller (IC_EMPTYFIFO_HOLD_MASTER_EN) keeps holding SCL, and the PN532,
    halfway through its frame, may hold SDA low. Every later transfer would fail the same
    way, so the transport makes the bus again at once with ``rebuild`` (main.py's: it
    constructs machine.I2C again, which resets the controller, and clocks a chip that still
    holds SDA free first); without ``rebuild`` it keeps the bus it has.

    ``read_us`` is how long the last command's frame took to read (``clock``: ticks_us), so
    the reader can tell an answer that nearly outlasted the timeout.

    A frame is read whole in one transfer, and the bus's timeout (``timeout_us``, what
    machine.I2C was made with) bounds the whole transfer, not each byte: the rp2 port
    passes it to pico-sdk's i2c_read_timeout_us, whose timeout is documented as the wait
    for the entire transaction. So ``longest_answer``, the card bytes one answer
    may carry, is what a read of half that time holds at ``freq`` (9 clocks a byte, the
    address and the frame around the data counted), the other half left for a chip that
    stretches the clock; 100 kHz and 10 ms: 43 bytes, ten pages. No timeout: a normal
    frame's worth."""

    HEADER = 7                            # status, 00 00 FF, LEN, LCS, one more
    AROUND = 12                           # address, status, 00 00 FF LEN LCS, TFI, code, status, DCS, 00

    def __init__(self, i2c, address=0x24, freq=100_000, timeout_us=None, rebuild=None, sda_low=None):
        self.i2c = i2c
        self.rebuild = rebuild            # () -> a new machine.I2C on a bus set free, or None
        self.sda_low = sda_low            # () -> whether something holds SDA low, or None
        self.rebuilt = 0                  # times the bus was made again after a cut transfer
        self.address = address
        self.resend = 0                   # the length of a frame asked for again, until it is read
        self.lost = False                 # that frame's read failed: nothing more comes for the command
        self.timeout_us = timeout_us
        self.clock = None                 # how a frame's read is timed (None: time.ticks_us)
        self.read_us = 0                  # how long the last command's frame took to read
        if timeout_us is None:
            self.longest_answer = FRAME_PAGES * 4
        else:
            in_time = (timeout_us // 2) * (freq // 1000) // 9000       # bytes in half the timeout
            self.longest_answer = max(0, min(FRAME_PAGES * 4, in_time - self.AROUND))

    def _writeto(self, data):
        try:
            return self.i2c.writeto(self.address, data)
        except OSError as exc:
            self._after(exc)
            raise

    def _readfrom(self, n):
        try:
            return self.i2c.readfrom(self.address, n)
        except OSError as exc:
            self._after(exc)
            raise

    def _after(self, exc):
        """A transfer failed: one the timeout cut off leaves the bus stuck, and so does a chip
        that holds SDA low, whatever the error it made (a START that cannot get onto a bus
        held low may fail with EIO, arbitration lost, as well as ETIMEDOUT): make it again,
        clocking SDA free. A chip that is simply not there (EIO, SDA high) costs nothing."""
        if self.rebuild is None:
            return
        if (exc.args and exc.args[0] == ETIMEDOUT) or (self.sda_low is not None and self.sda_low()):
            self.i2c = self.rebuild()
            self.rebuilt += 1

    def wake(self):
        try:
            self._writeto(b"\x00")
        except OSError:
            pass

    def write(self, data):
        self.resend = 0
        self.lost = False
        self.read_us = 0
        try:
            self._writeto(data)
        except OSError:
            return False
        return True

    def ready(self):
        try:
            status = self._readfrom(1)
        except OSError:
            return False
        return len(status) == 1 and status[0] & 0x01

    def read_available(self):
        if not self.ready():
            return b""
        if self.resend:                        # the frame asked for again is ready: all of it
            total, self.resend = self.resend, 0
            clock = self.clock or time.ticks_us
            started = clock()
            try:
                data = self._readfrom(total)
            except OSError as exc:
                if exc.args and exc.args[0] == ETIMEDOUT:
                    # cut off by the bus's timeout halfway through the frame: the bus is set
                    # free and the chip's answer aborted, nothing more comes for this command
                    self.lost = True
                else:
                    # not acknowledged (EIO): no byte moved, the frame is still in the chip;
                    # read it at the next pass, as firmware 1.4 did
                    self.resend = total
                return b""
            self.read_us = time.ticks_diff(clock(), started)
            if not data or not data[0] & 0x01:
                return b""
            return data[1:]
        try:
            head = self._readfrom(self.HEADER)
        except OSError:
            return b""
        if len(head) < self.HEADER or not head[0] & 0x01:
            return b""
        if head[1] != 0x00 or head[2] != 0x00 or head[3] != 0xFF:
            return head[1:]                    # not a frame's start: the parser skips it
        length, lcs = head[4], head[5]
        if (length == 0 and lcs == 0xFF) or (length == 0xFF and lcs == 0x00):
            return head[1:]                    # ACK or NACK: all there
        try:
            self._writeto(NACK)                   # "again, please": the chip resends it whole
        except OSError:
            return b""
        self.resend = 1 + 5 + length + 2       # status, 00 00 FF LEN LCS, body, DCS, 00
        return b""
