# MicroPython's `neopixel`, simulated for the firmware on the host: remembers what was shown.


class NeoPixel:
    def __init__(self, pin, n):
        self.pixels = [(0, 0, 0)] * n
        self.shown = []

    def __setitem__(self, i, rgb):
        self.pixels[i] = rgb

    def __getitem__(self, i):
        return self.pixels[i]

    def write(self):
        self.shown.append(self.pixels[0])
