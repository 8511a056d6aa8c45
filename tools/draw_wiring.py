"""Draw the station's wiring picture, ``firmware/wiring.png``, from the pins in
``firmware/config.py`` (the defaults): a Pico seen from above with its 40 pins numbered,
and a wire from each pin used to its part. Run from the project's root:

    SDL_VIDEODRIVER=dummy python tools/draw_wiring.py

The picture is committed; ``tests/test_firmware.py`` checks it is there and was drawn from
the current ``config.py`` (the pins are read, not copied)."""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
import pygame

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "firmware" / "wiring.png"
SIZE = (1800, 1150)
BOARD = pygame.Rect(760, 150, 280, 860)
PITCH = 41                                         # one pin to the next on the picture
READER_GND = 13                                    # the PN532's GND (firmware/README.md's table says the same)
LED_GND = 38                                       # the WS2812's and its level shifter's GND


def config() -> dict[str, object]:
    """The pins of firmware/config.py, read without running it."""
    tree = ast.parse((ROOT / "firmware" / "config.py").read_text())
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass
    return out


# the Pico's pin-out: physical pin → name (GP numbers where they are GPIOs)
GPIO_PIN = {0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16, 13: 17, 14: 19,
            15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29, 26: 31, 27: 32, 28: 34}
POWER = {3: "GND", 8: "GND", 13: "GND", 18: "GND", 23: "GND", 28: "GND", 33: "GND", 38: "GND", 30: "RUN",
         35: "ADC_VREF", 36: "3V3", 37: "3V3_EN", 39: "VSYS", 40: "VBUS"}


def pin_name(pin: int) -> str:
    for gp, physical in GPIO_PIN.items():
        if physical == pin:
            return f"GP{gp}"
    return POWER.get(pin, "")


def pin_point(pin: int) -> tuple[int, int]:
    """Pins 1-20 down the left edge, 21-40 up the right edge (USB at the top)."""
    if pin <= 20:
        return BOARD.left, BOARD.top + 30 + (pin - 1) * PITCH
    return BOARD.right, BOARD.top + 30 + (40 - pin) * PITCH


def reset_line(pin: object) -> str:
    if pin is None:
        return "RSTO on V3 boards: leave it unconnected"
    return "RSTPDN from GP%s (PN532_RESET_PIN)" % pin


def main(out: Path = OUT) -> int:
    cfg = config()
    pygame.font.init()                             # fonts only: no display, no sound
    font = pygame.font.Font(None, 30)
    big = pygame.font.Font(None, 40)
    small = pygame.font.Font(None, 24)
    s = pygame.Surface(SIZE)
    s.fill((250, 250, 246))

    def text(words, pos, f=font, colour=(20, 20, 20), anchor="topleft"):
        image = f.render(words, True, colour)
        s.blit(image, image.get_rect(**{anchor: pos}))

    text("Spieltisch station: wiring (firmware/config.py defaults)", (30, 24), big)
    text("Pico seen from above, USB at the top. Every button connects its GPIO to GND (internal pull-ups).",
         (30, 70), font, (80, 80, 80))
    pygame.draw.rect(s, (30, 110, 60), BOARD, border_radius=14)
    pygame.draw.rect(s, (190, 190, 190), (BOARD.centerx - 40, BOARD.top - 30, 80, 50), border_radius=6)
    text("USB", (BOARD.centerx, BOARD.top - 24), small, (40, 40, 40), "midtop")
    text("Raspberry Pi Pico", (BOARD.centerx, BOARD.bottom - 22), font, (240, 240, 240), "center")
    for pin in range(1, 41):
        x, y = pin_point(pin)
        pygame.draw.circle(s, (220, 190, 60), (x, y), 8)
        label = f"{pin} {pin_name(pin)}".strip()
        if pin <= 20:
            text(label, (x + 14, y), small, (235, 235, 235), "midleft")
        else:
            text(label, (x - 14, y), small, (235, 235, 235), "midright")

    lanes = {"left": 0, "right": 0}

    def wire(pin: int, to: tuple[int, int], colour, via: list[tuple[int, int]] | None = None) -> None:
        """A wire from a pin in its own lane (so no two run on top of each other) to a part."""
        x, y = pin_point(pin)
        side = "left" if pin <= 20 else "right"
        lanes[side] += 1
        bend = x - 24 - 16 * lanes[side] if side == "left" else x + 24 + 16 * lanes[side]
        points = [(x, y), (bend, y)] + (via or []) + [(via[-1][0] if via else bend, to[1]), to]
        if via:
            points = [(x, y), (bend, y), (bend, via[0][1])] + via + [(via[-1][0], to[1]), to]
        pygame.draw.lines(s, colour, False, points, 4)

    # buttons on the left, two rows of three as on the station
    buttons = cfg.get("BUTTON_PINS", (2, 3, 4, 5, 6, 7))
    gnd_rail_x = 60
    pygame.draw.line(s, (20, 20, 20), (gnd_rail_x, 200), (gnd_rail_x, 760), 5)
    text("GND", (gnd_rail_x, 185), small, anchor="midbottom")
    for i, gp in enumerate(buttons):
        y = 230 + i * 90
        box = pygame.Rect(100, y - 30, 330, 60)
        pygame.draw.rect(s, (230, 230, 230), box, border_radius=10)
        pygame.draw.rect(s, (60, 60, 60), box, 3, border_radius=10)
        pygame.draw.circle(s, (200, 60, 60), (box.left + 35, y), 18)
        text(f"button {i} ({'top' if i < 3 else 'bottom'} {('left', 'middle', 'right')[i % 3]})", (box.left + 62, y),
             small, anchor="midleft")
        pygame.draw.line(s, (20, 20, 20), (box.left, y), (gnd_rail_x, y), 3)
        wire(GPIO_PIN[gp], (box.right, y), (40, 90, 200))
    wire(8, (gnd_rail_x, 760), (20, 20, 20))

    # right: LED, piezo, reader
    def part(rect: pygame.Rect, title: str, lines: list[str]) -> None:
        pygame.draw.rect(s, (235, 235, 235), rect, border_radius=12)
        pygame.draw.rect(s, (60, 60, 60), rect, 3, border_radius=12)
        text(title, (rect.left + 16, rect.top + 12), font)
        for k, line in enumerate(lines):
            text(line, (rect.left + 16, rect.top + 48 + k * 28), small, (70, 70, 70))

    # the WS2812 runs at 5 V, where its data input needs 0.7 x 5 V = 3.5 V: more than the
    # Pico's 3.3 V. A 74AHCT125 (TTL inputs, powered at 5 V) lifts GP16's signal to 5 V.
    shifter = pygame.Rect(1290, 130, 440, 170)
    part(shifter, "74AHCT125 level shifter", ["1A from GP%d, 1Y to the LED's DIN" % cfg.get("LED_PIN", 16),
                                              "VCC from VBUS (pin 40)",
                                              "GND and 1OE to GND (pin %d)" % LED_GND,
                                              "2A, 3A, 4A, 2OE, 3OE, 4OE to GND too"])
    wire(GPIO_PIN[cfg.get("LED_PIN", 16)], (shifter.left, shifter.top + 60), (200, 120, 30))
    wire(40, (shifter.left, shifter.top + 88), (200, 40, 40))
    wire(LED_GND, (shifter.left, shifter.top + 116), (20, 20, 20))
    led = pygame.Rect(1290, 330, 440, 170)
    part(led, "WS2812 LED (one NeoPixel)", ["DIN from the 74AHCT125's 1Y", "5V from VBUS (pin 40)",
                                            "GND to GND (pin %d)" % LED_GND, "(or an RGB LED: GP13/14/15, 220 ohm)"])
    pygame.draw.line(s, (200, 120, 30), (shifter.centerx + 120, shifter.bottom), (shifter.centerx + 120, led.top), 4)
    text("1Y to DIN", (shifter.centerx + 132, (shifter.bottom + led.top) // 2), small, (200, 120, 30), "midleft")
    wire(40, (led.left, led.top + 88), (200, 40, 40))
    wire(LED_GND, (led.left, led.top + 116), (20, 20, 20))
    piezo = pygame.Rect(1290, 550, 440, 130)
    part(piezo, "Passive piezo buzzer", ["+ from GP%d (PWM)" % cfg.get("BUZZER_PIN", 18), "- to GND (pin 33)"])
    wire(GPIO_PIN[cfg.get("BUZZER_PIN", 18)], (piezo.left, piezo.top + 60), (140, 60, 170))
    wire(33, (piezo.left, piezo.top + 88), (20, 20, 20))
    reader = pygame.Rect(100, 820, 520, 230)
    part(reader, "PN532 NFC module, I2C mode", ["SDA from GP%d, SCL from GP%d (I2C0)" % (cfg.get("I2C_SDA", 8),
                                                                                     cfg.get("I2C_SCL", 9)),
                                                "VCC from 3V3 (pin 36), GND to GND (pin %d)" % READER_GND,
                                                "switches: SEL0 on, SEL1 off",
                                                "bus at %d kHz" % (cfg.get("I2C_FREQ", 100_000) // 1000),
                                                reset_line(cfg.get("PN532_RESET_PIN"))])
    wire(GPIO_PIN[cfg.get("I2C_SDA", 8)], (reader.right, reader.top + 60), (30, 150, 150))
    wire(GPIO_PIN[cfg.get("I2C_SCL", 9)], (reader.right, reader.top + 88), (30, 110, 110))
    wire(READER_GND, (reader.right, reader.top + 144), (20, 20, 20))
    if cfg.get("PN532_RESET_PIN") is not None:
        wire(GPIO_PIN[cfg["PN532_RESET_PIN"]], (reader.right, reader.top + 172), (120, 120, 120))
    # 3V3 is on the right: round the board's foot
    wire(36, (reader.right, reader.top + 116), (200, 40, 40),
         via=[(BOARD.right + 120, BOARD.bottom + 40), (BOARD.left - 140, BOARD.bottom + 40)])
    text("Colours of the wires: blue buttons, orange LED data, red power, black GND, purple buzzer, teal I2C"
         + (", grey reset." if cfg.get("PN532_RESET_PIN") is not None else "."),
         (30, SIZE[1] - 60), font, (80, 80, 80))
    pygame.image.save(s, str(out))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT))
