# PN532 NFC reader: its binary frames (pure, shared test vectors with the host driver in
# hardware/pn532.py: tests/vectors/pn532.json), NDEF text from NTAG pages, and the
# reader itself on I2C or UART.
#
#   frame: 00 00 FF LEN LCS TFI DATA... DCS 00    TFI D4 to the chip, D5 from it
#   ACK:   00 00 FF 00 FF 00                      NACK: 00 00 FF FF 00 00

import time

ACK = b"\x00\x00\xff\x00\xff\x00"
NACK = b"\x00\x00\xff\xff\x00\x00"
HOST_TO_PN532 = 0xD4
PN532_TO_HOST = 0xD5
MAX_DATA = 254                      # normal frames only; nothing we ask for is longer

GET_FIRMWARE_VERSION = 0x02
SAM_CONFIGURATION = 0x14
RF_CONFIGURATION = 0x32
IN_DATA_EXCHANGE = 0x40
IN_LIST_PASSIVE_TARGET = 0x4A
NTAG_READ = 0x30


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


def ndef_text(memory):
    """NTAG user memory (from page 4) -> the first NDEF text record's text, or None."""
    i = 0
    message = None
    while i < len(memory):
        tlv = memory[i]
        if tlv == 0x00:                  # NULL TLV
            i += 1
            continue
        if tlv == 0xFE or i + 1 >= len(memory):   # terminator
            return None
        length = memory[i + 1]
        i += 2
        if length == 0xFF:
            if i + 2 > len(memory):
                return None
            length = (memory[i] << 8) | memory[i + 1]
            i += 2
        if tlv == 0x03:
            message = memory[i:i + length]
            if len(message) < length:
                return None
            break
        i += length
    if message is None:
        return None
    return _first_text_record(message)


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


class PN532:
    """The reader on a transport with write(bytes) and read_available() -> bytes.

    Every exchange is bounded: a missing chip or a missing card returns None fast."""

    def __init__(self, transport, retries=1, timeout_ms=60):
        self.transport = transport
        self.retries = retries
        self.timeout_ms = timeout_ms
        self.parser = FrameParser()

    def command(self, data, timeout_ms=None):
        """Send a command, wait for its ACK and its response; the response bytes or None."""
        timeout_ms = timeout_ms or self.timeout_ms
        self.parser = FrameParser()
        self.transport.write(build_frame(data))
        acked = False
        start = time.ticks_ms()
        while time.ticks_diff(time.ticks_ms(), start) < timeout_ms:
            chunk = self.transport.read_available()
            if not chunk:
                time.sleep_ms(1)
                continue
            for item in self.parser.feed(chunk):
                if item[0] == "ack":
                    acked = True
                elif item[0] == "frame" and acked and item[1][0] == data[0] + 1:
                    return item[1]
                elif item[0] in ("nack", "error"):
                    return None
        return None

    def begin(self):
        self.transport.wake()
        version = self.command(bytes([GET_FIRMWARE_VERSION]))
        if version is None:
            return None
        self.command(bytes([SAM_CONFIGURATION, 0x01, 0x14, 0x00]))
        # MxRtyPassiveActivation: a bounded number of tries, so "no card" returns at once
        self.command(bytes([RF_CONFIGURATION, 0x05, 0xFF, 0x01, self.retries]))
        return "%d.%d" % (version[2], version[3])

    def read_uid(self):
        response = self.command(bytes([IN_LIST_PASSIVE_TARGET, 0x01, 0x00]))
        return None if response is None else target_uid(response)

    def read_text(self, pages=32):
        """The NDEF text of the card just listed (NTAG21x READ returns 4 pages a time)."""
        memory = bytearray()
        for page in range(4, 4 + pages, 4):
            response = self.command(bytes([IN_DATA_EXCHANGE, 0x01, NTAG_READ, page]))
            if response is None or len(response) < 2 or response[1] != 0:
                break
            memory.extend(response[2:])
            text = ndef_text(memory)
            if text is not None or 0xFE in memory:
                return text
        return ndef_text(memory)


class UartTransport:
    """HSU: wake with 55 55 and zeros."""

    def __init__(self, uart):
        self.uart = uart

    def wake(self):
        self.uart.write(b"\x55\x55" + b"\x00" * 14)
        time.sleep_ms(2)
        self.uart.read()

    def write(self, data):
        self.uart.write(data)

    def read_available(self):
        return self.uart.read() or b""


class I2cTransport:
    """I2C at address 0x24: a read starts with a status byte, 0x01 once the chip is ready."""

    def __init__(self, i2c, address=0x24):
        self.i2c = i2c
        self.address = address

    def wake(self):
        try:
            self.i2c.writeto(self.address, b"\x00")
        except OSError:
            pass
        time.sleep_ms(2)

    def write(self, data):
        try:
            self.i2c.writeto(self.address, data)
        except OSError:
            pass

    def read_available(self):
        try:
            data = self.i2c.readfrom(self.address, 32)
        except OSError:
            return b""
        if not data or data[0] != 0x01:
            return b""
        return data[1:]
