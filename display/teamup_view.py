"""Team UP! on the shared screen: the pallet in 3D (isometric, turnable in quarter turns),
the packages in their colours with their edges drawn, the ghost package of the player on
turn (solid edges and "fits" where it may go, dashed edges and the reason where not), the
card drawn large, the cards left and turned face down, the floors completed, the supply,
the players and the soft keys of the one on turn. At the end: the score, the best score
these cards allowed, and that best line built up step by step on request. A stack above the
fifth floor is drawn smaller, in the same space (``Projection``).

Colours are never the only difference: red packages carry a circle on top, blue ones a
square, white ones nothing; the card names its colour in words; the ghost's verdict is
written, and its edges are solid or dashed."""

from __future__ import annotations

import math
from typing import Any, Sequence

import pygame

from controller.games import texts
from controller.games.teamup_pallet import (
    CARD_KIND, COLOUR_NAME, COLOURS, DATA, FLOORS, KINDS, SHAPES, X, Y, as_package, pallet_of, puzzle_neutral, score,
    view_coordinates,
)
from display import draw
from display.draw import GOLD, INK, MUTED, RED

MAIN = pygame.Rect(0, 100, 1300, 980)
SIDE = pygame.Rect(1310, 20, 600, 1050)
CELL = 92                      # the side of a cell on the screen, a pallet up to five floors high
RISE = 66                      # the height of a floor, the same
MARK_SIZE = (40, 34)           # a floor's number up the pallet's left edge
COS, SIN = math.cos(math.radians(30)), math.sin(math.radians(30))
FILL = {"R": (196, 44, 40), "BL": (44, 96, 196), "W": (236, 234, 226), None: (176, 138, 92)}
GHOST_OK, GHOST_BAD = (60, 220, 90), (240, 60, 50)
EDGE = (20, 20, 20)
CARD_SIZE = (250, 300)
SUPPLY_HEIGHT = 170
MESSAGE_MIN_HEIGHT = 120
KEY_SIZE = (180, 52)


def shade(colour: tuple[int, int, int], factor: float) -> tuple[int, int, int]:
    return tuple(max(0, min(255, round(c * factor))) for c in colour)  # type: ignore[return-value]


class Projection:
    """Pallet cells (x, y, floor z) to screen points, for the view turned ``turn`` quarters.

    ``floors``: how high the view must reach. Up to the five floors of a perfect pallet it
    is drawn at full size; a stack above them is drawn smaller, so that the pallet and the
    stack fill the same space as five floors do (its front corner stays where it is, its
    top as high as a fifth floor reaches): nothing else on the screen moves."""

    def __init__(self, turn: int, floors: int = FLOORS) -> None:
        self.turn = turn % 4
        width, depth = (X, Y) if self.turn % 2 == 0 else (Y, X)
        self.width, self.depth = width, depth
        deep = (width + depth) * SIN                # the pallet's depth on the screen, in cells
        self.scale = min(1.0, (deep * CELL + FLOORS * RISE) / (deep * CELL + max(floors, FLOORS) * RISE))
        self.cell, self.rise = CELL * self.scale, RISE * self.scale
        front = MAIN.top + 38 + FLOORS * RISE + deep * CELL          # the front corner, at floor 0
        self.origin = (MAIN.centerx - (width + depth) * self.cell * COS / 2 + depth * self.cell * COS,
                       front - deep * self.cell)

    def point(self, u: float, v: float, z: float) -> tuple[int, int]:
        ox, oy = self.origin
        return round(ox + (u - v) * self.cell * COS), round(oy + (u + v) * self.cell * SIN - z * self.rise)

    def cell_uv(self, x: int, y: int) -> tuple[int, int]:
        corners = [view_coordinates(self.turn, x + i, y + j) for i in (0, 1) for j in (0, 1)]
        return round(min(c[0] for c in corners)), round(min(c[1] for c in corners))


TITLE = pygame.Rect(0, 0, MAIN.right, 100)


def floors_shown(placed: Sequence[Sequence[Any]], ghost: Sequence[Any] | None = None) -> int:
    """How high the view reaches: five floors, or the top of the highest package or of the ghost."""
    boxes = [as_package(p) for p in list(placed) + ([ghost] if ghost is not None else [])]
    return max([FLOORS] + [p.z + p.dz for p in boxes])


def package_cells(projection: Projection, placed: Sequence[Sequence[Any]]) -> dict[tuple[int, int, int], int]:
    """Each filled cell of the view, (u, v, floor), and the index of its package."""
    owner: dict[tuple[int, int, int], int] = {}
    for index, p in enumerate(placed):
        q = as_package(p)
        for k in range(q.z, q.z + q.dz):
            for j in range(q.y, q.y + q.dy):
                for i in range(q.x, q.x + q.dx):
                    owner[projection.cell_uv(i, j) + (k,)] = index
    return owner


def symbol_spots(projection: Projection, placed: Sequence[Sequence[Any]],
                 owner: dict[tuple[int, int, int], int]) -> dict[int, tuple[int, int] | None]:
    """Where each red or blue package shows its sign on its top: None when something stands on it."""
    spots: dict[int, tuple[int, int] | None] = {}
    for index, p in enumerate(placed):
        q = as_package(p)
        if q.colour not in ("R", "BL"):
            continue
        top_cells = [projection.cell_uv(i, j) for j in range(q.y, q.y + q.dy) for i in range(q.x, q.x + q.dx)]
        if any((u, v, q.z + q.dz) in owner for u, v in top_cells):
            spots[index] = None
            continue
        cu = sum(u for u, _ in top_cells) / len(top_cells) + 0.5
        cv = sum(v for _, v in top_cells) / len(top_cells) + 0.5
        spots[index] = projection.point(cu, cv, q.z + q.dz)
    return spots


def voxel_rect(projection: Projection, u: int, v: int, z: int) -> pygame.Rect:
    """Where a cell's faces and edges can be drawn on the screen (its corners' extremes, as
    ``Projection.point`` places them, and the edges' width)."""
    ox, oy = projection.origin
    cell, rise = projection.cell, projection.rise
    left, right = round(ox + (u - v - 1) * cell * COS), round(ox + (u - v + 1) * cell * COS)
    top, bottom = round(oy + (u + v) * cell * SIN - (z + 1) * rise), round(oy + (u + v + 2) * cell * SIN - z * rise)
    return pygame.Rect(left - 3, top - 3, right - left + 7, bottom - top + 7)


def pallet_region() -> pygame.Rect:
    """Where the pallet, its packages, the ghost and the floor numbers can be, however the
    view is turned: the part of the main area a move repaints (the verdict box under it is
    a part of its own)."""
    points = []
    for turn in range(4):
        p = Projection(turn)
        for u in (0, p.width):
            for v in (0, p.depth):
                for z in (0, FLOORS):
                    points.append(p.point(u, v, z))
    xs, ys = [x for x, _ in points], [y for _, y in points]
    box = pygame.Rect(min(xs) - 80, min(ys) - 12, max(xs) - min(xs) + 100, max(ys) - min(ys) + 40)
    return box.clip(MAIN)


class TeamUpView:
    def __init__(self, lang: str, *, live: bool = False) -> None:
        self.lang = lang
        self.names: list[str] = []
        self.regions = draw.Regions()         # the screen is repainted only where it changed
        self.overlaid = False
        self._pallet_image: tuple[Any, pygame.Surface] | None = None   # (what it shows, the drawing)
        self._pallet_shown: Any = None                # the pallet the canvas shows
        self._pallet_parts: tuple[int, list, int, int] | None = None   # what the pallet image shows: turn,
        #                                                                    packages, floors complete, floors shown
        self._over_pallet = pygame.Rect(0, 0, 0, 0)   # where the ghost and the verdict were drawn over it

    def t(self, key: str, **params: Any) -> str:
        return texts.render(self.lang, key, params, self.names)

    def cues(self, before: dict[str, Any], after: dict[str, Any]) -> list[str]:
        """A floor of the pallet completed."""
        return ["point"] if after["floors"] > before["floors"] else []

    def draw(self, surface: pygame.Surface, snap: Any) -> None:
        view = snap.view
        self.names = [s.name for s in snap.seats]
        pending = self._pending(snap)
        turn = pending.get("view_turn", 0)
        placed = view["placed"]
        hindsight = pending.get("hindsight") if snap.finished else None
        if hindsight is not None and pending.get("solution_step", 0) > 0:
            line = [p for p in hindsight["line"] if p is not None]
            placed = [view["placed"][0]] + line[:pending["solution_step"]]
        names = (self.lang, tuple(self.names))
        paint = self.regions.paint
        title = (snap.title, view["puzzle"], view["to_beat"], snap.finished, view["to_act"])
        paint(surface, "title", TITLE, names + title, lambda: self._title(surface, snap, view), draw.FELT_DARK)
        floors = view["floors"] if len(placed) == len(view["placed"]) else 0
        ghost = pending.get("ghost") if not snap.finished else None
        shown = floors_shown(placed, ghost)             # a stack above the fifth floor: drawn smaller
        projection = Projection(turn, shown)
        pallet_key = (turn, repr(placed), floors, shown)
        main_key = names + pallet_key + (repr(ghost), repr(pending.get("problem")), snap.finished,
                                         repr(hindsight), pending.get("solution_step"), view["ended"], view["score"],
                                         view["best_possible"])

        on_canvas = self.regions.painted.get("main") is not None   # the last frame's pallet is still there

        def main() -> None:
            self._pallet_drawn(surface, projection, placed, floors, pallet_key, on_canvas)
            self._over_pallet = pygame.Rect(0, 0, 0, 0)
            if ghost is not None:
                self._over_pallet = self._ghost(surface, projection, ghost, pending.get("problem"))
        paint(surface, "main", PALLET_REGION, main_key, main, None)   # the pallet's image lays the felt
        # under the pallet: the ghost's verdict while building, the result at the end
        problem = pending.get("problem")
        verdict_key: tuple[Any, ...]
        if snap.finished:
            verdict_key = ("end", view["ended"], view["score"], repr(hindsight), pending.get("solution_step"))
        else:
            verdict_key = ("ghost", ghost is not None, repr(problem), view["score"], view["floors"],
                           view["packages_left"], view["face_down"], turn)
        paint(surface, "verdict", verdict_rect(), names + verdict_key,
              lambda: self._verdict(surface, snap, view, pending, hindsight, ghost, problem))
        # the card and the counts beside it: each line its own part, as a move changes one or two
        paint(surface, "card_title", card_title_part(), names, lambda: self._card_title(surface), None)
        self.regions.paint_kept(surface, "card", CARD_BOX, ("card", self.lang, view["card"], view["card_kind"]),
                                lambda image, at: self._card(image, view, at))
        for name, rect, key, painter in self._facts(surface, view):
            paint(surface, name, rect, names + key, painter, None)
        paint(surface, "supply", supply_rect(), names + (repr(view["supply"]),),
              lambda: self._supply(surface, view, supply_rect()))
        # the players' panel, and in it each part on its own: a move changes one or two of them
        players = len(snap.seats)
        outer = seats_rect()
        paint(surface, "seats", outer, (players,), lambda: draw.panel(surface, outer))
        acting = view["to_act"]
        seat = snap.seats[acting] if acting is not None and acting < players else None
        parts = seat_parts(players)
        paint(surface, "names", parts["names"],
              names + (repr([(s.seat, s.connected, s.station, s.colour) for s in snap.seats]), acting, snap.finished),
              lambda: self._seat_names(surface, snap, view, outer), draw.PANEL)
        # the prompt and the keys go back and forth between drawing a card and placing it: kept
        kept = self.regions.paint_kept
        kept(surface, "prompt", parts["prompt"], ("prompt",) + names + (repr(seat.prompt if seat else None),),
             lambda image, at: self._prompt(image, seat, at), draw.PANEL)
        paint(surface, "message", parts["message"], names + (draw.message_key(snap),),
              lambda: draw.message_box(surface, self.lang, snap, self.names, message_rect(players),
                                       "teamup_help_line", 28), draw.PANEL)
        keys = seat.soft_keys if seat is not None else (snap.seats[0].soft_keys if snap.finished and snap.seats else ())
        kept(surface, "keys", parts["keys"], ("keys",) + names + (repr(keys),),
             lambda image, at: self._keys(image, keys, at), draw.PANEL)
        self.overlaid = draw.pause_banner(surface, self.lang, snap, self.names)

    def _title(self, surface, snap, view) -> None:
        draw.text(surface, snap.title, (30, 24), 64, GOLD, True)
        self._header(surface, snap, view)

    def _pallet_drawn(self, surface, projection: Projection, placed, floors: int, key: Any, on_canvas: bool) -> None:
        """The pallet with its packages and floor numbers, drawn once per what it shows and
        copied while the ghost moves over it: when the canvas still shows that pallet (or the
        one before a package was added), only where the last ghost was and the package went."""
        changed: pygame.Rect | None = pygame.Rect(0, 0, 0, 0)     # where the image differs from the one shown
        if self._pallet_image is None or self._pallet_image[0] != key:
            shown_before = self._pallet_image is not None and self._pallet_shown == self._pallet_image[0]
            image, changed = self._pallet_image_for(surface, projection, placed, floors, key)
            self._pallet_image = (key, image)
            on_canvas = on_canvas and shown_before
        elif self._pallet_shown != key:
            on_canvas = False
        if on_canvas and changed is not None:      # a package more: only it and where the ghost was
            area = self._over_pallet.clip(PALLET_REGION)
            if changed.width and changed.height:
                area = area.union(changed) if area.width and area.height else changed
            area = area.clip(PALLET_REGION)
        else:
            area = PALLET_REGION
        surface.blit(self._pallet_image[1], area.topleft, area)
        self._pallet_shown = key

    def _pallet_image_for(self, surface, projection: Projection, placed, floors: int,
                          key: Any) -> tuple[pygame.Surface, pygame.Rect | None]:
        """The pallet's image for ``key`` and where it changed (None: everywhere): one package
        more than the last image (as turned the same way, the same floors complete and shown) is drawn
        onto it, only where it changes the picture (its cells, and a sign it now covers);
        anything else is drawn whole."""
        last = self._pallet_image
        turn, shown = key[0], key[3]
        if last is not None and self._pallet_parts is not None:
            old_turn, old_placed, old_floors, old_shown = self._pallet_parts
            if old_turn == turn and old_floors == floors and old_shown == shown and \
                    len(placed) == len(old_placed) + 1 and list(placed[:-1]) == list(old_placed):
                image = last[1]
                owner = package_cells(projection, placed)
                new = [cell for cell, index in owner.items() if index == len(placed) - 1]
                area = voxel_rect(projection, *new[0])
                for cell in new[1:]:
                    area.union_ip(voxel_rect(projection, *cell))
                before = symbol_spots(projection, old_placed, package_cells(projection, old_placed))
                after = symbol_spots(projection, placed, owner)
                for index, spot in before.items():             # a sign now covered goes
                    if spot is not None and after.get(index) != spot:
                        area.union_ip(pygame.Rect(spot[0] - 20, spot[1] - 20, 40, 40))
                area = area.clip(MAIN)
                image.set_clip(area)
                image.fill(draw.FELT, area)
                self._pallet(image, projection, placed, clip=area)
                self._floor_marks(image, projection, floors)
                image.set_clip(None)
                self._pallet_parts = (turn, list(placed), floors, shown)
                return image, area
        image = pygame.Surface(surface.get_size())
        image.fill(draw.FELT, MAIN)
        self._pallet(image, projection, placed)
        self._floor_marks(image, projection, floors)
        self._pallet_parts = (turn, list(placed), floors, shown)
        return image, None

    # -- parts -----------------------------------------------------------------------------------------
    def _pending(self, snap: Any) -> dict[str, Any]:
        acting = snap.view["to_act"]
        for seat in snap.seats:
            if seat.pending and (seat.seat == acting or acting is None):
                return seat.pending
        for seat in snap.seats:
            if seat.pending:
                return seat.pending
        return {}

    def _header(self, surface, snap, view) -> None:
        """The game's mode on the first line, whose turn it is on the second, right of the title."""
        x, width = 400, MAIN.right - 420
        if view["puzzle"]:
            draw.text(surface, self.t("teamup_puzzle_mode"), (x, 14), 32, INK, max_width=width)
        elif view["to_beat"] is not None:
            draw.text(surface, self.t("teamup_to_beat", n=view["to_beat"]), (x, 14), 32, GOLD, True, max_width=width)
        if not snap.finished and view["to_act"] is not None:
            draw.text(surface, self.t("teamup_on_turn", player=view["to_act"]), (x, 54), 34, GOLD, True,
                      max_width=width)

    def _pallet(self, surface, projection: Projection, placed: Sequence[Sequence[Any]],
                clip: pygame.Rect | None = None) -> None:
        """The pallet and its packages; with ``clip``, only what shows there (the caller has
        set the surface's clip): voxels wholly elsewhere are not drawn at all."""
        # the wooden pallet under it all
        corners = [projection.point(0, 0, 0), projection.point(projection.width, 0, 0),
                   projection.point(projection.width, projection.depth, 0), projection.point(0, projection.depth, 0)]
        under = [(px, py + round(22 * projection.scale)) for px, py in corners]
        pygame.draw.polygon(surface, (120, 84, 44), [corners[1], corners[2], under[2], under[1]])
        pygame.draw.polygon(surface, (100, 70, 36), [corners[2], corners[3], under[3], under[2]])
        pygame.draw.polygon(surface, (150, 110, 64), corners)
        for u in range(projection.width + 1):
            pygame.draw.line(surface, (110, 80, 46), projection.point(u, 0, 0), projection.point(u, projection.depth, 0), 2)
        for v in range(projection.depth + 1):
            pygame.draw.line(surface, (110, 80, 46), projection.point(0, v, 0), projection.point(projection.width, v, 0), 2)
        # voxels, the farthest first; each knows its package so edges appear only between packages
        owner = package_cells(projection, placed)
        colours = [as_package(p).colour for p in placed]
        for (u, v, z) in sorted(owner, key=lambda c: (c[0] + c[1] + c[2], c[2])):
            if clip is None or voxel_rect(projection, u, v, z).colliderect(clip):
                self._voxel(surface, projection, owner, colours, u, v, z)
        # the symbols on the packages' tops (colour told by shape too)
        for index, centre in symbol_spots(projection, placed, owner).items():
            if centre is None:
                continue                                   # covered: nothing to see
            size = round(12 * projection.scale)
            if as_package(placed[index]).colour == "R":
                pygame.draw.circle(surface, (255, 236, 230), centre, size + 3, 5)
            else:
                square = pygame.Rect(centre[0] - size, centre[1] - size, 2 * size, 2 * size)
                pygame.draw.rect(surface, (230, 238, 255), square, 5)

    def _voxel(self, surface, projection, owner, colours, u, v, z) -> None:
        index = owner[(u, v, z)]
        base = FILL.get(colours[index], FILL[None])
        same = lambda du, dv, dz: owner.get((u + du, v + dv, z + dz)) == index  # noqa: E731
        filled = lambda du, dv, dz: (u + du, v + dv, z + dz) in owner  # noqa: E731
        p = projection.point
        if not filled(0, 0, 1):                                       # top
            face = [p(u, v, z + 1), p(u + 1, v, z + 1), p(u + 1, v + 1, z + 1), p(u, v + 1, z + 1)]
            pygame.draw.polygon(surface, base, face)
            edges = [((0, 1), (0, -1, 0)), ((1, 2), (1, 0, 0)), ((2, 3), (0, 1, 0)), ((3, 0), (-1, 0, 0))]
            self._edges(surface, face, edges, same, filled)
        if not filled(1, 0, 0):                                       # the side facing +u
            face = [p(u + 1, v, z + 1), p(u + 1, v + 1, z + 1), p(u + 1, v + 1, z), p(u + 1, v, z)]
            pygame.draw.polygon(surface, shade(base, 0.72), face)
            edges = [((0, 1), (0, 0, 1)), ((1, 2), (0, 1, 0)), ((2, 3), (0, 0, -1)), ((3, 0), (0, -1, 0))]
            self._edges(surface, face, edges, same, filled, side=(1, 0, 0))
        if not filled(0, 1, 0):                                       # the side facing +v
            face = [p(u, v + 1, z + 1), p(u + 1, v + 1, z + 1), p(u + 1, v + 1, z), p(u, v + 1, z)]
            pygame.draw.polygon(surface, shade(base, 0.55), face)
            edges = [((0, 1), (0, 0, 1)), ((1, 2), (1, 0, 0)), ((2, 3), (0, 0, -1)), ((3, 0), (-1, 0, 0))]
            self._edges(surface, face, edges, same, filled, side=(0, 1, 0))

    @staticmethod
    def _edges(surface, face, edges, same, filled, side=(0, 0, 1)) -> None:
        """An edge of a face is drawn unless the face goes on into the same package there."""
        for (a, b), (du, dv, dz) in edges:
            beyond = (du + side[0] * 0, dv, dz)
            if same(*beyond) and not filled(du + side[0], dv + side[1], dz + side[2]):
                continue
            pygame.draw.line(surface, EDGE, face[a], face[b], 3)

    def _floor_marks(self, surface, projection: Projection, floors: int) -> None:
        """The five floors that score, numbered up the pallet's left edge, gold and filled
        once complete (none above: no floor there can be completed). On a stack drawn so
        small that the numbers would touch, they are left out: the ladder beside the card
        says the same."""
        if projection.rise < MARK_SIZE[1] + 2:
            return
        for z in range(FLOORS):
            x, y = projection.point(0, projection.depth, z + 0.5)
            box = pygame.Rect((0, 0), MARK_SIZE)
            box.midright = (x - 18, y)
            if z < floors:
                draw.rounded(surface, GOLD, box, 0, 6)
            draw.rounded(surface, INK, box, 3, 6)
            draw.text(surface, str(z + 1), box.center, 28, (30, 30, 30) if z < floors else INK, True, "center")

    def _ghost(self, surface, projection: Projection, ghost: Sequence[Any], problem: Any) -> pygame.Rect:
        """The package being placed, see-through, its edges solid where it fits, dashed where
        not, and the verdict under the pallet; returns where it was drawn over the pallet."""
        g = as_package(ghost)
        cells = [projection.cell_uv(i, j) for j in range(g.y, g.y + g.dy) for i in range(g.x, g.x + g.dx)]
        u0, v0 = min(c[0] for c in cells), min(c[1] for c in cells)
        u1, v1 = max(c[0] for c in cells) + 1, max(c[1] for c in cells) + 1
        z0, z1 = g.z, g.z + g.dz
        ok = problem is None
        colour = GHOST_OK if ok else GHOST_BAD
        p = projection.point
        top = [p(u0, v0, z1), p(u1, v0, z1), p(u1, v1, z1), p(u0, v1, z1)]
        sides = ([p(u1, v0, z1), p(u1, v1, z1), p(u1, v1, z0), p(u1, v0, z0)],
                 [p(u0, v1, z1), p(u1, v1, z1), p(u1, v1, z0), p(u0, v1, z0)])
        # the see-through package on a veil just its size (a whole-screen one cost a frame's worth)
        xs = [x for face in (top,) + sides for x, _ in face]
        ys = [y for face in (top,) + sides for _, y in face]
        left, up = int(min(xs)) - 1, int(min(ys)) - 1
        veil = pygame.Surface((int(max(xs)) - left + 2, int(max(ys)) - up + 2), pygame.SRCALPHA)
        pygame.draw.polygon(veil, FILL.get(g.colour, FILL[None]) + (150,), [(x - left, y - up) for x, y in top])
        for face in sides:
            pygame.draw.polygon(veil, shade(FILL.get(g.colour, FILL[None]), 0.7) + (130,),
                                [(x - left, y - up) for x, y in face])
        surface.blit(veil, (left, up))
        drawn = pygame.Rect(left, up, veil.get_width(), veil.get_height()).inflate(16, 16)   # and its edges
        corners = {(a, b, c): p(a, b, c) for a in (u0, u1) for b in (v0, v1) for c in (z0, z1)}
        for (a, b, c), start in corners.items():
            for nxt in ((u1 if a == u0 else None, b, c), (a, v1 if b == v0 else None, c), (a, b, z1 if c == z0 else None)):
                if None in nxt:
                    continue
                end = corners[nxt]                           # type: ignore[index]
                if ok:
                    pygame.draw.line(surface, colour, start, end, 6)
                else:
                    _dashed(surface, colour, start, end, 6)
        return drawn

    def _verdict(self, surface, snap, view, pending, hindsight, ghost, problem) -> None:
        """Whether the ghost fits (and why not), or at the end the result."""
        if snap.finished:
            self._end(surface, view, pending, hindsight)
            return
        if ghost is None:
            self._explained(surface, view)
            return
        label = self.t("teamup_fits") if problem is None else \
            texts.render(self.lang, problem[0], problem[1], self.names)
        box = verdict_rect()
        draw.panel(surface, box, GHOST_OK if problem is None else GHOST_BAD, 5)
        draw.wrapped(surface, label, box.inflate(-30, -20), 30, INK)

    def _card_title(self, surface) -> None:
        _band_and_felt(surface, card_title_part())
        draw.text(surface, self.t("teamup_card_drawn"), (CARD_BOX.left, SIDE.top + 24), 32, MUTED)

    def _card(self, image, view, at: pygame.Rect) -> None:
        """The card drawn, its top in the header band (``at``: the card's box on ``image``)."""
        _band_and_felt(image, at, band_bottom=100 - CARD_BOX.top)
        if view["card"] is not None:
            draw_card(image, self.lang, view["card"], view["card_kind"], at)
        else:
            draw.rounded(image, (40, 100, 66), at, 4, 16)

    def _facts(self, surface, view) -> list[tuple[str, pygame.Rect, tuple, Any]]:
        """The score and the counts right of the card, and the floors as a ladder: a part per
        line (its name, rectangle, what it shows, its painter)."""
        left = CARD_BOX.right + 20
        width = SIDE.right - 10 - left
        lines = [("teamup_score", view["score"], GOLD, 40),
                 ("teamup_cards_left", view["cards_left"], INK, 30),
                 ("teamup_face_down", view["face_down"], RED if view["face_down"] else INK, 30),
                 ("teamup_packages_left", view["packages_left"], INK, 30),
                 ("teamup_floors", view["floors"], INK, 30)]
        parts: list[tuple[str, pygame.Rect, tuple[Any, ...], Any]] = []
        y = CARD_BOX.top
        for key, n, colour, size in lines:
            rect = pygame.Rect(left, y, width, size + 16)

            def line(key=key, n=n, colour=colour, size=size, rect=rect) -> None:
                _band_and_felt(surface, rect)
                draw.text(surface, self.t(key, n=n), rect.topleft, size, colour, size > 30, max_width=width)
            parts.append((key, rect, (n, colour), line))
            y = rect.bottom
        floors = view["floors"]
        ladder = pygame.Rect(left, y, width, 40)

        def rungs() -> None:                                   # filled when complete
            surface.fill(draw.FELT, ladder)
            for z in range(FLOORS):
                box = pygame.Rect(left + z * 52, y + 4, 44, 30)
                if z < floors:
                    draw.rounded(surface, GOLD, box, 0, 5)
                draw.rounded(surface, INK, box, 3, 5)
                draw.text(surface, str(z + 1), box.center, 28, (30, 30, 30) if z < floors else INK, True, "center")
        parts.append(("teamup_ladder", ladder, (floors,), rungs))
        return parts

    def _supply(self, surface, view, rect) -> None:
        draw.panel(surface, rect)
        draw.text(surface, self.t("teamup_supply"), (rect.left + 16, rect.top + 8), 30, MUTED)
        col_w = (rect.width - 140) // len(COLOURS)
        for c, colour in enumerate(COLOURS):
            x = rect.left + 130 + c * col_w
            draw.text(surface, texts.colour_name(self.lang, COLOUR_NAME[colour]), (x + col_w // 2, rect.top + 8), 28,
                      INK, True, "midtop", col_w - 6)
        for r, shape in enumerate(SHAPES):
            y = rect.top + 44 + r * 42
            a, b, _ = SHAPES[shape]
            draw.text(surface, f"{shape}  {a}×{b}", (rect.left + 16, y), 30, INK, True)
            for c, colour in enumerate(COLOURS):
                x = rect.left + 130 + c * col_w
                left = view["supply"][f"{shape}:{colour}"]
                draw.text(surface, str(left), (x + col_w // 2, y), 32, INK if left else MUTED, bool(left), "midtop")

    def _seat_names(self, surface, snap, view, rect) -> None:
        """The players in two columns, a pointer at the one on turn."""
        col = (rect.width - 24) // 2
        for seat in snap.seats:
            row, column = divmod(seat.seat, 2)
            x, y = rect.left + 12 + column * col, rect.top + 12 + row * SEAT_ROW
            acting = view["to_act"] == seat.seat and not snap.finished
            if acting:                                        # a pointer, drawn: the font has no arrows
                pygame.draw.polygon(surface, GOLD, [(x + 2, y + 4), (x + 2, y + 28), (x + 20, y + 16)])
            facts = [texts.seat_label(self.lang, seat.seat, self.names)]
            if not seat.connected and seat.station:
                facts.append(self.t("station_offline"))
            shown = draw.text(surface, " · ".join(facts), (x + 28, y), 32, GOLD if acting else INK, acting,
                              max_width=col - 36)
            draw.seat_colour(surface, seat.colour, shown)

    def _prompt(self, surface, seat, area: pygame.Rect) -> None:
        """What the one on turn does next."""
        if seat is not None and seat.prompt is not None:
            words = texts.render(self.lang, seat.prompt[0], seat.prompt[1], self.names)
            draw.wrapped(surface, words, pygame.Rect(area.left + 12, area.top, area.width - 24, PROMPT_HEIGHT), 30, INK)

    def _keys(self, surface, keys, area: pygame.Rect) -> None:
        """The soft keys of the seat on turn, in their part of the players' panel."""
        if any(keys):
            draw.soft_keys(surface, self.lang, keys, (area.left + 2, area.top + 4), KEY_SIZE, bold=False)

    def _explained(self, surface, view) -> None:
        """While nobody places a package: how the score beside the card is made (a new game
        stands at −27, all 27 packages still beside the pallet) and what the brown block is,
        on the screen that shows them, not only on the how-to pages (issue 40)."""
        box = verdict_rect()
        size = 30
        draw.text(surface, self.t("teamup_score_explained", n=view["score"], floors=view["floors"],
                                  left=view["packages_left"], down=view["face_down"]),
                  (box.left, box.top + 8), size, MUTED, False, max_width=box.width)
        swatch = pygame.Rect(box.left, box.top + 56, 30, 30)
        draw.rounded(surface, FILL[None], swatch, 0, 4)
        draw.rounded(surface, EDGE, swatch, 2, 4)
        draw.text(surface, self.t("teamup_neutral_explained"), (swatch.right + 14, swatch.top), size, MUTED, False,
                  max_width=box.width - swatch.width - 14)

    def _end(self, surface, view, pending, hindsight) -> None:
        """Under the pallet, where the verdict box was: why the game ended and its score, then
        the best these cards allowed and, on request, which package of that line is shown."""
        banner = verdict_rect()
        draw.panel(surface, banner, GOLD, 6)
        draw.text(surface, self.t(f"teamup_ended_{view['ended']}", n=view["score"]), (banner.centerx, banner.top + 8),
                  40, GOLD, True, "midtop", banner.width - 40)
        if hindsight is None:
            return
        best = self.t("teamup_best_possible", n=hindsight["score"])
        step = pending.get("solution_step", 0)
        shown = [p for p in hindsight["line"] if p is not None]
        if step:
            best += " · " + self.t("teamup_solution_step", n=min(step, len(shown)), total=len(shown))
        else:
            best += " · " + self.t("teamup_solution_how")
        draw.text(surface, best, (banner.centerx, banner.top + 54), 30, INK, False, "midtop", banner.width - 40)


def verdict_rect() -> pygame.Rect:
    """The box under the pallet: the ghost's verdict while building, the result at the end."""
    return pygame.Rect(MAIN.left + 40, MAIN.bottom - 120, MAIN.width - 80, 96)


SEAT_ROW = 40
PROMPT_HEIGHT = 72


CARD_BOX = pygame.Rect(SIDE.left + 10, SIDE.top + 70, *CARD_SIZE)    # the card drawn; its top in the band


def card_title_part() -> pygame.Rect:
    """Above the card drawn: its title, in the header band."""
    return pygame.Rect(SIDE.left, SIDE.top, CARD_BOX.width + 20, CARD_BOX.top - SIDE.top)


def _band_and_felt(surface: pygame.Surface, part: pygame.Rect, band_bottom: int = 100) -> None:
    """The background of a part that reaches into the header band (above ``band_bottom``):
    dark above it, felt below."""
    band = part.clip(pygame.Rect(0, 0, part.right, band_bottom))
    surface.fill(draw.FELT_DARK, band)
    surface.fill(draw.FELT, pygame.Rect(part.left, band.bottom, part.width, part.bottom - band.bottom))


def supply_rect() -> pygame.Rect:
    return pygame.Rect(SIDE.left + 10, SIDE.top + 70 + CARD_SIZE[1] + 20, SIDE.width - 20, SUPPLY_HEIGHT)


def seats_rect() -> pygame.Rect:
    top = supply_rect().bottom + 14
    return pygame.Rect(SIDE.left + 10, top, SIDE.width - 20, SIDE.bottom - top)


def seat_parts(players: int) -> dict[str, pygame.Rect]:
    """The parts of the players' panel, inside its rounded edge: names, prompt, message, keys."""
    rect = seats_rect()
    # 6 px in from the sides and 4 from top and bottom: clear of the panel's rounded corners
    names = pygame.Rect(rect.left + 6, rect.top + 4, rect.width - 12, 8 + SEAT_ROW * ((players + 1) // 2))
    prompt = pygame.Rect(names.left, names.bottom, names.width, PROMPT_HEIGHT)
    keys_top = rect.bottom - 2 * KEY_SIZE[1] - 14
    message = pygame.Rect(names.left, prompt.bottom, names.width, keys_top - 4 - prompt.bottom)
    keys = pygame.Rect(names.left, keys_top - 4, names.width, rect.bottom - 4 - (keys_top - 4))
    return {"names": names, "prompt": prompt, "message": message, "keys": keys}


def message_rect(players: int) -> pygame.Rect:
    """Between the prompt and the soft keys."""
    rect = seats_rect()
    top = rect.top + 12 + SEAT_ROW * ((players + 1) // 2) + PROMPT_HEIGHT
    keys_top = rect.bottom - 2 * KEY_SIZE[1] - 14
    return pygame.Rect(rect.left + 8, top, rect.width - 16, keys_top - top - 10)


def _dashed(surface, colour, start, end, width) -> None:
    (x0, y0), (x1, y1) = start, end
    length = max(1.0, math.hypot(x1 - x0, y1 - y0))
    dash = 14
    for k in range(0, int(length), dash * 2):
        a, b = k / length, min(1.0, (k + dash) / length)
        pygame.draw.line(surface, colour, (x0 + (x1 - x0) * a, y0 + (y1 - y0) * a),
                         (x0 + (x1 - x0) * b, y0 + (y1 - y0) * b), width)


PALLET_REGION = pallet_region()


def draw_card(surface: pygame.Surface, lang: str, number: int, kind_name: str, rect: pygame.Rect) -> None:
    """An order card: its number, and what it asks for (a colour in words and its sign, or
    the outline of the shapes)."""
    draw.face(surface, rect, ("team-up", lang, number, kind_name, rect.size),
              lambda image, at: _paint_card(image, lang, number, kind_name, at))


def _paint_card(surface: pygame.Surface, lang: str, number: int, kind_name: str, rect: pygame.Rect) -> None:
    kind = KINDS[kind_name]
    draw.rounded(surface, (250, 248, 240), rect, 0, 16)
    draw.rounded(surface, (30, 30, 30), rect, 3, 16)
    draw.text(surface, str(number), (rect.left + 16, rect.top + 10), 44, (40, 40, 40), True)
    if len(kind.colours) == 1:
        colour = kind.colours[0]
        block = pygame.Rect(0, 0, rect.width - 60, 150)
        block.center = (rect.centerx, rect.centery + 10)
        draw.rounded(surface, FILL[colour], block, 0, 10)
        draw.rounded(surface, (30, 30, 30), block, 3, 10)
        if colour == "R":
            pygame.draw.circle(surface, (255, 236, 230), block.center, 34, 8)
        elif colour == "BL":
            pygame.draw.rect(surface, (230, 238, 255), pygame.Rect(block.centerx - 28, block.centery - 28, 56, 56), 8)
        draw.text(surface, texts.colour_name(lang, COLOUR_NAME[colour]), (rect.centerx, rect.bottom - 14), 36,
                  (30, 30, 30), True, "midbottom", rect.width - 20)
        return
    shapes = kind.shapes
    unit = 40
    heights = [SHAPES[s][1] * unit for s in shapes]
    widths = [SHAPES[s][0] * unit for s in shapes]
    # room for the word between two shapes ("oder" is wider than "or")
    gap = max(50, draw.font(30, True).size(texts.render(lang, "teamup_or"))[0] + 16) if len(shapes) == 2 else 50
    total = sum(widths) + gap * (len(shapes) - 1)
    x = rect.centerx - total // 2
    for s, w, h in zip(shapes, widths, heights):
        box = pygame.Rect(x, rect.centery - h // 2 + 10, w, h)
        pygame.draw.rect(surface, (210, 200, 180), box)
        pygame.draw.rect(surface, (30, 30, 30), box, 4)
        draw.text(surface, s, (box.centerx, box.bottom + 6), 36, (30, 30, 30), True, "midtop")
        x += w + gap
    if len(shapes) == 2:
        draw.text(surface, texts.render(lang, "teamup_or"), (rect.centerx - total // 2 + widths[0] + gap // 2,
                                                            rect.centery + 10), 30, (30, 30, 30), True, "center")


def card_face(surface: pygame.Surface, lang: str, card: str, rect: pygame.Rect) -> None:
    """One card of the deck, large, by its name in the rules' notation (enrollment shows it)."""
    draw_card(surface, lang, int(card), CARD_KIND[int(card)], rect)


# -- how to play: the pictures beside the pages (controller/games/data/how_to_play.json) ---------------

def how_to_picture(surface: pygame.Surface, lang: str, picture: dict[str, Any], rect: pygame.Rect) -> None:
    """A page's picture: ``pallet`` (the Kopfnuss's start and the first ``packages`` of its
    perfect line, drawn as the game draws its pallet, and the score it stands at) or
    ``cards`` (order cards by their numbers)."""
    if picture["kind"] == "cards":
        numbers = picture["cards"]
        w, h = CARD_SIZE
        gap = 60
        x = rect.centerx - (len(numbers) * w + (len(numbers) - 1) * gap) // 2
        for k, number in enumerate(numbers):
            draw_card(surface, lang, number, CARD_KIND[number], pygame.Rect(x + k * (w + gap), rect.top + 120, w, h))
        return
    placed = [puzzle_neutral()] + [as_package(p) for p in DATA["puzzle"]["line"][:picture["packages"]]]
    image = pygame.Surface((MAIN.right, MAIN.bottom), pygame.SRCALPHA)     # see-through but the pallet
    TeamUpView(lang)._pallet(image, Projection(0), placed)
    drawn = PALLET_REGION.clip(MAIN)
    room = pygame.Rect(rect.left, rect.top, rect.width, rect.height - 80)
    scale = min(1.0, room.width / drawn.width, room.height / drawn.height)
    size = (round(drawn.width * scale), round(drawn.height * scale))
    shown = pygame.transform.smoothscale(image.subsurface(drawn), size)
    surface.blit(shown, shown.get_rect(midtop=room.midtop))
    words = texts.render(lang, "teamup_score", {"n": score(pallet_of(placed), 0)})
    draw.text(surface, words, (rect.centerx, rect.bottom - 60), 44, GOLD, True, "midtop")


VIEW = TeamUpView
