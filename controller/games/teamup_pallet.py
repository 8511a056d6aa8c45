"""Team UP!'s pallet, packages and order cards, and the rules of placing a package: what
the game (``teamup.py``), its solver (``teamup_solver.py``) and the screen share. The rule
decisions are in ``docs/team-up.md``.

The pallet is 6 × 4 cells; five complete floors make a perfect pallet. A placed package is
written as a tuple ``(shape, colour, x, y, z, dx, dy, dz)``: the shape ``"A"``, ``"B"``,
``"C"`` or ``"N"`` (the neutral package, colour ``None``), its colour ``"R"``, ``"BL"`` or
``"W"``, its minimum corner (x along the 6-cell side, y along the 4-cell side, z the floor
from 0) and its extent along each axis after turning. Order cards are written by their
kind: ``"R"``, ``"W"``, ``"BL"`` (a colour), ``"A"``, ``"B"``, ``"C"`` (a shape),
``"A/B"``, ``"A/C"``, ``"B/C"`` (one of two shapes); each of the 36 cards has its number.

>>> neutral = ("N", None, 0, 0, 0, 2, 2, 3)
>>> placement_error([neutral], ("A", "R", 2, 0, 0, 1, 2, 1)) is None
True
>>> placement_error([neutral], ("A", "R", 3, 0, 0, 1, 2, 1))
'The package must touch another package with part of a face; an edge or a corner is not enough.'
>>> placement_error([neutral], ("C", "W", 0, 0, 3, 2, 3, 1))
'The package would overhang: its whole underside must rest on the pallet or on packages.'

All sizes, the cards and the scoring are read from ``controller/games/data/teamup.json``.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable, Iterator, NamedTuple, Sequence

from controller.games import texts
from controller.games.core import IllegalAction, load_data

DATA = load_data("teamup")
X: int = DATA["pallet"]["x"]
Y: int = DATA["pallet"]["y"]
FLOORS: int = DATA["pallet"]["floors"]          # the complete floors of a perfect pallet, the ones the score counts
COLUMNS = X * Y
SHAPES: dict[str, tuple[int, int, int]] = {s: tuple(size) for s, size in DATA["shapes"].items()}
NEUTRAL: str = DATA["neutral"]["shape"]
NEUTRAL_ORIENTATIONS: tuple[tuple[int, int, int], ...] = tuple(tuple(o) for o in DATA["neutral"]["orientations"])
COLOURS: tuple[str, ...] = tuple(DATA["colours"])
COPIES: int = DATA["copies"]
PACKAGES = len(SHAPES) * len(COLOURS) * COPIES                  # 27, the neutral not counted
# The book's only limit above the pallet is that nothing hangs in the air, so the grid is as
# high as every piece stacked on one another could reach: the neutral standing on its
# longest side and every package on top (3 + 27 = 30 floors). No placement the rules allow
# is ever refused for want of room.
HEIGHT = max(o[2] for o in NEUTRAL_ORIENTATIONS) + COPIES * len(COLOURS) * sum(s[2] for s in SHAPES.values())
CELLS = COLUMNS * HEIGHT
CARD_KIND: dict[int, str] = {c["number"]: c["kind"] for c in DATA["cards"]}
CARD_NUMBERS: tuple[int, ...] = tuple(sorted(CARD_KIND))
PER_FLOOR: int = DATA["scoring"]["per_floor"]
PER_PACKAGE_LEFT: int = DATA["scoring"]["per_package_left"]
PER_FACE_DOWN: int = DATA["scoring"]["per_face_down_card"]
BEST = FLOORS * PER_FLOOR                                        # 25: a perfect pallet

# the colours' names in the texts' colour table (a player reads "red", "Rot", "rouge", "rosso")
COLOUR_NAME = {"R": "red", "BL": "blue", "W": "white"}
_SHAPE_CODES = frozenset(SHAPES) | {"N"}
_COLOUR_ALIASES = {**{c.lower(): c for c in COLOURS}, **{name: code for code, name in COLOUR_NAME.items()}}


class Package(NamedTuple):
    shape: str
    colour: str | None
    x: int
    y: int
    z: int
    dx: int
    dy: int
    dz: int


@dataclass(frozen=True)
class CardKind:
    """What an order card asks for: a package of one of ``shapes`` in one of ``colours``."""

    name: str
    shapes: tuple[str, ...]
    colours: tuple[str, ...]

    def allows(self, shape: str, colour: str | None) -> bool:
        return shape in self.shapes and colour in self.colours


KINDS: dict[str, CardKind] = {
    name: CardKind(name, tuple(k.get("shapes", SHAPES)), tuple(k.get("colours", COLOURS)))
    for name, k in DATA["card_kinds"].items()}


def kind_of_card(number: int) -> CardKind:
    return KINDS[CARD_KIND[number]]


# === the pallet ==========================================================================================

def cell(x: int, y: int, z: int) -> int:
    return x + X * y + COLUMNS * z


@lru_cache(maxsize=4096)
def box_cells(x: int, y: int, z: int, dx: int, dy: int, dz: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """A box inside the pallet: its cells, the cells right under its underside (empty on
    the pallet's floor), and the cells beside it sharing a face with it (its four sides;
    above it there is never a package, as nothing hangs in the air, and under it is
    ``below``)."""
    inside = tuple(cell(i, j, k) for k in range(z, z + dz) for j in range(y, y + dy) for i in range(x, x + dx))
    below = tuple(cell(i, j, z - 1) for j in range(y, y + dy) for i in range(x, x + dx)) if z > 0 else ()
    beside = []
    for k in range(z, z + dz):
        for j in range(y, y + dy):
            if x > 0:
                beside.append(cell(x - 1, j, k))
            if x + dx < X:
                beside.append(cell(x + dx, j, k))
        for i in range(x, x + dx):
            if y > 0:
                beside.append(cell(i, y - 1, k))
            if y + dy < Y:
                beside.append(cell(i, y + dy, k))
    return inside, below, tuple(beside)


class Pallet:
    """The packages on the pallet, indexed for the placement checks: which package fills
    each cell, how high each column stands, how many of each package are used."""

    __slots__ = ("placed", "owner", "heights", "used", "neutral")

    def __init__(self, placed: Sequence[Package]) -> None:
        self.placed = tuple(placed)
        self.owner = [-1] * CELLS
        self.heights = [0] * COLUMNS
        self.used: Counter[tuple[str, str | None]] = Counter()
        self.neutral = False
        for index, p in enumerate(self.placed):
            for c in box_cells(p.x, p.y, p.z, p.dx, p.dy, p.dz)[0]:
                self.owner[c] = index
                column = c % COLUMNS
                self.heights[column] = max(self.heights[column], c // COLUMNS + 1)
            if p.shape == NEUTRAL:
                self.neutral = True
            else:
                self.used[(p.shape, p.colour)] += 1

    def left(self, shape: str, colour: str) -> int:
        return COPIES - self.used[(shape, colour)]

    def complete_floors(self) -> int:
        """The complete floors, counted up to a perfect pallet's five: the pieces fill
        exactly five floors (108 cells of packages and the neutral's 12 make 5 × 24), so a
        floor above the fifth is never complete; a package up there counts as placed."""
        return sum(1 for z in range(FLOORS) if all(o >= 0 for o in self.owner[z * COLUMNS:(z + 1) * COLUMNS]))


@lru_cache(maxsize=64)
def _pallet(placed: tuple[Package, ...]) -> Pallet:
    return Pallet(placed)


_LAST: tuple[object, Pallet | None] = (None, None)       # the last tuple asked for and its pallet (held: its id stays its own)


def pallet_of(placed: Iterable[Sequence[Any]]) -> Pallet:
    """The indexed pallet for ``placed`` (cached: the checks of one turn share it, and a
    game's own tuple of packages is recognised at once)."""
    global _LAST
    last = _LAST
    if placed is last[0] and last[1] is not None:
        return last[1]
    pallet = _pallet(tuple(as_package(p) for p in placed))
    if isinstance(placed, tuple):                # a list may change under the same id: not kept
        _LAST = (placed, pallet)
    return pallet


def colour_of(p: Package) -> str:
    """The colour of a package a card asks for: every one but the neutral package, which
    has none and lies first on every pallet."""
    if p.colour is None:
        raise ValueError(f"the neutral package has no colour: {p}")
    return p.colour


def as_package(p: Sequence[Any]) -> Package:
    """A package from a tuple or list (a log, a test); the colour's long name is accepted."""
    if type(p) is Package:
        return p
    if not isinstance(p, (tuple, list)) or len(p) != 8:
        raise IllegalAction("teamup_bad_package", text=str(p))
    shape, colour, x, y, z, dx, dy, dz = p
    for n in (x, y, z, dx, dy, dz):
        if type(n) is not int:                   # not a bool, not a float
            raise IllegalAction("teamup_bad_package", text=str(p))
    if shape not in _SHAPE_CODES:
        shape = str(shape).strip().upper()
    if colour not in COLOURS and isinstance(colour, str):
        colour = _COLOUR_ALIASES.get(colour.strip().lower(), colour)
    return Package(shape, colour, x, y, z, dx, dy, dz)


def placement_problem(pallet: Pallet, p: Package) -> tuple[str, dict[str, Any]] | None:
    """Why ``p`` may not go on the pallet, as a text key and its parameters; None when it may."""
    if p.shape == NEUTRAL:
        return _neutral_problem(pallet, p)
    return _package_problem(pallet, p) or _space_problem(pallet, p)


def _package_problem(pallet: Pallet, p: Package) -> tuple[str, dict[str, Any]] | None:
    """What is wrong with a coloured package wherever it goes: its shape, size, colour, the
    neutral not yet down, none of it left."""
    size = SHAPES.get(p.shape)
    if size is None:
        return "teamup_unknown_shape", {"text": str(p.shape)}
    if (p.dx, p.dy, p.dz) not in _TURNS[p.shape]:
        return "teamup_wrong_size", {"shape": p.shape, "size": "×".join(map(str, size)),
                                     "shown": f"{p.dx}×{p.dy}×{p.dz}"}
    if p.dz != size[2]:
        return "teamup_colour_up", {}
    if p.colour not in COLOURS:
        return "teamup_unknown_colour", {"text": str(p.colour)}
    if not pallet.neutral:
        return "teamup_neutral_first", {}
    if pallet.used[(p.shape, p.colour)] >= COPIES:
        return "teamup_none_left", {"shape": p.shape, "colour": COLOUR_NAME[p.colour]}
    return None


def _neutral_problem(pallet: Pallet, p: Package) -> tuple[str, dict[str, Any]] | None:
    if pallet.neutral:
        return "teamup_neutral_twice", {}
    if (p.dx, p.dy, p.dz) not in NEUTRAL_ORIENTATIONS or p.colour is not None:
        return "teamup_wrong_size", {"shape": NEUTRAL, "size": "×".join(map(str, NEUTRAL_ORIENTATIONS[0])),
                                     "shown": f"{p.dx}×{p.dy}×{p.dz}"}
    if p.z != 0 or p.x not in (0, X - p.dx) or p.y not in (0, Y - p.dy):
        return "teamup_neutral_corner", {}
    return _space_problem(pallet, p)


def _space_problem(pallet: Pallet, p: Package) -> tuple[str, dict[str, Any]] | None:
    """The rules of the space itself: the edge, overlap, support, touch, clones."""
    if p.x < 0 or p.y < 0 or p.z < 0 or p.x + p.dx > X or p.y + p.dy > Y:
        return "teamup_off_pallet", {}
    if p.z + p.dz > HEIGHT:                      # higher than all the pieces stacked: nothing under it
        return "teamup_overhang", {}
    inside, below, beside = box_cells(p.x, p.y, p.z, p.dx, p.dy, p.dz)
    owner = pallet.owner
    for c in inside:                             # plain loops: this is the hot path of every check
        if owner[c] >= 0:
            return "teamup_overlap", {}
    for c in below:
        if owner[c] < 0:
            return "teamup_overhang", {}
    if pallet.placed and not below:              # one resting on packages touches them already
        for c in beside:
            if owner[c] >= 0:
                break
        else:
            return "teamup_no_touch", {}
    clone = clone_of(pallet, p)
    if clone is not None:
        return "teamup_clone", {"shape": p.shape, "colour": COLOUR_NAME.get(pallet.placed[clone].colour or "", "")}
    return None


def clone_of(pallet: Pallet, p: Package) -> int | None:
    """The index of a package of the same shape that ``p`` would touch with an identical
    face fully in contact (side by side along a whole equal face, or stacked exactly)."""
    px1, py1, pz1 = p.x + p.dx, p.y + p.dy, p.z + p.dz
    for index, q in enumerate(pallet.placed):
        if q.shape != p.shape:
            continue
        qx1, qy1, qz1 = q.x + q.dx, q.y + q.dy, q.z + q.dz
        same_x = q.x == p.x and qx1 == px1
        same_y = q.y == p.y and qy1 == py1
        same_z = q.z == p.z and qz1 == pz1
        if same_y and same_z and (qx1 == p.x or px1 == q.x):
            return index
        if same_x and same_z and (qy1 == p.y or py1 == q.y):
            return index
        if same_x and same_y and (qz1 == p.z or pz1 == q.z):
            return index
    return None


def placement_error(placed: Sequence[Sequence[Any]], package: Sequence[Any]) -> str | None:
    """None when ``package`` may be placed on the pallet holding ``placed`` (the neutral
    first); else the reason, as a player reads it (in English; the table shows it in the
    screen's language)."""
    try:
        problem = placement_problem(pallet_of(placed), as_package(package))
    except IllegalAction as refusal:
        return str(refusal)
    return None if problem is None else texts.render("en", problem[0], problem[1])


def orientations(shape: str) -> tuple[tuple[int, int, int], ...]:
    """The ways a package may lie: coloured ones turn a quarter about the vertical axis."""
    if shape == NEUTRAL:
        return NEUTRAL_ORIENTATIONS
    dx, dy, dz = SHAPES[shape]
    return ((dx, dy, dz),) if dx == dy else ((dx, dy, dz), (dy, dx, dz))


# every way a package's size can be written (turned any way): what is not one is the wrong size
_TURNS = {s: frozenset({(a, b, c), (a, c, b), (b, a, c), (b, c, a), (c, a, b), (c, b, a)})
          for s, (a, b, c) in SHAPES.items()}


def resting_floor(pallet: Pallet, x: int, y: int, dx: int, dy: int) -> int:
    """The floor a package over these columns comes to rest on: the top of the highest."""
    heights = pallet.heights
    top = 0
    for j in range(max(0, y), min(Y, y + dy)):      # plain loops: every place a card is tried
        row = X * j
        for i in range(max(0, x), min(X, x + dx)):
            if heights[i + row] > top:
                top = heights[i + row]
    return top


def _resting_floors(pallet: Pallet, dx: int, dy: int) -> list[list[int]]:
    """``resting_floor`` of a dx × dy package at every place on the pallet, row by row (y,
    then x): the highest column of each row's windows, then of each window's rows."""
    heights = pallet.heights
    rows = [[max(heights[X * j + x:X * j + x + dx]) for x in range(X - dx + 1)] for j in range(Y)]
    return [[max(column) for column in zip(*rows[y:y + dy])] for y in range(Y - dy + 1)]


def fitting(pallet: Pallet, kind: CardKind) -> Iterator[Package]:
    """Every package the card allows that may be placed now, on the floor it would rest on:
    exactly those ``placement_problem`` accepts, the same rules asked in a cheaper order."""
    for shape in kind.shapes:
        colours = [c for c in kind.colours if pallet.left(shape, c) > 0]
        if not colours:
            continue
        for dx, dy, dz in orientations(shape):
            # Only the colour's own checks (known, one left) tell colours apart, and
            # ``colours`` holds only those that pass them: a place refused for one is
            # refused for all. And what is wrong with the package itself (its size, the
            # neutral not yet down) is wrong in every place: asked once, then only the
            # space's rules in each place. Proving that nothing fits (a card put face down)
            # is most of the time of replaying a game's log (`spieltisch bench`, resume).
            # (A card never asks for the neutral: it goes down first, by the rules' own hand.)
            if _package_problem(pallet, Package(shape, colours[0], 0, 0, 0, dx, dy, dz)) is not None:
                continue
            for y, row in enumerate(_resting_floors(pallet, dx, dy)):
                for x, z in enumerate(row):
                    if _space_problem(pallet, Package(shape, colours[0], x, y, z, dx, dy, dz)) is None:
                        for colour in colours:
                            yield Package(shape, colour, x, y, z, dx, dy, dz)


def lowest_fit(pallet: Pallet, kind: CardKind) -> Package | None:
    """The lowest place a package the card allows fits (the first found on that floor), or
    None: where the ghost starts, and the place a refused "face down" names (a place on top
    of the stack fits too, but the lower one is where the floors grow)."""
    return min(fitting(pallet, kind), key=lambda p: p.z, default=None)


def view_coordinates(turn: int, x: float, y: float) -> tuple[float, float]:
    """A point of the pallet as the screen's view, turned ``turn`` quarters, places it."""
    turn %= 4
    if turn == 0:
        return x, y
    if turn == 1:
        return y, X - x
    if turn == 2:
        return X - x, Y - y
    return Y - y, x


def screen_steps(turn: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """The pallet steps that move a package right and up on the screen, the view turned
    ``turn`` quarters (right: one more along the view's first axis; up: one less along its second)."""
    steps = (((1, 0), (0, -1)), ((0, 1), (1, 0)), ((-1, 0), (0, 1)), ((0, -1), (-1, 0)))
    return steps[turn % 4]


def score(pallet: Pallet, face_down: int) -> int:
    """5 per complete floor, −1 per package left, −1 per card turned face down."""
    left = PACKAGES - sum(pallet.used.values())
    return PER_FLOOR * pallet.complete_floors() + PER_PACKAGE_LEFT * left + PER_FACE_DOWN * face_down


def random_neutral(rng: random.Random) -> Package:
    """The neutral package in a random corner and a random orientation."""
    dx, dy, dz = rng.choice(NEUTRAL_ORIENTATIONS)
    return Package(NEUTRAL, None, rng.choice((0, X - dx)), rng.choice((0, Y - dy)), 0, dx, dy, dz)


def puzzle_neutral() -> Package:
    return as_package(DATA["puzzle"]["neutral"])

