# The station's RGB LED: a steady colour, and flashes that return to it.

import time


def parse_rgb(text):
    value = int(text, 16)
    return (value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF


class Led:
    def __init__(self, kind, pin, rgb_pins, brightness):
        self.brightness = brightness
        self.steady = (0, 0, 0)
        self.flash_until = None
        self.np = None
        self.pwms = None
        if kind == "ws2812":
            import machine
            import neopixel
            self.np = neopixel.NeoPixel(machine.Pin(pin), 1)
        elif kind == "rgb":
            import machine
            self.pwms = []
            for p in rgb_pins:
                pwm = machine.PWM(machine.Pin(p))
                pwm.freq(1000)
                self.pwms.append(pwm)
        self.show((0, 0, 0))

    def show(self, rgb):
        scaled = [int(c * self.brightness) for c in rgb]
        if self.np is not None:
            self.np[0] = tuple(scaled)
            self.np.write()
        elif self.pwms is not None:
            # common anode: the colour is on while the pin is low
            for pwm, c in zip(self.pwms, scaled):
                pwm.duty_u16(65535 - c * 257)

    def set(self, rgb, flash_ms):
        if flash_ms > 0:
            self.flash_until = time.ticks_add(time.ticks_ms(), flash_ms)
        else:
            self.steady = rgb
            if self.flash_until is not None:
                return               # the flash ends on the new steady colour
        self.show(rgb)

    def tick(self, now_ms):
        if self.flash_until is not None and time.ticks_diff(now_ms, self.flash_until) >= 0:
            self.flash_until = None
            self.show(self.steady)
