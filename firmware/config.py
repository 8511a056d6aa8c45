# Everything about one station's wiring and behaviour, in one place. Edit this file
# (and only this file) when your station is wired differently; see README.md.

# Six buttons, 0-2 the top row and 3-5 the bottom row, left to right. Each button
# connects its GPIO to GND; the internal pull-up holds it high otherwise.
BUTTON_PINS = (2, 3, 4, 5, 6, 7)
# Bounce is ignored this long after an edge. The press is stamped at the first edge,
# so this adds no latency; it only limits how fast one button can repeat.
LOCKOUT_US = 15_000

# "ws2812": one WS2812/NeoPixel on LED_PIN. "rgb": a common-anode RGB LED on
# LED_RGB_PINS (red, green, blue) through resistors, driven by PWM. "none".
LED_KIND = "ws2812"
LED_PIN = 16
LED_RGB_PINS = (13, 14, 15)
LED_BRIGHTNESS = 0.4          # 0..1; a WS2812 at full power is glaring at a table

# A passive piezo between BUZZER_PIN and GND, driven by PWM. None: no buzzer.
BUZZER_PIN = 18

# "pn532-i2c", "pn532-uart" or "none".
READER = "pn532-i2c"
I2C_ID = 0                    # I2C0 on GP8 (SDA) / GP9 (SCL)
I2C_SDA = 8
I2C_SCL = 9
I2C_FREQ = 100_000            # 100 kHz: a PN532 breakout's pull-ups and long wires hold at this
I2C_TIMEOUT_US = 10_000       # a stuck bus costs at most this per transfer (rp2's default is 50 ms); it
                              # bounds a whole transfer, and a card's record is read in one: README.md
# The GPIO wired to the PN532's RSTPDN (reset, active low), or None. The firmware holds it
# low while it backs off from a chip that does not answer, so a chip nothing on the bus
# brings back is reset. The common "PN532 V3" boards bring out RSTO (the chip's reset
# *output*), not RSTPDN: leave it None for them, and RSTO unconnected.
PN532_RESET_PIN = None
UART_ID = 1                   # UART1 on GP8 (TX) / GP9 (RX) when READER = "pn532-uart"
UART_TX = 8
UART_RX = 9
UART_BAUD = 115_200
READER_POLL_MS = 40           # how often the reader looks for a card: the most a tap waits (bench: cards)
READER_RETRIES = 1            # passive activation tries per poll: "no card" comes back fast
TAG_GONE_POLLS = 3            # a card missing this many polls in a row was taken away
READ_NDEF = True              # also read the NDEF text record of NTAG cards

# Events wait here when the host does not read; the oldest are dropped beyond this, and
# the host sees the gap in the sequence numbers.
OUT_QUEUE = 64
