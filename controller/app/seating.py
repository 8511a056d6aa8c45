"""Seats by button: before a game from the menu, the TV asks everyone to press a button on
their station. Stations take the seats in the order pressed (seat 1 first, then clockwise);
each then picks a name from a short list with its bottom row (left and right) and takes it
with OK (bottom middle). A station's name is remembered by its id for next time, and
offered first. When every seat has a station and a name, the game starts.

Pure: presses in, the seating out; ``controller/app/box.py`` runs it at the stations."""

from __future__ import annotations

from dataclasses import dataclass, field

MINUS, OK, PLUS = 3, 4, 5
NAMES = ("Anna", "Ben", "Clara", "David", "Eva", "Felix", "Greta", "Hugo", "Ida", "Jonas")


@dataclass(frozen=True)
class SeatingSnapshot:
    game: str                                   # "seating": the screen's view
    title: str
    seats: tuple[tuple[str | None, str | None, bool], ...]   # per seat: station, name, name taken
    note: tuple[str, dict] | None = None


@dataclass
class Seating:
    players: int
    title: str
    remembered: dict[str, str] = field(default_factory=dict)  # station → name, from last time
    stations: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    taken: list[bool] = field(default_factory=list)
    note: tuple[str, dict] | None = None

    def press(self, station: str, button: int) -> None:
        self.note = None
        if station not in self.stations:
            if len(self.stations) >= self.players:
                self.note = ("seating_full", {"n": self.players})
                return
            self.stations.append(station)
            self.names.append(self._first_name(station))
            self.taken.append(False)
            return
        seat = self.stations.index(station)
        if button in (MINUS, PLUS):
            free = self._choices(seat)
            now = free.index(self.names[seat]) if self.names[seat] in free else 0
            self.names[seat] = free[(now + (1 if button == PLUS else -1)) % len(free)]
            self.taken[seat] = False
        elif button == OK:
            if self.names[seat] in [n for i, n in enumerate(self.names) if i != seat and self.taken[i]]:
                self.note = ("seating_name_taken", {"name": self.names[seat]})
                return
            self.taken[seat] = True

    def _first_name(self, station: str) -> str:
        used = set(self.names)
        wanted = self.remembered.get(station)
        if wanted and wanted not in used:
            return wanted
        return next((n for n in NAMES if n not in used), f"Seat {len(self.names) + 1}")

    def _choices(self, seat: int) -> list[str]:
        others = {n for i, n in enumerate(self.names) if i != seat}
        pool = ([self.remembered[self.stations[seat]]] if self.stations[seat] in self.remembered else []) + list(NAMES)
        out = []
        for name in pool:
            if name not in others and name not in out:
                out.append(name)
        return out

    @property
    def done(self) -> bool:
        return len(self.stations) == self.players and all(self.taken)

    def snapshot(self) -> SeatingSnapshot:
        seats = tuple((self.stations[i], self.names[i], self.taken[i]) if i < len(self.stations) else
                      (None, None, False) for i in range(self.players))
        return SeatingSnapshot("seating", self.title, seats, self.note)
