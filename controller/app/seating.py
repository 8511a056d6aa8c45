"""Seats by button: before a game from the menu, the TV asks everyone to press a button on
their station. Stations take the seats in the order pressed (seat 1 first, then clockwise);
each then picks a name from a short list with its bottom row (left and right) and takes it
with OK (bottom middle), then a colour the same way (its LED shows the colour being
chosen; the top-left button goes back to the name). A station's name and colour are
remembered by its id for next time, and offered first. When every seat has a station, a
name and a colour, the game starts. The colour marks the seat's panel on the TV; the
name stays what tells seats apart (colours are never the only difference).

Pure: presses in, the seating out; ``controller/app/box.py`` runs it at the stations."""

from __future__ import annotations

from dataclasses import dataclass, field

BACK, MINUS, OK, PLUS = 0, 3, 4, 5
NAMES = ("Anna", "Ben", "Clara", "David", "Eva", "Felix", "Greta", "Hugo", "Ida", "Jonas")
# a seat's colour: its name in the texts' _colours, and how the LED and the TV show it
COLOURS = {"red": "e03c32", "orange": "f08c1e", "yellow": "f0d232", "green": "3cb43c",
           "blue": "3278f0", "purple": "a050dc", "pink": "f064b4", "white": "f0f0f0"}


@dataclass(frozen=True)
class SeatingSnapshot:
    game: str                                   # "seating": the screen's view
    title: str
    seats: tuple[tuple[str | None, str | None, bool], ...]   # per seat: station, name, seat taken
    note: tuple[str, dict] | None = None
    colours: tuple[tuple[str, str] | None, ...] = ()   # per seat: the colour chosen so far (name, "rrggbb")
    picking: tuple[str, ...] = ()                # per seat: "name", "colour" or "done"


@dataclass
class Seating:
    players: int
    title: str
    remembered: dict[str, str] = field(default_factory=dict)  # station → name, from last time
    stations: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    taken: list[bool] = field(default_factory=list)
    note: tuple[str, dict] | None = None
    remembered_colours: dict[str, str] = field(default_factory=dict)   # station → colour, from last time
    colours: list[str] = field(default_factory=list)
    picking_colour: list[bool] = field(default_factory=list)

    def press(self, station: str, button: int) -> None:
        self.note = None
        if station not in self.stations:
            if len(self.stations) >= self.players:
                self.note = ("seating_full", {"n": self.players})
                return
            self.stations.append(station)
            self.names.append(self._first_name(station))
            self.taken.append(False)
            self.colours.append(self._first_colour(station))
            self.picking_colour.append(False)
            return
        seat = self.stations.index(station)
        if self.picking_colour[seat] or self.taken[seat]:
            self._colour_press(seat, button)
        elif button in (MINUS, PLUS):
            free = self._choices(seat)
            now = free.index(self.names[seat]) if self.names[seat] in free else 0
            self.names[seat] = free[(now + (1 if button == PLUS else -1)) % len(free)]
        elif button == OK:
            if self.names[seat] in [n for i, n in enumerate(self.names) if i != seat and self._named(i)]:
                self.note = ("seating_name_taken", {"name": self.names[seat]})
                return
            self.picking_colour[seat] = True

    def _colour_press(self, seat: int, button: int) -> None:
        if button == BACK:                           # back to the name
            self.taken[seat] = self.picking_colour[seat] = False
        elif button in (MINUS, PLUS):
            free = [c for c in COLOURS if c not in self._colours_taken(seat)]
            now = free.index(self.colours[seat]) if self.colours[seat] in free else 0
            self.colours[seat] = free[(now + (1 if button == PLUS else -1)) % len(free)]
            self.taken[seat], self.picking_colour[seat] = False, True
        elif button == OK:
            if self.colours[seat] in self._colours_taken(seat):
                self.note = ("seating_colour_taken", {"colour": self.colours[seat]})
                return
            self.taken[seat], self.picking_colour[seat] = True, False

    def _named(self, seat: int) -> bool:
        return self.picking_colour[seat] or self.taken[seat]

    def _colours_taken(self, seat: int) -> set[str]:
        return {c for i, c in enumerate(self.colours) if i != seat and self.taken[i]}

    def _first_colour(self, station: str) -> str:
        used = set(self.colours)
        wanted = self.remembered_colours.get(station)
        if wanted in COLOURS and wanted not in used:
            return wanted
        return next((c for c in COLOURS if c not in used), next(iter(COLOURS)))

    def led(self, station: str) -> str | None:
        """What the station's LED shows now: the colour it is choosing or took (hex)."""
        if station not in self.stations:
            return None
        seat = self.stations.index(station)
        return COLOURS[self.colours[seat]] if self._named(seat) else None

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
        colours = tuple((self.colours[i], COLOURS[self.colours[i]]) if i < len(self.stations) and self._named(i)
                        else None for i in range(self.players))
        picking = tuple("done" if i < len(self.stations) and self.taken[i] else
                        "colour" if i < len(self.stations) and self.picking_colour[i] else "name"
                        for i in range(self.players))
        return SeatingSnapshot("seating", self.title, seats, self.note, colours, picking)
