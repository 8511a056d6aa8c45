"""Team UP! (Helvetiq): 1 to 4 players stack packages on a pallet together, as the order
cards demand; the rule decisions are in ``docs/team-up.md``.

The pallet is 6 × 4 cells and five floors high. A placed package is written as a tuple
``(shape, colour, x, y, z, dx, dy, dz)``: the shape ``"A"``, ``"B"``, ``"C"`` or ``"N"``
(the neutral package, colour ``None``), its colour ``"R"``, ``"BL"`` or ``"W"``, its
minimum corner (x along the 6-cell side, y along the 4-cell side, z the floor from 0) and
its extent along each axis after turning. Order cards are written by their kind: ``"R"``,
``"W"``, ``"BL"`` (a colour), ``"A"``, ``"B"``, ``"C"`` (a shape), ``"A/B"``, ``"A/C"``,
``"B/C"`` (one of two shapes); each of the 36 cards has its number.

>>> neutral = ("N", None, 0, 0, 0, 2, 2, 3)
>>> placement_error([neutral], ("A", "R", 2, 0, 0, 1, 2, 1)) is None
True
>>> placement_error([neutral], ("A", "R", 3, 0, 0, 1, 2, 1))
'The package must touch another package with part of a face; an edge or a corner is not enough.'
>>> placement_error([neutral], ("C", "W", 0, 0, 3, 2, 3, 1))
'The package would overhang: its whole underside must rest on the pallet or on packages.'

All sizes, the cards and the scoring are read from ``controller/games/data/teamup.json``.
The search for the best score a card order allows is in ``teamup_solver.py``.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable, Iterator, Mapping, NamedTuple, Sequence, Union

from controller.games import texts
from controller.games.core import (
    GameOption, GameRules, IllegalAction, Outcome, action_from_fields, action_to_fields, check_move, load_data,
)

DATA = load_data("teamup")
X, Y, FLOORS = DATA["pallet"]["x"], DATA["pallet"]["y"], DATA["pallet"]["floors"]
COLUMNS = X * Y
CELLS = COLUMNS * FLOORS
SHAPES: dict[str, tuple[int, int, int]] = {s: tuple(size) for s, size in DATA["shapes"].items()}
NEUTRAL = DATA["neutral"]["shape"]
NEUTRAL_ORIENTATIONS: tuple[tuple[int, int, int], ...] = tuple(tuple(o) for o in DATA["neutral"]["orientations"])
COLOURS: tuple[str, ...] = tuple(DATA["colours"])
COPIES: int = DATA["copies"]
PACKAGES = len(SHAPES) * len(COLOURS) * COPIES                  # 27, the neutral not counted
CARD_KIND: dict[int, str] = {c["number"]: c["kind"] for c in DATA["cards"]}
CARD_NUMBERS: tuple[int, ...] = tuple(sorted(CARD_KIND))
PER_FLOOR = DATA["scoring"]["per_floor"]
PER_PACKAGE_LEFT = DATA["scoring"]["per_package_left"]
PER_FACE_DOWN = DATA["scoring"]["per_face_down_card"]
BEST = FLOORS * PER_FLOOR                                        # 25: a perfect pallet
MIN_PLAYERS, MAX_PLAYERS = DATA["players"]
MODES = ("virtual", "physical")

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
        self.used: Counter = Counter()
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
        return sum(1 for z in range(FLOORS) if all(o >= 0 for o in self.owner[z * COLUMNS:(z + 1) * COLUMNS]))


@lru_cache(maxsize=64)
def _pallet(placed: tuple) -> Pallet:
    return Pallet(placed)


_LAST: tuple[Any, Any] = (None, None)       # the last tuple asked for and its pallet (held: its id stays its own)


def pallet_of(placed: Iterable[Sequence[Any]]) -> Pallet:
    """The indexed pallet for ``placed`` (cached: the checks of one turn share it, and a
    game's own tuple of packages is recognised at once)."""
    global _LAST
    last = _LAST
    if placed is last[0]:
        return last[1]
    pallet = _pallet(tuple(as_package(p) for p in placed))
    if isinstance(placed, tuple):                # a list may change under the same id: not kept
        _LAST = (placed, pallet)
    return pallet


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
    return _space_problem(pallet, p)


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
    """The rules of the space itself: the edge, the height, overlap, support, touch, clones."""
    if p.x < 0 or p.y < 0 or p.z < 0 or p.x + p.dx > X or p.y + p.dy > Y:
        return "teamup_off_pallet", {}
    if p.z + p.dz > FLOORS:
        return "teamup_too_high", {"n": FLOORS}
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
    return max(heights[i + X * j] for j in range(max(0, y), min(Y, y + dy)) for i in range(max(0, x), min(X, x + dx)))


def fitting(pallet: Pallet, kind: CardKind) -> Iterator[Package]:
    """Every package the card allows that may be placed now, on the floor it would rest on."""
    for shape in kind.shapes:
        colours = [c for c in kind.colours if pallet.left(shape, c) > 0]
        if not colours:
            continue
        for dx, dy, dz in orientations(shape):
            for y in range(Y - dy + 1):
                for x in range(X - dx + 1):
                    z = resting_floor(pallet, x, y, dx, dy)
                    # Only the colour's own checks (known, one left) tell colours apart, and
                    # ``colours`` holds only those that pass them: a place refused for one is
                    # refused for all. Proving that nothing fits (a card put face down) was
                    # most of the time of replaying a game's log.
                    if placement_problem(pallet, Package(shape, colours[0], x, y, z, dx, dy, dz)) is not None:
                        continue
                    for colour in colours:
                        yield Package(shape, colour, x, y, z, dx, dy, dz)


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


def best_score(cards: Sequence[Any], neutral: Sequence[Any], time_limit: float,
               clock: Any = None) -> tuple[int, list[Package | None]]:
    """The best score the team can reach with this card order from this neutral package,
    and the moves that reach it: per card drawn, in order, the package placed for it or
    None where it had to be turned face down (cards after the last move are not drawn).
    ``cards`` are card kinds (``"A/B"``) or card numbers. Searches for ``time_limit``
    seconds by ``clock`` (e.g. ``time.monotonic``), or without one for about as long counted
    in steps, the same answer on every machine; ``teamup_solver.solve`` also says whether
    the score is proven the best."""
    from controller.games.teamup_solver import solve
    found = solve(cards, neutral, time_limit, clock=clock)
    return found.score, found.moves


# === the game =============================================================================================

@dataclass(frozen=True, slots=True)
class Draw:
    """The player on turn draws the next order card; with physical cards, taps it (its number)."""

    player: int
    card: int = 0


@dataclass(frozen=True, slots=True)
class Place:
    """The package placed for the card drawn, in the package notation (logged as its list)."""

    player: int
    package: Package

    @classmethod
    def of(cls, player: int, p: Sequence[Any]) -> "Place":
        return cls(player, as_package(p))


@dataclass(frozen=True, slots=True)
class FaceDown:
    """No package the card allows fits anywhere: the card goes face down (−1)."""

    player: int


@dataclass(frozen=True, slots=True)
class Stop:
    """The team stops drawing cards; the game is scored as it stands."""

    player: int


Action = Union[Draw, Place, FaceDown, Stop]
_ACTION_TYPES: dict[str, type] = {"draw": Draw, "place": Place, "face_down": FaceDown, "stop": Stop}
_ACTION_NAMES = {cls: name for name, cls in _ACTION_TYPES.items()}
_FIELD_TYPES: dict[str, Any] = {"player": int, "card": int, "package": list}


class TeamupState(NamedTuple):
    players: int
    mode: str                          # "virtual": the table shuffles; "physical": the drawn cards are tapped
    seed: int
    puzzle: bool
    deck: tuple[int, ...]              # virtual: the order, top first; physical: the cards drawn so far
    placed: tuple[Package, ...]        # the neutral first
    moves: tuple[int, ...]             # per card dealt with: the index of its package in placed, −1 face down
    phase: str                         # "draw", "place", "over"
    to_act: int | None
    ended: str | None                  # "all_placed", "no_cards", "stopped"
    to_beat: int | None                # a challenge: the best score these cards had
    order_known: bool = False          # puzzle and challenge: the team knows the order of the cards


def current_card(state: TeamupState) -> int | None:
    """The number of the card drawn and waiting for its package."""
    return state.deck[len(state.moves)] if state.phase == "place" else None


def face_down_count(state: TeamupState) -> int:
    return sum(1 for m in state.moves if m < 0)


def cards_left(state: TeamupState) -> int:
    return len(CARD_NUMBERS) - len(state.moves) - (1 if state.phase == "place" else 0)


def state_score(state: TeamupState) -> int:
    return score(pallet_of(state.placed), face_down_count(state))


def deck_key(deck: Sequence[int], neutral: Sequence[Any]) -> str:
    """One card order from one start, as text: what a challenge repeats and keeps a best score for."""
    n = as_package(neutral)
    return f"{n.x},{n.y},{n.dx},{n.dy},{n.dz}:" + ",".join(map(str, deck))


def _check_deck(deck: Any) -> tuple[int, ...]:
    if not isinstance(deck, (list, tuple)) or sorted(deck) != list(CARD_NUMBERS) or \
            any(isinstance(n, bool) for n in deck):
        raise IllegalAction("teamup_bad_deck")
    return tuple(deck)


class TeamUp(GameRules):
    name = "team-up"
    title = "Team UP!"
    player_counts = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))
    options = (
        GameOption("puzzle", "Team UP!'s Kopfnuss: the cards in number order, the neutral upright in a corner "
                             "(a perfect pallet is possible)"),
        GameOption("challenge", "Team UP!'s challenge: the last game's cards again, in the same order from the "
                                "same start, to beat its score"),
    )

    def new_game(self, config: Mapping[str, Any], seed: int) -> TeamupState:
        players = config.get("players", 2)
        if not isinstance(players, int) or isinstance(players, bool) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise IllegalAction("teamup_player_count", low=MIN_PLAYERS, high=MAX_PLAYERS)
        mode = config.get("mode", "virtual")
        if mode not in MODES:
            raise IllegalAction("unknown_mode", mode=str(mode))
        puzzle = bool(config.get("puzzle"))
        rng = random.Random(f"teamup:{seed}")
        if "deck" in config:                       # a challenge: the order and the start of a game before
            deck = _check_deck(config["deck"])
            neutral = as_package(config.get("neutral") or ())
            if placement_problem(Pallet(()), neutral) is not None:
                raise IllegalAction("teamup_bad_deck")
        elif config.get("challenge"):
            raise IllegalAction("teamup_no_game_to_repeat")
        elif puzzle:
            deck, neutral = CARD_NUMBERS, puzzle_neutral()
        else:
            shuffled = list(CARD_NUMBERS)
            rng.shuffle(shuffled)
            deck, neutral = tuple(shuffled), random_neutral(rng)
        if mode == "physical" and "deck" not in config:
            deck = ()                              # learned card by card as they are tapped
        to_beat = config.get("to_beat")
        if to_beat is not None and (not isinstance(to_beat, int) or isinstance(to_beat, bool)):
            raise IllegalAction("teamup_bad_deck")
        order_known = puzzle or "deck" in config
        return TeamupState(players, mode, int(seed), puzzle, deck, (neutral,), (), "draw", 0, None, to_beat,
                           order_known)

    def check_config(self, config: Mapping[str, Any]) -> None:
        """A challenge's cards come from the log later (``prepare_config``): the rest is checked."""
        self.new_game({k: v for k, v in config.items() if k != "challenge"}, 0)

    def prepare_config(self, config: Mapping[str, Any], previous: Any) -> dict[str, Any]:
        """A challenge takes the card order and the start of the last finished game
        (``previous()``: finished games' results, newest first) and the best score ever made
        with them, which is the score to beat."""
        config = dict(config)
        if not config.get("challenge") or "deck" in config:
            return config
        games = [g for g in previous() if g.get("game") == self.name and isinstance(g.get("config"), dict)]
        if not games:
            raise IllegalAction("teamup_no_game_to_repeat")
        last = self._start_of(games[0])
        if last is None:
            raise IllegalAction("teamup_no_game_to_repeat")
        deck, neutral = last
        best = None
        for game in games:
            start = self._start_of(game)
            scores = game.get("scores") or []
            if start is not None and deck_key(*start) == deck_key(deck, neutral) and scores and \
                    isinstance(scores[0], int):
                best = scores[0] if best is None else max(best, scores[0])
        config.update(deck=list(deck), neutral=list(neutral), to_beat=best)
        return config

    def _start_of(self, game: Mapping[str, Any]) -> tuple[tuple[int, ...], Package] | None:
        """The full card order and the neutral package a finished game was played with."""
        try:
            state = self.new_game(game["config"], int(game["seed"]))
        except (IllegalAction, KeyError, TypeError, ValueError):
            return None
        if len(state.deck) != len(CARD_NUMBERS):             # physical cards: only the ones drawn are known
            return None
        return state.deck, state.placed[0]

    def card_names(self) -> list[str]:
        return [str(n) for n in CARD_NUMBERS]

    # -- queries ---------------------------------------------------------------------------------------
    def to_act(self, state: TeamupState) -> int | None:
        return state.to_act

    def outcome(self, state: TeamupState) -> Outcome | None:
        if state.phase != "over":
            return None
        return Outcome((state_score(state),), (0,))          # one team: everybody plays together

    def legal_actions(self, state: TeamupState, player: int) -> list[Action]:
        if state.phase == "over" or player != state.to_act:
            return []
        if state.phase == "draw":
            if state.mode == "physical" and len(state.deck) == len(state.moves):
                drawn = set(state.deck)
                return [Draw(player, n) for n in CARD_NUMBERS if n not in drawn] + [Stop(player)]
            return [Draw(player), Stop(player)]
        places = [Place.of(player, p) for p in fitting(pallet_of(state.placed), kind_of_card(current_card(state)))]
        return places or [FaceDown(player)]

    # -- the moves -------------------------------------------------------------------------------------
    def apply(self, state: TeamupState, action: Action) -> TeamupState:
        player = check_move(action, _ACTION_NAMES, state.players, state.phase == "over")
        kind = type(action)
        if player != state.to_act:
            raise IllegalAction("not_your_turn", player=player, expected=state.to_act)
        if kind is Draw:
            return _draw(state, action)
        if kind is Stop:
            if state.phase != "draw":
                raise IllegalAction("teamup_finish_card_first")
            return state._replace(phase="over", to_act=None, ended="stopped")
        if state.phase != "place":
            raise IllegalAction("teamup_draw_first")
        if kind is FaceDown:
            return _face_down(state, action)
        return _place(state, action)

    # -- what the screen shows -------------------------------------------------------------------------
    def unseen(self, state: TeamupState) -> tuple[int, ...]:
        return (cards_left(state),)

    def public_view(self, state: TeamupState) -> dict[str, Any]:
        pallet = pallet_of(state.placed)
        card = current_card(state)
        drawn = state.deck[:len(state.moves)]
        return {
            "game": self.name, "players": state.players, "mode": state.mode, "phase": state.phase,
            "to_act": state.to_act, "puzzle": state.puzzle, "ended": state.ended,
            "teams": [list(range(state.players))], "team_of": [0] * state.players,
            "placed": [list(p) for p in state.placed],
            "card": card, "card_kind": CARD_KIND[card] if card is not None else None,
            "discards": [{"card": n, "face_down": m < 0} for n, m in zip(drawn, state.moves)],
            "cards_left": cards_left(state), "face_down": face_down_count(state),
            "floors": pallet.complete_floors(), "heights": list(pallet.heights),
            "supply": {f"{s}:{c}": pallet.left(s, c) for s in SHAPES for c in COLOURS},
            "packages_left": PACKAGES - sum(pallet.used.values()),
            "score": state_score(state), "scores": [state_score(state)], "to_beat": state.to_beat,
            "best_possible": BEST,
            "winners": [0] if state.phase == "over" else None,
        }

    # -- JSON ------------------------------------------------------------------------------------------
    def action_to_json(self, action: Action) -> dict[str, Any]:
        return action_to_fields(action, _ACTION_NAMES[type(action)])

    def action_from_json(self, data: Mapping[str, Any]) -> Action:
        cls = _ACTION_TYPES.get(str(data.get("type")))
        if cls is None:
            raise IllegalAction("unknown_action", text=str(data.get("type")))
        action = action_from_fields(cls, data, {name: _FIELD_TYPES[name] for name in cls.__slots__})
        if cls is Place:                         # the list checked and read as a package
            return Place(action.player, as_package(action.package))
        return action

    def state_to_json(self, state: TeamupState) -> dict[str, Any]:
        return state._asdict()                   # its tuples and packages are written as JSON arrays

    def state_from_json(self, data: Mapping[str, Any]) -> TeamupState:
        fields = dict(data)
        fields["deck"] = tuple(fields["deck"])
        fields["placed"] = tuple(as_package(p) for p in fields["placed"])
        fields["moves"] = tuple(fields["moves"])
        return TeamupState(**fields)


# --- the moves, one function each ----------------------------------------------------------------------

def _draw(state: TeamupState, action: Draw) -> TeamupState:
    if state.phase != "draw":
        raise IllegalAction("teamup_card_waiting", card=current_card(state))
    known = len(state.deck) > len(state.moves)          # the next card's number is known to the table
    if state.mode == "physical":
        card = action.card
        if card == 0:
            raise IllegalAction("teamup_tap_card")
        if card not in CARD_KIND:
            raise IllegalAction("teamup_unknown_card", text=str(card))
        if known and card != state.deck[len(state.moves)]:
            raise IllegalAction("teamup_not_next_card", card=card, expected=state.deck[len(state.moves)])
        if not known and card in state.deck:
            raise IllegalAction("teamup_card_drawn_before", card=card)
        deck = state.deck if known else state.deck + (card,)
        return state._replace(deck=deck, phase="place")
    if action.card not in (0, state.deck[len(state.moves)] if known else 0):
        raise IllegalAction("teamup_table_draws")
    return state._replace(phase="place")


def _place(state: TeamupState, action: Place) -> TeamupState:
    card = current_card(state)
    kind = kind_of_card(card)
    p = as_package(action.package)
    if p.shape in SHAPES and p.colour in COLOURS and not kind.allows(p.shape, p.colour):
        raise card_wants(card)
    problem = placement_problem(pallet_of(state.placed), p)
    if problem is not None:
        raise IllegalAction(problem[0], **problem[1])
    placed = state.placed + (p,)
    return _next_turn(state._replace(placed=placed, moves=state.moves + (len(placed) - 1,)))


def card_wants(card: int) -> IllegalAction:
    """What a card asks for, as a refusal: "card 12 asks for a red package"."""
    kind = kind_of_card(card)
    if len(kind.colours) == 1:
        return IllegalAction("teamup_card_wants_colour", card=card, colour=COLOUR_NAME[kind.colours[0]])
    return IllegalAction("teamup_card_wants_shape", card=card, shapes="/".join(kind.shapes))


def _face_down(state: TeamupState, action: FaceDown) -> TeamupState:
    kind = kind_of_card(current_card(state))
    fits = next(fitting(pallet_of(state.placed), kind), None)
    if fits is not None:
        raise IllegalAction("teamup_still_fits", shape=fits.shape, colour=COLOUR_NAME[fits.colour],
                            x=fits.x + 1, y=fits.y + 1, floor=fits.z + 1)
    return _next_turn(state._replace(moves=state.moves + (-1,)))


def _next_turn(state: TeamupState) -> TeamupState:
    if len(state.placed) - 1 == PACKAGES:
        return state._replace(phase="over", to_act=None, ended="all_placed")
    if len(state.moves) == len(CARD_NUMBERS):
        return state._replace(phase="over", to_act=None, ended="no_cards")
    return state._replace(phase="draw", to_act=(state.to_act + 1) % state.players)


RULES = TeamUp()
