# Spieltisch station firmware for a Raspberry Pi Pico (MicroPython 1.24 or newer; tested
# with 1.27). Runs at boot.
#
# One loop, never blocking: read host commands from USB (a PING is answered at once), settle
# the buttons, answer a FENCE (after every press stamped before its answer), write frames out,
# give the reader one step (it may spend milliseconds on the I2C bus), tick the LED and the
# buzzer, read the host again and answer a FENCE that came meanwhile the same way, write
# frames out again. So the presses and a FENCE's answer never wait for the reader's bus
# transfer (a race waits for them: docs/stations.md, "Progress"). Frames are written only
# while USB takes them (and the rest of a frame a partial write left is kept). Presses are
# stamped in a hard IRQ at the first edge (buttons.py). A pass that leaves nothing to do
# until a time it knows (the reader's next poll, a flash's or a tone's end, a lockout's end,
# the next STAT) sleeps the core until then (machine.idle, Firmware.rest); a press's IRQ or
# a byte from the host ends the sleep at once. A watchdog fed by the loop resets a
# station that hangs; any exception is reported in an ERR frame and resets the station,
# which then says HELLO again.

import gc
import os
import select
import sys
import time

import machine
import micropython

import config
from buttons import ButtonLogic
from buzzer import Buzzer
from led import Led
from station import Station, TagPresence
from wire import LineDecoder

WATCHDOG_MS = 4000          # the loop passes in milliseconds; 4 s without one is a hang
STAT_MS = 5000              # how often the station reports how it has been doing
READ_TRIES = 3              # reads of a card's text while it stays, before its UID goes alone
# bytes from the host one read takes at most (a pass reads twice: before the reader's step
# and after it): a host writing faster than the loop reads must not keep it reading (no
# reader step, no watchdog feed, a reset after 4 s); the rest waits in USB's buffer for the
# next read. More than a whole frame (wire.MAX_FRAME).
READ_CAP = 256
# the longest a pass with nothing to do sleeps before the next (Firmware.rest): with a reader
# its next poll comes sooner (config.READER_POLL_MS); far below the watchdog's time
REST_MAX_MS = 100
# button 0 at power-up (repl_asked): this long at most for its pull-up to raise it, and
# this many reads 0.1 ms apart that agree it is high
BOOT_SETTLE_MS = 50
SETTLED_READS = 5
UPDATE_MARK = "update"      # the table asked to update this station: the next boot stays at the REPL
FALLING = machine.Pin.IRQ_FALLING
RISING = machine.Pin.IRQ_RISING


def unique_id():
    return "".join("%02x" % b for b in machine.unique_id())


def make_i2c():
    """The reader's bus as config.py wires it. Constructing machine.I2C resets the RP2040's
    controller (the rp2 port's constructor runs pico-sdk's i2c_init)."""
    return machine.I2C(config.I2C_ID, sda=machine.Pin(config.I2C_SDA), scl=machine.Pin(config.I2C_SCL),
                       freq=config.I2C_FREQ, timeout=config.I2C_TIMEOUT_US)


def rebuild_i2c():
    """The bus after a transfer its timeout cut off: the controller made again, and when
    the PN532 still holds SDA low (it was halfway through a byte), SCL clocked by hand
    until it lets go, at most 9 clocks (the rest of a byte and its acknowledge), then a
    STOP, and the controller made again to take its pins back (I2C-bus specification
    UM10204 3.1.16, "bus clear")."""
    bus = make_i2c()
    if not sda_low():
        return bus
    sda = machine.Pin(config.I2C_SDA, machine.Pin.OPEN_DRAIN, machine.Pin.PULL_UP, value=1)
    scl = machine.Pin(config.I2C_SCL, machine.Pin.OPEN_DRAIN, machine.Pin.PULL_UP, value=1)
    from pn532 import bus_clear                 # imported already: only a PN532 reader's bus is rebuilt
    bus_clear(sda, scl, config.I2C_FREQ, 9)
    return make_i2c()


def sda_low():
    """Whether SDA reads low: a chip (or a short) holds the bus. machine.Pin(n) without a
    mode reads the pad and leaves it to the I2C controller."""
    return not machine.Pin(config.I2C_SDA).value()


def make_reader():
    """The configured reader (not yet set up: the loop does that, never waiting) and its
    kind for HELLO ("pn532" or "none")."""
    if config.READER == "none":
        return None, "none"
    from pn532 import I2cTransport, Reader, UartTransport
    if config.READER == "pn532-i2c":
        transport = I2cTransport(make_i2c(), freq=config.I2C_FREQ, timeout_us=config.I2C_TIMEOUT_US,
                                 rebuild=rebuild_i2c, sda_low=sda_low)
    else:
        uart = machine.UART(config.UART_ID, baudrate=config.UART_BAUD, tx=machine.Pin(config.UART_TX),
                            rx=machine.Pin(config.UART_RX), timeout=0)
        transport = UartTransport(uart)
    reset_pin = None
    wired = getattr(config, "PN532_RESET_PIN", None)   # a config.py kept from before 1.6 has none
    if wired is not None:
        reset_pin = machine.Pin(wired, machine.Pin.OUT, value=1)
    return Reader(transport, config.READER_POLL_MS, retries=config.READER_RETRIES, reset_pin=reset_pin), "pn532"


class Firmware:
    def __init__(self, stdin, stdout, incoming, outgoing, reader=None, reader_kind=None):
        self.stdin = stdin              # byte streams of the USB serial port
        self.stdout = stdout
        self.incoming = incoming        # poll objects: is there a byte / room for a byte
        self.outgoing = outgoing
        self.logic = ButtonLogic(len(config.BUTTON_PINS), config.LOCKOUT_US)
        self.pins = [machine.Pin(p, machine.Pin.IN, machine.Pin.PULL_UP) for p in config.BUTTON_PINS]
        self.irqs = [None] * len(self.pins)     # each pin's IRQ object: its flags say which edge came
        for i, pin in enumerate(self.pins):
            self.irqs[i] = pin.irq(self._irq_handler(i), machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING, hard=True)
        self.led = Led(config.LED_KIND, config.LED_PIN, config.LED_RGB_PINS, config.LED_BRIGHTNESS)
        self.buzzer = Buzzer(config.BUZZER_PIN)
        if reader_kind is None:
            reader, reader_kind = make_reader()
        self.reader = reader
        caps = "buttons=%d,reader=%s,led=%s,fence=1" % (len(self.pins), reader_kind, config.LED_KIND)
        self.station = Station(unique_id(), caps, self.led, self.buzzer, time.ticks_us, config.OUT_QUEUE)
        self.presence = TagPresence(config.TAG_GONE_POLLS)
        self.decoder = LineDecoder()
        self.partial = None             # a frame USB has taken only part of …
        self.sent = 0                   # … this many of its bytes
        self.one = bytearray(1)         # the byte being written: no allocation per byte
        self.tag_stamp = 0              # when the card being read was found
        self.unread = None              # a card on the reader whose text read failed: read again
        self.read_tries = 0
        self.longest_us = 0             # the slowest loop pass since the last STAT
        self.overflows = 0              # the IRQ ring's overflows already counted as dropped
        self.next_stat = time.ticks_add(time.ticks_ms(), STAT_MS)
        self.probe = None               # the bring-up probe under way (probe.py), or None
        self.probe_clock = None         # how it times (None: time.ticks_us)
        self.station.command("WHO", [])        # announce ourselves on power-up

    def _irq_handler(self, index):
        """The hard IRQ: the stamp, and which way the edge went, from the edge flags the
        hardware latched when it came (irq.flags(), set by the rp2 port before the handler
        runs), not from the pin's level a few microseconds later, when a bouncing contact may
        already be back where it was: a press is stamped at its first edge. Both flags (the
        contact bounced before the handler ran) mean the first edge left the state the last
        event left (logic.edge takes that as the change).

        At most four names closed over: MicroPython calls a closure with its closed-over
        names and its argument in a stack array of five (py/objclosure.c), beyond that on
        the heap, which a hard IRQ must not touch."""
        logic = self.logic
        irqs = self.irqs
        ticks_us = time.ticks_us

        def handler(pin):                      # hard IRQ: stamp and direction, nothing else
            now = ticks_us()
            flags = irqs[index].flags()
            if flags == FALLING:
                logic.edge(index, now, True)   # the contact closed: pressed (pulled up, to GND)
            elif flags == RISING:
                logic.edge(index, now, False)
            else:
                logic.edge(index, now, not logic.down[index])
        return handler

    def step(self):
        started = time.ticks_us()
        self.listen()
        self.queue_presses()
        # the presses and a FENCE's answer leave now, not after the reader's bus transfers
        # (a FAST_READ's answer alone is about 5 ms at 100 kHz): a race waits for the answer
        self.write_out()

        now_ms = time.ticks_ms()
        if self.station.probe_request is not None:
            self.start_probe(self.station.probe_request)
            self.station.probe_request = None
        if self.probe is not None:
            self.step_probe()
        elif self.reader is not None:
            self.step_reader(now_ms)
        elif self.station.write_request is not None:
            self.station.written(self.station.write_request[0], False, "reader")
            self.station.write_request = None
        self.led.tick(now_ms)
        self.buzzer.tick(now_ms)
        if time.ticks_diff(now_ms, self.next_stat) >= 0:
            self.next_stat = time.ticks_add(now_ms, STAT_MS)
            self.report()
        # the host again: a FENCE that came during the reader's transfer is answered in this
        # pass, not after the next pass's transfer
        self.listen()
        if self.station.fence is not None:
            self.queue_presses()
        self.write_out()
        took = time.ticks_diff(time.ticks_us(), started)
        if took > self.longest_us:
            self.longest_us = took

    def rest(self):
        """Sleep the core (machine.idle: on the rp2 port a WFE that an interrupt or 1 ms ends)
        while the pass left nothing to do: until the first time something is due (the
        reader's next poll, the end of a flash, a tone or a button's lockout, the next
        STAT), or a press stamped by the IRQ, or a byte from the host, whichever comes
        first. Not at all while a frame waits for room on USB, a PING's or a FENCE's answer
        is to be given, the reader is in an exchange with the chip (its answer is looked
        for every pass) or is to start one now, or the probe runs. A real Pico draws less
        current so; the emulated one (docs/rp2040.md) skips the time it sleeps."""
        station = self.station
        if self.partial is not None or station.pending() or station.fence is not None or \
                station.write_request is not None or station.probe_request is not None or self.probe is not None:
            return
        now_ms = time.ticks_ms()
        left = min(REST_MAX_MS, time.ticks_diff(self.next_stat, now_ms))
        reader = self.reader
        if reader is not None:
            if reader.exchange is not None or reader.next_at is None:
                return
            left = min(left, time.ticks_diff(reader.next_at, now_ms))
        for until in (self.led.flash_until, self.buzzer.until):
            if until is not None:
                left = min(left, time.ticks_diff(until, now_ms))
        logic = self.logic
        now_us = time.ticks_us()
        for i in range(logic.count):
            if logic.locked[i]:                 # a change it hides is reported when it ends
                ends = time.ticks_diff(time.ticks_add(logic.locked_at[i], logic.lockout_us), now_us)
                left = min(left, (ends + 999) // 1000)
        if left <= 0:
            return
        until = time.ticks_add(now_ms, left)
        while not logic.pending() and not self.incoming.poll(0):
            if time.ticks_diff(until, time.ticks_ms()) <= 0:
                return
            machine.idle()

    def listen(self):
        """Commands from the host: only what is there, never waiting, and at most READ_CAP
        bytes; each stamped when its last byte came, and a PING answered before anything
        else is written. A FENCE waits in ``station.fence`` for ``queue_presses``."""
        budget = READ_CAP
        while budget and self.incoming.poll(0):
            budget -= 1
            data = self.stdin.read(1)
            if not data:
                break
            for kind, fields in self.decoder.feed(data):
                if kind == "UPDATE" and fields == [self.station.station_id]:
                    restart_for_update()
                self.station.command(kind, fields, time.ticks_us())
            if self.station.pong is not None:
                self.write_out()

    def queue_presses(self):
        """Every press the IRQ stamped, and every change a lockout that ended hid, queued;
        then the answer to a FENCE read since the last call, behind them. The answer's
        stamp is taken first: every press stamped before it is then in the IRQ's ring (a
        hard IRQ runs to its end before this goes on) or still hidden by a lockout, so it
        goes out ahead of the answer or the answer's stamp is set back to it."""
        fence = self.station.fence
        if fence is not None:
            self.station.fence = None
            upto = time.ticks_us()
        now_us = time.ticks_us()
        for i, pin in enumerate(self.pins):
            state = machine.disable_irq()      # settle() and the IRQ share the event ring
            self.logic.settle(i, pin.value() == 0, now_us)
            machine.enable_irq(state)
        for button, down, stamp in self.logic.events():
            self.station.button(button, down, stamp)
        if self.logic.overflows != self.overflows:      # edges the full ring lost: dropped frames
            self.station.dropped += self.logic.overflows - self.overflows
            self.overflows = self.logic.overflows
        if fence is not None:
            state = machine.disable_irq()
            upto = self.logic.earliest(upto)
            machine.enable_irq(state)
            self.station.progress(fence, upto)

    def write_out(self):
        """Frames out only while USB has room: a host that stopped reading must not stall
        the loop (the station's queue drops its oldest instead). On the Pico, POLLOUT means
        one byte of room, and a longer write waits (up to half a second) and may return
        having written part of it; so a byte goes at a time while there is room, and a frame
        USB took only part of goes on from where it stopped, its tail never lost. A PONG is
        the exception: it goes in one write right after its stamp (``take``), because a
        byte at a time (about 140 µs each on the rp2 port) it left milliseconds after the
        time it says it left, and the host's clock sync counts that as the way back. It
        comes only as the answer to a PING, from a host that is reading; what USB did not
        take goes on a byte at a time."""
        one = self.one
        while True:
            frame = self.partial
            if frame is None:
                if not self.station.pending() or not self.outgoing.poll(0):
                    return
                pong = self.station.pong is not None       # take() gives it first, stamped now
                frame = self.partial = self.station.take()
                self.sent = (self.stdout.write(frame) or 0) if pong else 0
            while self.sent < len(frame):
                if not self.outgoing.poll(0):
                    return
                one[0] = frame[self.sent]
                if not self.stdout.write(one):
                    return
                self.sent += 1
            self.partial = None

    def step_reader(self, now_ms):
        request = self.station.write_request
        # a write starts between polls, never while one is under way: the poll's answer
        # ("no card") would be taken for the write's first step
        if request is not None and self.reader.state in ("poll", "setup", "backoff") and \
                (self.reader.exchange is None or not self.reader.ready):
            self.station.write_request = None
            uid, text, key, auth = request
            if not self.reader.ready:
                self.station.written(uid, False, "reader")
            elif self.presence.uid != uid:
                self.station.written(uid, False, "absent")
            elif text is None or not self.reader.write_text(uid, text, key, auth):
                self.station.written(uid, False, "text")
        result = self.reader.step(now_ms)
        if result is None:
            return
        if result[0] == "wrote":
            self.station.written(result[1], result[2], result[3])
            return
        if result[0] == "text":
            uid, text, ok = result[1], result[2], result[3]
            if not ok and self.read_tries < READ_TRIES and self.presence.uid == uid:
                self.read_tries += 1            # a corrupted read: again at the next poll, if it stays
                self.unread = uid
                return
            self.unread = None
            self.station.tag(uid, text, self.tag_stamp)
            return
        change = self.presence.poll(result[1])
        if change is None:
            if self.unread is not None and result[1] == self.unread:
                self.unread = None
                self.reader.read_text(result[1])
            elif self.unread is not None and result[1] is None and self.presence.uid is None:
                self.unread = None              # it left before its text could be read
            return
        stamp = time.ticks_us()
        if change[0] == "off" and self.unread == change[1]:
            self.unread = None                  # it left unread: the table still hears of it
            self.station.tag(change[1], None, self.tag_stamp)
        if change[0] == "on":
            self.read_tries = 0
            self.unread = None
            if config.READ_NDEF:
                self.tag_stamp = stamp
                self.reader.read_text(change[1])
            else:
                self.station.tag(change[1], None, stamp)
        else:
            self.station.tag_gone(change[1], stamp)

    def start_probe(self, phase):
        """PROBE chip|card (``spieltisch stations --probe``): the reader is set aside and the
        probe measures the chip, one measurement a pass; a reader on UART, or none, cannot
        be probed."""
        if self.reader is None or config.READER != "pn532-i2c":
            self.station.probed(("fail", "reader"))
            return
        from probe import Probe

        def make(timeout_us):
            return machine.I2C(config.I2C_ID, sda=machine.Pin(config.I2C_SDA), scl=machine.Pin(config.I2C_SCL),
                               freq=config.I2C_FREQ, timeout=timeout_us)

        def pins():
            return (machine.Pin(config.I2C_SDA, machine.Pin.OPEN_DRAIN, machine.Pin.PULL_UP, value=1),
                    machine.Pin(config.I2C_SCL, machine.Pin.OPEN_DRAIN, machine.Pin.PULL_UP, value=1))
        self.probe = Probe(make, config.I2C_FREQ, config.I2C_TIMEOUT_US, pins, sda_low,
                           clock=self.probe_clock)
        self.probe.start(phase)
        self.reader.exchange = None

    def step_probe(self):
        """One measurement; at the end the figures go to the host, and the reader sets the
        chip up again on a bus made afresh (the probe changed its configuration)."""
        probe = self.probe
        if not probe.step():
            return
        self.probe = None
        if probe.failed is not None:
            self.station.probed(("fail", probe.failed))
        else:
            for figure in probe.results():
                self.station.probed(figure)
            self.station.probed(("end", probe.phase, probe.version))
        reader = self.reader
        reader.transport.i2c = make_i2c()
        reader.exchange, reader.abort, reader.next_at = None, True, None
        reader.state, reader.setup_step, reader.version = "setup", 0, None

    def report(self):
        reader = "none"
        failures = shrinks = 0
        if self.reader is not None:
            reader = "ok" if self.reader.ready else "missing"
            failures = self.reader.failures
            shrinks = self.reader.shrinks
        # the heap free after a collection (what the station holds, so a leak shows, not the
        # garbage the next collection would take), and that collection's pause
        started = time.ticks_us()
        gc.collect()
        gc_us = time.ticks_diff(time.ticks_us(), started)
        self.station.stat(self.longest_us, reader, failures, shrinks, gc.mem_free(), gc_us)
        self.longest_us = 0


def restart_for_update():
    """``UPDATE <station-id>`` (``spieltisch stations --flash``): mark it and reset, so the
    next boot leaves USB to mpremote. This loop takes Ctrl-C as data and the watchdog,
    once started, cannot be stopped: only a boot that never starts them can be updated."""
    with open(UPDATE_MARK, "w") as f:
        f.write("1")
    machine.reset()


def updating():
    """True once after ``restart_for_update``: this boot is the update's; the next runs the
    station again (a station unplugged during an update comes back as it was)."""
    try:
        os.remove(UPDATE_MARK)
        return True
    except OSError:
        return False


def crashed(firmware, exc, stdout):
    """An exception left the loop: say so (best effort, straight to USB), then reset."""
    try:
        firmware.station.out = []
        firmware.station.error("crash", "%s %s" % (type(exc).__name__, exc))
        frame = firmware.station.take()
        if frame is not None:
            stdout.write(frame)
    except Exception:                           # noqa: BLE001 - nothing more to do but reset
        pass
    time.sleep_ms(50)
    machine.reset()


def run():
    # A 0x03 byte from the host is data, not Ctrl-C.
    micropython.kbd_intr(-1)
    micropython.alloc_emergency_exception_buf(100)
    incoming = select.poll()
    incoming.register(sys.stdin, select.POLLIN)
    outgoing = select.poll()
    outgoing.register(sys.stdout, select.POLLOUT)
    firmware = Firmware(sys.stdin.buffer, sys.stdout.buffer, incoming, outgoing)
    serve(firmware, machine.WDT(timeout=WATCHDOG_MS), sys.stdout.buffer)


def serve(firmware, watchdog, stdout, passes=-1):
    """The loop, fed to the watchdog each pass, resting between passes while there is
    nothing to do; ``passes`` bounds it for the checks."""
    try:
        while passes != 0:
            firmware.step()
            watchdog.feed()
            firmware.rest()
            passes -= 1
    except Exception as exc:                   # noqa: BLE001 - a station must come back by itself
        crashed(firmware, exc, stdout)


def repl_asked():
    """Whether button 0 is held at power-up. The RP2040's pads come out of reset pulled
    down, and the pull-up switched on here raises the pin only as fast as it charges the
    wire to the button (and a debounce capacitor, where one is fitted: 100 nF takes
    several ms): read at once, a button nobody holds may still read low. So the pin is read
    until SETTLED_READS reads in a row find it high (not held), or it still reads low once
    BOOT_SETTLE_MS have passed (held)."""
    pin = machine.Pin(config.BUTTON_PINS[0], machine.Pin.IN, machine.Pin.PULL_UP)
    deadline = time.ticks_add(time.ticks_ms(), BOOT_SETTLE_MS)
    high = 0
    while True:
        level = pin.value()
        high = high + 1 if level else 0
        if high >= SETTLED_READS:
            return False
        if not level and time.ticks_diff(time.ticks_ms(), deadline) >= 0:
            return True                          # still low when the pull-up had its time
        time.sleep_us(100)


# Hold button 0 while plugging in to get the REPL instead (for mpremote and updates); after
# the table's UPDATE the REPL comes by itself, once.
if __name__ == "__main__" and not updating() and not repl_asked():
    run()
