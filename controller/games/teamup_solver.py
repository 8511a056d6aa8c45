"""The best score a Team UP! card order allows: a depth-first search over the cards in
order, with the bounds and the shortcuts that make it fast enough to use at the table.

What makes the search small:

- **Heights, not cells.** No package may overhang, so nothing ever has a hole under it: the
  pallet is a height per column, and a coloured package (one floor high) goes where the
  columns under it stand level, on the fifth floor and above it too (the book's only
  limit is the pallet's edge); no floor above the fifth can be completed (the pieces fill
  exactly five), so the ways to fill a floor are kept for the five only.
- **Colours are chosen at the end.** The placement rules never look at colours (the clone
  rule is about shapes), so the search only counts, per shape, the packages placed and,
  per shape and colour, those a colour card fixed; a line is possible exactly when no
  shape goes over 9 and no shape and colour over 3, and the colours of the packages placed
  for shape cards are handed out at the end. This removes a branching factor of up to 3.
- **A full floor can be filled in very few ways.** With the clone rule a 6 × 4 floor has 58
  fillings, a floor beside the upright neutral 15 (``FloorTilings``). Each floor keeps, as
  bits, the fillings its packages still allow; a floor with none left is lost, with every
  floor above it.
- **Bounds.** The floors still possible must find their packages in what is left, and the
  cards in order must bring them (a small flow from card kinds to shapes and colours), so
  the fewest cards to draw, and the face-downs on the way, are known (``bound``). A branch
  that cannot reach the score asked for is dropped.
- **The same pallet twice** (two orders of the same placements) is searched once: a table
  keyed by a Zobrist hash of the packages, the colour-card counts and the card reached.
- **Order**: low placements that fit snugly (against walls and higher columns) first; the
  highest score the bound allows is asked for first, by short restarts with the order
  shaken and then one full search, one point lower at a time (``solve``).

Cards after the point where the best line stops are not drawn: stopping is always an
option, so the score never falls below what the team has.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Sequence

from controller.games.teamup_pallet import (
    CARD_KIND, COLOURS, COLUMNS, COPIES, FLOORS, HEIGHT, KINDS, PER_FACE_DOWN, PER_FLOOR, PER_PACKAGE_LEFT, SHAPES,
    X, Y, Package, as_package, colour_of, orientations,
)

PER_SHAPE = COPIES * len(COLOURS)                 # 9 packages of each shape
SHAPE_LIST = tuple(SHAPES)
SHAPE_INDEX = {s: i for i, s in enumerate(SHAPE_LIST)}
COLOUR_INDEX = {c: i for i, c in enumerate(COLOURS)}
TOTAL_PACKAGES = PER_SHAPE * len(SHAPE_LIST)


@dataclass(frozen=True)
class Footprint:
    """A place a package of one shape may take on the pallet, one orientation."""

    shape: int
    x: int
    y: int
    dx: int
    dy: int
    columns: tuple[int, ...]
    around: tuple[int, ...]                   # columns sharing a side with it (for touch at floor 0)
    sides: tuple[tuple[int, int, int], ...]   # per side with a neighbour: (column, axis, at) for the clone rule
    rim: tuple[int, ...]                      # per unit of its outline: the column outside, −1 for the pallet's edge
    index: int


def _footprints() -> list[Footprint]:
    out: list[Footprint] = []
    for s, shape in enumerate(SHAPE_LIST):
        for dx, dy, _ in orientations(shape):
            for y in range(Y - dy + 1):
                for x in range(X - dx + 1):
                    columns = tuple(i + X * j for j in range(y, y + dy) for i in range(x, x + dx))
                    rim = []
                    for j in range(y, y + dy):
                        rim.append(x - 1 + X * j if x > 0 else -1)
                        rim.append(x + dx + X * j if x + dx < X else -1)
                    for i in range(x, x + dx):
                        rim.append(i + X * (y - 1) if y > 0 else -1)
                        rim.append(i + X * (y + dy) if y + dy < Y else -1)
                    sides = []
                    if x > 0:
                        sides.append((x - 1 + X * y, 0, x))          # the neighbour's far x must be our x
                    if x + dx < X:
                        sides.append((x + dx + X * y, 1, x + dx))
                    if y > 0:
                        sides.append((x + X * (y - 1), 2, y))
                    if y + dy < Y:
                        sides.append((x + X * (y + dy), 3, y + dy))
                    out.append(Footprint(s, x, y, dx, dy, columns, tuple(c for c in rim if c >= 0), tuple(sides),
                                         tuple(rim), len(out)))
    return out


FOOTPRINTS = _footprints()
FOOTPRINT_AT = {(f.shape, f.x, f.y, f.dx, f.dy): f for f in FOOTPRINTS}
BY_SHAPE = [[f for f in FOOTPRINTS if f.shape == s] for s in range(len(SHAPE_LIST))]
_ZOBRIST_RNG = random.Random(20261122)
Z_PLACE = [[_ZOBRIST_RNG.getrandbits(64) for _ in range(HEIGHT)] for _ in FOOTPRINTS]
Z_FIXED = [[_ZOBRIST_RNG.getrandbits(64) for _ in range(COPIES + 1)] for _ in range(len(SHAPE_LIST) * len(COLOURS))]


@dataclass
class Solution:
    score: int
    moves: list[Package | None]
    proven: bool                  # the search finished: no line does better
    nodes: int
    seconds: float | None         # by the clock given, if one was


class _Search:
    def __init__(self, kinds: Sequence[str], neutral: Package, deadline: float) -> None:
        self.kinds = [KINDS[k] for k in kinds]
        self.deadline = deadline
        self.clock: Any = None                 # a wall clock, when the caller gives one
        self.heights = [0] * COLUMNS
        self.owner = [-1] * (COLUMNS * HEIGHT)
        # per package: shape index (−1 neutral), x0, y0, z0, x1, y1
        self.boxes: list[tuple[int, int, int, int, int, int]] = [(-1, neutral.x, neutral.y, neutral.z,
                                                                   neutral.x + neutral.dx, neutral.y + neutral.dy)]
        for k in range(neutral.z, neutral.z + neutral.dz):
            for j in range(neutral.y, neutral.y + neutral.dy):
                for i in range(neutral.x, neutral.x + neutral.dx):
                    self.owner[i + X * j + COLUMNS * k] = 0
                    self.heights[i + X * j] = max(self.heights[i + X * j], k + 1)
        # per floor, the ways to fill it that the packages on it still allow (a bit each)
        self.floor_tilings = tilings_for(neutral)
        self.open = [(1 << len(t.tilings)) - 1 for t in self.floor_tilings]
        self.lost = min([FLOORS] + [z for z in range(FLOORS) if not self.open[z]])
        self.undo: list[tuple[int, int, int]] = []
        self.total = [0] * len(SHAPE_LIST)                    # packages placed per shape
        self.fixed = [0] * (len(SHAPE_LIST) * len(COLOURS))   # placed for colour cards, per shape and colour
        self.placed = 0
        self.face_down = 0
        self.hash = 0
        self.line: list[tuple[Footprint, int, int] | None] = []   # per card: (footprint, floor, colour or −1)
        self.best = self.now()
        self.best_line: list[tuple[Footprint, int, int] | None] = []
        self.profiles: dict[tuple[int, tuple[int, ...], tuple[int, ...]], tuple[int, ...]] = {}
        self.needs_memo: dict[tuple[int, int, tuple[int, ...]], set[tuple[int, ...]]] = {}
        self.cards_memo: dict[tuple[int, tuple[int, ...], tuple[int, ...]], int] = {}
        self.on_floor = [[0] * len(SHAPE_LIST) for _ in range(FLOORS)]
        self.before: list[tuple[int, int]] = []           # packages on the pallet before the search
        self.noise = 0.0
        self.rng = random.Random(1)
        self.node_limit = 1 << 62
        self.seen: dict[tuple[int, int], int] = {}
        self.nodes = 0
        self.timed_out = False

    # -- the score --------------------------------------------------------------------------------
    def floors(self) -> int:
        return min(self.heights)

    def now(self) -> int:
        return (PER_FLOOR * self.floors() + PER_PACKAGE_LEFT * (TOTAL_PACKAGES - self.placed)
                + PER_FACE_DOWN * self.face_down)

    def _shapes_for(self, kind: Any) -> list[tuple[int, int]]:
        """(shape, colour index or −1) the card may still take, by the counts."""
        out = []
        colour_card = len(kind.colours) == 1
        c = COLOUR_INDEX[kind.colours[0]] if colour_card else -1
        for shape in kind.shapes:
            s = SHAPE_INDEX[shape]
            if self.total[s] >= PER_SHAPE:
                continue
            if colour_card and self.fixed[s * len(COLOURS) + c] >= COPIES:
                continue
            out.append((s, c))
        return out

    def bound(self, k: int) -> int:
        """No line from here scores more than this. A line draws m more cards, places q of
        them and turns m − q face down, and completes f floors: 5·f − (27 − placed − q) −
        (face down so far + m − q). For the floors: each one up to f needs one of the ways
        to fill it that are still open, and together they must not need more packages of a
        shape than are left; the cards must bring those packages (a matching of the cards,
        in order, to the packages), which fixes the fewest cards m to draw for them. For q:
        the most packages the first m cards can take."""
        gain = self._gain_after(k)                 # per m: the most 2·q − m from m cards on
        floors = self.floors()
        base = PER_PACKAGE_LEFT * (TOTAL_PACKAGES - self.placed) + PER_FACE_DOWN * self.face_down
        best = PER_FLOOR * floors + base + gain[0]
        left = tuple(PER_SHAPE - t for t in self.total)
        layer = {(0,) * len(SHAPE_LIST)}
        for z in range(floors, self.lost):
            options = self._needs(z)
            layer = {tuple(a + b for a, b in zip(acc, need)) for acc in layer for need in options}
            layer = {acc for acc in layer if all(a <= room for a, room in zip(acc, left))}
            if not layer:
                break
            drawn = min(self._cards_for(k, need) for need in layer)
            if drawn < len(gain):
                best = max(best, PER_FLOOR * (z + 1) + base + gain[drawn])
        return best

    def _needs(self, z: int) -> set[tuple[int, ...]]:
        """The packages per shape each open way to fill floor ``z`` still needs."""
        key = (z, self.open[z], tuple(self.on_floor[z]))
        found = self.needs_memo.get(key)
        if found is None:
            t = self.floor_tilings[z]
            mask, found = self.open[z], set()
            while mask:
                bit = mask & -mask
                counts = t.counts[bit.bit_length() - 1]
                found.add(tuple(c - have for c, have in zip(counts, self.on_floor[z])))
                mask ^= bit
            self.needs_memo[key] = found
        return found

    def _cards_for(self, k: int, need: tuple[int, ...]) -> int:
        """The fewest cards from card ``k`` on that bring these packages; a number past the
        cards left when they cannot."""
        key = (k, need, tuple(self.fixed))
        found = self.cards_memo.get(key)
        if found is None:
            want = sum(need)
            found = 1 << 20
            if want == 0:
                found = 0
            else:
                network = _network(tuple(PER_SHAPE - n for n in need), self.fixed)
                got = 0
                for i, kind in enumerate(self.kinds[k:]):
                    network.capacity[("source", kind.name)] += 1
                    if network.augment():
                        got += 1
                        if got == want:
                            found = i + 1
                            break
            self.cards_memo[key] = found
        return found

    def _gain_after(self, k: int) -> list[int]:
        """Per number m of cards drawn from card ``k`` on: the most 2·q − m for any m' ≥ m,
        q the packages the first m' cards can take."""
        profile = self._cards_needed(k)
        cards = len(self.kinds) - k
        q, gains = 0, []
        for m in range(cards + 1):
            while q + 1 < len(profile) and profile[q + 1] <= m:
                q += 1
            gains.append(2 * q - m)
        for m in range(cards - 1, -1, -1):
            gains[m] = max(gains[m], gains[m + 1])
        return gains

    def _cards_needed(self, k: int) -> tuple[int, ...]:
        """For q = 0, 1, ...: the fewest cards from card ``k`` on that can take q of the
        packages left (a maximum matching, grown card by card); as far as any can."""
        key = (k, tuple(self.total), tuple(self.fixed))
        found = self.profiles.get(key)
        if found is None:
            found = _matching_profile(self.kinds[k:], self.total, self.fixed)
            self.profiles[key] = found
        return found

    # -- the moves --------------------------------------------------------------------------------
    def candidates(self, kind: Any) -> list[tuple[int, Footprint, int, int]]:
        heights, owner, boxes = self.heights, self.owner, self.boxes
        out = []
        for s, colour in self._shapes_for(kind):
            for f in BY_SHAPE[s]:
                cols = f.columns
                h = heights[cols[0]]
                if any(heights[c] != h for c in cols):
                    continue
                if h == 0:
                    if not any(heights[c] for c in f.around):
                        continue                                        # touches nothing
                else:
                    q = boxes[owner[cols[0] + COLUMNS * (h - 1)]]      # stacked exactly on its twin
                    if q[0] == s and q[1] == f.x and q[2] == f.y and q[4] == f.x + f.dx and q[5] == f.y + f.dy:
                        continue
                if self._side_clone(f, h):
                    continue
                snug = sum(1 for c in f.rim if c < 0 or heights[c] > h)
                out.append((h * 100 - snug * 4, f, h, colour))
        if self.noise:                 # a restart: the same preferences, shaken
            rng = self.rng
            out.sort(key=lambda t: t[0] + rng.random() * self.noise)
        else:
            out.sort(key=lambda t: (t[0], t[1].index))
        return out

    def _side_clone(self, f: Footprint, h: int) -> bool:
        owner, boxes = self.owner, self.boxes
        for column, axis, _at in f.sides:
            index = owner[column + COLUMNS * h]
            if index < 0:
                continue
            q = boxes[index]
            if q[0] != f.shape or q[3] != h:
                continue
            if axis < 2 and q[2] == f.y and q[5] == f.y + f.dy:     # beside along x, the same y extent
                return True
            if axis >= 2 and q[1] == f.x and q[4] == f.x + f.dx:
                return True
        return False

    def add(self, p: Package) -> None:
        """A package already on the pallet (its colour is known: it counts as fixed)."""
        f = FOOTPRINT_AT[(SHAPE_INDEX[p.shape], p.x, p.y, p.dx, p.dy)]
        self.place(f, p.z, COLOUR_INDEX[colour_of(p)])
        self.before.append((f.shape, COLOUR_INDEX[colour_of(p)]))

    def place(self, f: Footprint, h: int, colour: int) -> None:
        index = len(self.boxes)
        self.boxes.append((f.shape, f.x, f.y, h, f.x + f.dx, f.y + f.dy))
        base = COLUMNS * h
        for c in f.columns:
            self.owner[c + base] = index
            self.heights[c] = h + 1
        if h < FLOORS:          # above the fifth floor no floor can be completed: nothing to keep
            above = self.open[h + 1] if h + 1 < FLOORS else 0
            self.undo.append((self.lost, self.open[h], above))
            self.open[h] &= self.floor_tilings[h].containing[f.index]
            if not self.open[h]:
                self.lost = min(self.lost, h)
            if h + 1 < FLOORS:                 # the floor above may not have its twin exactly on it
                self.open[h + 1] &= ~self.floor_tilings[h + 1].containing[f.index]
                if not self.open[h + 1]:
                    self.lost = min(self.lost, h + 1)
            self.on_floor[h][f.shape] += 1
        self.total[f.shape] += 1
        self.placed += 1
        self.hash ^= Z_PLACE[f.index][h]
        if colour >= 0:
            slot = f.shape * len(COLOURS) + colour
            self.hash ^= Z_FIXED[slot][self.fixed[slot]] ^ Z_FIXED[slot][self.fixed[slot] + 1]
            self.fixed[slot] += 1

    def remove(self, f: Footprint, h: int, colour: int) -> None:
        self.boxes.pop()
        base = COLUMNS * h
        for c in f.columns:
            self.owner[c + base] = -1
            self.heights[c] = h
        if h < FLOORS:
            self.lost, self.open[h], above = self.undo.pop()
            if h + 1 < FLOORS:
                self.open[h + 1] = above
            self.on_floor[h][f.shape] -= 1
        self.total[f.shape] -= 1
        self.placed -= 1
        self.hash ^= Z_PLACE[f.index][h]
        if colour >= 0:
            slot = f.shape * len(COLOURS) + colour
            self.hash ^= Z_FIXED[slot][self.fixed[slot]] ^ Z_FIXED[slot][self.fixed[slot] - 1]
            self.fixed[slot] -= 1

    # -- the search -------------------------------------------------------------------------------
    def run(self, k: int, target: int) -> bool:
        """Depth first from card ``k`` for a line scoring at least ``target``; True when
        one is found (it is then the best line), False when there is none from here (or the
        time ran out)."""
        self.nodes += 1
        if self.nodes > self.node_limit or (self.nodes & 255 == 0 and self.clock is not None and \
                self.clock() > self.deadline):
            self.timed_out = True
        if self.timed_out:
            return False
        score = self.now()
        if score > self.best:                      # stopping here is always allowed
            self.best = score
            self.best_line = list(self.line)
        if self.best >= target:
            return True
        if k >= len(self.kinds) or self.placed == TOTAL_PACKAGES or self.bound(k) < target:
            return False
        key = (self.hash, k)
        if self.seen.get(key, 1 << 30) <= self.face_down:
            return False
        moves = self.candidates(self.kinds[k])
        if not moves:
            self.face_down += 1
            self.line.append(None)
            found = self.run(k + 1, target)
            self.line.pop()
            self.face_down -= 1
            if found:
                return True
        for _, f, h, colour in moves:
            self.place(f, h, colour)
            self.line.append((f, h, colour))
            found = self.run(k + 1, target)
            self.line.pop()
            self.remove(f, h, colour)
            if found:
                return True
            if self.timed_out:
                return False
        if not self.timed_out:
            self.seen[key] = self.face_down
        return False

    def dive(self) -> None:
        """One line by the ordering alone, for a first best (stopping where it scored most)."""
        k, steps = 0, []
        while k < len(self.kinds) and self.placed < TOTAL_PACKAGES:
            moves = self.candidates(self.kinds[k])
            step = moves[0][1:] if moves else None
            if step is None:
                self.face_down += 1
            else:
                self.place(*step)
            steps.append(step)
            self.line.append(step)
            if self.now() > self.best:
                self.best, self.best_line = self.now(), list(self.line)
            k += 1
        for step in reversed(steps):
            self.line.pop()
            if step is None:
                self.face_down -= 1
            else:
                self.remove(*step)

    def packages(self) -> list[Package | None]:
        """The best line with the colours handed out: colour cards' own, the rest from what is left."""
        room = [[COPIES] * len(COLOURS) for _ in SHAPE_LIST]
        for shape, colour in self.before:
            room[shape][colour] -= 1
        for step in self.best_line:
            if step is not None and step[2] >= 0:
                room[step[0].shape][step[2]] -= 1
        out: list[Package | None] = []
        for step in self.best_line:
            if step is None:
                out.append(None)
                continue
            f, h, colour = step
            if colour < 0:
                colour = max(range(len(COLOURS)), key=lambda c: (room[f.shape][c], -c))
                room[f.shape][colour] -= 1
            out.append(Package(SHAPE_LIST[f.shape], COLOURS[colour], f.x, f.y, h, f.dx, f.dy, 1))
        return out


STARTS = [[f for f in FOOTPRINTS if f.columns[0] == c] for c in range(COLUMNS)]


def _twins_beside(f: Footprint, g: Footprint) -> bool:
    """Two packages of one shape on one floor side by side along a whole equal face."""
    if f.shape != g.shape:
        return False
    if f.y == g.y and f.dy == g.dy and (f.x + f.dx == g.x or g.x + g.dx == f.x):
        return True
    return f.x == g.x and f.dx == g.dx and (f.y + f.dy == g.y or g.y + g.dy == f.y)


def _matching_profile(kinds: Sequence[Any], total: Sequence[int], fixed: Sequence[int]) -> tuple[int, ...]:
    """``out[q]``: how many of ``kinds`` (in order) must be drawn before q of the packages
    left can be matched to them, as far as any can. A flow: each card drawn to its kind, a
    shape card's kind to its shapes, a colour card's kind to each shape through that
    shape-and-colour's room (3 minus those colour cards fixed), each shape to the end with
    room for 9 minus those placed. A card drawn grows the flow by at most one path."""
    network = _network(total, fixed)
    out = [0]
    for i, kind in enumerate(kinds):
        network.capacity[("source", kind.name)] += 1
        if network.augment():
            out.append(i + 1)
    return tuple(out)


class _Network:
    def __init__(self) -> None:
        self.capacity: dict[tuple[Any, Any], int] = {}
        self.edges: dict[Any, list[Any]] = {}

    def add(self, a: Any, b: Any, capacity: int) -> None:
        self.capacity[(a, b)] = self.capacity.get((a, b), 0) + capacity
        self.capacity.setdefault((b, a), 0)
        self.edges.setdefault(a, []).append(b)
        self.edges.setdefault(b, []).append(a)

    def augment(self) -> bool:
        """One more unit from source to sink along a path with room, if there is one."""
        came: dict[str, str | None] = {"source": None}
        todo = ["source"]
        while todo:
            node = todo.pop()
            for nxt in self.edges[node]:
                if nxt not in came and self.capacity[(node, nxt)] > 0:
                    came[nxt] = node
                    if nxt == "sink":
                        while came[nxt] is not None:
                            prev = came[nxt]
                            self.capacity[(prev, nxt)] -= 1
                            self.capacity[(nxt, prev)] += 1
                            nxt = prev
                        return True
                    todo.append(nxt)
        return False


_MANY = 1 << 20


def _network(total: Sequence[int], fixed: Sequence[int]) -> _Network:
    """The flow network for the packages left (``total`` placed per shape, ``fixed`` colour
    cards per shape and colour): the shape of the network is always the same, so it is
    built once and only its capacities copied (building it was a fifth of a bot's thinking)."""
    template = _network_template()
    net = _Network()
    net.edges = template.edges                     # shared: augment only reads the edges
    net.capacity = dict(template.capacity)
    for s in range(len(SHAPE_LIST)):
        for c in range(len(COLOURS)):
            net.capacity[(("pair", s, c), ("shape", s))] = COPIES - fixed[s * len(COLOURS) + c]
        net.capacity[(("shape", s), "sink")] = PER_SHAPE - total[s]
    return net


@lru_cache(maxsize=1)
def _network_template() -> _Network:
    """The network with nothing placed and no colour card fixed; ``_network_built`` builds it."""
    return _network_built((0,) * len(SHAPE_LIST), (0,) * (len(SHAPE_LIST) * len(COLOURS)))


def _network_built(total: Sequence[int], fixed: Sequence[int]) -> _Network:
    net = _Network()
    for name, kind in KINDS.items():
        net.add("source", name, 0)
        if len(kind.colours) == 1:
            c = COLOUR_INDEX[kind.colours[0]]
            for shape in kind.shapes:
                net.add(name, ("pair", SHAPE_INDEX[shape], c), _MANY)
        else:
            for shape in kind.shapes:
                net.add(name, ("shape", SHAPE_INDEX[shape]), _MANY)
    for s in range(len(SHAPE_LIST)):
        for c in range(len(COLOURS)):
            net.add(("pair", s, c), ("shape", s), COPIES - fixed[s * len(COLOURS) + c])
        net.add(("shape", s), "sink", PER_SHAPE - total[s])
    return net


@dataclass(frozen=True)
class FloorTilings:
    """Every way to fill one floor with packages and no clone among them (a full 6 × 4 floor
    has 58; a floor beside the upright neutral package 15), and for each footprint the
    ways that use it, as bits."""

    tilings: tuple[tuple[int, ...], ...]           # footprint indices
    counts: tuple[tuple[int, ...], ...]            # packages per shape
    containing: tuple[int, ...]                    # per footprint: the bits of the tilings with it


@lru_cache(maxsize=16)
def _floor_tilings(blocked: frozenset[int]) -> FloorTilings:
    found: list[tuple[int, ...]] = []

    def fill(region: frozenset[int], trial: list[Footprint]) -> None:
        if not region:
            found.append(tuple(f.index for f in trial))
            return
        for f in STARTS[min(region)]:
            if region.issuperset(f.columns) and not any(_twins_beside(f, g) for g in trial):
                trial.append(f)
                fill(region.difference(f.columns), trial)
                trial.pop()

    fill(frozenset(range(COLUMNS)) - blocked, [])
    counts = tuple(tuple(sum(1 for i in t if FOOTPRINTS[i].shape == s) for s in range(len(SHAPE_LIST)))
                   for t in found)
    containing = [0] * len(FOOTPRINTS)
    for bit, tiling in enumerate(found):
        for i in tiling:
            containing[i] |= 1 << bit
    return FloorTilings(tuple(found), counts, tuple(containing))


def tilings_for(neutral: Package) -> list[FloorTilings]:
    """The ways to fill each floor around the neutral package."""
    out = []
    for z in range(FLOORS):
        blocked = frozenset(i + X * j for j in range(neutral.y, neutral.y + neutral.dy)
                            for i in range(neutral.x, neutral.x + neutral.dx)) if z < neutral.z + neutral.dz else frozenset()
        out.append(_floor_tilings(blocked))
    return out


def _kinds(cards: Sequence[Any]) -> list[str]:
    out = []
    for card in cards:
        if isinstance(card, int) and not isinstance(card, bool):
            out.append(CARD_KIND[card])
        elif str(card).strip().upper() in KINDS:
            out.append(str(card).strip().upper())
        else:
            raise ValueError(f"{card!r} is neither a card number nor a card kind")
    return out


def solve(cards: Sequence[Any], neutral: Sequence[Any], time_limit: float, *, clock: Any = None,
          placed: Sequence[Any] = (), face_down: int = 0, nodes: int | None = None) -> Solution:
    """The best line for these cards (numbers or kinds) from this neutral package.

    How long it searches: ``nodes`` steps when given; else ``time_limit`` seconds by
    ``clock`` (a wall clock such as ``time.monotonic``) when given; else about
    ``time_limit`` seconds counted in steps (``STEPS_PER_SECOND``, measured on the
    development machine), so that without a clock the answer is the same on every machine
    and the rules core stays free of clocks. With ``nodes`` and a ``clock`` both, the steps
    decide and ``time_limit`` by the clock is only a safety bound: a machine far slower
    than expected stops there (the answer then unproven) rather than keep a table waiting. ``placed`` and ``face_down``: a game under
    way, the packages on the pallet after the neutral and the cards turned face down so far.

    After a first line by the ordering alone, it asks for ever lower scores, from the most
    the bound allows down to one more than the best line so far; the first score a line is
    found for is the best, proven so when the searches for every higher score ran to the
    end. Each score gets a share of what is left: short searches with the ordering shaken
    (restarts, each allowed more nodes than the last, so that an early choice which dooms
    everything under it is left soon), then one full search, which finds a line or proves
    there is none."""
    if nodes is None and clock is None:
        nodes = max(1, int(max(0.0, float(time_limit)) * STEPS_PER_SECOND))
    start = clock() if clock is not None else 0.0
    deadline = start + max(0.0, float(time_limit)) if clock is not None else float("inf")
    search = _Search(_kinds(cards), as_package(neutral), deadline)
    search.clock = clock
    for p in placed:
        search.add(as_package(p))
    search.face_down = face_down
    search.best, search.best_line = search.now(), []
    budget = None if nodes is None else search.nodes + nodes

    def used() -> float:
        if budget is not None and clock is not None and clock() > deadline:
            return budget                  # the safety bound: as if the steps were spent
        return clock() if budget is None else search.nodes

    end = deadline if budget is None else budget
    search.dive()
    proven = True
    most = target = search.bound(0)
    while target > search.best and used() < end:
        share = min(end, used() + max((end - used()) / TIME_SHARE, 0.02 if budget is None else 50))
        search.seen.clear()                # what the table knows holds for one score only
        limit, found = RESTART_NODES, False
        while not found and limit < FULL_SEARCH_NODES and used() < share:
            found = _attempt(search, target, share, limit, RESTART_NOISE, budget is not None)
            limit = int(limit * 1.6)
        if not found and used() < share:
            found = _attempt(search, target, share, 1 << 62, 0.0, budget is not None)
            if not found and search.timed_out:
                proven = False
        elif not found:
            proven = False
        if found:
            break
        target -= 1
    # a score given up on for want of its share may still be reached with what is left of
    # the budget: one full search for one point more either finds it or proves there is none
    while not proven and search.best < most and used() < end:
        search.seen.clear()
        if not _attempt(search, search.best + 1, end, 1 << 62, 0.0, budget is not None):
            proven = not search.timed_out
            break
    # proven: no score above the best is possible, by the bound or by searches run to the end
    proven = search.best >= most or (proven and search.best >= target)
    seconds = clock() - start if clock is not None else None
    return Solution(search.best, search.packages(), proven, search.nodes, seconds)


STEPS_PER_SECOND = 6000           # the search's steps a second on the development machine (bench: teamup)
TIME_SHARE = 4
RESTART_NODES = 400
FULL_SEARCH_NODES = 60_000
RESTART_NOISE = 60.0


def _attempt(search: _Search, target: int, share: float, nodes: int, noise: float, counting: bool) -> bool:
    """One search for ``target`` until ``share`` (a time, or a node count when ``counting``;
    then the clock's deadline set by ``solve``, if any, still holds)."""
    if counting:                           # the search's deadline stays the safety bound
        search.node_limit = min(search.nodes + nodes, int(share))
    else:
        search.deadline = share
        search.node_limit = search.nodes + nodes
    search.timed_out = False
    search.noise = noise
    return search.run(0, target)
