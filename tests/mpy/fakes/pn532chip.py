# A PN532 behind I2C, as the firmware's I2cTransport meets it on a real station, for the
# checks under MicroPython (tests/mpy/check_firmware.py). It answers the commands the
# firmware sends, holds NTAG cards (UID and user memory from page 4), and misbehaves as
# real chips and buses do:
#
# - a read returns the status byte and then the frame waiting, from its start, cut to the
#   length asked for; whatever a short read cut off is gone, unless the host asks for the
#   frame again with a NACK (so a read sized to 32 bytes loses a long answer's tail);
# - "silent": no chip on the bus, every transfer fails at once (EIO, as the rp2 says);
# - "stuck": a shorted bus, every transfer takes the I2C timeout and fails (ETIMEDOUT);
# - corrupt_every: every n-th answer has one byte flipped (a bad checksum on the wire);
# - brown_out(): the chip forgets its set-up (SAMConfiguration) and refuses to list cards
#   with an error frame until it is set up again.
#
# The cards are NTAG213/215/216 as the datasheet has them (ntag.py, the host's
# hardware/ntag.py copied here by run.mjs): listing one activates it, and InDataExchange /
# InCommunicateThru reach it, its password protection and lock bits included.

import time

import ntag

ACK = b"\x00\x00\xff\x00\xff\x00"
NACK = b"\x00\x00\xff\xff\x00\x00"
ERROR = b"\x00\x00\xff\x01\xff\x7f\x81\x00"


def frame(data):
    body = b"\xd5" + bytes(data)
    checksum = (0x100 - (sum(body) & 0xFF)) & 0xFF
    return b"\x00\x00\xff" + bytes([len(body), (0x100 - len(body)) & 0xFF]) + body + bytes([checksum, 0])


def ndef_text_memory(text, size=144):
    """NTAG user memory holding one NDEF text record (language "en")."""
    payload = b"\x02en" + text.encode()
    record = bytes([0xD1, 0x01, len(payload)]) + b"T" + payload
    if len(record) < 0xFF:
        tlv = bytes([0x03, len(record)]) + record + b"\xfe"
    else:
        tlv = bytes([0x03, 0xFF, len(record) >> 8, len(record) & 0xFF]) + record + b"\xfe"
    return tlv + bytes(max(0, size - len(tlv)))


def ndef_url_memory(url, size=144):
    payload = b"\x04" + url.encode()           # 04: "https://"
    record = bytes([0xD1, 0x01, len(payload)]) + b"U" + payload
    tlv = bytes([0x03, len(record)]) + record + b"\xfe"
    return tlv + bytes(size - len(tlv))


BLANK = b"\x03\x00\xfe" + bytes(141)            # an NTAG as it comes: an empty NDEF message


class Card(ntag.Ntag):
    """An NTAG holding ``memory`` from page 4: an NTAG213 if it fits, else a 215 or a 216."""

    def __init__(self, uid_hex, memory, kind=None):
        if kind is None:
            kind = "NTAG213" if len(memory) <= 144 else ("NTAG215" if len(memory) <= 504 else "NTAG216")
        ntag.Ntag.__init__(self, uid_hex, kind, memory)


class Chip:
    def __init__(self, mode="ok", timeout_us=5000):
        self.mode = mode
        self.timeout_us = timeout_us
        self.card = None
        self.configured = False
        self.outgoing = []                  # frames waiting to be read
        self.last = None                    # the last answer, for a NACK
        self.corrupt_every = 0
        self.answers = 0
        self.commands = []                  # command codes received
        self.reads = 0
        self.fail_reads = 0                 # this many NTAG READs answer with an RF error

    # -- the bus -------------------------------------------------------------------------------
    def _bus(self):
        if self.mode == "silent":
            raise OSError(5)                # EIO: nobody acknowledged the address
        if self.mode == "stuck":
            start = time.ticks_us()
            while time.ticks_diff(time.ticks_us(), start) < self.timeout_us:
                pass
            raise OSError(110)              # ETIMEDOUT

    def writeto(self, address, data):
        self._bus()
        data = bytes(data)
        if data == NACK:
            if self.last is not None:
                self.outgoing.insert(0, self.last)
            return len(data)
        if len(data) < 7 or data[:3] != b"\x00\x00\xff" or data[5] != 0xD4:
            return len(data)                # a wake-up byte, or garbage: ignored
        length = data[3]
        command = data[6:5 + length]
        self.commands.append(command[0])
        self.outgoing.append(ACK)
        answer = self._answer(command)
        if answer is not None:
            self.outgoing.append(answer)
        return len(data)

    def readfrom(self, address, n):
        self._bus()
        self.reads += 1
        if not self.outgoing:
            return b"\x00" * n                # busy: status 0
        current = self.outgoing.pop(0)
        if current is not ACK:
            self.last = current
        out = b"\x01" + current
        if len(out) < n:
            out += bytes(n - len(out))
        return out[:n]

    # -- the chip ------------------------------------------------------------------------------
    def brown_out(self):
        self.configured = False

    def _answer(self, command):
        code = command[0]
        if code == 0x02:                      # GetFirmwareVersion: PN532 v1.6
            return self._emit(frame([0x03, 0x32, 0x01, 0x06, 0x07]))
        if code == 0x14:                      # SAMConfiguration
            self.configured = True
            return self._emit(frame([0x15]))
        if code == 0x32:                      # RFConfiguration
            return self._emit(frame([0x33]))
        if code == 0x4A:                      # InListPassiveTarget
            if not self.configured:
                return ERROR
            if self.card is None:
                return self._emit(frame([0x4B, 0x00]))
            self.card.activate()
            uid = self.card.uid
            return self._emit(frame(bytes([0x4B, 0x01, 0x01, 0x00, 0x44, 0x00, len(uid)]) + uid))
        if code == 0x40 and len(command) >= 4 and command[2] == 0x30 and self.fail_reads and self.card is not None:
            self.fail_reads -= 1
            return self._emit(frame([0x41, 0x01]))              # the card moved: no answer
        if (code == 0x40 and len(command) >= 3) or (code == 0x42 and len(command) >= 2):
            return self._emit(frame(ntag.pn532_exchange(self.card, command)))
        return ERROR

    def _emit(self, answer):
        self.answers += 1
        if self.corrupt_every and self.answers % self.corrupt_every == 0:
            broken = bytearray(answer)
            broken[7] ^= 0x5A                 # a flipped byte: the checksum no longer holds
            return bytes(broken)
        return answer


class ChipI2C:
    """What machine.I2C would be with this chip on it."""

    def __init__(self, chip):
        self.chip = chip

    def writeto(self, address, data):
        return self.chip.writeto(address, data)

    def readfrom(self, address, n):
        return self.chip.readfrom(address, n)
