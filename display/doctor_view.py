"""``spieltisch doctor`` on the TV (the menu's "Check the table"): each finding a line with
✓, ✗ or – and its words; when done, the problems first and the key to go back. Colour is
never the only cue: each mark is its own shape, and each line says in words what it found."""

from __future__ import annotations

from typing import Any

import pygame

from controller.games import texts
from display import checklist, draw
from display.draw import GOLD, MUTED

TOP, BOTTOM = 200, 960


class DoctorView:
    def __init__(self, lang: str, *, live: bool = False) -> None:
        self.lang = lang

    def draw(self, surface: pygame.Surface, snap: Any) -> None:
        draw.text(surface, texts.render(self.lang, "doctor_title"), (30, 24), 56, GOLD, True)
        findings = list(snap.findings)
        if snap.done:                       # the problems first: those are what to act on
            findings.sort(key=lambda f: {"fail": 0, "skip": 1, "ok": 2}[f.status])
        lines = [(f.status, f.text(self.lang)) for f in findings]
        top = TOP
        if snap.note is not None:
            top = draw.paragraph(surface, snap.note.text(self.lang), (checklist.LEFT, 120), checklist.WIDTH, 32,
                                 GOLD) + 16
        if not snap.done:                   # still checking: the newest lines stay in sight
            while lines and checklist.rows(pygame.Surface((1, 1)), lines, top, BOTTOM) < len(lines):
                lines = lines[1:]
        drawn = checklist.rows(surface, lines, top, BOTTOM)
        if drawn < len(lines):
            draw.text(surface, texts.render(self.lang, "doctor_more", {"n": len(lines) - drawn}),
                      (checklist.LEFT, BOTTOM), 30, MUTED)
        if snap.done:
            problems = sum(f.status == "fail" for f in findings)
            summary = texts.render(self.lang, "doctor_summary_problems", {"n": problems}) if problems else \
                texts.render(self.lang, "doctor_summary_ok")
            draw.text(surface, summary + " " + texts.render(self.lang, "doctor_press_any"), (960, 1010), 32,
                      GOLD if problems else MUTED, True, "midtop", 1860)


VIEW = DoctorView
