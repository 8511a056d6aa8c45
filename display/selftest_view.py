"""The station self-test on the shared screen (``spieltisch stations --test``): the six
buttons as on the station, each lit when it has been pressed (and framed while held), the
colour the LED should show now and the tone the buzzer makes with it, the card last tapped
and what the table knows of it, and the station's own report. In the box, once every check
passed, the bring-up probe of the station's reader in their place: what to do, its progress,
a refusal, the figures beside the model's and where the file is."""

from __future__ import annotations

from typing import Any

import pygame

from controller.games import texts
from display import draw
from display.draw import GOLD, INK, MUTED, RED

KEY = (300, 150)
KEYS_TOP = 220
SWATCH = {"red": (220, 40, 40), "green": (40, 190, 70), "blue": (50, 90, 230), "white": (245, 245, 245)}


def key_rects() -> list[pygame.Rect]:
    left = 960 - (3 * KEY[0] + 2 * 30) // 2
    return [pygame.Rect(left + (i % 3) * (KEY[0] + 30), KEYS_TOP + (i // 3) * (KEY[1] + 30), *KEY) for i in range(6)]


class SelfTestView:
    def __init__(self, lang: str, *, live: bool = False) -> None:
        self.lang = lang

    def t(self, key: str, **params: Any) -> str:
        return texts.render(self.lang, key, params)

    def draw(self, surface: pygame.Surface, snap: Any) -> None:
        draw.text(surface, self.t("selftest_title", station=snap.station, firmware=snap.firmware), (30, 24), 48,
                  GOLD, True, max_width=1860)
        draw.text(surface, self.t("selftest_press_each"), (960, 160), 36, MUTED, True, "midtop", 1800)
        for i, rect in enumerate(key_rects()):
            pressed, held = snap.pressed[i], snap.held[i]
            draw.rounded(surface, GOLD if pressed else (40, 80, 56), rect, 0, 16)
            draw.rounded(surface, INK if held else (20, 50, 34), rect, 8 if held else 3, 16)
            ink = (30, 30, 30) if pressed else INK
            draw.text(surface, str(i + 1), (rect.centerx, rect.top + 16), 56, ink, True, "midtop")
            draw.text(surface, self.t("selftest_pressed" if pressed else "selftest_not_yet"),
                      (rect.centerx, rect.bottom - 16), 32, ink, True, "midbottom", rect.width - 20)
        if snap.probe is not None:
            self.draw_probe(surface, snap.probe)
            return
        led = pygame.Rect(260, 640, 640, 180)
        draw.panel(surface, led)
        pygame.draw.circle(surface, SWATCH.get(snap.led, INK), (led.left + 90, led.centery), 60)
        pygame.draw.circle(surface, INK, (led.left + 90, led.centery), 60, 4)
        draw.wrapped(surface, self.t("selftest_led", colour=snap.led), pygame.Rect(led.left + 180, led.top + 30,
                     led.width - 200, led.height - 40), 34, INK)
        card = pygame.Rect(1020, 640, 640, 180)
        draw.panel(surface, card, RED if snap.card and snap.card[0] not in ("selftest_card_named",) else None)
        words = self.t("selftest_tap_card") if snap.card is None else texts.render(self.lang, snap.card[0], snap.card[1])
        draw.wrapped(surface, words, card.inflate(-50, -40), 34, INK)
        facts = []
        if snap.round_trip_ms is not None:
            facts.append(self.t("selftest_round_trip", ms=snap.round_trip_ms))
        if snap.health:
            facts.append(self.t("selftest_health", loop=round(int(snap.health.get("loop_us", 0) or 0) / 1000, 1),
                                reader=snap.health.get("reader", "?")))
        draw.text(surface, " · ".join(facts), (960, 860), 32, MUTED, False, "midtop", 1800)
        if snap.done:
            banner = pygame.Rect(0, 0, 1200, 110)
            banner.center = (960, 980)
            draw.panel(surface, banner, GOLD, 6)
            draw.text(surface, self.t("selftest_passed"), banner.center, 48, GOLD, True, "center", 1160)

    def draw_probe(self, surface: pygame.Surface, probe: Any) -> None:
        draw.text(surface, self.t("selftest_passed"), (960, 570), 40, GOLD, True, "midtop")
        refused = probe.said is not None and probe.stage == "offer"
        box = pygame.Rect(120, 630, 1680, 430)
        draw.panel(surface, box, RED if refused else GOLD if probe.stage == "done" else None, 6 if refused else 3)
        draw.text(surface, self.t("probe_title"), (box.left + 40, box.top + 24), 40, GOLD, True)
        left, width, y = box.left + 40, box.width - 80, box.top + 90
        if refused:
            said = probe.said
            y = self.block(surface, texts.render(self.lang, said[0], said[1]), left, y, width, 36, INK, bold=True) + 16
        if probe.stage == "done":
            y = self.block(surface, texts.render(self.lang, probe.said[0], probe.said[1]), left, y, width, 34, INK) + 24
            for i, (label, model, measured) in enumerate(probe.rows):
                column = i % 2
                draw.text(surface, self.t("probe_row", what=self.t(label), measured=measured, model=model),
                          (left + column * (width // 2), y + (i // 2) * 44), 32, INK, False, "topleft", width // 2 - 20)
            y += 44 * ((len(probe.rows) + 1) // 2) + 12
            self.block(surface, self.t("probe_send"), left, y, width, 34, MUTED)
            return
        step = {"offer": "probe_offer", "chip": "probe_measuring_chip", "lay": "probe_lay_sticker",
                "card": "probe_measuring_card"}[probe.stage]
        self.block(surface, self.t(step), left, y, width, 36, INK)

    @staticmethod
    def block(surface: pygame.Surface, words: str, left: int, top: int, width: int, size: int, colour: Any, *,
              bold: bool = False) -> int:
        """``words`` in lines from ``top``; the bottom of the last."""
        height = draw.font(size, bold).get_linesize()
        for i, line in enumerate(draw.lines_of(words, width, size, bold)):
            draw.text(surface, line, (left, top + i * height), size, colour, bold)
        return top + len(draw.lines_of(words, width, size, bold)) * height


VIEW = SelfTestView
