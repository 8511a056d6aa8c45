"""The host panel on the Pi's own GPIO: a menu and an undo button, a status LED, a buzzer.

Like the stations, the panel only puts events on the table's queue (``PanelEvent``); the
table decides what they mean. gpiozero drives the pins, so tests swap in its
``MockFactory`` and press the buttons by driving the mock pins.

Wiring (BCM numbers, each button to GND, the LED and an active buzzer through a
transistor or resistor to GND): menu GPIO 5, undo GPIO 6, status LED GPIO 13, buzzer
GPIO 12. Other pins: ``spieltisch play --panel-pins MENU,UNDO,LED,BUZZER``.
"""

from __future__ import annotations

from typing import Any, Callable

from gpiozero import LED, Button, Buzzer

from hardware.events import EventQueue, PanelEvent
from hardware.hostclock import now_ns

DEFAULT_PINS = (5, 6, 13, 12)        # menu, undo, status LED, buzzer
HOLD_S = 2.0                         # hold menu this long to leave the table


class HostPanel:
    def __init__(self, events: EventQueue, pins: tuple[int, int, int, int] = DEFAULT_PINS, *,
                 pin_factory: Any = None, hold_s: float = HOLD_S,
                 clock: Callable[[], int] = now_ns) -> None:
        menu, undo, led, buzzer = pins
        self.events = events
        self.clock = clock
        # bounce_time stays None: gpiozero's bounce filter delays nothing we need, and the
        # table ignores a second press of the same button within a person's reaction time
        self.menu = Button(menu, pull_up=True, hold_time=hold_s, pin_factory=pin_factory)
        self.undo = Button(undo, pull_up=True, pin_factory=pin_factory)
        self.led = LED(led, pin_factory=pin_factory)
        self.buzzer = Buzzer(buzzer, pin_factory=pin_factory)
        self._held = False
        self.menu.when_pressed = self._menu_down
        self.menu.when_held = self._menu_held
        self.menu.when_released = self._menu_up
        self.undo.when_pressed = lambda: self._put("undo")
        self.status = ""
        self.show_status("ready")

    def _put(self, button: str) -> None:
        self.events.put(PanelEvent(button, self.clock()))

    def _menu_down(self) -> None:
        self._held = False

    def _menu_held(self) -> None:
        self._held = True
        self._put("menu_held")

    def _menu_up(self) -> None:
        if not self._held:                # a short press: the table says to hold it
            self._put("menu")

    # -- the table's feedback ----------------------------------------------------------------------
    def show_status(self, status: str) -> None:
        """"ready": steady light; "waiting": blinking (a station is unplugged); "off"."""
        if status == self.status:
            return
        self.status = status
        if status == "ready":
            self.led.on()
        elif status == "waiting":
            self.led.blink(on_time=0.25, off_time=0.25)
        else:
            self.led.off()

    def beep(self, times: int = 1, ms: int = 60) -> None:
        self.buzzer.beep(on_time=ms / 1000, off_time=ms / 1000, n=times, background=True)

    def close(self) -> None:
        for device in (self.menu, self.undo, self.led, self.buzzer):
            device.close()
