"""The referee's whistle through pygame's mixer; silent when there is no audio device.

The sound is synthesised (a 2.8 kHz tone with the pea's 28 Hz trill), so no audio file
ships with the program."""

from __future__ import annotations

import array
import logging
import math
from pathlib import Path

import pygame

log = logging.getLogger(__name__)

RATE = 22050


def whistle_samples(seconds: float, *, pitch: float = 2800.0, trill: float = 28.0) -> array.array:
    samples = array.array("h")
    n = int(RATE * seconds)
    fade = int(RATE * 0.02)
    for i in range(n):
        t = i / RATE
        envelope = min(1.0, i / fade, (n - i) / fade)
        wobble = 1.0 + 0.04 * math.sin(2 * math.pi * trill * t)
        value = math.sin(2 * math.pi * pitch * wobble * t) * (0.7 + 0.3 * math.sin(2 * math.pi * trill * t))
        samples.append(int(9000 * envelope * value))
    return samples


def has_sound_card() -> bool:
    """Whether ALSA has a card at all: without one, opening the mixer only fills stderr with
    ALSA's complaints, so it is not tried (not Linux: SDL decides)."""
    try:
        cards = Path("/proc/asound/cards").read_text()
    except OSError:
        return not Path("/proc/asound").exists() and not Path("/proc/version").exists()
    return bool(cards.strip()) and "no soundcards" not in cards


class Whistle:
    def __init__(self) -> None:
        self._short = self._final = None
        if not has_sound_card():
            log.info("no sound: no sound card")
            return
        try:
            pygame.mixer.init(frequency=RATE, size=-16, channels=1)
            self._short = pygame.mixer.Sound(buffer=whistle_samples(0.45))
            pause = array.array("h", bytes(2 * int(RATE * 0.15)))
            self._final = pygame.mixer.Sound(buffer=whistle_samples(0.3) + pause + whistle_samples(0.3) + pause
                                             + whistle_samples(1.2))
        except (pygame.error, OSError) as exc:       # no audio device: the game stays silent
            log.info("no sound: %s", exc)

    @property
    def available(self) -> bool:
        return self._short is not None

    def goal(self) -> None:
        if self._short is not None:
            self._short.play()

    def final(self) -> None:
        """The final whistle: two short blasts and a long one."""
        if self._final is not None:
            self._final.play()
