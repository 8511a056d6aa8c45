# The Pico's `machine` module, simulated below the firmware for MicroPython on the host:
# the firmware's checks (tests/mpy/check_firmware.py) and the firmware stations of
# `spieltisch demo --stations firmware` (hardware/sim/pico/board.py) import this instead of the
# rp2 port's. Pins keep a level and call the firmware's hard IRQ handler with the edge
# flags the RP2040 latches (irq.flags(), as ports/rp2/machine_pin.c sets them before the
# handler runs); I2C reaches a simulated PN532 (hardware/sim/pn532_chip.py) with its bus time;
# WDT, reset, disable_irq/enable_irq, idle and unique_id behave as the rp2 port's. A pin fresh
# out of reset (the RP2040's pads come out of it pulled down) rises only ``pull_up_rise_us``
# after its pull-up is switched on: the pull-up's 50-80 kOhm charging half a metre of wire
# to a button (and a debounce capacitor, where a builder fitted one) takes that long.
#
# Written in MicroPython's Python: no annotations, no f-strings.

import time

levels = {}            # pin id -> level; buttons idle high (pull-up)
irq_enabled = [True]
pending_irqs = []      # pins whose edge came while IRQs were off: their handlers run at enable_irq
handlers = {}          # pin id -> the handler its irq() set (one per pin, as on the RP2040)
irq_objects = {}       # pin id -> its IRQ object (pin.irq() returns the same one each time)
chip = [None]          # the simulated PN532 on the I2C bus (hardware/sim/pn532_chip.Pn532), or nobody
sleep_us = [None]      # how the bus waits out a transfer (the board's; else time.sleep_us)
resets = []
i2c_pins = {}          # "sda"/"scl" -> the pin ids the last machine.I2C was made with
i2c_wedged = [False]   # a transfer was cut off by the timeout: the controller holds SCL (see I2C)
bus_time_us = [0]      # the I2C bus's simulated time, all transfers told: what a Pico's ticks_us
                       # sees pass across a transfer (the host's clock also counts the model's own work)
uid = [b"\xe6\x61\x41\x03\xe7\x45\x2d\x2f"]
pull_up_rise_us = [0]  # how long a pin fresh out of reset takes to rise once pulled up (0: at once)
clock_us = [None]      # the clock that times that rise (None: time.ticks_us)
rising = {}            # pin id -> when its level will have risen: it reads low until then
rstpdn = [None]        # the pin wired to the PN532's RSTPDN (config.PN532_RESET_PIN), or None
idle_hook = [None]     # what goes on while the core sleeps in idle() (the board's), or None
IDLE_US = 1000         # the longest one idle() sleeps (the rp2 port's WFE with a 1 ms timeout)


class IRQ:
    """What pin.irq() returns: ``flags()`` are the edges latched for the handler running now."""

    def __init__(self):
        self.latched = 0
        self.pending = 0

    def flags(self):
        return self.latched


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8
    all = {}  # noqa: RUF012 - the class's own registry of pins (MicroPython has no ClassVar)

    def __init__(self, pin_id, mode=None, pull=None, value=None):
        self.id = pin_id
        Pin.all[pin_id] = self
        if pin_id not in irq_objects:
            irq_objects[pin_id] = IRQ()
        if value is not None:
            levels[pin_id] = value
        elif pull == Pin.PULL_UP and pin_id not in levels and pull_up_rise_us[0]:
            rising[pin_id] = time.ticks_add(_now_us(), pull_up_rise_us[0])

    @property
    def handler(self):
        return handlers.get(self.id)

    def value(self, level=None):
        """The level; the I2C bus's SDA reads low while the PN532 holds it. Driving the bus's
        SCL high clocks the chip, and SDA going high while SCL is high is a STOP. Driving
        the PN532's RSTPDN (``rstpdn``) low resets it."""
        if level is None:
            if self.id == i2c_pins.get("sda") and chip[0] is not None and chip[0].holds_sda():
                return 0
            if self.id in rising:
                if time.ticks_diff(_now_us(), rising[self.id]) < 0:
                    return 0                   # still rising from the pad's reset pull-down
                del rising[self.id]
            return levels.get(self.id, 1)
        old = levels.get(self.id, 1)
        levels[self.id] = level
        if self.id == rstpdn[0] and chip[0] is not None and bool(level) != bool(old):
            chip[0].reset()                    # held in reset, and deaf for a while once let go
        if chip[0] is not None and level and not old:
            if self.id == i2c_pins.get("scl"):
                chip[0].scl_clocked()
            elif self.id == i2c_pins.get("sda") and levels.get(i2c_pins.get("scl"), 1):
                chip[0].stop_seen()

    def irq(self, handler=None, trigger=12, hard=False):
        """As the rp2 port: with arguments it sets the handler, without it only returns the
        pin's IRQ object."""
        if handler is not None:
            handlers[self.id] = handler
        return irq_objects[self.id]

    def fire(self, level, bounced=False):
        """An edge to ``level``. ``bounced``: the contact is back at the old level by the
        time the handler reads the pin (a bounce shorter than the IRQ's latency); the
        flags still say which edge came. While IRQs are off the edge waits, its flag
        latched beside any other, and the handler runs once at enable_irq."""
        old = levels.get(self.id, 1)
        flag = Pin.IRQ_FALLING if level == 0 else Pin.IRQ_RISING
        levels[self.id] = old if bounced else level
        handler = handlers.get(self.id)
        if handler is None:
            return
        irq = irq_objects[self.id]
        if irq_enabled[0]:
            irq.latched = flag
            handler(self)
        else:
            if not irq.pending:
                pending_irqs.append(self)
            irq.pending |= flag


def _now_us():
    return (clock_us[0] or time.ticks_us)()


def disable_irq():
    irq_enabled[0] = False
    return 1


def enable_irq(state=1):
    irq_enabled[0] = True
    while pending_irqs:
        pin = pending_irqs.pop(0)
        irq = irq_objects[pin.id]
        irq.latched, irq.pending = irq.pending, 0
        handlers[pin.id](pin)


def idle():
    """As the rp2 port's machine.idle() (ports/rp2/modmachine.c: MICROPY_INTERNAL_WFE(1),
    pico-sdk's best_effort_wfe_or_timeout): the core sleeps until an interrupt, at most 1 ms.
    The board's ``idle_hook`` lets that time pass (the pins' edges due meanwhile run their
    IRQ handlers, USB moves its bytes); without one, 1 ms passes."""
    if idle_hook[0] is not None:
        idle_hook[0]()
    else:
        time.sleep_us(IDLE_US)


class PWM:
    def __init__(self, pin, freq=None, duty_u16=None):
        self.pin = pin
        self.hz = 0
        self.duty = 0

    def freq(self, hz=None):
        if hz is None:
            return self.hz
        self.hz = hz

    def duty_u16(self, duty=None):
        if duty is None:
            return self.duty
        self.duty = duty

    def deinit(self):
        self.duty = 0


class I2C:
    """The bus the PN532 hangs on: transfers take their time at ``freq`` and reach the
    simulated chip in ``chip[0]``; with nobody there, EIO at once (as the rp2 port).

    A transfer the timeout cut off (ETIMEDOUT) leaves the controller as pico-sdk's
    i2c_read_blocking_internal/i2c_write_blocking_internal leave the RP2040's: they return
    on the timeout without a STOP and without an abort, and with IC_EMPTYFIFO_HOLD_MASTER_EN
    set the controller holds SCL low waiting for more. Every later transfer fails with
    ETIMEDOUT, whichever I2C object makes it, until machine.I2C is made again (the rp2
    port's constructor runs i2c_init, which resets the block). Making it again does not
    free SDA from a chip that holds it low: that takes clocks on SCL (machine.Pin)."""

    def __init__(self, id=0, scl=None, sda=None, freq=400_000, timeout=50_000):
        self.freq = freq
        self.timeout = timeout
        i2c_wedged[0] = False
        if sda is not None:
            i2c_pins["sda"] = sda.id
        if scl is not None:
            i2c_pins["scl"] = scl.id
            levels[scl.id] = 1

    def _bus(self):
        if chip[0] is None:
            raise OSError(5)          # nobody acknowledges the address: EIO, as the rp2 port says
        try:
            from pn532_chip import ChipI2C
        except ImportError:
            from hardware.sim.pn532_chip import ChipI2C
        return ChipI2C(chip[0], self.freq, self.timeout, sleep_us[0])

    def _transfer(self, name, address, arg):
        bus = self._bus()
        if i2c_wedged[0]:
            bus.sleep_us(self.timeout)
            bus_time_us[0] += self.timeout
            raise OSError(110)
        try:
            return getattr(bus, name)(address, arg)
        except OSError as exc:
            if exc.args and exc.args[0] == 110:
                i2c_wedged[0] = True
            raise
        finally:
            bus_time_us[0] += bus.bus_us

    def writeto(self, address, data, stop=True):
        return self._transfer("writeto", address, data)

    def readfrom(self, address, n, stop=True):
        return self._transfer("readfrom", address, n)


class UART:
    def __init__(self, *args, **kwargs):
        pass

    def write(self, data):
        raise OSError(5)

    def read(self, n=None):
        return None


class WDT:
    """The watchdog: ``expired()`` says whether more than ``timeout`` ms passed without a
    feed (the board resets the station then, as the RP2040 would have)."""

    def __init__(self, id=0, timeout=5000):
        self.timeout = timeout
        self.feeds = 0
        self.fed_at = time.ticks_ms()

    def feed(self):
        self.feeds += 1
        self.fed_at = time.ticks_ms()

    def expired(self):
        return time.ticks_diff(time.ticks_ms(), self.fed_at) > self.timeout


class Reset(Exception):
    """machine.reset(): stops the firmware where a Pico would reboot."""


def reset():
    resets.append(1)
    raise Reset()


def unique_id():
    return uid[0]


def freq(hz=None):
    return 125_000_000
