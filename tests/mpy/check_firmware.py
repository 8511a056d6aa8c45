# Runs under MicroPython (WebAssembly, by run.mjs): the firmware's pure logic against the
# same vectors the host is tested with, and the firmware's loop against fakes of the
# Pico-only modules. Prints one line per check and "ALL PASSED" at the end.

import sys

sys.path.insert(0, "/fakes")
sys.path.insert(0, "/firmware")

import json  # noqa: E402
import time  # noqa: E402

import binascii  # noqa: E402

failures = []
checks = []


def check(fn):
    checks.append(fn)
    return fn


def load(name):
    with open("/vectors/" + name) as f:
        return json.load(f)


WIRE = load("wire.json")
PN532 = load("pn532.json")
BUTTONS = load("buttons.json")


def unhex(text):
    return binascii.unhexlify(text)


@check
def wire_encode_decode():
    import wire
    for case in WIRE["encode"]:
        line = case["line"].encode()
        assert wire.encode_frame(case["kind"], case["fields"]) == line, case
        assert wire.decode_line(line[:-1]) == (case["kind"], [str(f) for f in case["fields"]]), case


@check
def wire_bad_lines():
    import wire
    for line in WIRE["bad_lines"]:
        assert wire.decode_line(line.encode()) is None, line


@check
def wire_garbage_stream():
    import wire
    data = unhex(WIRE["stream"]["bytes_hex"])
    expected = [(k, f) for k, f in WIRE["stream"]["frames"]]
    for chunk in (1, 7, len(data)):
        decoder = wire.LineDecoder()
        got = []
        for i in range(0, len(data), chunk):
            got += [(k, f) for k, f in decoder.feed(data[i:i + chunk])]
        assert got == expected, got
        assert decoder.bad == WIRE["stream"]["bad"]


@check
def wire_frame_cap():
    import wire
    longest = WIRE["longest_line"].encode() + b"\n"
    assert len(longest) == WIRE["max_frame"]
    assert len(wire.LineDecoder().feed(longest)) == 1
    assert wire.LineDecoder().feed(b"X" + longest) == []
    assert wire.encode_frame("TAG", ["A" * 300]) is None


@check
def wire_texts():
    import wire
    for text, encoded in WIRE["texts"]:
        assert wire.encode_text(text) == encoded, text


@check
def button_vectors():
    import buttons
    for case in BUTTONS["cases"]:
        logic = buttons.ButtonLogic(6, BUTTONS["lockout_us"])
        events = []
        for step in case["steps"]:
            if step[0] == "edge":
                logic.edge(step[1], step[2])
            else:
                logic.settle(step[1], step[2], step[3])
            events += logic.events()
        assert [list(e) for e in events] == case["events"], case["name"]


@check
def pn532_frames():
    import pn532
    for case in PN532["commands"]:
        assert pn532.build_frame(unhex(case["data_hex"])) == unhex(case["frame_hex"]), case
    data = unhex(PN532["stream"]["bytes_hex"])
    expected = [tuple(item) for item in PN532["stream"]["items"]]
    for chunk in (1, 5, len(data)):
        parser = pn532.FrameParser()
        got = []
        for i in range(0, len(data), chunk):
            for item in parser.feed(data[i:i + chunk]):
                got.append((item[0], binascii.hexlify(item[1]).decode()) if item[0] == "frame" else item)
        assert got == expected, got


@check
def pn532_uids_and_ndef():
    import pn532
    for case in PN532["uids"]:
        assert pn532.target_uid(unhex(case["response_hex"])) == case["uid"], case
    for case in PN532["ndef"]:
        assert pn532.ndef_text(unhex(case["memory_hex"])) == case["text"], case


@check
def tag_presence():
    from station import TagPresence
    p = TagPresence(3)
    seen = [p.poll(u) for u in ("AA", "AA", None, "AA", None, None, None, None, "BB")]
    assert seen == [("on", "AA"), None, None, None, None, None, ("off", "AA"), None, ("on", "BB")], seen


class Stream:
    def __init__(self):
        self.data = bytearray()
        self.written = []

    def read(self, n):
        out = bytes(self.data[:n])
        self.data = self.data[n:]
        return out

    def write(self, frame):
        self.written.append(frame)


class Poll:
    def __init__(self, ready):
        self.ready = ready

    def poll(self, timeout):
        return self.ready()


def make_firmware(host_reads=True):
    import machine
    import main
    stdin, stdout = Stream(), Stream()
    reading = [host_reads]
    firmware = main.Firmware(stdin, stdout, Poll(lambda: len(stdin.data) > 0), Poll(lambda: reading[0]))
    return firmware, stdin, stdout, reading, machine


def frames(stdout):
    import wire
    out = []
    for line in stdout.written:
        out.append(wire.decode_line(line[:-1]))
    stdout.written = []
    return out


@check
def firmware_says_hello_and_answers():
    import wire
    firmware, stdin, stdout, _, _ = make_firmware()
    firmware.step()
    hello = frames(stdout)
    assert hello == [("HELLO", ["1", "e6614103e7452d2f", "1.0.0", "buttons=6,reader=missing,led=ws2812"])], hello
    stdin.data += wire.encode_frame("PING", [7]) + wire.encode_frame("LED", ["ff0000", 0])
    stdin.data += b"garbage\n" + wire.encode_frame("BUZZ", [440, 100])
    before = time.ticks_us()
    firmware.step()
    pong = frames(stdout)
    assert len(pong) == 1 and pong[0][0] == "PONG" and pong[0][1][0] == "7", pong
    assert time.ticks_diff(int(pong[0][1][1]), before) >= 0
    assert firmware.led.np.pixels[0] == (int(255 * 0.4), 0, 0), firmware.led.np.pixels
    assert firmware.buzzer.pwm.hz == 440 and firmware.buzzer.pwm.duty > 0


@check
def firmware_stamps_presses_in_the_irq():
    firmware, stdin, stdout, _, machine = make_firmware()
    firmware.step()
    frames(stdout)
    pin = machine.Pin.all[3]
    before = time.ticks_us()
    pin.fire(0)                 # press, then contact bounce
    pin.fire(1)
    pin.fire(0)
    firmware.step()
    got = frames(stdout)
    assert len(got) == 1 and got[0][0] == "BTN", got
    seq, button, edge, stamp = got[0][1]
    assert (seq, button, edge) == ("0", "1", "D"), got
    assert 0 <= time.ticks_diff(int(stamp), before) < 1_000_000


@check
def firmware_does_not_block_when_the_host_stops_reading():
    firmware, stdin, stdout, reading, machine = make_firmware(host_reads=False)
    pin = machine.Pin.all[2]
    for i in range(200):        # many presses, nobody reading: the loop goes on
        firmware.logic.locked[0] = False
        pin.fire(i % 2)
        firmware.step()
    assert stdout.written == []
    assert len(firmware.station.out) == 64 and firmware.station.dropped > 0
    reading[0] = True
    firmware.step()
    got = frames(stdout)
    # the newest 64 events are kept in order; the oldest were dropped, and the host sees
    # that as a gap in the sequence numbers
    seqs = [int(f[1][0]) for f in got]
    assert all(f[0] == "BTN" for f in got), got[0]
    assert seqs == list(range(firmware.station.seq - 64, firmware.station.seq)), seqs


for fn in checks:
    try:
        fn()
        print("ok", fn.__name__)
    except Exception as exc:
        failures.append(fn.__name__)
        print("FAIL", fn.__name__, repr(exc))
        sys.print_exception(exc)

print(sys.implementation.name, ".".join(str(v) for v in sys.implementation.version[:3]))
if failures:
    raise SystemExit("%d of %d firmware checks failed: %s" % (len(failures), len(checks), ", ".join(failures)))
print("ALL PASSED", len(checks))
