"""The bare PN532 reader (HSU) through the host driver against the simulated chip: wake-up,
configuration, cards on and off with their NDEF text, garbage, loss and replug."""

from __future__ import annotations

import queue
import random

import pytest
import serial
from hypothesis import given, settings, strategies as st

from conftest import next_event, wait_until
from hardware.events import StationLost
from hardware.link import StationError
from hardware.pn532 import IN_LIST_PASSIVE_TARGET as INLIST, PN532, ReplyParser, build_frame
from hardware.sim_pn532 import SimulatedPN532, response_frame


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
            hello = next_event(events, "StationHello")
            assert hello.station == "pn532:usb-FTDI_FT232R_USB_UART_A1-if00-port0"
            assert hello.firmware == "pn532-1.6" and hello.capabilities["buttons"] == "0"
            chip.place("04A1B2C3D4E5F6", "partout:queen")
            tag = next_event(events, "TagEvent")
            assert (tag.uid, tag.text, tag.seq) == ("04A1B2C3D4E5F6", "partout:queen", 0)
            polls = chip.commands.count(INLIST)           # left on the reader: reported once
            wait_until(lambda: chip.commands.count(INLIST) >= polls + 3, what="three more polls")
            assert events.empty()
            chip.remove()
            gone = next_event(events, "TagGone")
            assert gone.uid == "04A1B2C3D4E5F6" and gone.seq == 1
            chip.place("DEADBEEF")                        # a tag without NDEF
            assert next_event(events, "TagEvent").text is None

            chip.unplug()
            assert isinstance(next_event(events, "StationLost"), StationLost)
            chip.replug()
            assert next_event(events, "StationHello").station == hello.station
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
