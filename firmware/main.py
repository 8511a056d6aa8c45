# Spieltisch station firmware for a Raspberry Pi Pico (MicroPython). Runs at boot.
#
# One loop, never blocking: read host commands from USB, settle the buttons, poll the
# reader now and then, write queued frames only while USB can take them. Presses are
# stamped in a hard IRQ at the first edge (buttons.py).

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


def unique_id():
    return "".join("%02x" % b for b in machine.unique_id())


def make_reader():
    """The configured reader and its kind for HELLO ("pn532", "none", or "missing")."""
    if config.READER == "none":
        return None, "none"
    from pn532 import PN532, I2cTransport, UartTransport
    if config.READER == "pn532-i2c":
        bus = machine.I2C(config.I2C_ID, sda=machine.Pin(config.I2C_SDA), scl=machine.Pin(config.I2C_SCL),
                          freq=config.I2C_FREQ)
        transport = I2cTransport(bus)
    else:
        uart = machine.UART(config.UART_ID, baudrate=config.UART_BAUD, tx=machine.Pin(config.UART_TX),
                            rx=machine.Pin(config.UART_RX), timeout=0)
        transport = UartTransport(uart)
    reader = PN532(transport, retries=config.READER_RETRIES)
    if reader.begin() is None:
        return None, "missing"          # told to the host in HELLO; the buttons still work
    return reader, "pn532"


class Firmware:
    def __init__(self, stdin, stdout, incoming, outgoing):
        self.stdin = stdin              # byte streams of the USB serial port
        self.stdout = stdout
        self.incoming = incoming        # poll objects: is there a byte / room for a frame
        self.outgoing = outgoing
        self.logic = ButtonLogic(len(config.BUTTON_PINS), config.LOCKOUT_US)
        self.pins = [machine.Pin(p, machine.Pin.IN, machine.Pin.PULL_UP) for p in config.BUTTON_PINS]
        for i, pin in enumerate(self.pins):
            pin.irq(self._irq_handler(i), machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING, hard=True)
        self.led = Led(config.LED_KIND, config.LED_PIN, config.LED_RGB_PINS, config.LED_BRIGHTNESS)
        self.buzzer = Buzzer(config.BUZZER_PIN)
        self.reader, reader_kind = make_reader()
        caps = "buttons=%d,reader=%s,led=%s" % (len(self.pins), reader_kind, config.LED_KIND)
        self.station = Station(unique_id(), caps, self.led, self.buzzer, time.ticks_us, config.OUT_QUEUE)
        self.presence = TagPresence(config.TAG_GONE_POLLS)
        self.decoder = LineDecoder()
        self.next_poll = time.ticks_ms()
        self.station.command("WHO", [])        # announce ourselves on power-up

    def _irq_handler(self, index):
        edge = self.logic.edge
        ticks_us = time.ticks_us

        def handler(pin):                      # hard IRQ: stamp, nothing else
            edge(index, ticks_us())
        return handler

    def step(self):
        # commands from the host: only what is there, a byte at a time, never waiting
        while self.incoming.poll(0):
            data = self.stdin.read(1)
            if not data:
                break
            for kind, fields in self.decoder.feed(data):
                self.station.command(kind, fields)

        now_us = time.ticks_us()
        for i, pin in enumerate(self.pins):
            state = machine.disable_irq()      # settle() and the IRQ share the event ring
            self.logic.settle(i, pin.value() == 0, now_us)
            machine.enable_irq(state)
        for button, down, stamp in self.logic.events():
            self.station.button(button, down, stamp)

        now_ms = time.ticks_ms()
        if self.reader is not None and time.ticks_diff(now_ms, self.next_poll) >= 0:
            self.next_poll = time.ticks_add(now_ms, config.READER_POLL_MS)
            self.poll_reader()

        self.led.tick(now_ms)
        self.buzzer.tick(now_ms)

        # frames out only while USB has room: a host that stopped reading must not stall
        # the loop (the station's queue drops its oldest instead)
        while self.station.out and self.outgoing.poll(0):
            self.stdout.write(self.station.take())

    def poll_reader(self):
        stamp = time.ticks_us()
        change = self.presence.poll(self.reader.read_uid())
        if change is None:
            return
        if change[0] == "on":
            text = self.reader.read_text() if config.READ_NDEF else None
            self.station.tag(change[1], text, stamp)
        else:
            self.station.tag_gone(change[1], stamp)


def run():
    # A 0x03 byte from the host is data, not Ctrl-C.
    micropython.kbd_intr(-1)
    micropython.alloc_emergency_exception_buf(100)
    incoming = select.poll()
    incoming.register(sys.stdin, select.POLLIN)
    outgoing = select.poll()
    outgoing.register(sys.stdout, select.POLLOUT)
    firmware = Firmware(sys.stdin.buffer, sys.stdout.buffer, incoming, outgoing)
    while True:
        firmware.step()


# Hold button 0 while plugging in to get the REPL instead (for mpremote and updates).
if __name__ == "__main__" and machine.Pin(config.BUTTON_PINS[0], machine.Pin.IN, machine.Pin.PULL_UP).value():
    run()
