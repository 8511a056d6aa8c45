"""A simulated bare PN532 on a USB-serial adapter, in HSU mode, over a pseudo-terminal.

It speaks the chip's bytes: it sleeps until the ``55 55`` wake-up, ACKs every command
frame and answers GetFirmwareVersion, SAMConfiguration, RFConfiguration,
InListPassiveTarget (the card on it, or none), and InDataExchange / InCommunicateThru to
the card: an NTAG213/215/216 as the datasheet has it (``hardware/sim/ntag.py``: READ, WRITE,
GET_VERSION, PWD_AUTH, its password protection and lock bits). So it is also the reader of
a phone: a WRITE to a protected page without PWD_AUTH gets the chip's error status.
Anything else gets the chip's error frame.

>>> chip = SimulatedPN532("A10K3ZQ1").start()
>>> tag = chip.place("04A1B2C3D4E5F6", "partout:red5")     # a sticker on the reader
>>> chip.remove()
>>> chip.close()
"""

from __future__ import annotations

from pathlib import Path

from hardware.sim.ntag import Ntag, ndef_text_memory, pn532_exchange
from hardware.pn532 import (
    ACK, GET_FIRMWARE_VERSION, IN_DATA_EXCHANGE, IN_LIST_PASSIVE_TARGET, NTAG_READ, RF_CONFIGURATION,
    SAM_CONFIGURATION, ReplyParser,
)
from hardware.sim.station import PtyDevice

ERROR_FRAME = bytes.fromhex("0000ff01ff7f8100")
FIRMWARE = bytes([0x32, 0x01, 0x06, 0x07])      # PN532, version 1.6, ISO 14443 A/B and 18092
IN_COMMUNICATE_THRU = 0x42
RF_CRC_ERROR = 0x02                              # status: a CRC error on air


def response_frame(data: bytes) -> bytes:
    body = b"\xd5" + data
    return b"\x00\x00\xff" + bytes([len(body), -len(body) & 0xFF]) + body + bytes([-sum(body) & 0xFF, 0])


class SimulatedPN532(PtyDevice):
    BY_ID_NAME = "usb-FTDI_FT232R_USB_UART_{name}-if00-port0"

    def __init__(self, serial_number: str, *, by_id_dir: str | Path | None = None,
                 link_delay_ms: tuple[float, float] | None = None) -> None:
        super().__init__(serial_number, by_id_dir=by_id_dir, link_delay_ms=link_delay_ms)
        self.awake = False
        self.tag: Ntag | None = None                     # the card on the reader
        self.commands: list[int] = []                   # command codes heard, in order
        self.fail_reads = 0                             # that many NTAG READs garbled on air (status 02h)
        self._parser = ReplyParser(tfi=0xD4)

    def place(self, uid: str, text: str | None = None, kind: str = "NTAG213") -> Ntag:
        """A fresh sticker carrying ``text`` (an NDEF text record) on the reader."""
        return self.place_tag(Ntag(uid.upper(), kind, ndef_text_memory(text)))

    def place_tag(self, tag: Ntag) -> Ntag:
        """This very sticker on the reader (one another reader wrote, or protected)."""
        self.tag = tag
        return tag

    def remove(self) -> None:
        self.tag = None

    def _rebooted(self) -> None:
        self.awake = False
        self._parser = ReplyParser(tfi=0xD4)

    def _received(self, data: bytes) -> None:
        if not self.awake:
            if b"\x55\x55" not in data:
                return                                 # asleep: the chip hears nothing else
            self.awake = True
            data = data[data.index(b"\x55\x55") + 2:]
        for reply in self._parser.feed(data):
            if reply.kind != "frame":
                continue
            self.commands.append(reply.data[0])
            try:
                self._write(ACK)
                self._write(self._answer(reply.data))
            except RuntimeError:                       # unplugged meanwhile
                return

    def _answer(self, command: bytes) -> bytes:
        code = command[0]
        if code == GET_FIRMWARE_VERSION:
            return response_frame(bytes([code + 1]) + FIRMWARE)
        if code in (SAM_CONFIGURATION, RF_CONFIGURATION):
            return response_frame(bytes([code + 1]))
        if code == IN_LIST_PASSIVE_TARGET:
            if self.tag is None:
                return response_frame(bytes([code + 1, 0]))
            self.tag.activate()
            uid = self.tag.uid
            return response_frame(bytes([code + 1, 1, 1, 0x00, 0x44, 0x00, len(uid)]) + uid)
        if code == IN_DATA_EXCHANGE and len(command) >= 4 and command[2] == NTAG_READ and self.fail_reads and self.tag:
            self.fail_reads -= 1
            return response_frame(bytes([code + 1, RF_CRC_ERROR]))     # the card's answer garbled on air
        if (code == IN_DATA_EXCHANGE and len(command) >= 3) or (code == IN_COMMUNICATE_THRU and len(command) >= 2):
            return response_frame(pn532_exchange(self.tag, command))
        return ERROR_FRAME
