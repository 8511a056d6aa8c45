"""``spieltisch stations --test --port DEV``: the checklist a person follows when a station
is built, on the screen. Each of the six buttons lights its key on the screen when pressed
(and shows the edge's stamp arrived); the LED steps through red, green, blue and white and
the buzzer sounds a tone with each, the screen saying what to see and hear; a card tapped
on the reader is named (by its record, its text or the table's registry: which game and
card, or that the table does not know it). The station's own report (STAT) and its clock
sync are shown beside. It ends when every button was pressed and a card named, or on Esc.
In the box (``offer_probe``) it then offers the bring-up probe of the station's reader
(``controller/app/probe_session.py``) and ends on button 6.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from controller.app.probe_session import ProbeSession, ProbeSnapshot
from controller.games import GAMES
from controller.games.core import IllegalAction
from controller.table.cards import CardKeys, parse_text
from controller.table.eventlog import EventLog, TableLock, default_data_dir
from controller.table.runner import event_queue

LED_STEPS = (("ff0000", "red", 440), ("00ff00", "green", 660), ("0000ff", "blue", 880), ("ffffff", "white", 1100))
LED_STEP_S = 1.2


@dataclass(frozen=True)
class SelfTestSnapshot:
    game: str                                  # "selftest": the screen's view
    station: str
    firmware: str
    pressed: tuple[bool, ...]
    held: tuple[bool, ...]
    led: str                                   # the colour's name the LED should show now
    card: tuple[str, dict[str, Any]] | None    # what the last tap was, as a text key and params
    health: dict[str, str] = field(default_factory=dict)
    round_trip_ms: float | None = None
    done: bool = False
    probe: ProbeSnapshot | None = None          # the bring-up probe, once offered


class SelfTest:
    def __init__(self, station: str, firmware: str, buttons: int = 6) -> None:
        self.station = station
        self.firmware = firmware
        self.pressed = [False] * buttons
        self.held = [False] * buttons
        self.led_step = -1                      # the colour the LED was last told
        self.card: tuple[str, dict[str, Any]] | None = None
        self.probe: ProbeSession | None = None

    def button(self, button: int, down: bool) -> None:
        if 0 <= button < len(self.pressed):
            self.held[button] = down
            if down:
                self.pressed[button] = True

    def tag(self, uid: str, text: str | None, keys: CardKeys | None, registry: dict[str, tuple[str, str]]) -> None:
        try:
            said = parse_text(text, uid, keys)
        except IllegalAction as refusal:
            self.card = (refusal.key, dict(refusal.params))
            return
        if said is None:
            said = registry.get(uid.upper())
        if said is None:
            self.card = ("selftest_card_unknown", {"uid": uid})
        else:
            game, card = said
            title = GAMES[game].title if game in GAMES else game
            self.card = ("selftest_card_named", {"card": card, "game": title, "uid": uid})

    @property
    def done(self) -> bool:
        return all(self.pressed) and self.card is not None

    def snapshot(self, link: Any = None) -> SelfTestSnapshot:
        rtt = None
        if link is not None and getattr(link, "sync", None) is not None and link.sync.round_trip_ns is not None:
            rtt = round(link.sync.round_trip_ns / 1e6, 2)
        return SelfTestSnapshot("selftest", self.station, self.firmware, tuple(self.pressed), tuple(self.held),
                                LED_STEPS[max(0, self.led_step) % len(LED_STEPS)][1], self.card,
                                dict(getattr(link, "stats", {}) or {}), rtt, self.done,
                                self.probe.snapshot() if self.probe is not None else None)


def run_selftest(port: str, *, lang: str = "en", headless: bool = False, fullscreen: bool = False,
                 data_dir: str | Path | None = None, timeout: float | None = None,
                 screenshot: str | None = None, offer_probe: bool = False,
                 watch: Callable[[SelfTestSnapshot], None] | None = None) -> dict[str, Any]:
    """``offer_probe``: once every check passed, offer the bring-up probe (the box);
    ``watch``: told every snapshot shown."""
    from controller.app.play import QUIT, make_screen, next_input, open_links
    from hardware.events import ButtonEvent, StationLost, StationProbed, TagEvent
    folder = Path(data_dir or default_data_dir())
    events = event_queue()
    with contextlib.ExitStack() as stack:
        stack.enter_context(TableLock(folder))
        store = EventLog(folder / "spieltisch.db")
        stack.callback(store.close)
        keys = CardKeys.load(folder)
        screen = make_screen(stack, lang=lang, headless=headless, fullscreen=fullscreen)
        links = open_links([port], events, stack)
        link = next(iter(links.values()))
        test = SelfTest(link.station_id, link.firmware or "?", int(link.capabilities.get("buttons", 6) or 6))

        def show() -> None:
            snap = test.snapshot(link)
            screen.show(snap)
            if watch is not None:
                watch(snap)
        deadline = None if timeout is None else time.monotonic() + timeout
        next_led = 0.0
        lost = False
        while not (test.done and (not offer_probe or (test.probe is not None and test.probe.finished))):
            now = time.monotonic()
            if test.done and test.probe is None:         # every check passed: the probe offered
                link.led("000000", 0)
                test.probe = ProbeSession(link, folder)
                show()
            if now >= next_led and test.probe is None:   # the LED and the buzzer step on by themselves
                test.led_step += 1
                rgb, _, hz = LED_STEPS[test.led_step % len(LED_STEPS)]
                link.led(rgb, 0)
                link.buzz(hz, 120)
                next_led = now + LED_STEP_S
                show()
            event = next_input(screen, events, deadline, 0.05)
            if event is QUIT:
                break
            if test.probe is not None:
                test.probe.tick()
                if isinstance(event, ButtonEvent) and event.pressed:
                    test.probe.press(event.button)
                elif isinstance(event, (TagEvent, StationProbed)):
                    test.probe.event(event)
            if isinstance(event, ButtonEvent):
                test.button(event.button, event.pressed)
            elif isinstance(event, TagEvent) and test.probe is None:
                test.tag(event.uid, event.text, keys, store.all_cards())
                link.led("00c000", 300)
            elif isinstance(event, StationLost):
                lost = True
                break
            show()
        link.led("000000", 0)
        screen.flush()
        if screenshot:
            screen.render(test.snapshot(link))
            screen.save(screenshot)
        result = {"station": test.station, "buttons": test.pressed, "card": test.card[0] if test.card else None,
                  "passed": test.done, "lost": lost}
        if test.probe is not None:
            result["probe"] = test.probe.stage
        return result
