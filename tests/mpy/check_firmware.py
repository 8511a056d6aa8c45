# Runs under MicroPython (WebAssembly, by run.mjs): the firmware's pure logic against the
# same vectors the host is tested with, and the firmware's loop against fakes of the
# Pico-only modules. Prints one line per check and "ALL PASSED" at the end.

import sys

sys.path.insert(0, "/fakes")
sys.path.insert(0, "/firmware")

import json
import time

import binascii

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
CONSTANTS = load("constants.json")      # the host's (tests/test_firmware.py holds it to hardware/protocol.py)


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
    too_long = WIRE["one_byte_too_long"].encode()  # its checksum is right: refused for its length
    assert wire.decode_line(too_long) is not None and wire.LineDecoder().feed(too_long + b"\n") == []
    assert wire.encode_frame("TAG", ["A" * 300]) is None


@check
def wire_texts():
    import wire
    for text, encoded in WIRE["texts"]:
        assert wire.encode_text(text) == encoded, text
        assert wire.decode_text(encoded) == (text or None), encoded
    for field in WIRE["bad_texts"]:             # a bad escape, or bytes that are not UTF-8
        try:
            wire.decode_text(field)
        except ValueError:
            continue
        raise AssertionError("accepted " + field)


@check
def button_vectors():
    import buttons
    for case in BUTTONS["cases"]:
        logic = buttons.ButtonLogic(6, BUTTONS["lockout_us"])
        events = []
        for step in case["steps"]:
            if step[0] == "edge":
                logic.edge(step[1], step[2], step[3])
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

    def write(self, data):
        self.written.append(bytes(data))         # the firmware writes a byte at a time (a PONG at once)
        return len(data)


class Poll:
    def __init__(self, ready):
        self.ready = ready

    def poll(self, timeout):
        return self.ready()


def make_firmware(host_reads=True, chip=None):
    import machine
    import main
    machine.levels.clear()                      # every button up, whatever a check before did
    machine.chip[0] = chip                      # no reader unless the check brings one
    stdin, stdout = Stream(), Stream()
    reading = [host_reads]
    firmware = main.Firmware(stdin, stdout, Poll(lambda: len(stdin.data) > 0), Poll(lambda: reading[0]))
    if chip is not None:
        # a frame's read is timed by what a Pico's ticks_us would see pass: the bus's time.
        # The host's clock counts whole milliseconds here (tests/mpy/run.mjs) and the model's
        # own work and garbage collection besides.
        firmware.reader.transport.clock = lambda: machine.bus_time_us[0]
    return firmware, stdin, stdout, reading, machine


def frames(stdout):
    """The whole lines written so far, decoded; a line's unfinished tail stays for later."""
    import wire
    data = b"".join(stdout.written)
    cut = data.rfind(b"\n") + 1
    stdout.written = [data[cut:]] if cut < len(data) else []
    return [wire.decode_line(line) for line in data[:cut].split(b"\n") if line]


@check
def firmware_shares_the_hosts_constants():
    """The protocol version and the sequence numbers' wrap are the firmware's own copies;
    the station's microsecond stamps wrap where this MicroPython's ticks_us does."""
    import station
    import wire
    assert wire.PROTOCOL_VERSION == CONSTANTS["PROTOCOL_VERSION"], wire.PROTOCOL_VERSION
    assert station.SEQ_MODULO == CONSTANTS["SEQ_MODULO"], station.SEQ_MODULO
    assert time.ticks_add(0, -1) + 1 == CONSTANTS["STATION_TICKS_MODULO"], time.ticks_add(0, -1)
    firmware, _, _, _, _ = make_firmware()          # it says it answers FENCE, as the host reads it
    caps = firmware.station.capabilities
    assert (CONSTANTS["FENCE_CAPABILITY"] + "=1") in caps.split(","), caps


@check
def firmware_says_hello_and_answers():
    import wire
    firmware, stdin, stdout, _, _ = make_firmware()
    firmware.step()
    hello = frames(stdout)
    assert hello == [("HELLO", ["1", "e6614103e7452d2f", "1.7.0", "buttons=6,reader=pn532,led=ws2812,fence=1"])], hello
    stdin.data += wire.encode_frame("PING", [7]) + wire.encode_frame("LED", ["ff0000", 0])
    stdin.data += b"garbage\n" + wire.encode_frame("BUZZ", [440, 100])
    before = time.ticks_us()
    firmware.step()
    pong = frames(stdout)
    assert len(pong) == 1 and pong[0][0] == "PONG" and pong[0][1][0] == "7", pong
    received, sent = int(pong[0][1][1]), int(pong[0][1][2])
    assert time.ticks_diff(received, before) >= 0 and time.ticks_diff(sent, received) >= 0, pong
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



# -- issue 33: a FENCE's answer comes after every press stamped before it -------------------------

class FineClock:
    """main.py's ``time`` with a ``ticks_us`` that moves on by one µs at every read: this
    MicroPython's own counts whole milliseconds, and a press and an answer's stamp in the
    same millisecond could not be told apart."""

    def __init__(self, real):
        self.real = real
        self.now = real.ticks_us()

    def ticks_us(self):
        self.now = self.real.ticks_add(self.now, 1)
        return self.now

    def __getattr__(self, name):
        return getattr(self.real, name)


class IrqAt:
    """main.py's ``time`` (or the fake machine's disable_irq): the n-th call of ``name`` in a
    loop pass has a button's IRQ fire just before it (``before``) or just after it."""

    def __init__(self, real, name, n, before, fire):
        self.real, self.name, self.n, self.before, self.fire = real, name, n, before, fire
        self.calls = 0

    def wrap(self, function):
        def call(*args):
            self.calls += 1
            hit = self.calls == self.n
            if hit and self.before:
                self.fire()
            value = function(*args)
            if hit and not self.before:
                self.fire()
            return value
        return call

    def __getattr__(self, name):
        value = getattr(self.real, name)
        return self.wrap(value) if name == self.name else value


def ticks_before(a, b):
    return time.ticks_diff(int(a), int(b)) < 0


def fenced_pass(irq_where, n, before, press_pin=2, during_transfer=False):
    """One loop pass that reads FENCE 7, with a press (button 0, pin 2) fired at the n-th
    call of ``irq_where`` ("ticks_us" in main.py, or the fake's "disable_irq"); then a pass
    with nothing asked, to send what came after. The FENCE is there when the pass starts,
    or (``during_transfer``) it comes while the pass's first bus transfer is under way (a
    reader polling for a card), and the pass reads it after its reader's step. The frames
    in the order they left, how many of them left in the pass itself, whether the press
    was fired, and how many such calls the pass made."""
    import machine
    import main
    import pn532chip
    import wire
    real_time, real_disable = main.time, machine.disable_irq
    clock = main.time = FineClock(real_time)      # the IRQ handler and the station take it too
    try:
        firmware, stdin, stdout, _, machine = make_firmware(chip=pn532chip.Chip() if during_transfer else None)
        firmware.step()
        if during_transfer:
            assert until_polling(firmware)
        frames(stdout)
        pin = machine.Pin.all[press_pin]
        fence = wire.encode_frame("FENCE", [7])
        if not during_transfer:
            stdin.data += fence
        fired = []
        if irq_where == "ticks_us":
            spy = main.time = IrqAt(clock, "ticks_us", n, before, lambda: fired.append(pin.fire(0)))
        else:
            spy = IrqAt(machine, "disable_irq", n, before, lambda: fired.append(pin.fire(0)))
            machine.disable_irq = spy.wrap(real_disable)
        try:
            came = watched_pass(firmware, stdout, (lambda: stdin.data.extend(fence)) if during_transfer else None)
        finally:
            main.time, machine.disable_irq = clock, real_disable
        in_pass = [item[:2] for item in came if item[0] != "I2C"]
        if during_transfer:
            assert any(item[0] == "I2C" for item in came), came      # the FENCE came during a transfer
        firmware.step()
    finally:
        main.time = real_time
    return in_pass + frames(stdout), len(in_pass), bool(fired), spy.calls


@check
def a_fence_is_answered_after_every_press_stamped_before_its_answer():
    """Wherever a button's hard IRQ comes in the pass that answers FENCE 7 (before or after
    any clock read, before or after IRQs go off: then it runs when they come back on, as
    the hardware holds it), a press stamped before the answer's stamp is written ahead of
    the answer, and the answer comes once, in that pass. So for a FENCE read at the pass's
    start and for one that came during the reader's bus transfer, read after it. Both
    sides of the stamp happen, each way."""
    for during_transfer in (False, True):
        seen = {"before": 0, "after": 0}
        for where in ("ticks_us", "disable_irq"):
            _, _, _, calls = fenced_pass(where, 0, True, during_transfer=during_transfer)   # the calls a pass makes
            assert calls >= 3, (where, calls)
            for n in range(1, calls + 1):
                for before in (True, False):
                    case = (during_transfer, where, n, before)
                    got, in_pass, fired, _ = fenced_pass(where, n, before, during_transfer=during_transfer)
                    assert fired, case
                    kinds = [f[0] for f in got]
                    assert kinds.count("UPTO") == 1, (case, got)
                    answer = kinds.index("UPTO")
                    assert answer < in_pass, (case, got, in_pass)          # not at the next pass
                    assert got[answer][1][0] == "7", got
                    upto = got[answer][1][1]
                    presses = [(i, f) for i, f in enumerate(got) if f[0] == "BTN" and f[1][2] == "D"]
                    assert len(presses) == 1, (case, got)
                    i, press = presses[0]
                    if ticks_before(press[1][3], upto):
                        seen["before"] += 1
                        assert i < answer, (case, got)
                    else:
                        seen["after"] += 1
        assert seen["before"] > 0 and seen["after"] > 0, (during_transfer, seen)


@check
def a_change_the_lockout_hides_holds_the_answer_back_to_its_edge():
    """A tap shorter than the lockout: its release edge is hidden until the lockout ends and
    is then sent stamped with that edge. A FENCE answered meanwhile says no more than that
    edge, so the release cannot come after an answer that promised it would not."""
    import wire
    firmware, stdin, stdout, _, machine = make_firmware()
    firmware.step()
    frames(stdout)
    pin = machine.Pin.all[3]
    pin.fire(0)                                  # press (stamped, locks the button)
    pin.fire(1)                                  # its release, hidden by the lockout
    hidden = firmware.logic.hidden_at[1]
    assert hidden != -1
    stdin.data += wire.encode_frame("FENCE", [9])
    firmware.step()
    got = frames(stdout)
    answer = [f for f in got if f[0] == "UPTO"]
    assert [f[0] for f in got] == ["BTN", "UPTO"] and answer[0][1] == ["9", str(hidden)], got
    start = time.ticks_ms()
    while time.ticks_diff(time.ticks_ms(), start) < 100 and firmware.logic.locked[1]:
        firmware.step()
    stdin.data += wire.encode_frame("FENCE", [10])
    firmware.step()
    got += frames(stdout)
    release = [f for f in got if f[0] == "BTN" and f[1][2] == "U"]
    assert release and release[0][1][3] == str(hidden), got
    last = [f for f in got if f[0] == "UPTO"][-1]
    assert last[1][0] == "10" and not ticks_before(last[1][1], hidden), got
    assert got.index(release[0]) < got.index(last)


@check
def a_bounce_the_loop_saw_settle_holds_no_answer_back():
    """A press whose contact bounced (back up a few µs after the press, then down again): once
    a pass has read the pin down, where the press left it, the bounce came to nothing, and a
    FENCE answered then reaches past the press instead of back to the bounce's edge for the
    rest of the 15 ms lockout. (Firmware 1.6.0 held every answer back to the bounce until the
    lockout ended: the presser's own station never spoke past its press within the table's
    15 ms bound, and each race whose press bounced was decided without its word: issue 43.)
    A release later in the lockout still holds the answer back to its own edge, and is sent
    stamped with it, not with the bounce's. On a clock that moves 1 µs a read (FineClock):
    the lockout lasts as long as the check says, whatever the host does."""
    import main
    import wire
    real_time = main.time
    clock = main.time = FineClock(real_time)      # the IRQ handler and the station take it too
    try:
        firmware, stdin, stdout, _, machine = make_firmware()
        firmware.step()
        frames(stdout)
        pin = machine.Pin.all[3]                  # button 1
        pin.fire(0)                               # the press: stamped, the button locked
        pressed = firmware.logic.locked_at[1]
        pin.fire(1)                               # the contact bounces up …
        bounce = firmware.logic.hidden_at[1]
        pin.fire(0)                               # … and down again
        assert bounce != -1 and time.ticks_diff(bounce, pressed) > 0, (pressed, bounce)
        firmware.step()                           # a pass reads the pin: down, where the press left it
        stdin.data += wire.encode_frame("FENCE", [11])
        firmware.step()
        got = frames(stdout)
        assert [f[0] for f in got] == ["BTN", "UPTO"] and got[0][1][3] == str(pressed), got
        upto = int(got[1][1][1])
        assert firmware.logic.locked[1] and time.ticks_diff(upto, bounce) > 0, (bounce, got)
        pin.fire(1)                               # released 5 ms later, still in the lockout
        release = firmware.logic.hidden_at[1]
        assert release != -1 and time.ticks_diff(release, upto) > 0, (upto, release)
        stdin.data += wire.encode_frame("FENCE", [12])
        firmware.step()
        got = frames(stdout)
        assert [f[0] for f in got] == ["UPTO"] and got[0][1] == ["12", str(release)], got
        clock.now = time.ticks_add(clock.now, 15_000)          # the lockout ends
        firmware.step()
        got = frames(stdout)
        assert [(f[0], f[1][2], f[1][3]) for f in got] == [("BTN", "U", str(release))], got
    finally:
        main.time = real_time


@check
def a_queue_that_dropped_frames_answers_lost_not_upto():
    """Nobody reads: the queue drops its oldest frames (presses among them). The answer to
    a FENCE then cannot say everything before its stamp came: it says LOST, with how many
    frames were dropped since the last answer; the next answer, with nothing dropped, is
    UPTO again. An edge the IRQ's full ring lost counts as dropped too."""
    import wire
    firmware, stdin, stdout, reading, machine = make_firmware(host_reads=False)
    pin = machine.Pin.all[2]
    for i in range(100):
        firmware.logic.locked[0] = False
        pin.fire(i % 2)
        firmware.step()
    assert firmware.station.dropped > 0
    stdin.data += wire.encode_frame("FENCE", [3])
    firmware.step()                               # (its answer, queued, drops one more)
    reading[0] = True
    firmware.step()
    got = frames(stdout)
    assert [f[0] for f in got].count("LOST") == 1 and "UPTO" not in [f[0] for f in got], got
    lost = [f for f in got if f[0] == "LOST"][0]
    assert lost[1][0] == "3" and lost[1][2] == str(firmware.station.dropped), (lost, firmware.station.dropped)
    assert got[-1] == lost, got[-3:]              # every frame still queued went ahead of it
    stdin.data += wire.encode_frame("FENCE", [4])
    firmware.step()
    assert [f[0] for f in frames(stdout)] == ["UPTO"]
    for i in range(40):                           # the IRQ's ring (32) fills while the loop is away
        firmware.logic.locked[0] = False
        pin.fire(i % 2)
    stdin.data += wire.encode_frame("FENCE", [5])
    firmware.step()
    got = frames(stdout)
    assert got[-1][0] == "LOST" and int(got[-1][1][2]) == firmware.logic.overflows > 0, got[-1]


@check
def fences_are_answered_once_a_pass_and_bounded():
    import wire
    firmware, stdin, stdout, _, _ = make_firmware()
    firmware.step()
    frames(stdout)
    for n in (1, 2, 3):
        stdin.data += wire.encode_frame("FENCE", [n])
    stdin.data += wire.encode_frame("FENCE", [-1]) + wire.encode_frame("FENCE", [1 << 31])
    firmware.step()
    got = frames(stdout)
    assert [f[0] for f in got] == ["ERR", "ERR", "UPTO"] and got[-1][1][0] == "3", got


# -- issue 33: the answer leaves before the reader's bus transfer, not after it ------------------

def in_order(log):
    """A watched pass's log -> what it did, in order: its bus transfers ("I2C", "writeto" or
    "readfrom", bytes, bus µs when it began, when it ended) and the frames it wrote (kind,
    fields, bus µs when the newline left)."""
    import wire
    done = []
    line = bytearray()
    for item in log:
        if item[0] != "USB":
            done.append(item)
            continue
        for byte in item[1]:
            if byte == 10:
                kind, fields = wire.decode_line(bytes(line))
                done.append((kind, fields, item[2]))
                line = bytearray()
            else:
                line.append(byte)
    return done


def watched_pass(firmware, stdout, during=None):
    """One loop pass with its bus transfers (every machine.I2C: the transport may make a new
    one) and its USB writes told in the order they came, each with the bus's time
    (machine.bus_time_us: what a Pico spends on the I2C bus; the model's own work is not
    in it). ``during`` is called once, as the pass's first transfer begins: what arrives
    then, the firmware can take only once the transfer is over. -> ``in_order``'s list."""
    import machine
    log = []
    hook = [during]
    reals = {}
    for name in ("writeto", "readfrom"):
        real = reals[name] = getattr(machine.I2C, name)

        def transfer(bus, address, arg, stop=True, real=real, name=name):
            began = machine.bus_time_us[0]
            if hook[0] is not None:
                call, hook[0] = hook[0], None
                call()
            try:
                return real(bus, address, arg)
            finally:
                log.append(("I2C", name, arg if name == "readfrom" else len(arg), began, machine.bus_time_us[0]))
        setattr(machine.I2C, name, transfer)
    real_write = stdout.write

    def write(data):
        log.append(("USB", bytes(data), machine.bus_time_us[0]))
        return real_write(data)
    stdout.write = write
    try:
        firmware.step()
    finally:
        for name, real in reals.items():
            setattr(machine.I2C, name, real)
        stdout.write = real_write
    stdout.written = []                      # told above, in order
    return in_order(log)


LONG_RECORD = "teamplay:" + "x" * 90        # pages 4-30: three FAST_READ answers at 100 kHz and 10 ms


def reader_stretches(before=None, during=None):
    """A station with a PN532, its loop passes watched (``watched_pass``) in two stretches:
    "silent", the reader polling every READER_POLL_MS for a card that is not there (0.4 s,
    and again while each card is taken away until its GONE), and "card", three cards laid
    on it one after the other (a 99-character record: three FAST_READs each), each until
    its TAG has left. ``before(firmware, stdin, i)`` runs before pass i, ``during(firmware,
    stdin, i)`` as pass i's first bus transfer begins (a pass without one gets no call).
    -> {stretch: [(i, what pass i did)]}"""
    import pn532chip
    firmware, chip, stdin, stdout = with_chip()
    start = time.ticks_ms()
    while not firmware.reader.ready and time.ticks_diff(time.ticks_ms(), start) < 2000:
        firmware.step()
    assert firmware.reader.ready
    frames(stdout)
    passes = {"silent": [], "card": []}
    count = [0]

    def one(stretch):
        i = count[0] = count[0] + 1
        if before is not None:
            before(firmware, stdin, i)
        hook = (lambda: during(firmware, stdin, i)) if during is not None else None
        done = watched_pass(firmware, stdout, hook)
        passes[stretch].append((i, done))
        return [item[0] for item in done]

    start = time.ticks_ms()
    while time.ticks_diff(time.ticks_ms(), start) < 400:
        one("silent")
    for k in range(3):
        chip.card = pn532chip.Card("04A1B2C3D4E5F%d" % k, pn532chip.ndef_text_memory(LONG_RECORD))
        start = time.ticks_ms()
        while "TAG" not in one("card"):
            assert time.ticks_diff(time.ticks_ms(), start) < 3000, "no TAG"
        chip.card = None
        start = time.ticks_ms()
        while "GONE" not in one("silent"):
            assert time.ticks_diff(time.ticks_ms(), start) < 3000, "no GONE"
    one("silent")                            # a last pass: an answer left for it shows up
    return passes


def send_fence(firmware, stdin, i, sent):
    """FENCE i from the host, now; ``sent[i]``: the bus's time when it came."""
    import machine
    import wire
    stdin.data += wire.encode_frame("FENCE", [i])
    sent[i] = machine.bus_time_us[0]


def answers(passes):
    """Every UPTO of the stretches: its n -> (the pass it left in, the bus's time it left at)."""
    out = {}
    for stretch in passes.values():
        for i, done in stretch:
            for item in done:
                if item[0] == "UPTO":
                    assert int(item[1][0]) not in out, item            # each answered once
                    out[int(item[1][0])] = (i, item[2])
    return out


def bus_delays(stretch, sent, answered, with_transfer=False, after_transfer=False):
    """The bus time from each FENCE's arrival to its answer's write, in µs, sorted; only the
    passes with a bus transfer if ``with_transfer``; from the end of the pass's first
    transfer (it came during it) if ``after_transfer``."""
    out = []
    for i, done in stretch:
        transfers = [item for item in done if item[0] == "I2C"]
        if i not in sent or (with_transfer and not transfers):
            continue
        out.append(answered[i][1] - (transfers[0][4] if after_transfer else sent[i]))
    return sorted(out)


def figures(delays):
    return "median %d, max %d us (%d)" % (delays[len(delays) // 2], delays[-1], len(delays))


def print_delays(what, passes, sent, answered, during=False):
    print("  %s, in bus time:" % what)
    for name in ("silent", "card"):
        if during:
            print("    %s reader: %s; from the end of the transfer it came in %s" % (
                name, figures(bus_delays(passes[name], sent, answered)),
                figures(bus_delays(passes[name], sent, answered, after_transfer=True))))
        else:
            print("    %s reader: every pass %s; passes with a bus transfer %s" % (
                name, figures(bus_delays(passes[name], sent, answered)),
                figures(bus_delays(passes[name], sent, answered, with_transfer=True))))


@check
def a_fence_is_answered_before_the_readers_bus_transfer_of_its_pass():
    """A FENCE read at a pass's start is answered (its UPTO written to USB) before that
    pass's bus transfers with the reader, whatever the reader does: polling for a card that
    is not there (a command, its status bytes, its answer) or reading one (a FAST_READ's
    answer, several ms at 100 kHz). Printed for information: the bus time from the FENCE's
    arrival (before the pass) to its answer's write."""
    sent = {}
    passes = reader_stretches(before=lambda firmware, stdin, i: send_fence(firmware, stdin, i, sent))
    answered = answers(passes)
    print_delays("FENCE there at a pass's start -> its UPTO written", passes, sent, answered)
    fast_reads = 0
    for name, stretch in passes.items():
        with_transfer = 0
        for i, done in stretch:
            kinds = [item[0] for item in done]
            assert i in answered and answered[i][0] == i, (name, i, done)
            if "I2C" in kinds:
                with_transfer += 1
                assert kinds.index("UPTO") < kinds.index("I2C"), (name, i, done)
            fast_reads += any(item[0] == "I2C" and item[1] == "readfrom" and item[2] > 40 for item in done)
        assert with_transfer >= 10, (name, with_transfer)
    assert fast_reads >= 6, fast_reads                        # two ten-page answers a card


@check
def a_press_leaves_before_the_readers_bus_transfer_of_its_pass():
    """A press (or release) the IRQ stamped before a pass is written in that pass before
    its bus transfers with the reader, polling or reading a card, not after them."""
    import machine

    def press(firmware, stdin, i):
        firmware.logic.locked[0] = False      # past its lockout
        machine.Pin.all[2].fire(0 if i % 2 else 1)    # pressed, released, pressed, ...
    passes = reader_stretches(before=press)
    for name, stretch in passes.items():
        with_transfer = 0
        for i, done in stretch:
            kinds = [item[0] for item in done]
            assert kinds.count("BTN") == 1, (name, i, done)
            if "I2C" in kinds:
                with_transfer += 1
                assert kinds.index("BTN") < kinds.index("I2C"), (name, i, done)
        assert with_transfer >= 10, (name, with_transfer)


@check
def a_fence_that_comes_during_the_readers_transfer_is_answered_in_that_pass():
    """A FENCE that comes while the reader's bus transfer is under way is read after it and
    answered in the same pass, not after the next pass's transfer; polling or reading a
    card. Printed for information: the bus time from its arrival (as the pass's first
    transfer began) to its answer's write."""
    sent = {}
    passes = reader_stretches(during=lambda firmware, stdin, i: send_fence(firmware, stdin, i, sent))
    answered = answers(passes)
    print_delays("FENCE coming as a pass's first bus transfer begins -> its UPTO written", passes, sent, answered,
                 during=True)
    for name, stretch in passes.items():
        fenced = [i for i, _ in stretch if i in sent]
        assert len(fenced) >= 10, (name, len(fenced))
        for i in fenced:
            assert i in answered and answered[i][0] == i, (name, i, answered.get(i))


# -- issue 15: the firmware on a real chip, under MicroPython -------------------------------------

def with_chip(mode="ok", **kw):
    import pn532chip
    chip = pn532chip.Chip(mode)
    for k, v in kw.items():
        setattr(chip, k, v)
    firmware, stdin, stdout, reading, _ = make_firmware(chip=chip)
    return firmware, chip, stdin, stdout


def run_until(firmware, stdout, want, seconds=3.0):
    """Loop passes until a frame of kind ``want`` comes out; returns it and the slowest pass (µs)."""
    start = time.ticks_ms()
    slowest = 0
    while time.ticks_diff(time.ticks_ms(), start) < seconds * 1000:
        t0 = time.ticks_us()
        firmware.step()
        slowest = max(slowest, time.ticks_diff(time.ticks_us(), t0))
        for f in frames(stdout):
            if f[0] == want:
                return f, slowest
    return None, slowest


@check
def every_kind_of_tag_is_read():
    import pn532chip
    import wire
    long_text = "teamplay:" + "x" * 90
    cases = [("partout:red5", "partout:red5"), (long_text, long_text), (None, "-")]
    for text, shown in cases:
        firmware, chip, stdin, stdout = with_chip()
        memory = pn532chip.BLANK if text is None else pn532chip.ndef_text_memory(text)
        chip.card = pn532chip.Card("04A1B2C3D4E5F6", memory)
        tag, slowest = run_until(firmware, stdout, "TAG")
        assert tag is not None, text
        assert tag[1][1] == "04A1B2C3D4E5F6" and tag[1][3] == wire.encode_text(text) == shown, (text, tag)
    firmware, chip, stdin, stdout = with_chip()    # a URL record: the UID, no text
    chip.card = pn532chip.Card("04112233445566", pn532chip.ndef_url_memory("example.com/spieltisch"))
    tag, _ = run_until(firmware, stdout, "TAG")
    assert tag[1][1] == "04112233445566" and tag[1][3] == "-", tag
    firmware, chip, stdin, stdout = with_chip()    # a text too long for a frame (NTAG215): the UID alone
    chip.card = pn532chip.Card("04AABBCCDDEEFF", pn532chip.ndef_text_memory("y" * 190, size=504))
    tag, _ = run_until(firmware, stdout, "TAG")
    assert tag[1][1] == "04AABBCCDDEEFF" and tag[1][3] == "-" and firmware.station.texts_cut == 1, tag


@check
def a_card_taken_away_is_gone_once():
    import pn532chip
    firmware, chip, stdin, stdout = with_chip()
    chip.card = pn532chip.Card("04A1B2C3D4E5F6", pn532chip.ndef_text_memory("tadika:blue5"))
    tag, _ = run_until(firmware, stdout, "TAG")
    chip.card = None
    gone, _ = run_until(firmware, stdout, "GONE")
    assert gone is not None and gone[1][1] == "04A1B2C3D4E5F6", gone


@check
def a_silent_or_stuck_reader_never_stalls_the_loop():
    """At most one bus transfer per loop pass, whatever the reader does: a pass costs at
    most one I2C timeout (10 ms) with a stuck bus and nothing with a silent one. That count
    is what is checked; the passes' times are printed for information only (timed with the
    garbage collector held back; on a loaded machine they say more about the machine)."""
    import gc
    import machine
    for mode in ("silent", "stuck"):
        firmware, chip, stdin, stdout = with_chip(mode)
        counted = [0]
        reals = {}
        for name in ("writeto", "readfrom"):             # every machine.I2C: a stuck bus is made again
            real = reals[name] = getattr(machine.I2C, name)

            def counting(self, address, data, stop=True, real=real):
                counted[0] += 1
                return real(self, address, data)
            setattr(machine.I2C, name, counting)
        slowest, most = 0, 0
        start = time.ticks_ms()
        gc.disable()
        try:
            while time.ticks_diff(time.ticks_ms(), start) < 1500:
                counted[0] = 0
                t0 = time.ticks_us()
                firmware.step()
                slowest = max(slowest, time.ticks_diff(time.ticks_us(), t0))
                most = max(most, counted[0])
                if gc.mem_free() < 1_000_000:
                    gc.collect()
        finally:
            gc.enable()
            for name, real in reals.items():
                setattr(machine.I2C, name, real)
        print("  %s reader: slowest pass %d us, at most %d bus transfer(s) a pass" % (mode, slowest, most))
        assert most == 1, (mode, most)
        assert firmware.reader.failures >= 1 and not firmware.reader.ready, mode
        assert firmware.reader.backoff_ms >= 250, (mode, firmware.reader.backoff_ms)   # it backs off


@check
def corrupted_replies_are_retried():
    import pn532chip
    firmware, chip, stdin, stdout = with_chip(corrupt_every=5)
    chip.card = pn532chip.Card("04A1B2C3D4E5F6", pn532chip.ndef_text_memory("partout:king"))
    tag, _ = run_until(firmware, stdout, "TAG", seconds=6.0)
    assert tag is not None and tag[1][3] == "partout:king", tag
    assert firmware.reader.failures > 0


@check
def the_reader_is_set_up_again_after_a_brown_out():
    import pn532chip
    firmware, chip, stdin, stdout = with_chip()
    chip.card = pn532chip.Card("04A1B2C3D4E5F6", pn532chip.ndef_text_memory("partout:queen"))
    run_until(firmware, stdout, "TAG")
    chip.brown_out()
    chip.card = None
    run_until(firmware, stdout, "GONE", seconds=1.0)
    chip.card = pn532chip.Card("04000000000001", pn532chip.ndef_text_memory("partout:jester"))
    tag, _ = run_until(firmware, stdout, "TAG", seconds=4.0)
    assert tag is not None and tag[1][1] == "04000000000001", tag
    assert firmware.reader.resets >= 1 and chip.configured


@check
def the_irq_handler_runs_with_the_heap_locked():
    import micropython
    firmware, stdin, stdout, _, machine = make_firmware()
    firmware.step()
    frames(stdout)
    pin = machine.Pin.all[4]
    machine.levels[pin.id] = 1                  # the fake's own dict entry exists before the lock
    micropython.heap_lock()
    try:
        for level in (0, 1, 0, 1, 0):           # press and bounce, all inside the IRQ
            pin.fire(level)
    finally:
        micropython.heap_unlock()
    firmware.step()
    got = frames(stdout)
    assert [f[1][1:3] for f in got] == [["2", "D"]], got


@check
def a_partial_usb_write_keeps_every_frame_whole():
    import wire
    firmware, stdin, stdout, reading, machine = make_firmware()
    room = [5]                                   # bytes USB takes before it is full

    class Narrow:
        def __init__(self):
            self.data = bytearray()

        def write(self, chunk):
            if room[0] <= 0:
                return 0
            n = min(len(chunk), room[0])
            self.data += bytes(chunk[:n])
            room[0] -= n
            return n

    narrow = Narrow()
    firmware.stdout = narrow
    firmware.outgoing = Poll(lambda: room[0] > 0)
    for i in range(6):
        firmware.station.button(i % 6, True, 1000 + i)
    while firmware.station.pending() or firmware.partial is not None:
        firmware.step()
        room[0] = 7                             # the host reads a few bytes between passes
    lines = bytes(narrow.data).split(b"\n")
    decoded = [wire.decode_line(line) for line in lines if line]
    assert decoded[0][0] == "HELLO" and [d[0] for d in decoded[1:]] == ["BTN"] * 6, decoded
    assert all(d is not None for d in decoded)


@check
def a_command_out_of_bounds_is_refused_with_an_error_frame():
    import wire
    firmware, stdin, stdout, _, _ = make_firmware()
    firmware.step()
    frames(stdout)
    before = firmware.led.steady
    for line in (("LED", ["ff0000", 600000000]), ("LED", ["zz", 0]), ("LED", ["ff00", 0]), ("BUZZ", [99999, 100]),
                 ("BUZZ", [440, 10 ** 12]), ("BUZZ", [440]), ("PING", ["x"]), ("LED", ["00ff00", -5])):
        stdin.data += wire.encode_frame(line[0], line[1])
    firmware.step()
    got = frames(stdout)
    assert [f[0] for f in got] == ["ERR"] * 8, got
    assert got[0][1] == ["command", "LED"], got
    assert firmware.led.steady == before and firmware.station.bad_commands == 8


@check
def pongs_never_pile_up():
    import wire
    firmware, stdin, stdout, reading, _ = make_firmware(host_reads=False)
    for n in range(300):
        stdin.data += wire.encode_frame("PING", [n])
    for _ in range(50):                         # a pass reads at most main.READ_CAP bytes
        firmware.step()
        if not stdin.data:
            break
    assert not stdin.data
    assert len(firmware.station.out) <= 64 and firmware.station.pong[0] == 299
    reading[0] = True
    firmware.step()
    got = frames(stdout)
    pongs = [f for f in got if f[0] == "PONG"]
    assert len(pongs) == 1 and pongs[0][1][0] == "299", got


@check
def a_pong_goes_out_in_one_write_right_after_its_stamp():
    """A byte at a time a PONG left long after the time it carries (about 140 µs a byte on
    the rp2 port: a 20-byte PONG 3 ms late, all of it counted as the way back by the host's
    clock sync). It goes in one write; the frames before and after it are whole."""
    import wire
    firmware, stdin, stdout, _, _ = make_firmware()
    firmware.step()
    frames(stdout)
    firmware.station.button(1, True, 1000)
    stdin.data += wire.encode_frame("PING", [9])
    firmware.step()
    pong = [chunk for chunk in stdout.written if chunk.startswith(b"PONG")]
    assert len(pong) == 1 and wire.decode_line(pong[0][:-1])[0] == "PONG", stdout.written
    assert [f[0] for f in frames(stdout)] == ["PONG", "BTN"]


@check
def a_crash_says_why_and_resets():
    import main
    firmware, stdin, stdout, _, machine = make_firmware()
    watchdog = machine.WDT(timeout=main.WATCHDOG_MS)
    calls = [0]
    real_step = firmware.step

    def failing_step():
        calls[0] += 1
        if calls[0] == 4:
            raise ValueError("boom")
        real_step()
    firmware.step = failing_step
    try:
        main.serve(firmware, watchdog, stdout)
        raise AssertionError("serve returned")
    except machine.Reset:
        pass
    assert watchdog.feeds == 3 and machine.resets
    got = frames(stdout)
    assert got[-1][0] == "ERR" and got[-1][1][0] == "crash" and "boom" in got[-1][1][1], got


@check
def an_update_request_restarts_into_the_repl_once():
    """UPDATE with this station's id (spieltisch stations --flash): a mark, then a reset; the
    next boot finds the mark (the REPL for mpremote), the one after runs the station again.
    Another station's id changes nothing."""
    import main
    import os
    import wire
    firmware, stdin, stdout, _, machine = make_firmware()
    firmware.step()
    frames(stdout)
    stdin.data += wire.encode_frame("UPDATE", ["0000000000000000"])
    firmware.step()
    assert main.UPDATE_MARK not in os.listdir(), os.listdir()
    resets = len(machine.resets)
    stdin.data += wire.encode_frame("UPDATE", ["e6614103e7452d2f"])
    try:
        firmware.step()
        raise AssertionError("no reset")
    except machine.Reset:
        pass
    assert len(machine.resets) == resets + 1 and main.UPDATE_MARK in os.listdir(), os.listdir()
    assert main.updating() is True and main.updating() is False


class CountingGc:
    """main.py's ``gc``: what it was asked, in order."""

    def __init__(self, real):
        self.real = real
        self.calls = []

    def collect(self):
        self.calls.append("collect")
        self.real.collect()

    def mem_free(self):
        self.calls.append("mem_free")
        return self.real.mem_free()


@check
def the_station_reports_how_it_is_doing():
    """STAT, with the heap free after a garbage collection (what the station holds, not the
    garbage the next collection would take) and how long that collection took."""
    import main
    firmware, stdin, stdout, _, _ = make_firmware()
    firmware.step()
    frames(stdout)
    firmware.next_stat = time.ticks_ms()
    real_gc = main.gc
    counting = main.gc = CountingGc(real_gc)
    try:
        firmware.step()
    finally:
        main.gc = real_gc
    stat = [f for f in frames(stdout) if f[0] == "STAT"]
    assert len(stat) == 1, stat
    fields = dict(item.split("=") for item in stat[0][1])
    assert set(fields) == {"loop_us", "reader", "reader_failures", "reader_cut", "dropped", "bad_commands",
                           "texts_cut", "free", "gc_us"}
    assert fields["reader"] == "missing" and int(fields["free"]) > 0
    assert counting.calls == ["collect", "mem_free"], counting.calls
    assert int(fields["gc_us"]) >= 0, fields


@check
def a_card_is_written_and_read_back():
    import pn532chip
    import wire
    firmware, chip, stdin, stdout = with_chip()
    chip.card = pn532chip.Card("04A1B2C3D4E5F6", pn532chip.BLANK)
    tag, _ = run_until(firmware, stdout, "TAG")
    assert tag[1][3] == "-", tag
    record = "st1:partout:abcdefghijklmnop"
    stdin.data += wire.encode_frame("WRITE", ["04A1B2C3D4E5F6", wire.encode_text(record), KEY])
    wrote, _ = run_until(firmware, stdout, "WROTE")
    assert wrote[1] == ["04A1B2C3D4E5F6", "ok"], wrote
    import pn532
    card = chip.card
    assert pn532.ndef_text(card.user_memory()) == record     # on the card itself
    chip.card = None
    run_until(firmware, stdout, "GONE")
    chip.card = card                                        # tapped again: it names itself now
    tag, _ = run_until(firmware, stdout, "TAG")
    assert tag[1][3] == wire.encode_text(record), tag
    firmware2, stdin2, stdout2 = firmware, stdin, stdout
    stdin2.data += wire.encode_frame("WRITE", ["04FFFFFFFFFFFF", wire.encode_text(record), KEY])
    wrote, _ = run_until(firmware2, stdout2, "WROTE")
    assert wrote[1] == ["04FFFFFFFFFFFF", "fail", "absent"], wrote


# -- issue 29: what the table writes, a phone cannot rewrite ------------------------------------------

KEY = "a1b2c3d4e5f6"                 # PWD a1b2c3d4, PACK e5f6: what the host derives from its card key
OTHER_KEY = "0102030405aa"           # another table's


def phone_writes(card, page, data):
    """A phone's NFC app: it lists the card and writes a page, without PWD_AUTH."""
    import ntag
    card.activate()
    return card.command(bytes([ntag.WRITE, page]) + data)


def write(firmware, stdin, stdout, uid, text, key, auth=None):
    import wire
    fields = [uid, wire.encode_text(text), key] + ([auth] if auth else [])
    stdin.data += wire.encode_frame("WRITE", fields)
    wrote, _ = run_until(firmware, stdout, "WROTE")
    return wrote[1][1:] if wrote else None


def tap_again(firmware, chip, stdout):
    """The card off the reader and on again: the next activation, as a person's next tap."""
    card = chip.card
    chip.card = None
    run_until(firmware, stdout, "GONE")
    chip.card = card
    tag, _ = run_until(firmware, stdout, "TAG")
    return tag


@check
def a_written_card_is_write_protected_and_the_table_can_write_it_again():
    """NTAG password protection (AUTH0 at the first user page, PROT clear): a phone reads the
    record, cannot write it or the configuration; the table opens it with its password and
    writes again; a password that is not the card's is refused. On each NTAG kind, whose
    configuration pages differ (CFG0 at 29h, 83h, E3h: from GET_VERSION)."""
    import ntag
    import pn532
    import pn532chip
    uid = "04A1B2C3D4E5F6"
    for kind, cfg in (("NTAG213", 0x29), ("NTAG215", 0x83), ("NTAG216", 0xE3)):
        firmware, chip, stdin, stdout = with_chip()
        chip.card = pn532chip.Card(uid, ntag.ndef_text_memory(None), kind)
        run_until(firmware, stdout, "TAG")
        record = "st1:partout:abcdefghijklmnop"
        assert write(firmware, stdin, stdout, uid, record, KEY) == ["ok"], kind
        card = chip.card
        assert card.page(cfg)[3] == 4 and not card.page(cfg + 1)[0] & 0x80, (kind, card.page(cfg), card.page(cfg + 1))
        assert card.page(cfg + 2) == unhex(KEY[:8]) and card.page(cfg + 3)[:2] == unhex(KEY[8:]), kind
        assert phone_writes(card, 4, b"\x03\x00\xfe\x00") == ntag.NAK, kind       # the record
        assert phone_writes(card, cfg, b"\x04\x00\x00\xff") == ntag.NAK, kind     # the protection itself
        assert phone_writes(card, cfg + 2, b"\x00\x00\x00\x00") == ntag.NAK, kind  # the password
        tag = tap_again(firmware, chip, stdout)
        assert pn532.ndef_text(card.user_memory()) == record and tag[1][3] == record, kind   # anyone reads it
        again = "st1:partout:qrstuvwxyz234567"
        assert write(firmware, stdin, stdout, uid, again, KEY) == ["ok"], kind          # the table, with its key
        assert pn532.ndef_text(card.user_memory()) == again, kind
    tap_again(firmware, chip, stdout)
    assert write(firmware, stdin, stdout, uid, record, OTHER_KEY) == ["fail", "auth"]
    assert pn532.ndef_text(card.user_memory()) == again                  # nothing changed
    tap_again(firmware, chip, stdout)
    # another table's key in this table's hands (imported): it opens the card, this key protects it
    assert write(firmware, stdin, stdout, uid, record, OTHER_KEY, auth=KEY) == ["ok"]
    assert card.page(0xE3 + 2) == unhex(OTHER_KEY[:8]) and pn532.ndef_text(card.user_memory()) == record


@check
def a_card_that_cannot_be_protected_is_not_written():
    """Another chip (GET_VERSION names no NTAG213/215/216), a record longer than the card's
    user memory, and a card a phone locked for good with its static lock bits (page 2 lies
    below AUTH0, so anyone can set them): the write fails with its reason."""
    import ntag
    import pn532
    import pn532chip

    class Ultralight(pn532chip.Card):
        def command(self, data):
            if data[:1] == b"\x60" and self.active:
                return b"\x00\x04\x03\x01\x01\x00\x0b\x03"           # MIFARE Ultralight EV1
            return pn532chip.Card.command(self, data)

    uid = "04A1B2C3D4E5F6"
    firmware, chip, stdin, stdout = with_chip()
    chip.card = Ultralight(uid, ntag.ndef_text_memory(None))
    run_until(firmware, stdout, "TAG")
    assert write(firmware, stdin, stdout, uid, "st1:partout:abcdefghijklmnop", KEY) == ["fail", "kind"]
    firmware, chip, stdin, stdout = with_chip()
    chip.card = pn532chip.Card(uid, ntag.ndef_text_memory(None))
    run_until(firmware, stdout, "TAG")
    assert write(firmware, stdin, stdout, uid, "x" * 150, KEY) == ["fail", "text"]      # 144 bytes on an NTAG213
    assert write(firmware, stdin, stdout, uid, "st1:partout:abcdefghijklmnop", KEY) == ["ok"]
    card = chip.card
    assert phone_writes(card, 2, b"\x00\x00\xf8\xff") == ntag.ACK                    # L3-L15: one way
    tap_again(firmware, chip, stdout)
    assert write(firmware, stdin, stdout, uid, "st1:partout:qrstuvwxyz234567", KEY) == ["fail", "write"]
    assert pn532.ndef_text(card.user_memory()) == "st1:partout:abcdefghijklmnop"   # still read, still the card


@check
def the_written_record_is_what_a_reader_reads():
    import pn532
    memory = pn532.ndef_text_tlv("st1:tadika:k2j3h4g5f6d7s8a9")
    assert len(memory) % 4 == 0
    assert pn532.ndef_scan(memory) == (pn532.DONE, "st1:tadika:k2j3h4g5f6d7s8a9")


@check
def a_failed_read_is_tried_again_while_the_card_stays():
    import pn532chip
    firmware, chip, stdin, stdout = with_chip()
    chip.card = pn532chip.Card("04A1B2C3D4E5F6", pn532chip.ndef_text_memory("partout:red5"))
    chip.fail_reads = 4                     # the first read fails on every try, the second read works
    tag, _ = run_until(firmware, stdout, "TAG")
    assert tag is not None and tag[1][3] == "partout:red5", tag
    firmware, chip, stdin, stdout = with_chip()
    chip.card = pn532chip.Card("04A1B2C3D4E5F7", pn532chip.ndef_text_memory("partout:red6"))
    chip.fail_reads = 1000                  # never readable: the UID alone, after three reads
    tag, _ = run_until(firmware, stdout, "TAG")
    assert tag is not None and tag[1][1] == "04A1B2C3D4E5F7" and tag[1][3] == "-", tag
    assert firmware.read_tries == 3


@check
def a_garbled_answer_past_the_records_start_is_tried_again_not_taken_for_the_cards_end():
    """A CRC error on air (status 02h: a card at the field's edge) in the middle of a record
    read with READ is a transmission error, tried again like any failed read; only the card's
    own NAK (status 14h, or 00h and its 4-bit NAK) past the record's start ends the record.
    (Review of 1.6.0: every status but 01h was taken for the card's end, and a long record
    came without its text.)"""
    import pn532chip
    for status in (0x02, 0x03, 0x42):      # CRC error, parity error, CRC error with the MI flag set
        firmware, chip, stdin, stdout = with_chip()
        chip.card = pn532chip.Card("04A1B2C3D4E5F6", pn532chip.ndef_text_memory(LONG_TEXT))
        chip.fail_reads = 1                 # the first FAST_READ garbled: the record is read with READ
        start = time.ticks_ms()
        while not (firmware.reader.state == "read" and not firmware.reader.fast and firmware.reader.page > 4):
            firmware.step()
            assert time.ticks_diff(time.ticks_ms(), start) < 3000, "no READ past page 4"
        chip.fail_reads, chip.fail_status = 1, status   # the next READ, past the record's start, garbled
        tag, _ = run_until(firmware, stdout, "TAG")
        assert tag is not None and tag[1][3] == LONG_TEXT, (hex(status), tag)


# -- issue 32: what the firmware review found, each under MicroPython ------------------------------

LONG_TEXT = "partout:" + "x" * 40            # every answer to a read is longer than the I2C header


@check
def a_resent_frame_is_read_once_the_chip_is_ready_again():
    """After its NACK the chip is busy until the frame is ready again (UM0701-02 6.2.1.5;
    ESPHome waits for the status there). A chip three milliseconds slow to resend, longer
    than a loop pass: the card is read all the same, and the reader stays ready."""
    import pn532chip
    chip = pn532chip.Chip(timing=pn532chip.slow(nack_resend_us=3000))
    firmware, stdin, stdout, reading, _ = make_firmware(chip=chip)
    chip.card = pn532chip.Card("04A1B2C3D4E5F6", pn532chip.ndef_text_memory(LONG_TEXT))
    tag, _ = run_until(firmware, stdout, "TAG", seconds=4.0)
    assert tag is not None and tag[1][3] == LONG_TEXT, (tag, firmware.reader.failures, chip.nacks)
    assert firmware.reader.ready and chip.nacks > 0


@check
def a_chip_that_never_resends_costs_one_exchange_timeout_not_the_loop():
    """The wait for the resent frame is bounded: by the exchange's timeout, after which the
    reader tries again; no pass waits for the chip. A pass's time is its time on the bus
    (machine.bus_time_us, what a Pico spends there), not the host's: a loaded host stalls
    a pass for longer than the exchange's timeout (132 ms was seen) without the firmware
    waiting at all."""
    import machine
    import pn532chip
    chip = pn532chip.Chip(timing=pn532chip.slow(nack_resend_us=10_000_000))
    firmware, stdin, stdout, reading, _ = make_firmware(chip=chip)
    chip.card = pn532chip.Card("04A1B2C3D4E5F6", pn532chip.ndef_text_memory(LONG_TEXT))
    start = time.ticks_ms()
    slowest = 0
    while firmware.reader.failures < 2 and time.ticks_diff(time.ticks_ms(), start) < 10_000:
        began = machine.bus_time_us[0]
        firmware.step()
        slowest = max(slowest, machine.bus_time_us[0] - began)
    assert firmware.reader.failures >= 2, firmware.reader.failures
    assert slowest < firmware.reader.timeout_ms * 1000, slowest


class EndlessHost:
    """A host that writes faster than the loop reads: PINGs without end, and a byte always
    waiting. Reading more than ``limit`` bytes in one pass means the loop starved."""

    def __init__(self, limit=20_000):
        import wire
        self.frame = wire.encode_frame("PING", [5])
        self.at = 0
        self.read_now = 0
        self.limit = limit

    def read(self, n):
        self.read_now += 1
        if self.read_now > self.limit:
            raise AssertionError("the loop kept reading: %d bytes in one pass" % self.read_now)
        out = self.frame[self.at:self.at + 1]
        self.at = (self.at + 1) % len(self.frame)
        return out


@check
def a_host_writing_faster_than_the_loop_reads_does_not_starve_it():
    """Every pass still steps the reader and feeds the watchdog, and the PINGs are answered."""
    import main
    import pn532chip
    chip = pn532chip.Chip()
    firmware, stdin, stdout, reading, machine = make_firmware(chip=chip)
    host = EndlessHost()
    firmware.stdin = host
    firmware.incoming = Poll(lambda: True)
    watchdog = machine.WDT(timeout=main.WATCHDOG_MS)
    for _ in range(40):
        host.read_now = 0
        main.serve(firmware, watchdog, stdout, passes=1)
    assert watchdog.feeds == 40, watchdog.feeds
    assert chip.commands, "the reader never stepped"
    assert any(f[0] == "PONG" for f in frames(stdout))


def until_polling(firmware, seconds=2.0):
    """Loop passes until a card poll is under way (its command sent, its answer not read)."""
    start = time.ticks_ms()
    while time.ticks_diff(time.ticks_ms(), start) < seconds * 1000:
        firmware.step()
        reader = firmware.reader
        if reader.state == "poll" and reader.exchange is not None and reader.exchange.code == 0x4A:
            return True
    return False


@check
def a_write_asked_during_a_poll_gets_its_own_answers():
    """A WRITE that comes while a poll is under way, and the poll misses the card (a poll
    can): the poll's "no card" is the poll's, not the write's first step. The write goes
    on once the poll is answered, and the card holds the new record."""
    import pn532
    import pn532chip
    import wire
    firmware, chip, stdin, stdout = with_chip()
    uid = "04A1B2C3D4E5F6"
    chip.card = card = pn532chip.Card(uid, pn532chip.ndef_text_memory("st1:partout:oldoldoldoldoldo"))
    run_until(firmware, stdout, "TAG")
    assert write(firmware, stdin, stdout, uid, "st1:partout:oldoldoldoldoldo", KEY) == ["ok"]
    assert until_polling(firmware)
    chip.card = None                              # the poll under way misses it
    new = "st1:partout:newnewnewnewnewne"
    stdin.data += wire.encode_frame("WRITE", [uid, wire.encode_text(new), KEY])
    firmware.step()                               # the WRITE is read while the poll is under way
    start = time.ticks_ms()
    while firmware.reader.exchange is not None and time.ticks_diff(time.ticks_ms(), start) < 1000:
        firmware.step()                           # the poll's answer ("no card") comes
    chip.card = card                              # still lying there
    wrote, _ = run_until(firmware, stdout, "WROTE")
    assert wrote is not None and wrote[1][1:] == ["ok"], wrote
    assert pn532.ndef_text(card.user_memory()) == new


@check
def a_long_text_record_keeps_the_tlv_length_form():
    """A TLV length byte FF means the three-byte form: a record of 255 bytes or more must
    use it, or no reader decodes the tag (NFC Forum Type 2 Tag). Every length from a short
    text to the longest a short record holds reads back as written."""
    import pn532
    for n in range(200, 253):
        text = "y" * n
        memory = pn532.ndef_text_tlv(text)
        assert memory is not None, n
        assert pn532.ndef_scan(memory) == (pn532.DONE, text), n
        record_length = 4 + 3 + n
        if record_length >= 0xFF:
            assert memory[1] == 0xFF and (memory[2] << 8 | memory[3]) == record_length, (n, memory[:4])
        else:
            assert memory[1] == record_length, (n, memory[:4])
    assert pn532.ndef_text_tlv("y" * 253) is None          # its payload would not fit a short record


@check
def a_press_is_stamped_at_its_first_edge_when_the_contact_bounced_back():
    """The contact closes, and has bounced open again by the time the hard IRQ reads the
    pin: the edge's flags still say it fell. The press is stamped at that first edge,
    not at a later bounce."""
    import main
    real_time = main.time
    clock = main.time = FineClock(real_time)
    try:
        firmware, stdin, stdout, _, machine = make_firmware()
        firmware.step()
        frames(stdout)
        pin = machine.Pin.all[5]
        pin.fire(0, bounced=True)                 # closes; open again when the IRQ looks
        first = clock.now                         # the first edge's stamp was taken by now
        pin.fire(1)                               # the bounce: opens …
        pin.fire(0)                               # … and closes for good
        firmware.step()
    finally:
        main.time = real_time
    got = [f for f in frames(stdout) if f[0] == "BTN"]
    assert len(got) == 1 and got[0][1][1:3] == ["3", "D"], got
    assert not ticks_before(first, got[0][1][3]), (first, got)



# -- issue 32: a card's record with FAST_READ -----------------------------------------------------

ST1_LONGEST = "st1:crazy-kick:abcdefghijklmnop"     # the longest game name a table has: 40 bytes of TLV
FAST_READ = 0x3A
READ = 0x30


def card_reads(chip):
    """The reads the chip passed to the card: ("fast", start, end) or ("read", page)."""
    out = []
    for command in chip.card_commands:
        if command[0] == FAST_READ:
            out.append(("fast", command[1], command[2]))
        elif command[0] == READ:
            out.append(("read", command[1]))
    return out


@check
def an_enrolled_cards_record_is_read_with_one_fast_read():
    """An st1 record, for the shortest and the longest game name: one FAST_READ of pages
    4-13 (InCommunicateThru 3Ah) carries it whole, and no READ follows."""
    import pn532chip
    import wire
    for record in ("st1:tadika:abcdefghijklmnop", ST1_LONGEST):
        firmware, chip, stdin, stdout = with_chip()
        chip.card = pn532chip.Card("04A1B2C3D4E5F6", pn532chip.ndef_text_memory(record))
        tag, _ = run_until(firmware, stdout, "TAG")
        assert tag is not None and tag[1][3] == wire.encode_text(record), (record, tag)
        assert card_reads(chip) == [("fast", 4, 13)], (record, card_reads(chip))
        assert chip.cut == 0 and firmware.reader.failures == 0, (chip.cut, firmware.reader.failures)


@check
def a_record_longer_than_one_answer_is_read_in_as_few_as_the_bus_carries():
    """One answer is read whole in one I2C transfer, and the bus's timeout bounds the whole
    transfer (pico-sdk; the simulated bus cuts a longer one off with ETIMEDOUT): at 100 kHz
    and 10 ms, ten pages an answer. A 99-character text (108 bytes of TLV, 27 pages): pages
    4-13 first, then, the TLV's length known, the rest up to the record's end and no
    further, ten pages at most an answer; no transfer outlasts the timeout."""
    import pn532chip
    firmware, chip, stdin, stdout = with_chip()
    text = "teamplay:" + "x" * 90
    chip.card = pn532chip.Card("04A1B2C3D4E5F6", pn532chip.ndef_text_memory(text))
    tag, _ = run_until(firmware, stdout, "TAG")
    assert tag is not None and tag[1][3] == text, tag
    assert card_reads(chip) == [("fast", 4, 13), ("fast", 14, 23), ("fast", 24, 30)], card_reads(chip)
    assert firmware.reader.chunk == 10, firmware.reader.chunk
    assert chip.cut == 0 and firmware.reader.failures == 0, (chip.cut, firmware.reader.failures)


@check
def the_bus_timeout_cuts_off_a_transfer_longer_than_itself():
    """The simulated bus as the RP2040's: a read that would outlast the timeout fails with
    ETIMEDOUT when it is up, and the frame it started to take is gone from the chip."""
    import pn532
    import pn532chip
    chip = pn532chip.Chip()
    chip.card = pn532chip.Card("04A1B2C3D4E5F6", pn532chip.ndef_text_memory("y" * 120))
    bus = pn532chip.pn532_chip.ChipI2C(chip, 100_000, 10_000, pn532chip.sleep_us)
    bus.writeto(0x24, pn532.build_frame(b"\x14\x01\x14\x00"))          # SAMConfiguration
    wait_ready(chip)
    bus.readfrom(0x24, 7)                                                  # ACK
    wait_ready(chip)
    bus.readfrom(0x24, 9)                                                  # its answer
    bus.writeto(0x24, pn532.build_frame(b"\x4a\x01\x00"))               # InListPassiveTarget
    wait_ready(chip)
    bus.readfrom(0x24, 7)
    wait_ready(chip)
    bus.readfrom(0x24, 40)
    bus.writeto(0x24, pn532.build_frame(b"\x42\x3a\x04\x1d"))          # FAST_READ of 26 pages
    wait_ready(chip)
    bus.readfrom(0x24, 7)
    wait_ready(chip)
    try:
        bus.readfrom(0x24, 1 + 5 + 1 + 2 + 104 + 2)                        # 115 bytes: 10.4 ms at 100 kHz
    except OSError as exc:
        assert exc.args[0] == 110, exc
    else:
        raise AssertionError("a 10.4 ms transfer passed a 10 ms timeout")
    # no STOP came: the chip is halfway through its frame, holds SDA low, keeps the frame
    # ready and takes no new command until an ACK aborts it
    assert chip.cut == 1 and chip.ready() and chip.holds_sda(), (chip.cut, chip.ready(), chip.sda_low_clocks)
    for _ in range(chip.sda_low_clocks):
        chip.scl_clocked()
    bus.writeto(0x24, pn532.build_frame(b"\x02"))                         # GetFirmwareVersion: ignored
    assert chip.commands[-1] == 0x42 and chip.ignored == 1, (chip.commands, chip.ignored)
    bus.writeto(0x24, pn532.ACK)
    assert not chip.ready()
    bus.writeto(0x24, pn532.build_frame(b"\x02"))
    wait_ready(chip)
    assert bus.readfrom(0x24, 7)[1:] == pn532.ACK and chip.commands[-1] == 0x02, chip.commands


def wait_ready(chip, ms=200):
    start = time.ticks_ms()
    while not chip.ready():
        assert time.ticks_diff(time.ticks_ms(), start) < ms, "the chip never got ready"
        pn532chip_sleep(200)


def pn532chip_sleep(us):
    import pn532chip
    pn532chip.sleep_us(us)


@check
def a_card_that_refuses_fast_read_is_read_with_read():
    """An NTAG203 or a MIFARE Ultralight answers FAST_READ with a NAK and is then silent
    until it is listed again: the reader lists it again and reads it four pages at a time
    with READ, as before FAST_READ; the text comes once, and the reader stays ready."""
    import ntag
    import pn532chip
    import wire

    class Ntag203(pn532chip.Card):
        def command(self, data):
            if data[:1] == bytes([FAST_READ]) and self.active:
                self.active = False                     # NAK: IDLE until activated again
                return ntag.NAK
            return pn532chip.Card.command(self, data)

    record = "st1:partout:abcdefghijklmnop"
    firmware, chip, stdin, stdout = with_chip()
    chip.card = Ntag203("04A1B2C3D4E5F6", pn532chip.ndef_text_memory(record))
    tag, _ = run_until(firmware, stdout, "TAG")
    assert tag is not None and tag[1][3] == wire.encode_text(record), tag
    assert card_reads(chip) == [("fast", 4, 13), ("read", 4), ("read", 8), ("read", 12)], card_reads(chip)
    after = chip.commands[chip.commands.index(0x42):]
    assert after[:2] == [0x42, 0x4A], after                # listed again before the READs
    more, _ = run_until(firmware, stdout, "TAG", seconds=0.5)
    assert more is None and firmware.reader.ready, more


@check
def a_card_taken_away_mid_fast_read_is_reported_by_its_uid_and_gone():
    """The card leaves while the second FAST_READ of a long record is under way: the chip
    answers "no answer" (status 01), the reader lists it again and finds nobody. The table
    hears the UID alone (a text that could not be read) and then GONE, once each, and the
    card laid down again is read whole."""
    import pn532chip
    text = "teamplay:" + "x" * 90
    firmware, chip, stdin, stdout = with_chip()
    card = pn532chip.Card("04A1B2C3D4E5F6", pn532chip.ndef_text_memory(text))
    chip.card = card
    start = time.ticks_ms()
    got = []
    while time.ticks_diff(time.ticks_ms(), start) < 3000:
        firmware.step()
        got += frames(stdout)
        reader = firmware.reader
        if reader.state == "read" and reader.exchange is not None and reader.exchange.code == 0x42 \
                and len(card_reads(chip)) == 2 and chip.queue and chip.queue[-1].data is None:
            break
    else:
        raise AssertionError("no second FAST_READ under way: %r" % (card_reads(chip),))
    chip.card = None                                   # taken away before the chip has the answer
    start = time.ticks_ms()
    while time.ticks_diff(time.ticks_ms(), start) < 3000 and "GONE" not in [f[0] for f in got]:
        firmware.step()
        got += frames(stdout)
    said = [(f[0], f[1][1], f[1][3] if f[0] == "TAG" else None) for f in got if f[0] in ("TAG", "GONE")]
    assert said == [("TAG", "04A1B2C3D4E5F6", "-"), ("GONE", "04A1B2C3D4E5F6", None)], said
    assert firmware.reader.ready, firmware.reader.state
    chip.card = card
    tag, _ = run_until(firmware, stdout, "TAG")
    assert tag is not None and tag[1][3] == text, tag


def with_setting(name, value):
    """``make_firmware`` with one setting of config.py changed, as a station's own config.py
    may have it; returns the old value to put back."""
    import config
    old = getattr(config, name)
    setattr(config, name, value)
    return old


def texts_told(firmware):
    """The texts the reader hands the station (the TAG frame sends "-" for one too long)."""
    told = []
    real = firmware.station.tag

    def tag(uid, text, stamp):
        told.append(text)
        return real(uid, text, stamp)
    firmware.station.tag = tag
    return told


@check
def the_answers_are_as_long_as_the_stations_bus_timeout_carries():
    """A station's config.py sets the I2C timeout (one kept from firmware 1.4 says 5 ms), and
    the timeout bounds a whole transfer: the reader never asks for an answer longer than
    half of it reads. 5 ms: READ alone, as firmware 1.4 read; 7 ms: six pages a FAST_READ;
    10 ms (the default): ten, an enrolled card's record in one; 20 ms: the first ten, then
    the rest of the record in one. A 99-character text each time (pages 4-30), read whole
    and up to its end, no transfer cut off."""
    import pn532chip
    text = "teamplay:" + "x" * 90
    for timeout_us, expected in (
            (5_000, [("read", 4), ("read", 8), ("read", 12), ("read", 16), ("read", 20), ("read", 24), ("read", 28)]),
            (7_000, [("fast", 4, 9), ("fast", 10, 15), ("fast", 16, 21), ("fast", 22, 27), ("fast", 28, 30)]),
            (10_000, [("fast", 4, 13), ("fast", 14, 23), ("fast", 24, 30)]),
            (20_000, [("fast", 4, 13), ("fast", 14, 30)])):
        old = with_setting("I2C_TIMEOUT_US", timeout_us)
        try:
            firmware, chip, stdin, stdout = with_chip()
        finally:
            with_setting("I2C_TIMEOUT_US", old)
        chip.card = pn532chip.Card("04A1B2C3D4E5F6", pn532chip.ndef_text_memory(text))
        tag, _ = run_until(firmware, stdout, "TAG")
        assert tag is not None and tag[1][3] == text, (timeout_us, tag)
        assert card_reads(chip) == expected, (timeout_us, card_reads(chip))
        assert chip.cut == 0 and firmware.reader.failures == 0, (timeout_us, chip.cut, firmware.reader.failures)


@check
def a_record_with_the_three_byte_tlv_length_is_read_to_its_end():
    """248 characters (TLV 03 FF 00 FF: 259 bytes of user memory, an NTAG215): the first
    FAST_READ's TLV header says where the message ends, more than an NTAG213 holds, so the
    CC (page 3) is read to see that this card holds it; then ten pages an answer up to
    there, the last one only as far as the message goes."""
    import pn532chip
    text = "z" * 248
    firmware, chip, stdin, stdout = with_chip()
    told = texts_told(firmware)
    chip.card = pn532chip.Card("04A1B2C3D4E5F6", pn532chip.ndef_text_memory(text, size=504))
    tag, _ = run_until(firmware, stdout, "TAG")
    assert tag is not None and told == [text], (tag, told)
    assert card_reads(chip) == [("fast", 4, 13), ("read", 3), ("fast", 14, 23), ("fast", 24, 33), ("fast", 34, 43),
                                ("fast", 44, 53), ("fast", 54, 63), ("fast", 64, 68)], card_reads(chip)
    assert chip.cut == 0 and firmware.reader.failures == 0, (chip.cut, firmware.reader.failures)


@check
def a_nak_the_chip_hands_back_as_data_is_a_refusal_at_once():
    """A PN532 may hand a card's 4-bit NAK back as an answer (status 00, one byte, as one
    with its CRC check off does: nfcpy's pn53x driver reads Type 2 NAKs so) rather than as
    an error status. The card is IDLE after its NAK: the reader lists it again and reads it
    with READ at once, not by asking a silent card for FAST_READ again."""
    import pn532chip
    import wire

    class NakByte(pn532chip.Card):
        def command(self, data):
            if data[:1] == bytes([FAST_READ]) and self.active:
                self.active = False
                return b"\x04"                          # NAK 4h, as the chip hands it on
            return pn532chip.Card.command(self, data)

    record = "st1:partout:abcdefghijklmnop"
    firmware, chip, stdin, stdout = with_chip()
    chip.card = NakByte("04A1B2C3D4E5F6", pn532chip.ndef_text_memory(record))
    tag, _ = run_until(firmware, stdout, "TAG")
    assert tag is not None and tag[1][3] == wire.encode_text(record), tag
    assert card_reads(chip) == [("fast", 4, 13), ("read", 4), ("read", 8), ("read", 12)], card_reads(chip)


@check
def a_card_that_ignores_fast_read_is_read_with_read_after_the_chips_timeout():
    """A MIFARE Ultralight that says nothing to a command it does not know: the PN532 answers
    status 01 once its own wait for the card (25.6 ms, RFConfiguration item 02h) is up, and
    the card is IDLE. The reader lists it again and reads it with READ; the text comes once."""
    import pn532chip
    import wire

    class Silent(pn532chip.Card):
        def command(self, data):
            if data[:1] == bytes([FAST_READ]) and self.active:
                self.active = False                     # no answer, and IDLE until activated
                return None
            return pn532chip.Card.command(self, data)

    record = "st1:tadika:abcdefghijklmnop"
    firmware, chip, stdin, stdout = with_chip()
    chip.card = Silent("04A1B2C3D4E5F6", pn532chip.ndef_text_memory(record))
    tag, _ = run_until(firmware, stdout, "TAG")
    assert tag is not None and tag[1][3] == wire.encode_text(record), tag
    assert card_reads(chip) == [("fast", 4, 13), ("read", 4), ("read", 8), ("read", 12)], card_reads(chip)
    more, _ = run_until(firmware, stdout, "TAG", seconds=0.5)
    assert more is None and firmware.reader.ready, more


@check
def the_chips_own_wait_for_a_silent_card_ends_well_inside_the_exchange():
    """The set-up sets the PN532's wait for a card's answer (RFConfiguration item 02h,
    TimeOut 09h) to 25.6 ms. A chip slow to acknowledge (10 ms) and a card that ignores
    FAST_READ: the chip's "no answer" (status 01) still comes inside the firmware's 60 ms
    exchange, so the card is read with READ with no failed exchange; at the default 51.2 ms
    it would come after 61 ms, too late."""
    import pn532chip
    import wire

    class Silent(pn532chip.Card):
        def command(self, data):
            if data[:1] == bytes([FAST_READ]) and self.active:
                self.active = False
                return None
            return pn532chip.Card.command(self, data)

    record = "st1:tadika:abcdefghijklmnop"
    chip = pn532chip.Chip(timing=pn532chip.slow(ack_us=10_000))
    firmware, stdin, stdout, reading, machine = make_firmware(chip=chip)
    chip.card = Silent("04A1B2C3D4E5F6", pn532chip.ndef_text_memory(record))
    tag, _ = run_until(firmware, stdout, "TAG")
    assert tag is not None and tag[1][3] == wire.encode_text(record), tag
    assert card_reads(chip) == [("fast", 4, 13), ("read", 4), ("read", 8), ("read", 12)], card_reads(chip)
    assert firmware.reader.failures == 0, firmware.reader.failures
    assert chip.card_timeout_us == pn532chip.TIMING["card_timeout_codes_us"][0x09] == 25_600, chip.card_timeout_us


@check
def a_fast_read_the_bus_timeout_cuts_off_is_read_again_with_read():
    """A chip that stretches the clock 6 ms at every transfer (more than the firmware leaves
    for it): the ten-page answer no longer fits the 10 ms the bus allows, its transfer is cut
    off with no STOP. The Pico's controller then refuses every transfer and the chip holds
    SDA low, keeps its frame and ignores new commands: the firmware makes the bus again,
    clocks SDA free and ends with a STOP, and aborts the chip's answer with an ACK before its
    next command. The exchange fails at once (not after its 60 ms), and the card is listed
    again and read with READ, whose answers fit; once, not three times."""
    import pn532chip
    import wire
    record = "st1:crazy-kick:abcdefghijklmnop"
    firmware, chip, stdin, stdout = with_chip(stretch_us=6_000)
    chip.card = pn532chip.Card("04A1B2C3D4E5F6", pn532chip.ndef_text_memory(record))
    tag, _ = run_until(firmware, stdout, "TAG")
    assert tag is not None and tag[1][3] == wire.encode_text(record), tag
    assert card_reads(chip) == [("fast", 4, 13), ("read", 4), ("read", 8), ("read", 12)], card_reads(chip)
    assert chip.cut == 1 and firmware.reader.failures == 1, (chip.cut, firmware.reader.failures)
    assert firmware.reader.transport.rebuilt == 1 and chip.stops == 1 and not chip.holds_sda(), \
        (firmware.reader.transport.rebuilt, chip.stops, chip.sda_low_clocks)
    assert chip.ignored == 0, chip.ignored                 # the ACK came before the next command


class ChipUart:
    """The simulated PN532 on HSU instead of I2C: what the firmware writes reaches the chip
    (a wake-up's 55 55 and zeros it ignores), and a read brings its frame once it is ready,
    without I2C's status byte."""

    def __init__(self, chip):
        self.chip = chip

    def write(self, data):
        self.chip.writeto(data)
        return len(data)

    def read(self):
        if self.chip.readfrom(1) != b"\x01":
            return None
        return self.chip.readfrom(300)[1:]


@check
def a_fast_read_over_uart_asks_for_32_pages_at_most():
    """Over UART an answer is not bounded by a bus timeout, but a 63-page one fills most of
    the 60 ms exchange at 115200 baud: FAST_READ asks for 32 pages at most. A 248-character
    text (pages 4-68): pages 4-13, the CC (page 3: the message is longer than an NTAG213
    holds), then 32 and the rest."""
    import pn532
    import pn532chip
    text = "z" * 248
    chip = pn532chip.Chip()
    chip.card = pn532chip.Card("04A1B2C3D4E5F6", pn532chip.ndef_text_memory(text, size=504))
    reader = pn532.Reader(pn532.UartTransport(ChipUart(chip)), 40)
    start = time.ticks_ms()
    result = None
    while time.ticks_diff(time.ticks_ms(), start) < 3000:
        result = reader.step(time.ticks_ms())
        if result is not None and result[0] == "uid" and result[1]:
            reader.read_text(result[1])
        elif result is not None and result[0] == "text":
            break
        pn532chip_sleep(200)
    assert result is not None and result[0] == "text" and result[2] == text, result
    assert card_reads(chip) == [("fast", 4, 13), ("read", 3), ("fast", 14, 45), ("fast", 46, 68)], card_reads(chip)
    assert reader.chunk == 32 and reader.failures == 0, (reader.chunk, reader.failures)


def stat_fields(firmware, stdout):
    firmware.next_stat = time.ticks_ms()
    firmware.step()
    stat = [f for f in frames(stdout) if f[0] == "STAT"]
    return dict(item.split("=") for item in stat[-1][1])


@check
def answers_get_shorter_for_the_session_after_one_is_cut_off():
    """The chip that stretches the clock 6 ms: after its ten-page answer is cut off, the
    reader asks for five pages a FAST_READ for the rest of the session. The next card's
    five-page answer fits, but takes 8.8 ms of the 10 ms (more than 70 %): FAST_READ is
    off, and the read goes on with READ from where it is; the card after that is read
    with READ alone, no answer cut off again. STAT counts the two shrinks."""
    import pn532chip
    import wire
    record = "st1:crazy-kick:abcdefghijklmnop"
    firmware, chip, stdin, stdout = with_chip(stretch_us=6_000)
    for uid, expected in (("04A1B2C3D4E5F6", [("fast", 4, 13), ("read", 4), ("read", 8), ("read", 12)]),
                          ("04A1B2C3D4E5F7", [("fast", 4, 8), ("read", 9), ("read", 13)]),
                          ("04A1B2C3D4E5F8", [("read", 4), ("read", 8), ("read", 12)])):
        chip.card_commands = []
        chip.card = pn532chip.Card(uid, pn532chip.ndef_text_memory(record))
        tag, _ = run_until(firmware, stdout, "TAG")
        assert tag is not None and tag[1][1] == uid and tag[1][3] == wire.encode_text(record), tag
        assert card_reads(chip) == expected, (uid, card_reads(chip))
        chip.card = None
        gone, _ = run_until(firmware, stdout, "GONE")
        assert gone is not None, uid
    assert chip.cut == 1 and firmware.reader.chunk == 0 and firmware.reader.shrinks == 2, \
        (chip.cut, firmware.reader.chunk, firmware.reader.shrinks)
    assert stat_fields(firmware, stdout)["reader_cut"] == "2"


@check
def an_answer_that_nearly_outlasts_the_bus_timeout_makes_the_next_ones_shorter():
    """A chip that stretches the clock 4 ms: the enrolled card's ten-page answer still fits
    the 10 ms, in 8.7 ms, more than 70 % of it: its text is read, and from then on the
    reader asks for five pages an answer, before one is cut off."""
    import pn532chip
    import wire
    record = "st1:crazy-kick:abcdefghijklmnop"
    firmware, chip, stdin, stdout = with_chip(stretch_us=4_000)
    chip.card = pn532chip.Card("04A1B2C3D4E5F6", pn532chip.ndef_text_memory(record))
    tag, _ = run_until(firmware, stdout, "TAG")
    assert tag is not None and tag[1][3] == wire.encode_text(record), tag
    assert card_reads(chip) == [("fast", 4, 13)] and chip.cut == 0, (card_reads(chip), chip.cut)
    assert firmware.reader.chunk == 5 and firmware.reader.shrinks == 1, (firmware.reader.chunk, firmware.reader.shrinks)


@check
def an_answer_whose_read_is_not_acknowledged_is_read_at_the_next_pass():
    """The chip does not acknowledge its address for the read of a ready frame (EIO: no
    byte moved, the frame is still in the chip). Only a transfer the timeout cut off loses
    a frame; this one is read again at the next pass, within the same exchange, as firmware
    1.4 did: one FAST_READ, no failure, no READ."""
    import pn532chip
    import wire
    record = "st1:partout:abcdefghijklmnop"
    firmware, chip, stdin, stdout = with_chip()
    chip.card = pn532chip.Card("04A1B2C3D4E5F6", pn532chip.ndef_text_memory(record))
    bus = firmware.reader.transport.i2c
    real = bus.readfrom
    refused = [0]

    def readfrom(address, n, stop=True):
        if n > 7 and firmware.reader.state == "read" and not refused[0]:     # the FAST_READ's frame
            refused[0] += 1
            raise OSError(5)
        return real(address, n)
    bus.readfrom = readfrom
    tag, _ = run_until(firmware, stdout, "TAG")
    assert tag is not None and tag[1][3] == wire.encode_text(record), tag
    assert refused[0] == 1, refused
    assert card_reads(chip) == [("fast", 4, 13)] and firmware.reader.failures == 0, \
        (card_reads(chip), firmware.reader.failures)


@check
def an_exchange_without_its_answer_is_aborted_with_an_ack():
    """A chip slower than the firmware's 60 ms wait (GetFirmwareVersion after 70 ms): the
    exchange gives up while the chip is still on the command, and before its next command
    the firmware tells the chip to abort it with an ACK frame, as libnfc does."""
    import pn532
    import pn532chip
    chip = pn532chip.Chip(timing=pn532chip.slow(process_us=dict(pn532chip.TIMING["process_us"],
                                                                 GetFirmwareVersion=70_000)))
    heard = []
    real = chip.writeto

    def writeto(data):
        data = bytes(data)
        heard.append("ACK" if data == pn532.ACK else ("%02X" % data[6]) if len(data) > 6 else "wake")
        return real(data)
    chip.writeto = writeto
    firmware, stdin, stdout, reading, machine = make_firmware(chip=chip)
    start = time.ticks_ms()
    while time.ticks_diff(time.ticks_ms(), start) < 1500 and heard.count("02") < 2:
        firmware.step()
    assert heard.count("02") >= 2, heard
    again = heard.index("02", heard.index("02") + 1)
    assert "ACK" in heard[heard.index("02") + 1:again], heard


# -- issue 43: the loop's passes far apart --------------------------------------------------------

class VirtualTime:
    """A clock only the check moves, for the chip, the bus's transfers and the reader: the
    passes are as far apart as the check says, whatever the host does meanwhile."""

    def __init__(self):
        self.us = 0

    def now(self):
        return self.us

    def sleep(self, us):
        self.us += us


def reader_on_virtual_time(timing=None):
    """A PN532 reader as main.make_reader makes one (I2C at 100 kHz, its 10 ms timeout), on
    the simulated chip, all of it on a VirtualTime; machine.sleep_us waits on it until
    ``done()``."""
    import machine
    import pn532
    import pn532_chip
    import pn532chip
    clock = VirtualTime()
    chip = pn532_chip.Pn532(timing or pn532chip.TIMING, clock=clock.now)
    machine.chip[0] = chip
    saved = machine.sleep_us[0]
    machine.sleep_us[0] = clock.sleep
    transport = pn532.I2cTransport(machine.I2C(0, freq=100_000, timeout=10_000), freq=100_000, timeout_us=10_000)
    transport.clock = clock.now
    reader = pn532.Reader(transport, 40)

    def done():
        machine.sleep_us[0] = saved
        machine.chip[0] = None
    return reader, chip, clock, done


def read_with_passes_apart(gap_us, text, passes=200):
    """A card laid on the reader, the reader stepped once a pass with ``gap_us`` between
    passes: the ("text", ...) it gave and the passes it took, or (None, passes)."""
    import pn532chip
    reader, chip, clock, done = reader_on_virtual_time()
    try:
        chip.card = pn532chip.Card("04A1B2C3D4E5F6", pn532chip.ndef_text_memory(text))
        for n in range(passes):
            result = reader.step(clock.us // 1000)
            if result is not None and result[0] == "uid" and result[1] is not None:
                reader.read_text(result[1])
            elif result is not None and result[0] == "text":
                return result, n + 1
            clock.sleep(gap_us)
        return None, passes
    finally:
        done()


@check
def a_card_is_read_when_the_loops_passes_are_far_apart():
    """An exchange takes a few loop passes (the command, its ACK, the answer's header, the
    answer asked for again), and a pass can be long: a card's read, a garbage collection,
    USB (issue 43: a loaded host made the simulated Pico's passes 45-70 ms). With passes
    1 ms to 250 ms apart, a card laid down is read, its record whole: the chip answers
    within its own time, the reader sees it a pass later. (Firmware 1.6.0 failed every
    exchange once 60 ms had passed since it began, and never read the card.)"""
    for gap_ms in (1, 30, 60, 100, 250):
        result, passes = read_with_passes_apart(gap_ms * 1000, ST1_LONGEST)
        assert result is not None and result[2:] == (ST1_LONGEST, True), (gap_ms, result, passes)
        print("  passes %d ms apart: the card read in %d passes" % (gap_ms, passes))


@check
def a_chip_that_does_not_answer_in_its_time_fails_at_slow_passes_too():
    """The chip's time stays the exchange's 60 ms from the command when the passes are far
    apart: a chip that acknowledges and never answers (GetFirmwareVersion after 10 s) fails
    at the first look past the deadline that brings nothing, with passes 1 ms and 100 ms
    apart; a chip that is not there fails at once; the reader backs off, never waits."""
    import pn532chip
    for gap_us in (1_000, 100_000):
        reader, chip, clock, done = reader_on_virtual_time(pn532chip.slow(
            process_us=dict(pn532chip.TIMING["process_us"], GetFirmwareVersion=10_000_000)))
        try:
            passes = 0
            while reader.failures == 0 and passes < 500:
                reader.step(clock.us // 1000)
                clock.sleep(gap_us)
                passes += 1
            # the wake, the command, then looks until one past 60 ms brings nothing: its ACK
            # moves it on at the first slow look, the second slow look fails it
            longest = 2 + (60_000 + gap_us - 1) // gap_us + 1
            assert reader.failures == 1 and passes <= longest, (gap_us, reader.failures, passes, longest)
            assert not reader.ready
        finally:
            done()
    reader, chip, clock, done = reader_on_virtual_time()
    chip.mode = "silent"
    try:
        for _ in range(4):
            reader.step(clock.us // 1000)
            clock.sleep(100_000)
        assert reader.failures >= 1 and reader.state == "backoff", (reader.failures, reader.state)
    finally:
        done()


# -- issue 41: the station on a bad day ---------------------------------------------------------

@check
def button_0_decides_the_repl_only_once_its_pull_up_has_raised_it():
    """The RP2040's pads come out of reset pulled down; switching button 0's pull-up on
    raises it only as fast as the pull-up charges the wire to the button (3 ms here: half a
    metre of wire and a debounce capacitor). A station whose button 0 is not held starts;
    one whose button 0 is held stays at the REPL."""
    import config
    import js
    import machine
    import main
    pin = config.BUTTON_PINS[0]
    machine.levels.clear()
    machine.rising.clear()
    machine.clock_us[0] = js.ticksUs
    machine.pull_up_rise_us[0] = 3000
    try:
        assert not main.repl_asked(), "button 0 not held, and the station stayed at the REPL"
        machine.levels[pin] = 0                     # held while plugging in
        assert main.repl_asked(), "button 0 held, and the station started"
    finally:
        machine.pull_up_rise_us[0] = 0
        machine.clock_us[0] = None
        machine.rising.clear()
        machine.levels.clear()


def tap_to_frame(firmware, chip, stdout, card):
    """Lays ``card`` on a polling reader: the TAG frame, the host's µs from the card to it
    (for information: a loaded machine makes it longer) and the simulated bus's µs."""
    import js
    import machine
    until_polling(firmware)
    frames(stdout)
    bus, start = machine.bus_time_us[0], js.ticksUs()
    chip.card = card
    tag, _ = run_until(firmware, stdout, "TAG", seconds=5.0)
    return tag, time.ticks_diff(js.ticksUs(), start), machine.bus_time_us[0] - bus


@check
def a_sticker_without_a_proper_record_is_no_record_at_once():
    """An all-zero sticker (NULL TLVs only, as some come), one whose NDEF TLV's length runs
    past the card (03 F0 on an NTAG213's 144 bytes), one whose capability container says it
    holds no NDEF (CC all zero), and one whose TLV says 03 FF FFFF: each is no record, told
    once (the UID alone, "-"), after reading no further than the CC's data size (page 3:
    18h x 8 = 144 bytes, pages 4-39 on an NTAG213) and never past the card's end; no NAK,
    no READ after FAST_READ, no read again. The tap's time is printed."""
    import pn532chip
    cases = (("all zero", bytes(144), None),
             ("TLV length past the card", b"\x03\xf0\xd1\x01\xecT\x02en" + bytes(134), None),
             ("CC without NDEF", bytes(144), b"\x00\x00\x00\x00"),
             ("three-byte TLV length past the card", b"\x03\xff\xff\xff" + bytes(140), None))
    for name, memory, cc in cases:
        firmware, chip, stdin, stdout = with_chip()
        card = pn532chip.Card("04A1B2C3D4E5F6", memory)
        if cc is not None:
            card.memory[12:16] = cc
        tag, took_us, bus_us = tap_to_frame(firmware, chip, stdout, card)
        print("  %s: tap to frame %.1f ms (bus %.1f ms), reads %r" % (name, took_us / 1000, bus_us / 1000,
                                                                     card_reads(chip)))
        assert tag is not None and tag[1][1] == "04A1B2C3D4E5F6" and tag[1][3] == "-", (name, tag)
        reads = card_reads(chip)
        assert all(r[0] == "fast" for r in reads[:1]) and ("read", 4) not in reads, (name, reads)
        assert all((r[2] if r[0] == "fast" else r[1]) <= 39 for r in reads), (name, reads)
        assert firmware.reader.failures == 0 and firmware.read_tries == 0, (name, firmware.reader.failures)
        more, _ = run_until(firmware, stdout, "TAG", seconds=0.3)
        assert more is None and card_reads(chip) == reads, (name, more, card_reads(chip))


@check
def a_nak_past_the_records_start_is_no_record():
    """A sticker whose CC claims more than it holds (an NTAG213 saying 872 bytes) and no
    TLV: the reader reads on to the card's end, and the card's NAK there (a FAST_READ past
    its last page) is no record, told once, not a refusal read again with READ."""
    import pn532chip
    firmware, chip, stdin, stdout = with_chip()
    card = pn532chip.Card("04A1B2C3D4E5F6", bytes(144))
    card.memory[12:16] = b"\xe1\x10\x6d\x00"
    tag, took_us, bus_us = tap_to_frame(firmware, chip, stdout, card)
    print("  tap to frame %.1f ms (bus %.1f ms), reads %r" % (took_us / 1000, bus_us / 1000, card_reads(chip)))
    assert tag is not None and tag[1][3] == "-", tag
    assert card_reads(chip) == [("fast", 4, 13), ("read", 3), ("fast", 14, 23), ("fast", 24, 33),
                                ("fast", 34, 43), ("fast", 44, 53)], card_reads(chip)
    more, _ = run_until(firmware, stdout, "TAG", seconds=0.3)
    assert more is None and firmware.read_tries == 0, (more, firmware.read_tries)


@check
def a_bus_held_low_is_freed_whatever_the_error():
    """A chip latched halfway through a byte (a glitch, a brown-out mid-transfer) holds SDA
    low, and the Pico's START fails with EIO, not ETIMEDOUT. The firmware looks at SDA when
    a transfer fails and frees the bus (clocks, a STOP, the controller made again) whatever
    the error: the reader comes back and reads the card, not backing off for ever."""
    import pn532chip
    firmware, chip, stdin, stdout = with_chip()
    until_polling(firmware)
    chip.held_sda_errno = 5
    chip.mid_frame = True                       # latched: it holds SDA until clocked
    chip.sda_low_clocks = 5
    chip.card = pn532chip.Card("04A1B2C3D4E5F6", pn532chip.ndef_text_memory("partout:red5"))
    tag, _ = run_until(firmware, stdout, "TAG", seconds=4.0)
    assert tag is not None and tag[1][3] == "partout:red5", (tag, firmware.reader.state, chip.sda_low_clocks)
    assert firmware.reader.transport.rebuilt >= 1 and chip.stops >= 1 and not chip.holds_sda(), \
        (firmware.reader.transport.rebuilt, chip.stops)


@check
def a_chip_that_stays_silent_is_reset_by_its_rstpdn_pin():
    """A chip latched so that no clocking frees SDA (nothing on the bus brings it back).
    With ``PN532_RESET_PIN`` set, the firmware holds RSTPDN low while it backs off and lets
    it go before it sets the chip up again: the reader comes back and reads the card.
    Without the pin it cannot: it keeps backing off, and says so (reader missing)."""
    import machine
    import pn532chip
    for wired in (20, None):
        old = with_setting("PN532_RESET_PIN", wired)
        machine.rstpdn[0] = wired
        try:
            firmware, chip, stdin, stdout = with_chip()
        finally:
            with_setting("PN532_RESET_PIN", old)
        until_polling(firmware)
        chip.held_sda_errno = 5
        chip.mid_frame = True
        chip.sda_low_clocks = 1 << 20           # latched: no clocking lets it go
        chip.card = pn532chip.Card("04A1B2C3D4E5F6", pn532chip.ndef_text_memory("partout:red5"))
        tag, _ = run_until(firmware, stdout, "TAG", seconds=2.0)
        machine.rstpdn[0] = None
        if wired is None:
            assert tag is None and not firmware.reader.ready, tag
            continue
        assert tag is not None and tag[1][3] == "partout:red5", (tag, firmware.reader.state)
        assert firmware.reader.hard_resets >= 1 and machine.levels[wired] == 1, firmware.reader.hard_resets


@check
def a_write_sets_the_records_length_last():
    """NFC Forum Type 2 Tag, NDEF write procedure: the NDEF TLV's length is written 0 first,
    then the message, then its length. A card lifted at any point of the write holds the
    old record or an empty one, never a length that points into half-written pages (which
    a phone reads as a corrupt record). After every page the card accepted, the user memory
    reads as an empty message or as the new record whole."""
    import ntag
    import pn532
    import pn532chip
    uid = "04A1B2C3D4E5F6"
    firmware, chip, stdin, stdout = with_chip()
    card = pn532chip.Card(uid, pn532chip.ndef_text_memory("partout:red5"))
    chip.card = card
    run_until(firmware, stdout, "TAG")
    seen = []
    real = card.command

    def command(data):
        answer = real(data)
        if data[:1] == bytes([ntag.WRITE]) and answer == ntag.ACK and 4 <= data[1] < card.cfg - 1:
            seen.append((data[1], pn532.ndef_scan(card.user_memory())))
        return answer
    card.command = command
    record = "st1:teamplay:abcdefghijklmnop"
    assert write(firmware, stdin, stdout, uid, record, KEY) == ["ok"], seen
    pages = [page for page, _ in seen]
    steps = [page for i, page in enumerate(pages) if i == 0 or page != pages[i - 1]]   # a page tried again once
    assert steps[0] == 4 and steps[-1] == 4 and steps[1:-1] == list(range(5, 5 + len(steps) - 2)), pages
    assert all(found == (pn532.DONE, None) for _, found in seen[:-1]), seen
    assert seen[-1][1] == (pn532.DONE, record), seen[-1]


def probed(firmware, stdin, stdout, phase, seconds=20.0):
    """PROBE <phase> sent; the PROBED frames until its end (or fail): {name: (n, median,
    min, max)} and the last frame's fields."""
    import wire
    stdin.data += wire.encode_frame("PROBE", [phase])
    figures = {}
    start = time.ticks_ms()
    while time.ticks_diff(time.ticks_ms(), start) < seconds * 1000:
        firmware.step()
        for kind, fields in frames(stdout):
            if kind != "PROBED":
                continue
            if fields[0] in ("end", "fail"):
                return figures, fields
            figures[fields[0]] = tuple(int(f) for f in fields[1:])
    raise AssertionError("no end of PROBE %s: %r" % (phase, figures))


@check
def the_bring_up_probe_measures_what_the_model_assumes():
    """PROBE chip (no card) and PROBE card (a blank NTAG213) on the simulated chip: every
    figure comes, none shorter than the model's own (the chip cannot answer sooner than
    its timing file says; the probe's polls and the host add to it), the cut transfer's
    aftermath as the model has it (ETIMEDOUT, SDA held low until clocked, the chip deaf
    until an ACK), every FAST_READ up to the card's 36 user pages passed, a NAK's status;
    then the reader sets the chip up again and reads a card as before."""
    import js
    import pn532chip
    t = pn532chip.TIMING
    firmware, chip, stdin, stdout = with_chip()
    firmware.probe_clock = js.ticksUs
    until_polling(firmware)
    figures, end = probed(firmware, stdin, stdout, "chip")
    print("  chip:", end, figures)
    assert end == ["end", "chip", "1.6"], end
    for name in ("ack_us", "answer_GetFirmwareVersion_us", "answer_SAMConfiguration_us", "answer_RFConfiguration_us",
                 "nack_resend_us", "list_no_card_us", "stretch_us"):
        assert name in figures and figures[name][0] >= 5, (name, figures)
    assert figures["ack_us"][2] >= t["ack_us"], figures["ack_us"]
    for command in ("GetFirmwareVersion", "SAMConfiguration", "RFConfiguration"):
        assert figures["answer_%s_us" % command][2] >= t["ack_us"] + t["process_us"][command], (command, figures)
    assert figures["nack_resend_us"][2] >= t["nack_resend_us"], figures["nack_resend_us"]
    assert figures["list_no_card_us"][2] >= t["ack_us"] + t["no_card_try_us"], figures["list_no_card_us"]
    cut = dict((name, figures[name][1]) for name in figures if name.startswith("cut_"))
    assert cut == {"cut_errno": 110, "cut_sda_low": 1, "cut_next_errno": 110, "cut_rebuilt_errno": 110,
                   "cut_sda_low_rebuilt": 1, "cut_clocks_to_free": cut["cut_clocks_to_free"],
                   "cut_takes_command": 0, "cut_ack_recovers": 1}, cut
    assert 1 <= cut["cut_clocks_to_free"] <= 9, cut
    chip.card = pn532chip.Card("04A1B2C3D4E5F6", pn532chip.BLANK)
    run_until(firmware, stdout, "TAG")
    figures, end = probed(firmware, stdin, stdout, "card")
    print("  card:", end, figures)
    assert end == ["end", "card", "1.6"], end
    assert figures["list_card_us"][2] >= t["ack_us"] + t["activation_exchanges"] * t["rf_turnaround_us"], figures
    assert figures["write_us"][2] >= t["ack_us"] + t["ntag_write_us"], figures["write_us"]
    assert figures["fast_read_longest_pages"][1] == 36 and "fast_read_36_us" in figures, figures
    assert figures["nak_status"][1] == 0x14, figures["nak_status"]
    assert chip.card.user_memory() == pn532chip.BLANK, chip.card.user_memory()[:8]    # written back as it was
    chip.card = None
    run_until(firmware, stdout, "GONE")
    chip.card = pn532chip.Card("04000000000001", pn532chip.ndef_text_memory("partout:red5"))
    tag, _ = run_until(firmware, stdout, "TAG")
    assert tag is not None and tag[1][3] == "partout:red5", tag


@check
def the_probe_begins_by_aborting_what_the_chip_was_doing():
    """PROBE can come while the reader's exchange is under way, or after a read the bus's
    timeout cut off (the bus freed, the chip still handing out that frame and deaf to every
    command but the host's ACK, UM0701-02 6.2.1.3): the probe aborts it first, as the
    reader does, and measures (review of 1.6.0: it began with a command, which such a chip
    ignores, and failed)."""
    import js
    firmware, chip, stdin, stdout = with_chip()
    firmware.probe_clock = js.ticksUs
    until_polling(firmware)
    chip.mid_frame = True                   # a read cut off, the bus set free, the ACK not yet sent
    figures, end = probed(firmware, stdin, stdout, "chip")
    assert end == ["end", "chip", "1.6"], (end, figures)


# -- issue 43: a pass with nothing to do sleeps the core ---------------------------------------

class StillClock:
    """main.py's ``time`` standing still but for what ``machine.idle()`` lets pass (``sleep``):
    how long the loop rested is counted in its own clock, not the host's."""

    def __init__(self, real):
        self.real = real
        self.us = real.ticks_us()
        self.ms = real.ticks_ms()

    def sleep(self, us):
        self.us = self.real.ticks_add(self.us, us)
        self.ms = self.real.ticks_add(self.ms, us // 1000)

    def ticks_us(self):
        return self.us

    def ticks_ms(self):
        return self.ms

    def __getattr__(self, name):
        return getattr(self.real, name)


class PollingReader:
    """What Firmware.rest looks at in the reader: the exchange under way and the next poll's time."""

    def __init__(self, exchange=None, next_at=None):
        self.exchange = exchange
        self.next_at = next_at

    def step(self, now_ms):
        return None                               # nothing found: the checks are about the rest


def resting(check_body):
    """Runs ``check_body(firmware, stdin, stdout, machine, clock, idle)`` with main.py's clock
    standing still and each machine.idle() letting 1 ms pass (the rp2 port's longest); ``idle``
    holds the idles counted and what happens at the n-th (a press, a byte from the host)."""
    import main
    real_time = main.time
    firmware, stdin, stdout, _, machine = make_firmware()
    firmware.step()
    frames(stdout)                                # HELLO
    clock = main.time = StillClock(real_time)
    idle = {"count": 0, "at": {}}

    def hook():
        idle["count"] += 1
        clock.sleep(1000)
        happen = idle["at"].get(idle["count"])
        if happen is not None:
            happen()
    machine.idle_hook[0] = hook
    try:
        firmware.next_stat = clock.ticks_add(clock.ticks_ms(), 5000)
        check_body(firmware, stdin, stdout, machine, clock, idle)
    finally:
        main.time = real_time
        machine.idle_hook[0] = None


def rested(firmware, idle, at=None):
    """The idles one Firmware.rest() took (``at``: n -> what happens at the n-th)."""
    idle["count"], idle["at"] = 0, at or {}
    firmware.rest()
    return idle["count"]


@check
def a_pass_with_nothing_to_do_sleeps_until_the_first_thing_due():
    """Firmware.rest sleeps the core (machine.idle) until the first time something is due:
    the reader's next poll, a flash's or a tone's end, a lockout's end (a change it hides is
    reported then), the next STAT, and never longer than REST_MAX_MS; not at all while the
    reader is in an exchange or is to start one, or while a frame waits to be written."""
    import main

    def body(firmware, stdin, stdout, machine, clock, idle):
        def later(ms):
            return clock.ticks_add(clock.ticks_ms(), ms)
        firmware.reader = PollingReader(next_at=later(25))
        assert rested(firmware, idle) == 25, idle
        firmware.reader = PollingReader(exchange=object())          # its answer is looked for every pass
        assert rested(firmware, idle) == 0, idle
        firmware.reader = PollingReader()                           # to start an exchange now
        assert rested(firmware, idle) == 0, idle
        firmware.reader = None
        assert rested(firmware, idle) == main.REST_MAX_MS, idle
        firmware.next_stat = later(30)
        assert rested(firmware, idle) == 30, idle
        firmware.next_stat = later(5000)
        firmware.led.flash_until = later(7)
        assert rested(firmware, idle) == 7, idle
        firmware.led.flash_until = None
        firmware.buzzer.until = later(12)
        assert rested(firmware, idle) == 12, idle
        firmware.buzzer.until = None
        logic = firmware.logic
        logic.locked[3] = True                                      # locked 10 ms ago: 5 ms to go
        logic.locked_at[3] = clock.ticks_add(clock.ticks_us(), -(logic.lockout_us - 5000))
        assert rested(firmware, idle) == 5, idle
        logic.locked[3] = False
        firmware.station.out.append(b"X 1\n")                     # USB had no room for it
        assert rested(firmware, idle) == 0, idle
        firmware.station.out = []
        firmware.station.fence = 3
        assert rested(firmware, idle) == 0, idle
    resting(body)


@check
def a_press_or_a_byte_from_the_host_ends_the_sleep_at_once():
    """The core wakes at the press's IRQ (or USB's) and the loop goes on at once: the press
    is stamped in the IRQ and goes out in the next pass; a PING is answered in the next pass."""
    import wire

    def body(firmware, stdin, stdout, machine, clock, idle):
        firmware.reader = PollingReader(next_at=clock.ticks_add(clock.ticks_ms(), 40))
        assert rested(firmware, idle, {3: lambda: machine.Pin.all[4].fire(0)}) == 3, idle
        firmware.step()
        got = frames(stdout)
        assert len(got) == 1 and got[0][0] == "BTN" and got[0][1][1:3] == ["2", "D"], got

        def ping():
            stdin.data += wire.encode_frame("PING", [9])
        firmware.reader = PollingReader(next_at=clock.ticks_add(clock.ticks_ms(), 40))
        assert rested(firmware, idle, {2: ping}) == 2, idle
        firmware.step()
        got = frames(stdout)
        assert len(got) == 1 and got[0][0] == "PONG" and got[0][1][0] == "9", got
    resting(body)


for fn in checks:
    if ONLY and fn.__name__ not in ONLY:   # noqa: F821 - set by run.mjs (CHECKS=...)
        continue
    try:
        fn()
        print("ok", fn.__name__)
    except Exception as exc:  # noqa: BLE001 - every check runs; each failure is listed
        failures.append(fn.__name__)
        print("FAIL", fn.__name__, repr(exc))
        sys.print_exception(exc)

print(sys.implementation.name, ".".join(str(v) for v in sys.implementation.version[:3]))
if failures:
    raise SystemExit("%d of %d firmware checks failed: %s" % (len(failures), len(checks), ", ".join(failures)))
print("ALL PASSED", len(checks) if not ONLY else len(ONLY))   # noqa: F821
