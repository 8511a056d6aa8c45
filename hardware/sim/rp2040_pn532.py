"""The PN532 of a station on emulated silicon (``hardware/sim/rp2040/station.mjs``): the one model
of the chip, ``hardware/sim/pn532_chip.py``, asked over two pipes, byte by byte as the RP2040's
I2C block meets it, in the emulator's time.

Why a process of its own and not a port of the model to JavaScript: one model of the chip,
the one the firmware's checks and the WebAssembly stations use, whose timing comes from one
data file (``hardware/data/pn532_timing.json``). The emulator stands still while it asks
(every question carries the emulator's microseconds, and the model's clock is that), so the
pipe's round trip costs wall time only, never time the firmware can see.

The questions, one line each (``us``: the emulated RP2040's ``ticks_us``):

- ``A us``: a write to 24h begins: ``1 stretch_us`` when the chip acknowledges its address, else ``0``;
- ``R us``: a read from 24h begins: ``1 stretch_us hex`` (what it hands out, status byte first:
  01 and the waiting frame, or 00 while busy), or ``0``;
- ``W us hex``: a write ended (STOP) with these bytes; ``E us n``: a read ended after ``n`` bytes;
- ``T us uid hex|-``: a card laid on the antenna (an NTAG213 with this NDEF text, UTF-8 in hex,
  or the card this UID was before, as a WRITE left it); ``L us``: the card taken away;
- ``S``: the chip's figures, one JSON line.

Only ``A``, ``R`` and ``S`` are answered; the rest are told.

Not modelled here (pn532_chip.py's ChipI2C has them for the WebAssembly stations): a read
the I2C timeout cuts off mid-frame (pico-sdk leaves the controller without a STOP; rp2040js
does not model what the controller does next), a stuck bus.
"""

from __future__ import annotations

import json
import sys
from typing import IO

from hardware.sim import ntag, pn532_chip

MASK = pn532_chip.MASK


class ByteTarget:
    """The chip as an I2C target: transfers in, their bytes out."""

    def __init__(self, chip: pn532_chip.Pn532, clock: list[int]) -> None:
        self.chip = chip
        self.clock = clock                     # [us]: what the model's clock reads
        self.offered_frame = False             # the read under way began with status 01
        self.cards: dict[str, ntag.Ntag] = {}  # UID -> its NTAG (what a WRITE put on it stays)

    def address(self) -> tuple[bool, int]:
        return self.chip.answers_address(), self.chip.stretch_us

    def read_begins(self) -> bytes:
        """What the chip hands out, status first. The status alone takes nothing away (a
        read of one byte); which frame a longer read takes is settled when it ends."""
        status = self.chip.readfrom(1)
        self.chip.reads -= 1                   # one transfer, asked twice (here and at its end)
        self.offered_frame = status == b"\x01"
        if not self.offered_frame:
            return status
        return b"\x01" + self.chip.queue[0].data

    def read_ends(self, count: int) -> None:
        if self.offered_frame and count >= 2:
            self.chip.readfrom(count)          # the frame handed out: gone from the chip
        elif count:
            self.chip.reads += 1
        self.offered_frame = False

    def write_ends(self, data: bytes) -> None:
        self.chip.writeto(data)

    def lay(self, uid: str, text: str | None) -> None:
        card = self.cards.get(uid)
        if card is None or text is not None:
            card = self.cards[uid] = ntag.Ntag(uid, "NTAG213", ntag.ndef_text_memory(text))
        self.chip.card = card

    def lift(self) -> None:
        self.chip.card = None

    def figures(self) -> dict[str, int]:
        fast_reads = sum(1 for c in self.chip.card_commands if c[:1] == bytes([ntag.FAST_READ]))
        reads = sum(1 for c in self.chip.card_commands if c[:1] == bytes([ntag.READ]))
        return {"fast_reads": fast_reads, "reads": reads, "i2c_reads": self.chip.reads,
                "commands": len(self.chip.commands), "nacks": self.chip.nacks,
                "card": self.chip.card is not None}


def serve(requests: IO[bytes], answers: IO[bytes], timing: dict | None = None) -> None:
    clock = [0]
    chip = pn532_chip.Pn532(timing or pn532_chip.load_timing(), clock=lambda: clock[0])
    target = ByteTarget(chip, clock)
    for raw in requests:
        parts = raw.decode("ascii").split()
        if not parts:
            continue
        kind = parts[0]
        if len(parts) > 1:
            clock[0] = int(parts[1]) & MASK
        if kind == "A":
            acked, stretch = target.address()
            answers.write(b"1 %d\n" % stretch if acked else b"0\n")
        elif kind == "R":
            acked, stretch = target.address()
            answers.write(b"1 %d %s\n" % (stretch, target.read_begins().hex().encode()) if acked else b"0\n")
        elif kind == "W":
            target.write_ends(bytes.fromhex(parts[2]) if parts[2] != "-" else b"")
        elif kind == "E":
            target.read_ends(int(parts[2]))
        elif kind == "T":
            target.lay(parts[2].upper(), None if parts[3] == "-" else bytes.fromhex(parts[3]).decode("utf-8"))
        elif kind == "L":
            target.lift()
        elif kind == "S":
            answers.write(json.dumps(target.figures()).encode() + b"\n")
        answers.flush()


if __name__ == "__main__":
    serve(sys.stdin.buffer, sys.stdout.buffer)
