# A passive piezo on PWM: a tone for some milliseconds, never blocking the loop.

import time


class Buzzer:
    def __init__(self, pin):
        self.pwm = None
        self.until = None
        if pin is not None:
            import machine
            self.pwm = machine.PWM(machine.Pin(pin))
            self.pwm.duty_u16(0)

    def tone(self, hz, ms):
        if self.pwm is None:
            return
        if hz <= 0 or ms <= 0:
            self.pwm.duty_u16(0)
            self.until = None
            return
        self.pwm.freq(max(20, min(20000, hz)))
        self.pwm.duty_u16(32768)
        self.until = time.ticks_add(time.ticks_ms(), min(ms, 5000))

    def tick(self, now_ms):
        if self.until is not None and time.ticks_diff(now_ms, self.until) >= 0:
            self.until = None
            self.pwm.duty_u16(0)
