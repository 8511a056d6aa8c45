"""The bare PN532 reader (HSU) through the host driver against the simulated chip: wake-up,
configuration, cards on and off with their NDEF text, garbage, loss and replug."""

from __future__ import annotations

import queue
import random

import pytest
import serial
from hypothesis import given, settings, strategies as st

from conftest import next_event, wait_until
from hardware.events import StationHello, StationLost, TagEvent, TagGone
from hardware.link import StationError
from hardware.pn532 import IN_LIST_PASSIVE_TARGET as INLIST, PN532, ReplyParser, build_frame
from hardware.sim.pn532_hsu import SimulatedPN532, response_frame


def test_the_driver_wakes_and_configures_the_chip():
    with SimulatedPN532("A1") as chip:
        port = serial.serial_for_url(chip.port, baudrate=115200, timeout=0.005)
        try:
            reader = PN532(port)
            assert reader.begin() == "1.6"
            assert chip.commands == [0x02, 0x14, 0x32]
            assert reader.read_uid() is None              # no card: an answer, at once
            chip.place("04a1b2c3d4e5f6", "partout:red5")
            assert reader.read_uid() == "04A1B2C3D4E5F6"
            assert reader.read_text() == "partout:red5"
        finally:
            port.close()


def test_a_reader_seat_reports_cards_on_and_off(tmp_path):
    events: queue.Queue = queue.Queue()
    with SimulatedPN532("A1", by_id_dir=tmp_path) as chip:
        from hardware.pn532 import PN532Reader
        reader = PN532Reader(chip.port, events).open()
        try:
            hello = next_event(events, StationHello)
            assert hello.station == "pn532:usb-FTDI_FT232R_USB_UART_A1-if00-port0"
            assert hello.firmware == "pn532-1.6" and hello.capabilities["buttons"] == "0"
            chip.place("04A1B2C3D4E5F6", "partout:queen")
            tag = next_event(events, TagEvent)
            assert (tag.uid, tag.text, tag.seq) == ("04A1B2C3D4E5F6", "partout:queen", 0)
            polls = chip.commands.count(INLIST)           # left on the reader: reported once
            wait_until(lambda: chip.commands.count(INLIST) >= polls + 3, what="three more polls")
            assert events.empty()
            chip.remove()
            gone = next_event(events, TagGone)
            assert gone.uid == "04A1B2C3D4E5F6" and gone.seq == 1
            chip.place("DEADBEEF")                        # a tag without NDEF
            assert next_event(events, TagEvent).text is None

            chip.unplug()
            assert isinstance(next_event(events, StationLost), StationLost)
            chip.replug()
            assert next_event(events, StationHello).station == hello.station
        finally:
            reader.close()


def test_a_port_without_a_pn532_is_refused():
    import os
    import tty
    master, slave = os.openpty()
    tty.setraw(slave)
    try:
        from hardware.pn532 import PN532Reader
        with pytest.raises(StationError, match="no PN532"):
            PN532Reader(os.ttyname(slave), queue.Queue()).open()
    finally:
        os.close(master)
        os.close(slave)


@settings(max_examples=200)
@given(garbage=st.binary(max_size=300), chunk=st.integers(1, 40))
def test_the_reply_parser_finds_the_frame_after_any_garbage(garbage, chunk):
    good = response_frame(bytes([0x4B, 0]))
    parser = ReplyParser()
    data = garbage + good
    replies = []
    for i in range(0, len(data), chunk):
        replies += parser.feed(data[i:i + chunk])
    assert replies and replies[-1].kind == "frame" and replies[-1].data == b"\x4b\x00"


def test_a_million_random_bytes_never_raise_and_stay_bounded():
    parser = ReplyParser()
    data = random.Random(2).randbytes(1_000_000)
    for i in range(0, len(data), 4096):
        parser.feed(data[i:i + 4096])
        assert len(parser._buffer) < 300
    assert parser.feed(response_frame(b"\x03\x32\x01\x06\x07"))[-1].data == b"\x03\x32\x01\x06\x07"


def test_command_frames_carry_their_checksums():
    frame = build_frame(b"\x4a\x01\x00")
    assert frame[3] + frame[4] & 0xFF == 0 and sum(frame[5:-1]) & 0xFF == 0


# -- issue 29: the simulated sticker is the datasheet's NTAG213/215/216 --------------------------------

def test_the_simulated_sticker_answers_as_the_ntag_datasheet_says():
    """GET_VERSION names the kind, and with it where the configuration lies (CFG0 at 29h,
    83h, E3h); the CC says the size; READ gives four pages and rolls over past the last;
    PWD and PACK never read back; an address past the last page is refused and leaves the
    tag silent until it is listed again."""
    from hardware.sim import ntag
    for kind, size, pages, cc in (("NTAG213", 0x0F, 45, 0x12), ("NTAG215", 0x11, 135, 0x3E),
                                  ("NTAG216", 0x13, 231, 0x6D)):
        tag = ntag.Ntag("04A1B2C3D4E5F6", kind)
        assert tag.command(bytes([ntag.GET_VERSION])) is None            # not listed yet: silent
        tag.activate()
        assert tag.command(bytes([ntag.GET_VERSION])) == bytes([0, 4, 4, 2, 1, 0, size, 3])
        assert tag.cfg == pages - 4 and tag.page(3) == bytes([0xE1, 0x10, cc, 0x00])
        assert tag.user_bytes == {"NTAG213": 144, "NTAG215": 504, "NTAG216": 888}[kind]
        assert tag.page(tag.cfg) == b"\x04\x00\x00\xff" and not tag.protected           # as it comes
        assert tag.command(bytes([ntag.READ, tag.cfg])) == tag.page(tag.cfg) + tag.page(tag.cfg + 1) + bytes(8)
        assert tag.command(bytes([ntag.READ, pages - 1]))[4:8] == tag.page(0)              # roll-over
        assert tag.command(bytes([ntag.READ, pages])) == ntag.NAK
        assert tag.command(bytes([ntag.READ, 4])) is None                                   # IDLE after the NAK


def test_protection_takes_effect_when_the_sticker_is_listed_again():
    """As genuine NTAG215s do: the session that writes AUTH0 may go on writing; from the
    next activation on, a write from AUTH0 on needs PWD_AUTH, whose answer is PACK."""
    from hardware.sim import ntag
    tag = ntag.Ntag("04A1B2C3D4E5F6")
    tag.activate()
    cfg = tag.cfg
    for page, data in ((cfg + 2, b"\x11\x22\x33\x44"), (cfg + 3, b"\x55\x66\x00\x00"), (cfg, b"\x04\x00\x00\x04")):
        assert tag.command(bytes([ntag.WRITE, page]) + data) == ntag.ACK
    assert tag.command(bytes([ntag.WRITE, 5, 1, 2, 3, 4])) == ntag.ACK and tag.protected
    tag.activate()
    assert tag.command(bytes([ntag.WRITE, 5, 9, 9, 9, 9])) == ntag.NAK and tag.page(5) == b"\x01\x02\x03\x04"
    tag.activate()
    assert tag.command(bytes([ntag.PWD_AUTH, 0, 0, 0, 0])) == ntag.NAK
    tag.activate()
    assert tag.command(bytes([ntag.PWD_AUTH, 0x11, 0x22, 0x33, 0x44])) == b"\x55\x66"
    assert tag.command(bytes([ntag.WRITE, 5, 9, 9, 9, 9])) == ntag.ACK
    assert tag.command(bytes([ntag.WRITE, 3, 0, 0, 0, 0x0F])) == ntag.ACK                # the CC: bits set …
    assert tag.command(bytes([ntag.WRITE, 3, 0, 0, 0, 0])) == ntag.ACK and tag.page(3)[3] == 0x0F   # … for good


def test_a_phone_through_a_reader_cannot_write_a_protected_sticker_but_reads_it():
    """The simulated PN532 as a phone's reader: the protected sticker's text is read as
    always; a WRITE without PWD_AUTH gets the chip's error status and the sticker falls
    silent until listed again; with the password (InCommunicateThru 1Bh) it is written."""
    from hardware.sim import ntag
    from hardware.pn532 import IN_DATA_EXCHANGE
    from hardware.sim.pn532_hsu import IN_COMMUNICATE_THRU
    with SimulatedPN532("A1") as chip:
        port = serial.serial_for_url(chip.port, baudrate=115200, timeout=0.005)
        try:
            reader = PN532(port)
            reader.begin()
            tag = chip.place("04A1B2C3D4E5F6", "st1:partout:abcdefghijklmnop")
            cfg = tag.cfg
            tag.activate()
            for page, data in ((cfg + 2, b"\x11\x22\x33\x44"), (cfg + 3, b"\x55\x66\x00\x00"),
                               (cfg, b"\x04\x00\x00\x04")):
                tag.command(bytes([ntag.WRITE, page]) + data)                 # as enroll --write leaves it
            assert reader.read_uid() == "04A1B2C3D4E5F6"
            assert reader.read_text() == "st1:partout:abcdefghijklmnop"
            assert reader.command(bytes([IN_DATA_EXCHANGE, 1, ntag.WRITE, 4, 3, 0, 0xFE, 0])) == \
                bytes([0x41, ntag.PN532_NAK_STATUS])
            assert reader.command(bytes([IN_DATA_EXCHANGE, 1, ntag.READ, 4])) == \
                bytes([0x41, ntag.PN532_TIMEOUT_STATUS])                     # silent until listed again
            assert reader.read_uid() == "04A1B2C3D4E5F6"
            assert reader.command(bytes([IN_COMMUNICATE_THRU, ntag.PWD_AUTH, 0x11, 0x22, 0x33, 0x44])) == \
                b"\x43\x00\x55\x66"
            assert reader.command(bytes([IN_DATA_EXCHANGE, 1, ntag.WRITE, 4, 3, 0, 0xFE, 0])) == b"\x41\x00"
            assert reader.read_text() is None                                  # an empty NDEF message now
        finally:
            port.close()


def test_a_bare_reader_reads_a_page_garbled_on_air_again():
    """A CRC error on air (a card at the reader's edge) in the middle of a record: the page
    is read again, and the record comes whole (before, the read stopped there and the card
    had no text)."""
    with SimulatedPN532("A3") as chip:
        port = serial.serial_for_url(chip.port, baudrate=115200, timeout=0.005)
        try:
            reader = PN532(port)
            assert reader.begin() == "1.6"
            chip.place("04a1b2c3d4e5f6", "st1:partout:abcdefghijklmnop")
            assert reader.read_uid() == "04A1B2C3D4E5F6"
            chip.fail_reads = 2                          # the first READ garbled twice, the third try answers
            assert reader.read_text() == "st1:partout:abcdefghijklmnop"
            chip.fail_reads = PN532.READ_TRIES           # garbled every time: no text, not a hang
            assert reader.read_text() is None
        finally:
            port.close()


def test_the_bare_readers_errors_on_air_are_the_firmwares():
    """One list in two runtimes: the host's driver and the station's firmware read the same
    statuses again (MicroPython's firmware cannot import the host's module)."""
    import re
    from pathlib import Path
    from hardware.pn532 import AIR_ERRORS
    source = (Path(__file__).resolve().parents[1] / "firmware" / "pn532.py").read_text()
    found = re.search(r"^AIR_ERRORS = \(([^)]*)\)", source, re.M)
    assert found is not None
    assert tuple(int(x, 16) for x in found.group(1).split(",")) == AIR_ERRORS
