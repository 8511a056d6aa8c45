# The checks' way to the simulated PN532 (hardware/sim/pn532_chip.py, with its datasheet timing
# from hardware/data/pn532_timing.json; run.mjs copies both here): a chip on the fake I2C
# bus (machine.chip[0]), NTAG cards (hardware/sim/ntag.py) to lay on it, and the NDEF memory
# the checks write on them. The chip's clock is the host's microseconds (run.mjs: this
# MicroPython's own ticks_us counts whole milliseconds), and the bus waits out its
# transfers without spinning.

import js
import machine
import ntag
import pn532_chip

TIMING = pn532_chip.load_timing("/fakes/pn532_timing.json")


def clock():
    return js.ticksUs()


def sleep_us(us):
    js.sleepUs(us)


machine.sleep_us[0] = sleep_us


class Chip(pn532_chip.Pn532):
    def __init__(self, mode="ok", timing=None):
        pn532_chip.Pn532.__init__(self, timing or TIMING, clock=clock, mode=mode)

    def brown_out(self):
        self.reset()


def slow(**changes):
    """The timing with some figures changed: a slower chip."""
    timing = dict(TIMING)
    timing.update(changes)
    return timing


def ndef_text_memory(text, size=144):
    """NTAG user memory holding one NDEF text record (language "en"), padded to ``size``."""
    memory = ntag.ndef_text_memory(text)
    return memory + bytes(max(0, size - len(memory)))


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
