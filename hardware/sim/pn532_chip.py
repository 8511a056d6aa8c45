# A PN532 on I2C that keeps its datasheet's timing, with NTAG21x cards on its antenna: what
# the real firmware (firmware/pn532.py) meets below machine.I2C when it runs under
# MicroPython on the host (spieltisch demo --stations firmware, the firmware's checks in
# tests/mpy, spieltisch bench --only loop). The timing is one data file,
# hardware/data/pn532_timing.json, each figure with where it comes from.
#
# Written in the Python both CPython and MicroPython run (like hardware/sim/ntag.py, which it
# holds the cards with): no annotations, no f-strings, no bytes.fromhex.
#
# What it models (PN532 user manual UM0701-02, 6.2 and 7; ESPHome's and Adafruit's I2C
# drivers for how a host meets it):
#
# - the status byte: every I2C read starts with it, 01 when a frame waits, 00 while the
#   chip is busy; a read of the status byte alone takes nothing away, a longer read hands
#   out the waiting frame from its start and that frame is then gone (a read cut short
#   loses the rest) unless the host sends NACK: then the chip is busy for a while and
#   offers the same frame again;
# - a command: ACK after ``ack_us``, its response after the command's time (the RF
#   exchanges at 106 kbit/s with the card, an NTAG WRITE's EEPROM time), computed from the
#   card as it is when the response is due: a card taken away mid-read (or one that
#   ignores the command) answers nothing, and the chip says so (status 01, a timeout)
#   only when its own wait for the card's answer is up (``card_timeout_us`` after a reset,
#   what RFConfiguration item 02h's TimeOut sets after that); a new command or an ACK
#   from the host abandons the one under way;
# - InListPassiveTarget: one try per ``MxRtyPassiveActivation`` + 1 (RFConfiguration item
#   05), and after a reset the chip tries for ever (0xFF) until a card comes;
# - an answer too long for a normal frame comes in an extended one (UM0701-02 6.2.1: FF FF,
#   two length bytes and their checksum where a normal frame has LEN and LCS);
# - faults: "silent" (nobody acknowledges the address: EIO), "stuck" (every transfer takes
#   the bus timeout and fails: ETIMEDOUT), ``reset()`` (a brown-out: deaf for ``reset_us``,
#   then unconfigured until SAMConfiguration), ``corrupt_every`` (every n-th response has a
#   flipped byte), ``fail_reads`` (that many NTAG reads, READ or FAST_READ, get an RF error: status
#   ``fail_status``, a CRC error unless set),
#   ``stretch_us`` (the chip holds the clock low that long at the start of every transfer).
#
# The bus (ChipI2C) times each transfer at its clock and fails one that would outlast its
# timeout with ETIMEDOUT when the timeout is up, as the RP2040's does: MicroPython's rp2
# machine.I2C hands its timeout to pico-sdk's i2c_read_timeout_us/i2c_write_timeout_us,
# which bound the entire transfer, not each byte. pico-sdk's i2c_read_blocking_internal
# stops on that timeout without a STOP and without aborting, so the chip is left in the
# middle of handing out its frame: it holds SDA low (``sda_low_clocks``: until SCL has
# clocked out the rest of the byte it was sending, at most 9 clocks; the simulated Pico's
# machine.Pin clocks it, hardware/sim/pico/machine.py), keeps the frame "ready" (status 01,
# the whole frame again to the next read) and ignores every new command, NACK included,
# until the host's ACK frame aborts it (UM0701-02 6.2.1.3; libnfc's pn532_i2c.c sends an
# ACK "to abort the command"). A write cut off leaves the chip a broken command.

import time

try:
    import ntag  # type: ignore[import-not-found]  # MicroPython's: ntag.py beside it on the simulated Pico
except ImportError:                           # CPython: the package's own
    from hardware.sim import ntag

ACK = b"\x00\x00\xff\x00\xff\x00"
NACK = b"\x00\x00\xff\xff\x00\x00"
ERROR = b"\x00\x00\xff\x01\xff\x7f\x81\x00"    # the syntax error frame (UM0701-02 6.2.1.4)
RF_CRC_ERROR = 0x02                           # status: a CRC error on air (the PN532's error codes, as libnfc lists them)
ADDRESS = 0x24

GET_FIRMWARE_VERSION = 0x02
SAM_CONFIGURATION = 0x14
RF_CONFIGURATION = 0x32
IN_DATA_EXCHANGE = 0x40
IN_COMMUNICATE_THRU = 0x42
IN_LIST_PASSIVE_TARGET = 0x4A
NAMES = {GET_FIRMWARE_VERSION: "GetFirmwareVersion", SAM_CONFIGURATION: "SAMConfiguration",
         RF_CONFIGURATION: "RFConfiguration"}
FOREVER = 0xFF                                # MxRtyPassiveActivation: try until a card comes
NO_TIMEOUT_US = 1 << 28                       # TimeOut 00h, "no timeout": longer than anyone waits

HALF = 1 << 29
MASK = (1 << 30) - 1


def ticks_diff(later, earlier):
    """MicroPython's ticks_diff for counters that wrap at 2^30 (as ticks_us does)."""
    return ((later - earlier + HALF) & MASK) - HALF


def default_clock():
    try:
        return time.ticks_us()
    except AttributeError:                    # CPython
        return (time.monotonic_ns() // 1000) & MASK


def load_timing(path=None):
    """The timing data file as a dict: hardware/data/pn532_timing.json by default, or the
    file ``SPIELTISCH_PN532_TIMING`` names (a real chip's figures, written by the bring-up
    probe: spieltisch stations --probe)."""
    import json
    if path is None:
        import os
        path = os.environ.get("SPIELTISCH_PN532_TIMING") or \
            os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "pn532_timing.json")
    with open(path) as f:
        return json.load(f)


def frame(data):
    """Response bytes (code first) -> an information frame from the PN532: a normal one, or
    an extended one for more than 255 bytes with TFI."""
    body = b"\xd5" + bytes(data)
    checksum = (0x100 - (sum(body) & 0xFF)) & 0xFF
    n = len(body)
    if n <= 0xFF:
        head = bytes([n, (0x100 - n) & 0xFF])
    else:
        head = bytes([0xFF, 0xFF, n >> 8, n & 0xFF, (0x100 - (((n >> 8) + n) & 0xFF)) & 0xFF])
    return b"\x00\x00\xff" + head + body + bytes([checksum, 0])


class _Pending:
    """A frame the chip will offer from ``ready_at`` on (None: not yet known when)."""

    def __init__(self, ready_at, data=None, command=None, started=None):
        self.ready_at = ready_at
        self.data = data                      # the frame, or None until it is due
        self.command = command                # the command whose response this is
        self.started = started                # when the chip began on it (after its ACK)


class Pn532:
    def __init__(self, timing, clock=None, mode="ok"):
        self.timing = timing
        self.clock = clock or default_clock
        self.mode = mode
        self.card = None                      # an ntag.Ntag on the antenna, or None
        self.configured = False
        self.retries = FOREVER
        self.card_timeout_us = timing["card_timeout_us"]    # RFConfiguration item 02h's TimeOut
        self.queue = []                       # _Pending frames, in order
        self.last = None                      # the last response handed out, for a NACK
        self.deaf_until = None                # after a reset
        self.corrupt_every = 0
        self.answers = 0
        self.fail_reads = 0
        self.fail_status = RF_CRC_ERROR        # the status those reads get
        self.commands = []                    # command codes received, in order
        self.card_commands = []               # what InDataExchange/InCommunicateThru passed to a card
        self.nacks = 0
        self.reads = 0
        self.cut = 0                          # transfers the bus's timeout cut off (ChipI2C)
        self.stretch_us = 0                   # clock stretching at each transfer's start (ChipI2C)
        self.unanswered = False               # the last card exchange got no answer on air
        self.mid_frame = False                # a read of its frame was cut off: only an ACK is heard
        self.sda_low_clocks = 0               # SCL clocks until it lets SDA go after that cut
        self.stops = 0                        # STOP conditions a host made by hand (machine.Pin)
        self.ignored = 0                      # frames it did not take while mid-frame
        # what the Pico's transfer gets while this chip holds SDA low: ETIMEDOUT (110, its
        # wait for the START runs into the timeout) or EIO (5, its controller sees the
        # arbitration lost at once); a probe's timing file says which a real pair gives
        self.held_sda_errno = timing.get("held_sda_errno", 110)

    # -- the bus (ChipI2C calls these) ---------------------------------------------------------
    def answers_address(self):
        if self.mode == "silent":
            return False
        if self.deaf_until is not None:
            if ticks_diff(self.clock(), self.deaf_until) < 0:
                return False
            self.deaf_until = None
        return True

    def writeto(self, data):
        data = bytes(data)
        now = self.clock()
        if data == ACK:                       # the host abandons the command under way
            self.queue = []
            self.mid_frame = False
            return
        if self.mid_frame:                    # still sending the frame a cut read began
            self.ignored += 1
            return
        if data == NACK:
            self.nacks += 1
            if self.last is not None:
                self.queue = [_Pending(now + self.timing["nack_resend_us"], self.last)]
            return
        if len(data) < 7 or data[:3] != b"\x00\x00\xff" or data[5] != 0xD4:
            return                            # a wake-up byte or garbage: nothing to answer
        length = data[3]
        if (length + data[4]) & 0xFF or len(data) < 5 + length + 1 or (sum(data[5:5 + length]) + data[5 + length]) & 0xFF:
            self.queue = [_Pending(now + self.timing["ack_us"], NACK)]      # a broken frame
            return
        command = bytes(data[6:5 + length])
        self.commands.append(command[0])
        if command[0] == IN_DATA_EXCHANGE:
            self.card_commands.append(command[2:])
        elif command[0] == IN_COMMUNICATE_THRU:
            self.card_commands.append(command[1:])
        ack_at = now + self.timing["ack_us"]
        self.queue = [_Pending(ack_at, ACK), _Pending(self._due(command, ack_at), None, command, ack_at)]

    def readfrom(self, n, cut_clocks=0):
        """A read of ``n`` bytes (status first). ``cut_clocks``: the bus's timeout cut the
        transfer off with that many clocks of its byte still to come (ChipI2C)."""
        self.reads += 1
        now = self.clock()
        head = self.queue[0] if self.queue else None
        if head is not None and head.data is None and head.ready_at is None:
            self._try_again(head, now)        # listing for ever: has a card come?
        if head is None or head.ready_at is None or ticks_diff(now, head.ready_at) < 0:
            return bytes(n)                   # busy (or nothing asked): status 00
        if head.data is None:
            self.unanswered = False
            head.data = self._respond(head.command)
            if self.unanswered:               # nothing on air: the chip waits out its timeout first
                head.ready_at = head.started + self.card_timeout_us
                if ticks_diff(now, head.ready_at) < 0:
                    return bytes(n)
        if n < 2:
            return b"\x01"                    # the status alone: the frame stays
        if cut_clocks:                        # no STOP came: the chip is still handing it out
            self.mid_frame = True
            self.sda_low_clocks = cut_clocks
            out = b"\x01" + head.data
            return (out + bytes(max(0, n - len(out))))[:n]
        self.queue.pop(0)
        if head.data is not ACK:
            self.last = head.data
        out = b"\x01" + head.data
        return (out + bytes(max(0, n - len(out))))[:n]

    def ready(self):
        """Whether a read now would find status 01 (for the checks; a card exchange nobody
        answered is found out only when its response is due, and then waits longer)."""
        head = self.queue[0] if self.queue else None
        return head is not None and head.ready_at is not None and ticks_diff(self.clock(), head.ready_at) >= 0

    def holds_sda(self):
        return self.sda_low_clocks > 0

    def scl_clocked(self):
        """A clock pulse the host made by hand: one more bit of the byte it was sending."""
        if self.sda_low_clocks:
            self.sda_low_clocks -= 1

    def stop_seen(self):
        self.stops += 1

    # -- what happens to the chip --------------------------------------------------------------
    def reset(self):
        """A brown-out or a reset: deaf for a while, then unconfigured and idle."""
        self.configured = False
        self.retries = FOREVER
        self.card_timeout_us = self.timing["card_timeout_us"]
        self.queue = []
        self.last = None
        self.mid_frame = False
        self.sda_low_clocks = 0
        self.deaf_until = self.clock() + self.timing["reset_us"]

    # -- timing --------------------------------------------------------------------------------
    def _rf_us(self, sent, received, exchanges=1):
        t = self.timing
        return (sent + received) * t["rf_byte_us"] + exchanges * t["rf_turnaround_us"] + t["rf_command_overhead_us"]

    def _due(self, command, start):
        """When the response to ``command`` is ready, counted from ``start`` (the ACK);
        None while nobody can say (listing for ever without a card)."""
        t = self.timing
        code = command[0]
        if code == IN_LIST_PASSIVE_TARGET:
            if self.configured and self.card is None:
                if self.retries == FOREVER:
                    return None
                return start + (self.retries + 1) * t["no_card_try_us"]
            return start + self._rf_us(t["activation_bytes"], 0, t["activation_exchanges"])
        if code in (IN_DATA_EXCHANGE, IN_COMMUNICATE_THRU):
            card_command = command[2:] if code == IN_DATA_EXCHANGE else command[1:]
            return start + self._card_us(card_command)
        return start + t["process_us"].get(NAMES.get(code, "other"), t["process_us"]["other"])

    def _card_us(self, command):
        """How long one NTAG command takes on air (plus the chip's own time)."""
        if not command:
            return self.timing["process_us"]["other"]
        code = command[0]
        sent = len(command) + 2                              # CRC_A
        if code == ntag.READ:
            return self._rf_us(sent, 16 + 2)
        if code == ntag.FAST_READ and len(command) >= 3:
            pages = max(0, command[2] - command[1] + 1)
            return self._rf_us(sent, 4 * pages + 2)
        if code == ntag.WRITE:
            return self._rf_us(sent, 1) + self.timing["ntag_write_us"]
        if code == ntag.GET_VERSION:
            return self._rf_us(sent, 8 + 2)
        if code == ntag.PWD_AUTH:
            return self._rf_us(sent, 2 + 2)
        return self._rf_us(sent, 1)

    def _try_again(self, head, now):
        if self.card is not None:
            head.ready_at = now + self._rf_us(self.timing["activation_bytes"], 0, self.timing["activation_exchanges"])

    # -- answers -------------------------------------------------------------------------------
    def _respond(self, command):
        code = command[0]
        if code == GET_FIRMWARE_VERSION:
            return self._emit([0x03, 0x32, 0x01, 0x06, 0x07])          # PN532, firmware 1.6
        if code == SAM_CONFIGURATION:
            self.configured = True
            return self._emit([0x15])
        if code == RF_CONFIGURATION:
            if len(command) >= 5 and command[1] == 0x05:                # MaxRetries: ATR, PSL, passive activation
                self.retries = command[4]
            if len(command) >= 5 and command[1] == 0x02:                # various timings: RFU, ATR_RES, TimeOut
                codes = self.timing["card_timeout_codes_us"]
                if command[4] < len(codes):
                    self.card_timeout_us = codes[command[4]] or NO_TIMEOUT_US
            return self._emit([0x33])
        if code == IN_LIST_PASSIVE_TARGET:
            if not self.configured:
                return ERROR
            if self.card is None:
                return self._emit([0x4B, 0x00])
            self.card.activate()
            uid = self.card.uid
            return self._emit(bytes([0x4B, 0x01, 0x01, 0x00, 0x44, 0x00, len(uid)]) + uid)
        reading = (code == IN_DATA_EXCHANGE and len(command) >= 4 and command[2] == ntag.READ) or \
            (code == IN_COMMUNICATE_THRU and len(command) >= 4 and command[1] == ntag.FAST_READ)
        if reading and self.fail_reads and self.card is not None:
            self.fail_reads -= 1
            return self._emit([code + 1, self.fail_status])             # its answer garbled on air
        if (code == IN_DATA_EXCHANGE and len(command) >= 3) or (code == IN_COMMUNICATE_THRU and len(command) >= 2):
            answer = ntag.pn532_exchange(self.card, command)
            self.unanswered = answer[1] == ntag.PN532_TIMEOUT_STATUS
            return self._emit(answer)
        return ERROR

    def _emit(self, data):
        answer = frame(data)
        self.answers += 1
        if self.corrupt_every and self.answers % self.corrupt_every == 0:
            broken = bytearray(answer)
            broken[7] ^= 0x5A                  # a flipped byte: the checksum no longer holds
            return bytes(broken)
        return answer


class ChipI2C:
    """machine.I2C with this chip on it (or nobody: ``chip`` None): each transfer takes its
    time on the bus at ``freq`` (``sleep_us`` waits it out), a missing or silent chip fails
    at once with EIO (the address is not acknowledged, as the rp2 port says), a stuck bus
    takes ``timeout_us`` and fails with ETIMEDOUT, and so does a transfer longer than
    ``timeout_us`` when that is up (pico-sdk's timeout bounds the whole transfer), the
    chip's clock stretching (``stretch_us``) counted in, and every transfer while the chip
    holds SDA low after such a cut. (That the Pico's controller itself refuses every
    transfer after a cut until machine.I2C is made again is hardware/sim/pico/machine.py's.)"""

    def __init__(self, chip, freq=100_000, timeout_us=5_000, sleep_us=None):
        self.chip = chip
        self.freq = freq
        self.timeout_us = timeout_us
        self.sleep_us = sleep_us or _sleep_us
        self.transfers = 0
        self.bus_us = 0                       # time spent on the bus, all told

    def _transfer(self, nbytes):
        """The transfer's time on the bus, waited out; the number of bytes after the address
        that went before the timeout cut it off (``nbytes`` when it did not), and the clocks
        of the byte under way that were still to come (0 when it was not cut)."""
        self.transfers += 1
        chip = self.chip
        if chip is not None and chip.mode == "stuck":
            self.sleep_us(self.timeout_us)
            self.bus_us += self.timeout_us
            raise OSError(110)
        if chip is not None and chip.holds_sda():
            # SDA low: the controller never gets its START onto the bus (the Pico's wait for
            # it runs into the timeout, or it sees the arbitration lost at once)
            us = self.timeout_us if chip.held_sda_errno == 110 else 9 * 1_000_000 // self.freq
            self.sleep_us(us)
            self.bus_us += us
            raise OSError(chip.held_sda_errno)
        bits = 9 if chip is None else chip.timing["i2c_bits_per_byte"]
        if chip is None or not chip.answers_address():
            us = bits * 1_000_000 // self.freq               # the address byte, not acknowledged
            self.sleep_us(us)
            self.bus_us += us
            raise OSError(5)
        stretch = chip.stretch_us
        us = stretch + (1 + nbytes) * bits * 1_000_000 // self.freq
        if us > self.timeout_us:
            self.sleep_us(self.timeout_us)
            self.bus_us += self.timeout_us
            chip.cut += 1
            clocked = max(0, (self.timeout_us - stretch) * self.freq // 1_000_000 - bits)   # after the address
            return clocked // bits, bits - clocked % bits
        self.sleep_us(us)
        self.bus_us += us
        return nbytes, 0

    def writeto(self, address, data, stop=True):
        if address != ADDRESS:
            raise OSError(5)
        went, _ = self._transfer(len(data))
        if went < len(data):
            self.chip.writeto(data[:went])
            raise OSError(110)                # the timeout cut it off: the chip has a broken command
        self.chip.writeto(data)
        return len(data)

    def readfrom(self, address, n, stop=True):
        if address != ADDRESS:
            raise OSError(5)
        went, to_come = self._transfer(n)
        if went < n:
            self.chip.readfrom(n, to_come)
            raise OSError(110)                # cut off mid-frame: the chip is still sending it
        return self.chip.readfrom(n)


def _sleep_us(us):
    try:
        time.sleep_us(us)
    except AttributeError:                    # CPython
        time.sleep(us / 1_000_000)
