"""The table's sounds through pygame's mixer; silent when there is no audio device.

Every sound is synthesised, so no audio file ships with the program:

- ``refused``: two low falling tones (an input the table did not take);
- ``point``: a rising two-note chime (a trick won, a mission fulfilled, a floor completed);
- ``goal``: the referee's whistle, a 2.8 kHz tone with the pea's 28 Hz trill;
- ``end``: a rising four-note fanfare (the game is over);
- ``final_whistle``: two short blasts and a long one (the end of a Crazy Kick match).

Which sound an event makes is decided by ``cues_between`` (refusals and the end, for every
game) and each view's ``cues`` method (what scores in that game). The volume is the
box's setting (0 is mute), kept in the data directory and chosen in the menu.
"""

from __future__ import annotations

import array
import logging
import math
from pathlib import Path
from typing import Any, Callable

log = logging.getLogger(__name__)

RATE = 22050
VOLUMES = (0, 20, 40, 60, 80, 100)     # the menu's steps, in per cent; 0 is mute
DEFAULT_VOLUME = 60


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


def tone_samples(pitch: float, seconds: float, *, square: bool = False, decay: float = 0.0) -> array.array:
    """One note: a sine (or a softened square, harsher, for refusals) with short fades,
    dying away by ``decay`` per second (a chime)."""
    samples = array.array("h")
    n = int(RATE * seconds)
    fade = int(RATE * 0.008)
    for i in range(n):
        t = i / RATE
        envelope = min(1.0, i / fade, (n - i) / fade) * math.exp(-decay * t)
        wave = math.sin(2 * math.pi * pitch * t)
        if square:
            wave = max(-0.6, min(0.6, 3 * wave)) / 0.6 * 0.8
        samples.append(int(8000 * envelope * wave))
    return samples


def silence(seconds: float) -> array.array:
    return array.array("h", bytes(2 * int(RATE * seconds)))


SYNTHS: dict[str, Callable[[], array.array]] = {
    "refused": lambda: tone_samples(330, 0.11, square=True) + silence(0.03) + tone_samples(220, 0.16, square=True),
    "point": lambda: tone_samples(880, 0.09, decay=6) + tone_samples(1320, 0.22, decay=8),
    "goal": lambda: whistle_samples(0.45),
    "end": lambda: (tone_samples(523, 0.14, decay=3) + tone_samples(659, 0.14, decay=3)
                    + tone_samples(784, 0.14, decay=3) + tone_samples(1047, 0.5, decay=3)),
    "final_whistle": lambda: (whistle_samples(0.3) + silence(0.15) + whistle_samples(0.3) + silence(0.15)
                              + whistle_samples(1.2)),
}


def has_sound_card() -> bool:
    """Whether ALSA has a card at all: without one, opening the mixer only fills stderr with
    ALSA's complaints, so it is not tried (not Linux: SDL decides)."""
    try:
        cards = Path("/proc/asound/cards").read_text()
    except OSError:
        return not Path("/proc/asound").exists() and not Path("/proc/version").exists()
    return bool(cards.strip()) and "no soundcards" not in cards


def cues_between(before: Any, after: Any, view: Any = None) -> list[str]:
    """The sounds one new snapshot of a game calls for, after ``before`` (None: the first
    frame, which is silent: a resumed game does not cheer again)."""
    if before is None or getattr(before, "game", None) != getattr(after, "game", None):
        return []
    cues = []
    message = getattr(after, "message", None)
    # by value: a snapshot that came through a pipe is a copy, never the same object
    if message is not None and message.refusal and message != getattr(before, "message", None):
        cues.append("refused")
    if hasattr(view, "cues"):
        cues.extend(view.cues(before.view, after.view))
    if getattr(after, "finished", False) and not getattr(before, "finished", False):
        cues.append(getattr(view, "end_cue", "end"))
    return cues


class Sounds:
    """The mixer and the synthesised sounds; every method is a no-op without an audio device."""

    def __init__(self, volume: int = DEFAULT_VOLUME) -> None:
        self.volume = volume
        self._sounds: dict[str, Any] = {}
        if not has_sound_card():
            log.info("no sound: no sound card")
            return
        try:
            import pygame
            pygame.mixer.init(frequency=RATE, size=-16, channels=1)
            self._sounds = {name: pygame.mixer.Sound(buffer=make()) for name, make in SYNTHS.items()}
        except (ImportError, OSError, RuntimeError) as exc:   # pygame.error is one: the table stays silent
            log.info("no sound: %s", exc)
        self.set_volume(volume)

    @property
    def available(self) -> bool:
        return bool(self._sounds)

    def set_volume(self, volume: int) -> None:
        self.volume = max(0, min(100, int(volume)))
        for sound in self._sounds.values():
            sound.set_volume(self.volume / 100)

    def play(self, cue: str) -> bool:
        """Play one sound; False when it cannot be heard (no device, muted, unknown cue)."""
        sound = self._sounds.get(cue)
        if sound is None or self.volume == 0:
            return False
        sound.play()
        return True

    def close(self) -> None:
        """Let go of the sound card: the next screen (a game's, in a process of its own)
        opens it again, and a card opened without mixing takes one user at a time."""
        if self._sounds:
            import pygame
            self._sounds = {}
            pygame.mixer.quit()
