"""The wire protocol codec: round trips, bad frames, garbage, and fuzzing."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

from hardware.protocol import (
    MAX_FRAME, Frame, FrameDecoder, FrameError, decode_line, decode_text, encode_frame, encode_text,
    ticks_diff,
)

field_chars = st.characters(min_codepoint=0x21, max_codepoint=0x7E, blacklist_characters="*")
field = st.text(alphabet=field_chars, min_size=1, max_size=12)
KINDS = ["BTN", "TAG", "HELLO", "PONG"]
short_frames = st.builds(lambda k, f: Frame(k, tuple(f)), st.sampled_from(KINDS), st.lists(field, max_size=5))


@st.composite
def frames_near_the_cap(draw) -> Frame:
    """A frame whose line is 180 to MAX_FRAME bytes long: one more field fills it up."""
    kind, fields = draw(st.sampled_from(KINDS)), draw(st.lists(field, max_size=5))
    length = draw(st.integers(MAX_FRAME - 20, MAX_FRAME))
    pad = length - len(encode_frame(kind, *fields)) - 1          # the filler and its space
    filler = draw(st.text(alphabet=field_chars, min_size=pad, max_size=pad))
    frame = Frame(kind, tuple(fields) + (filler,))
    assert len(encode_frame(frame.kind, *frame.fields)) == length
    return frame


frames = st.one_of(short_frames, frames_near_the_cap())


def test_known_vector():
    # the same bytes the firmware produces (more vectors, shared with it: tests/vectors/wire.json)
    assert encode_frame("BTN", 7, 3, "D", 123456) == b"BTN 7 3 D 123456 *%08x\n" % (
        __import__("binascii").crc32(b"BTN 7 3 D 123456") & 0xFFFFFFFF)
    assert decode_line(encode_frame("BTN", 7, 3, "D", 123456)[:-1]) == Frame("BTN", ("7", "3", "D", "123456"))


@given(frames)
def test_encode_decode_round_trip(frame):
    line = encode_frame(frame.kind, *frame.fields)
    assert FrameDecoder().feed(line) == [frame]


@given(st.text(max_size=60))
def test_text_field_round_trip(text):
    encoded = encode_text(text)
    assert " " not in encoded and "*" not in encoded and encoded.isascii()
    assert decode_text(encoded) == (text or None)


@pytest.mark.parametrize("line", [b"BTN 1 2 D 5", b"BTN 1 2 D 5 *0000000g", b"BTN 1 2 D 5 *00000000",
                                  b"BTN  1 *%08x" % (__import__("binascii").crc32(b"BTN  1"))])
def test_bad_lines_are_refused(line):
    with pytest.raises(FrameError):
        decode_line(line)


def test_encoder_refuses_what_would_break_framing():
    for bad in ("two words", "star*", "", "ü"):
        with pytest.raises(ValueError):
            encode_frame("TAG", bad)
    with pytest.raises(ValueError):
        encode_frame("TAG", "x" * MAX_FRAME)


@settings(max_examples=200)
@given(garbage=st.binary(max_size=400), good=st.lists(frames, min_size=1, max_size=5),
       chunk=st.integers(1, 64))
def test_every_valid_frame_after_garbage_is_found(garbage, good, chunk):
    decoder = FrameDecoder()
    data = garbage + b"\n" + b"".join(encode_frame(f.kind, *f.fields) for f in good)
    found = []
    for i in range(0, len(data), chunk):
        found += decoder.feed(data[i:i + chunk])
    assert found[-len(good):] == good


def test_a_million_random_bytes_never_raise_and_stay_bounded():
    rng = random.Random(1)
    decoder = FrameDecoder()
    data = rng.randbytes(1_000_000)
    for i in range(0, len(data), 4096):
        decoder.feed(data[i:i + 4096])
        assert len(decoder._buffer) < MAX_FRAME
    good = encode_frame("BTN", 1, 2, "D", 3)
    assert decoder.feed(b"\n" + good) == [Frame("BTN", ("1", "2", "D", "3"))]


def test_overlong_line_is_dropped_whole():
    decoder = FrameDecoder()
    assert decoder.feed(b"A" * 1000) == []
    assert decoder.feed(b"still the same line\n" + encode_frame("PONG", 1, 2)) == [Frame("PONG", ("1", "2"))]
    assert decoder.bad_frames == 1


def test_ticks_diff_across_the_wrap():
    assert ticks_diff(5, (1 << 30) - 5) == 10
    assert ticks_diff((1 << 30) - 5, 5) == -10


def test_the_encoder_stops_exactly_at_the_cap_and_the_decoder_reads_on_after_a_long_line():
    """(Both sides' decoders at the cap: tests/test_firmware.py.) A field filling the line to
    MAX_FRAME bytes encodes, one byte more does not; after a line too long the next is read."""
    room = MAX_FRAME - len(encode_frame("TAG", "x")) + 1
    assert len(encode_frame("TAG", "x" * room)) == MAX_FRAME
    with pytest.raises(ValueError, match="longer than"):
        encode_frame("TAG", "x" * (room + 1))
    decoder = FrameDecoder()
    good = encode_frame("BTN", 1, 2, "D", 3)
    assert decoder.feed(b"TAG " + b"x" * MAX_FRAME + b"\n" + good) == [Frame("BTN", ("1", "2", "D", "3"))]
    assert decoder.bad_frames == 1


@settings(max_examples=50)
@given(frames_near_the_cap())
def test_frames_up_to_the_cap_round_trip(frame):
    assert FrameDecoder().feed(encode_frame(frame.kind, *frame.fields)) == [frame]


def test_printable_means_exclamation_mark_to_tilde():
    """DEL (0x7F) is a control character: no field may carry it, no frame may hold it,
    and free text escapes it; '!' and '~', the printable ends, pass as they are."""
    import binascii
    with pytest.raises(ValueError):
        encode_frame("TAG", "a\x7fb")
    body = b"TAG a\x7fb"
    with pytest.raises(FrameError, match="printable"):
        decode_line(body + b" *%08x" % (binascii.crc32(body) & 0xFFFFFFFF))
    assert encode_frame("TAG", "!~")[:7] == b"TAG !~ "
    assert encode_text("!~\x7f") == "!~%7F" and decode_text("!~%7F") == "!~\x7f"


def test_a_short_or_missing_checksum_is_named_as_such():
    for line in (b"BTN 1 2 D 5 *abcdef1", b"deadbeef", b"00000000"):
        with pytest.raises(FrameError, match="no checksum"):
            decode_line(line)


def test_the_decoder_counts_frames_and_skips_blank_lines():
    decoder = FrameDecoder()
    good = encode_frame("BTN", 1, 2, "D", 3)
    assert decoder.frames == 0
    assert len(decoder.feed(b"\n" + good + b"\n\n" + good)) == 2
    assert (decoder.frames, decoder.bad_frames) == (2, 0)
    decoder.feed(b"x\n")                                   # one byte is a line, and a bad one
    assert (decoder.frames, decoder.bad_frames) == (2, 1)


def test_a_cap_full_of_bytes_without_a_newline_is_let_go_at_once():
    decoder = FrameDecoder()
    decoder.feed(b"A" * MAX_FRAME)
    assert len(decoder._buffer) == 0 and decoder.bad_frames == 1
    assert decoder.feed(b"tail of it\n" + encode_frame("PONG", 1, 2)) == [Frame("PONG", ("1", "2"))]
    assert decoder.bad_frames == 1


def test_ticks_diff_reads_within_half_a_wrap_either_way():
    """ticks_us wraps at 2^30: a difference is taken as the nearer way round, so anything
    more than half a wrap (about 9 minutes) ahead reads as behind; always a whole number."""
    half = (1 << 30) // 2
    assert ticks_diff(half - 1, 0) == half - 1
    assert ticks_diff(half + 100, 0) == -half + 100
    assert ticks_diff(0, half + 100) == half - 100
    assert isinstance(ticks_diff(7, 3), int)
