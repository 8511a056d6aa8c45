# A fake of the Pico's `machine` module for the firmware checks under MicroPython in
# WebAssembly: it records what the firmware does with pins, PWM and buses, and lets the
# checks set levels and fire IRQs. Only used by tests/mpy/check_firmware.py.

levels = {}          # pin id -> level; buttons idle high (pull-up)
irq_enabled = [True]
pending_irqs = []    # pins whose edge came while IRQs were off: their handlers run at enable_irq


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    IRQ_FALLING = 4
    IRQ_RISING = 8
    all = {}

    def __init__(self, pin_id, mode=None, pull=None):
        self.id = pin_id
        self.handler = None
        Pin.all[pin_id] = self

    def value(self):
        return levels.get(self.id, 1)

    def irq(self, handler=None, trigger=0, hard=False):
        self.handler = handler
        self.hard = hard

    def fire(self, level):
        """The check's finger: a new level and the IRQ a real edge would raise (at once, or
        when IRQs are enabled again, as the hardware keeps a pending IRQ)."""
        levels[self.id] = level
        if self.handler is not None:
            if irq_enabled[0]:
                self.handler(self)
            else:
                pending_irqs.append(self)


class PWM:
    def __init__(self, pin):
        self.pin = pin
        self.hz = 0
        self.duty = 0

    def freq(self, hz):
        self.hz = hz

    def duty_u16(self, duty):
        self.duty = duty


chip = [None]        # a simulated PN532 (pn532chip.Chip) on the I2C bus, or nobody
resets = []


class I2C:
    def __init__(self, *args, timeout=50000, **kwargs):
        self.timeout = timeout

    def writeto(self, address, data):
        if chip[0] is None:
            raise OSError(5)     # no reader wired: EIO, as the rp2 port says
        return chip[0].writeto(address, data)

    def readfrom(self, address, n):
        if chip[0] is None:
            raise OSError(5)
        return chip[0].readfrom(address, n)


class WDT:
    def __init__(self, id=0, timeout=5000):
        self.timeout = timeout
        self.feeds = 0

    def feed(self):
        self.feeds += 1


class Reset(Exception):
    """machine.reset() in the checks: stops the firmware where a Pico would reboot."""


def reset():
    resets.append(1)
    raise Reset()


def unique_id():
    return b"\xe6\x61\x41\x03\xe7\x45\x2d\x2f"


def disable_irq():
    irq_enabled[0] = False
    return 1


def enable_irq(state):
    irq_enabled[0] = True
    while pending_irqs:
        pin = pending_irqs.pop(0)
        pin.handler(pin)
