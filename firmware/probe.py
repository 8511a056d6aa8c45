# The bring-up probe (PROBE chip, PROBE card: `spieltisch stations --probe`): measures on
# the station's own PN532 what the simulated chip (hardware/sim/pn532_chip.py) takes from
# hardware/data/pn532_timing.json, where several figures are estimates. The station's
# loop runs one measurement a pass (each bounded: a command and its answers, at most a
# few hundred ms), and the reader is set up again afterwards. Each figure goes to the
# host as PROBED <name> <n> <median> <min> <max> (µs, or a code: the names say), then
# PROBED end <phase> <chip version>; PROBED fail <why> when it cannot measure.
#
#   phase "chip" (no card on the reader): ack, answer time of GetFirmwareVersion,
#     SAMConfiguration and RFConfiguration, NACK resend, InListPassiveTarget without a
#     card (one try), clock stretching (a transfer's time against its bytes x bit time),
#     and a transfer cut off on purpose: what the bus and the chip are left with.
#   phase "card" (one unenrolled card on it): InListPassiveTarget with it, READ, WRITE
#     (page 4 written back as it is), the longest FAST_READ the chip passes, and the
#     status a card's NAK comes back with.

import time

from pn532 import ACK, NACK, build_frame, bus_clear

ADDRESS = 0x24
SAMPLES = 5
WAIT_US = 200_000            # the longest a command's answer is waited for
LONG_TIMEOUT_US = 100_000    # the bus's timeout while the probe reads long answers
CUT_TIMEOUT_US = 400         # a bus that cuts a GetFirmwareVersion answer off halfway
FAST_READ_PAGES = (4, 8, 10, 12, 15, 16, 20, 24, 28, 32, 36)   # tried in turn, pages 4 on

GET_FIRMWARE_VERSION = b"\x02"
SAM_CONFIGURATION = b"\x14\x01\x14\x00"
ONE_TRY = b"\x32\x05\xff\x01\x00"          # MxRtyPassiveActivation 0: one try
CARD_TIMEOUT = b"\x32\x02\x00\x0b\x09"
LIST = b"\x4a\x01\x00"


class Failed(Exception):
    """A measurement that could not be made: its reason goes to the host."""


class Probe:
    """``make_i2c(timeout_us)``: a machine.I2C on the reader's bus; ``pins()``: the
    (sda, scl) machine.Pin pair in open drain, for the cut transfer's bus clear;
    ``sda_low()``: whether SDA reads low; ``clock``: ticks_us."""

    def __init__(self, make_i2c, freq, timeout_us, pins, sda_low, clock=None):
        self.make_i2c = make_i2c
        self.freq = freq
        self.timeout_us = timeout_us
        self.pins = pins
        self.sda_low = sda_low
        self.clock = clock or time.ticks_us
        self.i2c = None
        self.figures = {}        # name -> samples
        self.version = "-"
        self.steps = []

    # -- the plan ----------------------------------------------------------------------------
    def start(self, phase):
        self.figures = {}
        self.i2c = self.make_i2c(self.timeout_us)
        if phase == "chip":
            self.steps = [self._wake, self._chip_commands, self._no_card, self._cut]
        else:
            self.steps = [self._wake, self._card]
        self.phase = phase

    def step(self):
        """One measurement; True once the plan is done (or failed: ``failed`` says why)."""
        self.failed = None
        try:
            self.steps.pop(0)()
        except Failed as exc:
            self.failed = str(exc)
            self.steps = []
        except OSError as exc:
            self.failed = "bus%d" % (exc.args[0] if exc.args else 0)
            self.steps = []
        return not self.steps

    def results(self):
        """[(name, n, median, min, max)], sorted by name."""
        out = []
        for name in sorted(self.figures):
            samples = sorted(self.figures[name])
            out.append((name, len(samples), samples[len(samples) // 2], samples[0], samples[-1]))
        return out

    def _add(self, name, value):
        self.figures.setdefault(name, []).append(int(value))

    # -- the bus -----------------------------------------------------------------------------
    def _timed_read(self, n):
        started = self.clock()
        data = self.i2c.readfrom(ADDRESS, n)
        took = time.ticks_diff(self.clock(), started)
        bus = (1 + n) * 9 * 1_000_000 // self.freq
        self._add("stretch_us", max(0, took - bus))
        return data

    def _ready_after(self, started, limit_us=WAIT_US):
        """µs from ``started`` until the status byte says ready; None if it never does.
        Polled with 1-byte reads (two bytes on the bus: 180 µs at 100 kHz, the figures'
        resolution). ``busy``: the polls that found it busy first."""
        self.busy = 0
        while time.ticks_diff(self.clock(), started) < limit_us:
            try:
                status = self.i2c.readfrom(ADDRESS, 1)
            except OSError:
                continue
            if status and status[0] & 0x01:
                return time.ticks_diff(self.clock(), started)
            self.busy += 1
        return None

    def _exchange(self, command, ack_name=None, ready_name=None, nack=False):
        """One command: its ACK and its answer awaited, each timed from the command's end, read as the firmware reads
        it (the header, a NACK, the frame again whole); -> the answer's data (after the
        response code). ``nack``: the resend's time is a figure too."""
        frame = build_frame(command)
        # the command's last bit: its start and the bytes' time on the bus (a clock read
        # after writeto returns would count the return's own time too)
        sent = time.ticks_add(self.clock(), (1 + len(frame)) * 9 * 1_000_000 // self.freq)
        self.i2c.writeto(ADDRESS, frame)
        ack = self._ready_after(sent)
        if ack is None:
            raise Failed("no-ack")
        if ack_name:
            self._add(ack_name, ack)
        if bytes(self._timed_read(7)[1:]) != ACK:
            raise Failed("not-ack")
        ready = self._ready_after(sent)         # from the command, as the ACK: the host takes one from the other
        if ready is None:
            raise Failed("no-answer")
        if ready_name:
            # no busy poll after the ACK was read: the answer was ready before it could be
            # seen, and its time is at most this (the host's conversion says so)
            self._add(ready_name, ready)
            self._add("polls_" + ready_name[:-3], self.busy)
        head = self._timed_read(7)             # the header: how long the frame is
        length = head[4]
        self.i2c.writeto(ADDRESS, NACK)        # "again, please", whole (as the firmware reads)
        again = self._ready_after(self.clock(), 60_000)
        if nack:
            self._add("nack_resend_us", again if again is not None else -1)
        if again is None:
            raise Failed("no-resend")
        frame = self._timed_read(1 + 5 + length + 2)
        return bytes(frame[8:6 + length])           # after TFI and the response code

    # -- the steps ---------------------------------------------------------------------------
    def _wake(self):
        try:
            self.i2c.writeto(ADDRESS, b"\x00")
        except OSError:
            pass
        time.sleep_ms(2)
        # the reader's exchange may be under way, or a read of its answer cut off: a PN532
        # then takes no command until the host's ACK aborts it (UM0701-02 6.2.1.3), as the
        # reader sends one; with nothing under way the chip ignores it
        self.i2c.writeto(ADDRESS, ACK)
        time.sleep_ms(1)
        answer = self._exchange(GET_FIRMWARE_VERSION)
        if len(answer) < 4:
            raise Failed("version")
        self.version = "%d.%d" % (answer[1], answer[2])
        self._exchange(SAM_CONFIGURATION)
        self._exchange(CARD_TIMEOUT)

    def _chip_commands(self):
        for _ in range(SAMPLES):
            self._exchange(GET_FIRMWARE_VERSION, "ack_us", "answer_GetFirmwareVersion_us", nack=True)
            self._exchange(SAM_CONFIGURATION, None, "answer_SAMConfiguration_us")
            self._exchange(ONE_TRY, None, "answer_RFConfiguration_us")

    def _no_card(self):
        for _ in range(SAMPLES):
            answer = self._exchange(LIST, None, "list_no_card_us")
            if answer and answer[0]:
                raise Failed("card-on-reader")

    def _cut(self):
        """A GetFirmwareVersion answer read on a bus whose timeout cuts it off halfway, as
        the firmware's own timeout may: the error, SDA, the next transfers, the clocks that
        free SDA, and whether the chip takes a command before an ACK and after it."""
        self.i2c.writeto(ADDRESS, build_frame(GET_FIRMWARE_VERSION))
        if self._ready_after(self.clock()) is None:
            raise Failed("no-ack")
        self.i2c.readfrom(ADDRESS, 7)
        if self._ready_after(self.clock()) is None:
            raise Failed("no-answer")
        self.i2c = self.make_i2c(CUT_TIMEOUT_US)
        self._add("cut_errno", _errno(lambda: self.i2c.readfrom(ADDRESS, 14)))
        self._add("cut_sda_low", self.sda_low())
        self._add("cut_next_errno", _errno(lambda: self.i2c.readfrom(ADDRESS, 1)))
        self.i2c = self.make_i2c(self.timeout_us)            # the controller made again
        self._add("cut_rebuilt_errno", _errno(lambda: self.i2c.readfrom(ADDRESS, 1)))
        self._add("cut_sda_low_rebuilt", self.sda_low())
        sda, scl = self.pins()
        clocks = bus_clear(sda, scl, self.freq, 32)
        self._add("cut_clocks_to_free", clocks if not self.sda_low() else -1)
        self.i2c = self.make_i2c(self.timeout_us)
        self.i2c.writeto(ADDRESS, build_frame(GET_FIRMWARE_VERSION))
        self._add("cut_takes_command", self._ready_after(self.clock(), 60_000) is not None and
                  bytes(self.i2c.readfrom(ADDRESS, 7)[1:]) == ACK)
        self.i2c.writeto(ADDRESS, ACK)
        time.sleep_ms(1)
        try:
            self._exchange(GET_FIRMWARE_VERSION)
            recovered = 1
        except Failed:
            recovered = 0
        self._add("cut_ack_recovers", recovered)

    def _card(self):
        self._exchange(ONE_TRY)
        for _ in range(SAMPLES):
            answer = self._exchange(LIST, None, "list_card_us")
            if not answer or not answer[0]:
                raise Failed("no-card")
        page4 = None
        for _ in range(SAMPLES):
            answer = self._exchange(b"\x40\x01\x30\x04", None, "read_us")
            if len(answer) < 17 or answer[0]:
                raise Failed("read")
            page4 = answer[1:5]
        for _ in range(SAMPLES):
            answer = self._exchange(b"\x40\x01\xa2\x04" + page4, None, "write_us")
            if not answer or answer[0]:
                self._add("write_refused_status", answer[0] if answer else 256)
                self._exchange(LIST)                        # a NAK leaves the card IDLE
                break
        self.i2c = self.make_i2c(LONG_TIMEOUT_US)
        longest = 0
        for pages in FAST_READ_PAGES:
            answer = self._exchange(b"\x42\x3a\x04" + bytes([3 + pages]), None, "fast_read_%d_us" % pages)
            if len(answer) < 1 + 4 * pages or answer[0]:
                self._add("fast_read_refused_status", answer[0] if answer else 256)
                self._exchange(LIST)
                break
            longest = pages
        self._add("fast_read_longest_pages", longest)
        answer = self._exchange(b"\x42\x3a\xf0\xf1")        # past any NTAG's end: the card's NAK
        self._add("nak_status", answer[0] if len(answer) == 1 else 256 + answer[1] if len(answer) > 1 else 512)
        self.i2c = self.make_i2c(self.timeout_us)


def _errno(transfer):
    """0 when ``transfer`` passes, else its OSError's errno."""
    try:
        transfer()
        return 0
    except OSError as exc:
        return exc.args[0] if exc.args else -1
