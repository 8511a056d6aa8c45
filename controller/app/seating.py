"""Seats by button: before a game from the menu, the TV asks everyone to press a button on
their station. Stations take the seats in the order pressed (seat 1 first, then clockwise).
Each player then says who they are, at their own station:

- **a name this table has seen** (the people it knows, the one who sat at this station last
  time first, then the others by when they last played): left and right, OK takes it;
- or, last in that list (one press left from the first), **a new name, letter by letter**:
  the letters lie in rows on the TV; left and right move along a row, the top middle button
  goes to the next row, OK adds the letter, the top left one takes the last letter back (on
  an empty name: back to the list), the top right one says "that's my name". A name is at
  most ``NAME_MAX`` letters, capitals where a name has them (the first letter, after a space
  or a hyphen). A name the table knows (in any case) is that person.

Then a colour the same way (the station's LED shows the colour being chosen; the top left
button goes back to the name): the person's own colour is offered first, so each player keeps
one. When every seat has a station, a name and a colour, the game starts. The colour marks
the seat's panel on the TV; the name stays what tells seats apart (colours are never the
only difference).

Pure: presses in, the seating out; ``controller/app/box.py`` runs it at the stations and
remembers the people (``EventLog.person``)."""

from __future__ import annotations

from dataclasses import dataclass, field

BACK, NEXT_ROW, DONE = 0, 1, 2          # the top row
MINUS, OK, PLUS = 3, 4, 5               # the bottom row
NAME_MAX = 12                           # letters; a name fits a seat's panel on the TV
# The letter picker's rows, in the order people know them; the last row for names beyond A-Z.
# " " is a space (drawn as one), for "Anna B" beside "Anna".
LETTER_ROWS = ("ABCDEFG", "HIJKLMN", "OPQRSTU", "VWXYZ -", "ÄÖÜÉÈÇÑ")
# a seat's colour: its name in the texts' _colours, and how the LED and the TV show it
COLOURS = {"red": "e03c32", "orange": "f08c1e", "yellow": "f0d232", "green": "3cb43c",
           "blue": "3278f0", "purple": "a050dc", "pink": "f064b4", "white": "f0f0f0"}
NEW_NAME = ""                           # in the list of names: "a new name" (spelled)
# the six buttons while spelling, as the TV labels them (text keys)
SPELL_KEYS = ("seating_key_delete", "seating_key_next_row", "seating_key_done",
              "seating_key_left", "seating_key_add", "seating_key_right")


@dataclass(frozen=True)
class SeatingSnapshot:
    game: str                                   # "seating": the screen's view
    title: str
    seats: tuple[tuple[str | None, str | None, bool], ...]   # per seat: station, name, seat taken
    note: tuple[str, dict] | None = None
    colours: tuple[tuple[str, str] | None, ...] = ()   # per seat: the colour chosen so far (name, "rrggbb")
    picking: tuple[str, ...] = ()                # per seat: "name", "spell", "colour" or "done"
    # per seat while spelling: the letter rows in the case the next letter takes, the cursor's row
    # and column, and the six buttons' labels (text keys; None: does nothing now)
    spelling: tuple[tuple[tuple[str, ...], int, int, tuple[str | None, ...]] | None, ...] = ()


def cased(name: str, letter: str) -> str:
    """``letter`` as it is added to ``name``: a capital first and after a space or hyphen."""
    return letter.upper() if not name or name[-1] in " -" else letter.lower()


def same_name(a: str, b: str) -> bool:
    return a.casefold() == b.casefold()


@dataclass
class _Seat:
    station: str
    stage: str                    # "name", "spell", "colour", "done"
    name: str = NEW_NAME          # the name offered, chosen or spelled so far
    colour: str = "red"
    row: int = 0                  # the letter picker's cursor
    col: int = 0


@dataclass
class Seating:
    players: int
    title: str
    remembered: dict[str, str] = field(default_factory=dict)  # station → the name that sat there last
    remembered_colours: dict[str, str] = field(default_factory=dict)   # station → its colour last time
    known: list[str] = field(default_factory=list)     # the people this table knows, who played last first
    person_colours: dict[str, str] = field(default_factory=dict)   # a person's name → their colour
    note: tuple[str, dict] | None = None
    _seats: list[_Seat] = field(default_factory=list)

    # -- what the box reads --------------------------------------------------------------------
    @property
    def stations(self) -> list[str]:
        return [s.station for s in self._seats]

    @property
    def names(self) -> list[str]:
        return [s.name for s in self._seats]

    @property
    def colours(self) -> list[str]:
        return [s.colour for s in self._seats]

    @property
    def done(self) -> bool:
        return len(self._seats) == self.players and all(s.stage == "done" for s in self._seats)

    def led(self, station: str) -> str | None:
        """What the station's LED shows now: the colour it is choosing or took (hex)."""
        seat = self._seat(station)
        return COLOURS[seat.colour] if seat is not None and seat.stage in ("colour", "done") else None

    # -- a press -------------------------------------------------------------------------------
    def press(self, station: str, button: int) -> None:
        self.note = None
        seat = self._seat(station)
        if seat is None:
            if len(self._seats) >= self.players:
                self.note = ("seating_full", {"n": self.players})
                return
            self._seats.append(self._sit_down(station))
            return
        if seat.stage == "name":
            self._name_press(seat, button)
        elif seat.stage == "spell":
            self._spell_press(seat, button)
        else:
            self._colour_press(seat, button)

    def _sit_down(self, station: str) -> _Seat:
        seat = _Seat(station, "name")
        offered = self._offered(seat)
        wanted = self.remembered.get(station)
        seat.name = next((n for n in offered if wanted and same_name(n, wanted)), offered[0])
        if seat.name == NEW_NAME:              # nobody the table knows is free: spell at once
            seat.stage = "spell"
        return seat

    def _offered(self, seat: _Seat) -> list[str]:
        """The names this seat may pick from the list: the people the table knows that no
        other seat has (the one who sat at this station last first), then a new name."""
        others = [s.name for s in self._seats if s is not seat and s.name]
        wanted = self.remembered.get(seat.station)
        pool = ([wanted] if wanted and any(same_name(wanted, k) for k in self.known) else []) + list(self.known)
        out: list[str] = []
        for name in pool:
            if not any(same_name(name, n) for n in others + out):
                out.append(name)
        return out + [NEW_NAME]

    def _name_press(self, seat: _Seat, button: int) -> None:
        offered = self._offered(seat)
        if button in (MINUS, PLUS):
            now = offered.index(seat.name) if seat.name in offered else 0
            seat.name = offered[(now + (1 if button == PLUS else -1)) % len(offered)]
        elif button == OK:
            if seat.name == NEW_NAME:
                seat.stage, seat.row, seat.col = "spell", 0, 0
            else:
                self._take_name(seat, seat.name)

    def _spell_press(self, seat: _Seat, button: int) -> None:
        row = LETTER_ROWS[seat.row]
        if button in (MINUS, PLUS):
            seat.col = (seat.col + (1 if button == PLUS else -1)) % len(row)
        elif button == NEXT_ROW:
            seat.row = (seat.row + 1) % len(LETTER_ROWS)
            seat.col = min(seat.col, len(LETTER_ROWS[seat.row]) - 1)
        elif button == OK:
            letter = row[seat.col]
            if len(seat.name) >= NAME_MAX:
                self.note = ("seating_name_long", {"n": NAME_MAX})
            elif letter in " -" and (not seat.name or seat.name[-1] in " -"):
                self.note = ("seating_letter_first", {})       # a name begins, and goes on, with a letter
            else:
                seat.name += cased(seat.name, letter)
        elif button == BACK:
            if seat.name:
                seat.name = seat.name[:-1]
            elif len(self._offered(seat)) > 1:              # back to the names the table knows
                seat.stage = "name"
        elif button == DONE:
            name = seat.name.strip(" -")
            if not name:
                self.note = ("seating_name_empty", {})
                return
            known = next((k for k in self.known if same_name(k, name)), None)
            self._take_name(seat, known or name)

    def _take_name(self, seat: _Seat, name: str) -> None:
        if any(same_name(name, s.name) for s in self._seats if s is not seat and s.stage in ("colour", "done")):
            self.note = ("seating_name_taken", {"name": name})
            return
        seat.name, seat.stage = name, "colour"
        taken = self._colours_used(seat)
        for wanted in (self.person_colours.get(name), self.remembered_colours.get(seat.station)):
            if wanted in COLOURS and wanted not in taken:
                seat.colour = wanted
                return
        if seat.colour in taken:
            seat.colour = next((c for c in COLOURS if c not in taken), seat.colour)

    def _colour_press(self, seat: _Seat, button: int) -> None:
        if button == BACK:                           # back to the name
            seat.stage = "spell" if seat.name not in self.known else "name"
        elif button in (MINUS, PLUS):
            free = [c for c in COLOURS if c not in self._colours_used(seat)]
            now = free.index(seat.colour) if seat.colour in free else 0
            seat.colour = free[(now + (1 if button == PLUS else -1)) % len(free)]
            seat.stage = "colour"
        elif button == OK:
            if seat.colour in self._colours_taken(seat):
                self.note = ("seating_colour_taken", {"colour": seat.colour})
                return
            seat.stage = "done"

    def _colours_taken(self, seat: _Seat) -> set[str]:
        """The colours other seats took: refused at OK."""
        return {s.colour for s in self._seats if s is not seat and s.stage == "done"}

    def _colours_used(self, seat: _Seat) -> set[str]:
        """The colours other seats took or are choosing: not offered, so that two people
        choosing at once do not both start on red."""
        return {s.colour for s in self._seats if s is not seat and s.stage in ("colour", "done")}

    def _seat(self, station: str) -> _Seat | None:
        return next((s for s in self._seats if s.station == station), None)

    # -- what the TV shows ---------------------------------------------------------------------
    def snapshot(self) -> SeatingSnapshot:
        seats: list[tuple[str | None, str | None, bool]] = []
        colours: list[tuple[str, str] | None] = []
        picking: list[str] = []
        spelling: list[tuple[tuple[str, ...], int, int, tuple[str | None, ...]] | None] = []
        for i in range(self.players):
            seat = self._seats[i] if i < len(self._seats) else None
            if seat is None:
                seats.append((None, None, False))
                colours.append(None)
                picking.append("name")
                spelling.append(None)
                continue
            seats.append((seat.station, seat.name, seat.stage == "done"))
            colours.append((seat.colour, COLOURS[seat.colour]) if seat.stage in ("colour", "done") else None)
            picking.append(seat.stage)
            spelling.append(self._spelling(seat) if seat.stage == "spell" else None)
        return SeatingSnapshot("seating", self.title, tuple(seats), self.note, tuple(colours), tuple(picking),
                               tuple(spelling))

    def _spelling(self, seat: _Seat) -> tuple[tuple[str, ...], int, int, tuple[str | None, ...]]:
        rows = tuple("".join(cased(seat.name, letter) for letter in row) for row in LETTER_ROWS)
        keys: list[str | None] = list(SPELL_KEYS)
        if not seat.name and len(self._offered(seat)) == 1:
            keys[BACK] = None                       # nothing to take back, no list to go back to
        elif not seat.name:
            keys[BACK] = "seating_key_names"
        if not seat.name.strip(" -"):
            keys[DONE] = None
        return rows, seat.row, seat.col, tuple(keys)
