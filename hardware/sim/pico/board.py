# One station's Pico, simulated around the real firmware: runs under MicroPython (the
# WebAssembly build, started by station.mjs) with the project's own firmware/ files. What
# is simulated lies below the firmware: the RP2040's microsecond timer (the host's
# monotonic clock plus this station's offset), its pins (contacts that bounce, edges whose
# flags the hard IRQ reads), the I2C bus with a datasheet-timed PN532 and NTAG cards
# (pn532_chip.py, ntag.py), USB CDC's buffers (the pseudo-terminal the table opens). The
# firmware's own main.Firmware and main.serve run one pass at a time; between passes the
# board applies what the host process asked (a press, a card laid down), delivers the
# pins' edges that are due, and moves USB's bytes.
#
# Not modelled: USB going away at a reset (the station reboots on the same port and says
# HELLO again), IRQs in the middle of a pass (edges are delivered between passes, stamped
# when they happened, never before a time the firmware has already read).

import sys
import json
import binascii

import js

MASK = (1 << 30) - 1
HALF = 1 << 29
IRQ_LATENCY_US = 8          # edge to hard IRQ handler on an RP2040 under MicroPython (estimate)
TX_FIFO = 256               # USB CDC's transmit buffer: POLLOUT while it has room
HAND_GAP_US = 30_000        # one hand: the next press or card this long after the last one ended
# A card laid down whose TAG and GONE have not come after this long was not read and will not
# be: the hand gives up and says so (the host stops the game) instead of waiting for ever. A
# working reader takes well under a second, and a chip it resets comes back within its
# longest backoff (8 s, firmware/pn532.py); passes 60 ms apart still read a card in about 2 s.
HAND_PATIENCE_US = 20_000_000
RX_CHUNK = 256              # what one look at USB brings in at most


def diff(a, b):
    return ((a - b + HALF) & MASK) - HALF


class Clock:
    """The RP2040's microsecond timer as the firmware's ``time`` module sees it: the host's
    monotonic microseconds (the clock every process on the host shares) plus an offset.
    While a simulated IRQ runs it reads the IRQ's time; it never goes back."""

    def __init__(self, offset_us):
        self.offset = offset_us
        self.irq_at = None
        self.last = self._host()

    def _host(self):
        return (js.ticksUs() + self.offset) & MASK

    def ticks_us(self):
        if self.irq_at is not None:
            return self.irq_at
        now = self._host()
        if diff(now, self.last) > 0:
            self.last = now
        return self.last

    def ticks_ms(self):
        """Its own counter, wrapping at 2^30 milliseconds as the rp2 port's does (not the
        microseconds' wrapped value divided: that would jump back every 18 minutes)."""
        return (js.ticksMs() + self.offset // 1000) & MASK

    def ticks_diff(self, later, earlier):
        return diff(later, earlier)

    def ticks_add(self, ticks, delta):
        return (ticks + delta) & MASK

    def sleep_us(self, us):
        js.sleepUs(us)

    def sleep_ms(self, ms):
        js.sleepUs(ms * 1000)

    def sleep(self, s):
        js.sleepUs(int(s * 1_000_000))

    def time(self):
        return js.ticksUs() // 1_000_000


class UsbIn:
    """What the host wrote, as MicroPython's stdin.buffer: read(1) and a poll for POLLIN."""

    def __init__(self):
        self.data = b""
        self.bytes = 0

    def _fill(self):
        if not self.data:
            got = js.usbRead(RX_CHUNK)
            if got:
                self.data = binascii.unhexlify(got)
                self.bytes += len(self.data)

    def poll(self, timeout=0):
        self._fill()
        return len(self.data) > 0

    def read(self, n):
        self._fill()
        out, self.data = self.data[:n], self.data[n:]
        return out


class UsbOut:
    """USB CDC's transmit buffer: takes bytes while it has room (POLLOUT), hands them to the
    host at every flush; whole lines are timed from their event's stamp (the board's figures)."""

    def __init__(self, board):
        self.board = board
        self.fifo = bytearray()
        self.line = bytearray()

    def poll(self, timeout=0):
        if len(self.fifo) >= TX_FIFO:
            self.flush()
        return len(self.fifo) < TX_FIFO

    def write(self, data):
        room = TX_FIFO - len(self.fifo)
        if room <= 0:
            return 0
        data = bytes(data[:room])
        self.fifo += data
        return len(data)

    def flush(self):
        if not self.fifo:
            return
        sent = js.usbWrite(binascii.hexlify(self.fifo).decode())
        if sent:
            now = self.board.clock.ticks_us()
            for b in self.fifo[:sent]:
                if b == 10:
                    self.board.line_sent(bytes(self.line), now)
                    self.line = bytearray()
                else:
                    self.line.append(b)
            self.fifo = self.fifo[sent:]


class Contact:
    """A button's contact: a press closes it and it bounces a few times before it stays
    (each edge's time drawn from a small pattern of real tactile switches: the first
    bounce often shorter than the IRQ's latency), a release opens it likewise."""

    PATTERNS = ((0, 5, 40, 300, 900), (0, 60, 200), (0, 3, 700), (0,))

    def __init__(self, pin, seed):
        self.pin = pin
        self.seed = seed

    def edges(self, at, closed):
        self.seed = (self.seed * 1103515245 + 12345) & 0x7FFFFFFF
        pattern = self.PATTERNS[self.seed % len(self.PATTERNS)]
        out = []
        level = 0 if closed else 1
        for i, offset in enumerate(pattern):
            out.append(((at + offset) & MASK, level if i % 2 == 0 else 1 - level))
        return out


class Board:
    def __init__(self, spec):
        self.spec = spec
        self.clock = Clock(spec.get("offset_us", 0))
        sys.modules["time"] = self.clock              # the RP2040's timer, for the firmware and below it
        import machine
        import pn532_chip
        import ntag
        self.machine = machine
        self.ntag = ntag
        machine.uid[0] = binascii.unhexlify(spec["uid"])
        machine.sleep_us[0] = self.clock.sleep_us
        machine.idle_hook[0] = self.idle
        self.chip = None
        if spec.get("reader", True):
            timing = pn532_chip.load_timing("/board/pn532_timing.json")
            self.chip = pn532_chip.Pn532(timing, clock=self.clock.ticks_us, mode=spec.get("chip_mode", "ok"))
        machine.chip[0] = self.chip
        self.idle_us = spec.get("idle_us", 1000)
        self.usb_in = UsbIn()
        self.usb_out = UsbOut(self)
        self.edges = []                               # (time, pin, level, what), in time order
        self.moves = 0                                # a contact's closing or opening: its edges' ``what``
        self.cards = {}                               # UID -> the NTAG (what a WRITE put on it stays)
        self.lift = None                              # [when to lift (None: once its TAG is out), ms after it]
        self.firmware = None
        self.hands = []                               # what the person does next, one thing at a time
        self.free_at = self.clock.ticks_us()          # when the hand can do the next
        self.tap_done = None                          # the frame a tap's hand waits for: b"TAG" or b"GONE"
        self.tap_at = 0                               # when that card was laid down
        self.tap_uid = None                           # and its UID, as the frames say it
        self.tap_read = False                         # its TAG is out
        self.patience_us = spec.get("hand_patience_us", HAND_PATIENCE_US)
        self.gave_up = 0                              # taps the hand gave up on
        self.boots = 0
        self.passes = 0
        self.pass_us = []                             # a ring of recent passes' times
        self.press_to_usb = []                        # a press's edge to its frame leaving, us
        self.tag_to_usb = []
        self.contacts = {}

    # -- what the host process asks ------------------------------------------------------------
    def control(self):
        text = js.control()
        if not text:
            return
        for line in text.split("\n"):
            if line:
                self.command(json.loads(line))

    def command(self, c):
        if c["do"] == "stats":
            self.report()
        else:
            # a press asked for while the hand is busy happens when the hand is free, not at
            # the time asked (its edges would all land at once, stamped alike)
            c["waited"] = bool(self.hands) or not self.hand_free()
            self.hands.append(c)

    def hand_free(self):
        if self.tap_done is not None:
            if diff(self.clock.ticks_us(), self.tap_at) < self.patience_us:
                return False
            self.give_up()
        return diff(self.clock.ticks_us(), self.free_at) >= 0

    def give_up(self):
        """The card laid down was not read (or not seen go) in ``patience_us``: the hand takes
        it away and the host hears why, in one line (FirmwareStation.failed), instead of a
        hand, and the game behind it, waiting for ever."""
        waited = diff(self.clock.ticks_us(), self.tap_at) // 1000
        reader = getattr(self.firmware, "reader", None)
        how = "no reader" if reader is None else "its reader %s after %d failed exchanges" % (
            "ready" if reader.ready else "not ready (%s)" % reader.state, reader.failures)
        self.gave_up += 1
        what = "was read, and not seen taken away," if self.tap_read else "was not read"
        js.report(json.dumps({"hand_gave_up": "the card %s laid on its reader %s in %d ms (no %s frame for it; %s)" % (
            self.tap_uid.decode(), what, waited, self.tap_done.decode(), how)}))
        if self.chip is not None:
            self.chip.card = None
        self.lift = None
        self.tap_done = None

    def use_hands(self):
        """One person's hands: a press, a card laid down, one after another, each when the
        last has ended (a tap when its card was read and lifted again)."""
        while self.hands and self.hand_free():
            self.do(self.hands.pop(0))

    def do(self, c):
        import config
        kind = c["do"]
        if kind == "press":
            pin = config.BUTTON_PINS[c["button"]]
            contact = self.contacts.get(pin)
            if contact is None:
                contact = self.contacts[pin] = Contact(pin, c["button"] + 7 * self.boots + 1)
            at = self._ticks_of(None if c.get("waited") else c.get("at_us"))
            if diff(at, self.free_at) < 0:
                at = self.free_at
            self._schedule(contact.edges(at, True), pin)
            self.free_at = (at + HAND_GAP_US) & MASK
            if c.get("release", True):
                release = (at + c.get("hold_us", 80_000)) & MASK
                self._schedule(contact.edges(release, False), pin)
                self.free_at = (release + HAND_GAP_US) & MASK
        elif kind == "tap":
            if self.chip is None:
                return
            uid = c["uid"].upper()
            card = self.cards.get(uid)
            if card is None or c.get("text") is not None:
                card = self.cards[uid] = self.ntag.Ntag(uid, c.get("kind", "NTAG213"),
                                                        self.ntag.ndef_text_memory(c.get("text")))
            self.chip.card = card
            lift_ms = c.get("lift_ms", 250)
            # lifted lift_ms after its TAG left, and the hand free once its GONE did (once its
            # TAG did, for a card left there): told by the frames themselves (line_sent), not
            # by the station's count of frames, which a press's frame sent after the card
            # was laid down moves on too
            self.lift = [None, lift_ms] if lift_ms else None
            self.tap_done = b"GONE" if lift_ms else b"TAG"
            self.tap_at = self.clock.ticks_us()
            self.tap_uid = uid.encode()
            self.tap_read = False
        elif kind == "lift":
            if self.chip is not None:
                self.chip.card = None
            self.lift = None

    def _ticks_of(self, host_us):
        now = self.clock.ticks_us()
        if host_us is None:
            return now
        at = (host_us + self.clock.offset) & MASK
        return now if diff(at, now) > 0 else at

    def _schedule(self, edges, pin):
        self.moves += 1
        for at, level in edges:
            self.edges.append((at, pin, level, self.moves))
        now = self.clock.ticks_us()
        self.edges.sort(key=lambda e: diff(e[0], now))

    # -- below the firmware --------------------------------------------------------------------
    def deliver_edges(self):
        """Every edge due by now reaches the pin: its hard IRQ runs at the edge's time (plus
        the latency), never before what the firmware has already read; a bounce that came
        within the latency is what the handler finds on the pin. One move of a contact a
        pass: after a pass late enough that a press and its release are both due (a loaded
        host), the release waits for the next pass, as its IRQ would have run after the
        press's on a Pico, so the two are never stamped alike at the time the firmware read."""
        clock = self.clock
        now = clock.ticks_us()
        moving = {}                                   # pin -> the move of its contact delivered now
        later = []
        while self.edges and diff(self.edges[0][0], now) <= 0:
            edge = self.edges.pop(0)
            at, pin, level, move = edge
            if moving.setdefault(pin, move) != move:
                later.append(edge)
                continue
            bounced = bool(self.edges) and self.edges[0][1] == pin and diff(self.edges[0][0], at) < IRQ_LATENCY_US
            run_at = (at + IRQ_LATENCY_US) & MASK
            if diff(run_at, clock.last) < 0:
                run_at = clock.last
            clock.irq_at = run_at
            try:
                self.machine.Pin.all[pin].fire(level, bounced)
            finally:
                clock.irq_at = None
        self.edges[:0] = later

    def lift_cards(self):
        lift = self.lift
        if lift is None or self.chip is None:
            return
        now = self.clock.ticks_us()
        if lift[0] is None:                            # its TAG is not out yet (line_sent)
            return
        if diff(now, lift[0]) >= 0:
            self.chip.card = None
            self.lift = None

    def line_sent(self, line, now):
        parts = line.split(b" ")
        try:
            if parts[0] == b"BTN" and parts[3] == b"D":
                self._keep(self.press_to_usb, diff(now, int(parts[4])))
            elif parts[0] == b"TAG":
                self._keep(self.tag_to_usb, diff(now, int(parts[3])))
            if parts[0] in (b"TAG", b"GONE") and parts[2] == self.tap_uid:
                self.tap_read = True
                if parts[0] == b"TAG" and self.lift is not None and self.lift[0] is None:
                    self.lift[0] = (now + int(self.lift[1] * 1000)) & MASK    # the hand lifts it soon
                if parts[0] == self.tap_done:
                    self.tap_done = None
        except (IndexError, ValueError):
            pass

    def _keep(self, ring, value):
        ring.append(value)
        if len(ring) > 500:
            ring.pop(0)

    def report(self):
        reads = [0, 0]                                # the card reads the chip passed on: FAST_READ, READ
        if self.chip is not None:
            for command in self.chip.card_commands:
                if command[:1] == bytes([self.ntag.FAST_READ]):
                    reads[0] += 1
                elif command[:1] == bytes([self.ntag.READ]):
                    reads[1] += 1
        out = {"passes": self.passes, "pass_us": self.pass_us, "press_to_usb_us": self.press_to_usb,
               "tag_to_usb_us": self.tag_to_usb, "fast_reads": reads[0], "reads": reads[1],
               "boots": self.boots, "seq": self.firmware.station.seq, "taps_given_up": self.gave_up,
               "waiting": len(self.hands), "edges": len(self.edges), "tap_done": self.tap_done and self.tap_done.decode(),
               "card": self.chip is not None and self.chip.card is not None}
        js.report(json.dumps(out))

    # -- the station ---------------------------------------------------------------------------
    def boot(self):
        """Power on (or a reset): the firmware's modules afresh, its Firmware on USB."""
        for name in ("main", "station", "buttons", "pn532", "led", "buzzer", "wire", "config"):
            sys.modules.pop(name, None)
        machine = self.machine
        machine.handlers.clear()
        machine.levels.clear()
        machine.irq_enabled[0] = True
        del machine.pending_irqs[:]
        if self.chip is not None:
            self.chip.reset()
        import config
        for name, value in self.spec.get("config", {}).items():
            setattr(config, name, value)              # as the station's own config.py says it
        import main
        self.main = main
        self.boots += 1
        self.tap_done = None
        self.firmware = main.Firmware(self.usb_in, self.usb_out, self.usb_in, self.usb_out)
        self.watchdog = machine.WDT(timeout=main.WATCHDOG_MS)

    def run(self):
        machine = self.machine
        self.boot()
        while True:
            self.control()
            self.use_hands()
            self.deliver_edges()
            started = self.clock.ticks_us()
            try:
                self.main.serve(self.firmware, self.watchdog, self.usb_out, passes=1)
            except machine.Reset:
                self.usb_out.flush()
                self.boot()
                continue
            self.passes += 1
            self._keep(self.pass_us, diff(self.clock.ticks_us(), started))
            self.usb_out.flush()
            if self.watchdog.expired():               # a pass longer than the watchdog's time
                self.boot()
                continue
            self.lift_cards()
            if self.idle_us and not self.edges_due_soon():
                js.sleepUs(self.idle_us)

    def idle(self):
        """While the firmware sleeps in machine.idle() (Firmware.rest): what the host asked
        and the hands go on, USB hands over what it holds, and time passes until the next
        edge is due or 1 ms (the rp2 port's WFE ends at an interrupt or after 1 ms); that
        edge's hard IRQ runs then, as it would wake the core."""
        self.usb_out.flush()
        self.control()
        self.use_hands()
        wait = self.machine.IDLE_US
        if self.edges:
            wait = max(0, min(wait, diff(self.edges[0][0], self.clock.ticks_us())))
        if wait:
            js.sleepUs(wait)
        self.deliver_edges()
        self.lift_cards()

    def edges_due_soon(self):
        return bool(self.edges) and diff(self.edges[0][0], self.clock.ticks_us()) < self.idle_us


def start(spec_json):
    Board(json.loads(spec_json)).run()
