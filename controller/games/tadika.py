"""Tadika ("tausche die Karte") with the NumNum deck: 2 to 5 players swap cards with seven
open cards in the middle until one holds a winning hand; points add up over rounds to 50
or 100. The decisions the rule page leaves open are in ``docs/tadika.md``.

Cards are written by colour and number, ``blue15``, ``yellow3``; the 1s are the jokers
(``red1``). The special cards are ``wish-1`` … ``wish-5`` and, in the harder variant,
``forbid2-1`` … ``forbid2-5`` and ``forbid5-1`` … ``forbid5-5``.

A swap is allowed when the two cards share their colour or a times-table row (2 to 9);
when they share both, the player stays on turn:

>>> sorted(swap_match("blue5", "blue15"))
['colour', 'divisor']
>>> sorted(swap_match("blue15", "yellow3"))
['divisor']
>>> swap_match("blue5", "yellow3")
frozenset()
>>> hand_score(["blue2", "yellow4", "red6", "pink8", "blue10", "yellow12", "red14"])
1
>>> hand_score(["blue3", "blue6", "blue9", "blue12", "blue15", "blue18", "blue21"])
10
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, NamedTuple, Sequence, Union

from controller.games.core import (
    HIDDEN, STRINGS, GameOption, GameRules, IllegalAction, Outcome, action_from_fields, action_to_fields,
    check_move, load_data,
)

DATA = load_data("tadika")
COLOURS: tuple[str, ...] = tuple(DATA["colours"])
ROWS: tuple[int, ...] = tuple(DATA["rows"])
JOKER: int = DATA["joker"]
HAND_SIZE: int = DATA["hand_size"]
MIDDLE_SIZE: int = DATA["middle_size"]
MIN_PLAYERS, MAX_PLAYERS = DATA["players"]
TARGETS: tuple[int, ...] = tuple(DATA["targets"])
JOKERS_IN_A_ROW: int = DATA["jokers_in_a_row"]
JOKERS_IN_FOUR: int = DATA["jokers_in_four"]
POINTS: dict[str, int] = dict(DATA["points"])
OF_A_NUMBER: int = DATA["of_a_number"]          # "four of a number": how many of it
MODES = ("virtual", "physical")


@dataclass(frozen=True, slots=True)
class Card:
    """One NumNum card. ``kind`` is ``number``, ``wish`` or ``forbidden``; a forbidden card
    names the row it bars (2 or 5)."""

    name: str
    kind: str
    colour: str | None = None
    value: int | None = None
    bars: int | None = None

    @property
    def is_joker(self) -> bool:
        return self.value == JOKER

    @property
    def rows(self) -> tuple[int, ...]:
        """The times-table rows the card belongs to; a joker fits every row."""
        if self.value is None:
            return ()
        return ROWS if self.is_joker else tuple(n for n in ROWS if self.value % n == 0)

    @classmethod
    def parse(cls, text: str) -> "Card":
        try:
            return ALL_CARDS[str(text).strip().lower()]
        except KeyError:
            raise IllegalAction("tadika_unknown_card", text=str(text)) from None


def _build_deck() -> dict[str, Card]:
    cards: dict[str, Card] = {}
    for colour in COLOURS:
        for value in DATA["numbers"][colour]:
            cards[f"{colour}{value}"] = Card(f"{colour}{value}", "number", colour, value)
    for i in range(1, DATA["wish_cards"] + 1):
        cards[f"wish-{i}"] = Card(f"wish-{i}", "wish")
    for row, count in DATA["forbidden_cards"].items():
        for i in range(1, count + 1):
            cards[f"forbid{row}-{i}"] = Card(f"forbid{row}-{i}", "forbidden", bars=int(row))
    return cards


ALL_CARDS: dict[str, Card] = _build_deck()
NUMBER_CARDS: tuple[str, ...] = tuple(n for n, c in ALL_CARDS.items() if c.kind == "number")
WISH_CARDS: tuple[str, ...] = tuple(n for n, c in ALL_CARDS.items() if c.kind == "wish")
FORBIDDEN_CARDS: tuple[str, ...] = tuple(n for n, c in ALL_CARDS.items() if c.kind == "forbidden")


def deck(forbidden: bool = False) -> tuple[str, ...]:
    """The cards in play: the number cards and the wish cards, and the forbidden cards in
    the harder variant."""
    return NUMBER_CARDS + WISH_CARDS + (FORBIDDEN_CARDS if forbidden else ())


_DECKS = {False: frozenset(deck(False)), True: frozenset(deck(True))}
# the numbers the deck holds often enough for "four of a number" (with the joker it allows)
_PRINTED = Counter(ALL_CARDS[n].value for n in NUMBER_CARDS)
NUMBERS_FOR_FOUR: tuple[int, ...] = tuple(sorted(
    v for v, printed in _PRINTED.items() if v is not None and v != JOKER and printed + JOKERS_IN_FOUR >= OF_A_NUMBER))


# --- swaps ------------------------------------------------------------------------------------

def _shared_rows(a: Card, b: Card) -> frozenset[int]:
    return frozenset(a.rows) & frozenset(b.rows)


def _match(give: Card, take: Card, barred: frozenset[int]) -> frozenset[str]:
    if give.value is None or take.value is None:
        return frozenset()              # wish and forbidden cards have neither colour nor number
    kinds = set()
    if give.colour == take.colour:
        kinds.add("colour")
    if give.is_joker or take.is_joker or _shared_rows(give, take) - barred:
        kinds.add("divisor")            # the joker fits every number, even a barred row's
    return frozenset(kinds)


_BARRED_SETS: tuple[frozenset[int], ...] = (frozenset(), frozenset({2}), frozenset({5}), frozenset({2, 5}))
# every pair of cards for every set of barred rows: swap_match is a dictionary look-up
_MATCHES: dict[tuple[str, str, frozenset[int]], frozenset[str]] = {
    (g, t, barred): _match(ALL_CARDS[g], ALL_CARDS[t], barred)
    for barred in _BARRED_SETS for g in ALL_CARDS for t in ALL_CARDS if g != t
}


def swap_match(give: str, take: str, barred: Iterable[int] = ()) -> frozenset[str]:
    """How ``give`` and ``take`` match: ``{"colour"}``, ``{"divisor"}``, both, or nothing
    (the swap is not allowed). ``barred``: rows an open forbidden card bars (2, 5)."""
    key = (give, take, barred if isinstance(barred, frozenset) else frozenset(barred))
    found = _MATCHES.get(key)
    if found is None:
        return _match(Card.parse(give), Card.parse(take), key[2])
    return found


def barred_rows(middle: Iterable[str]) -> frozenset[int]:
    """The rows the forbidden cards lying open in the middle bar."""
    return frozenset(ALL_CARDS[c].bars for c in middle if ALL_CARDS[c].kind == "forbidden")  # type: ignore[misc]


# --- winning hands -----------------------------------------------------------------------------

class Line(NamedTuple):
    """One line of the points table a hand fulfils: ``kind`` is ``row``, ``one_colour``,
    ``four_of_a_number`` or ``row_in_one_colour``; ``what`` the row, colour or number."""

    kind: str
    what: Any
    points: int


def row_points(row: int) -> int:
    return POINTS["row_2"] if row == 2 else POINTS["row_3"] if row == 3 else POINTS["row_other"]


def winning_lines(cards: Sequence[str]) -> list[Line]:
    """Every line of the points table the seven ``cards`` fulfil, best first."""
    parsed = [ALL_CARDS[c] for c in cards]
    if len(parsed) != HAND_SIZE or len(set(cards)) != HAND_SIZE:
        return []
    lines: list[Line] = []
    numbers = [c for c in parsed if c.value is not None]
    jokers = sum(1 for c in numbers if c.is_joker)
    colours = {c.colour for c in parsed}
    one_colour = len(numbers) == HAND_SIZE and len(colours) == 1
    if len(numbers) == HAND_SIZE and jokers <= JOKERS_IN_A_ROW:
        plain = [c for c in numbers if not c.is_joker]
        common = set(ROWS)
        for c in plain:
            common &= set(c.rows)
        for row in sorted(common):
            lines.append(Line("row", row, row_points(row)))
            if one_colour:
                lines.append(Line("row_in_one_colour", row, POINTS["row_in_one_colour"]))
    if one_colour:
        lines.append(Line("one_colour", parsed[0].colour, POINTS["one_colour"]))
    counts: dict[int, int] = {}
    for c in numbers:
        if not c.is_joker and c.value is not None:
            counts[c.value] = counts.get(c.value, 0) + 1
    for value, count in sorted(counts.items()):
        if count + min(jokers, JOKERS_IN_FOUR) >= OF_A_NUMBER:
            lines.append(Line("four_of_a_number", value, POINTS["four_of_a_number"]))
    lines.sort(key=lambda line: -line.points)
    return lines


# per card, what hand_score needs: colour (None: none), number (0: none), joker, rows as bits
# (a joker's are every row, so it never narrows the rows a hand has in common)
_FACTS: dict[str, tuple[str | None, int, bool, int]] = {
    name: (c.colour, c.value or 0, c.is_joker, sum(1 << n for n in c.rows)) for name, c in ALL_CARDS.items()
}
_ALL_ROWS = sum(1 << n for n in ROWS)
_ROW_POINTS = {n: row_points(n) for n in ROWS}


def hand_score(cards: Sequence[str]) -> int:
    """The points seven cards win by themselves: the best line of the points table that
    applies, 0 when the hand does not win. (The same answer as ``winning_lines``, without
    building the lines: the bench scores 100,000 hands a second with it.)"""
    if len(cards) != HAND_SIZE:
        return 0
    facts = [_FACTS[c] for c in cards]
    if len(set(cards)) != HAND_SIZE:
        return 0
    best = 0
    numbers = all(f[1] for f in facts)
    jokers = sum(1 for f in facts if f[2])
    if numbers:
        one_colour = len({f[0] for f in facts}) == 1
        if one_colour:
            best = POINTS["one_colour"]
        if jokers <= JOKERS_IN_A_ROW:
            common = _ALL_ROWS
            for f in facts:
                common &= f[3]
            if common:
                best = max(best, POINTS["row_in_one_colour"] if one_colour else
                           max(_ROW_POINTS[n] for n in ROWS if common >> n & 1))
    if best < POINTS["four_of_a_number"]:
        counts: dict[int, int] = {}
        for f in facts:
            if f[1] and not f[2]:
                counts[f[1]] = counts.get(f[1], 0) + 1
        if counts and max(counts.values()) + min(jokers, JOKERS_IN_FOUR) >= OF_A_NUMBER:
            best = POINTS["four_of_a_number"]
    return best


def closest_goal(cards: Sequence[str]) -> tuple[str, Any, int, int]:
    """What a hand that does not win comes closest to: (kind, what, have, need), e.g.
    ``("one_colour", "blue", 5, 7)``; the refusal of a claim names it. Closest is the
    largest share of the cards a line needs; on a tie, colour before row before number."""
    parsed = [ALL_CARDS[c] for c in cards if c in ALL_CARDS]
    plain = [c for c in parsed if c.value is not None and not c.is_joker]
    jokers = sum(1 for c in parsed if c.is_joker)
    goals: list[tuple[str, str | int, int, int]] = [("one_colour", colour, sum(1 for c in parsed if c.colour == colour), HAND_SIZE) for colour in COLOURS]
    goals += [("row", row, sum(1 for c in plain if row in c.rows) + min(jokers, JOKERS_IN_A_ROW), HAND_SIZE)
              for row in ROWS]
    goals += [("four_of_a_number", value, sum(1 for c in plain if c.value == value) + min(jokers, JOKERS_IN_FOUR),
               OF_A_NUMBER) for value in NUMBERS_FOR_FOUR]
    return max(goals, key=lambda goal: goal[2] / goal[3])


# --- actions ------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class LayMiddle:
    """Physical cards: the seven cards now lying open in the middle, tapped by the dealer at
    the start of a round, or by the player who renewed the middle."""

    player: int
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Swap:
    """One card of the hand put down, one card of the middle taken. Taking a wish card
    from the middle (for any hand card) is a swap too."""

    player: int
    give: str
    take: str


@dataclass(frozen=True, slots=True)
class SwapAll:
    """The whole hand for the whole middle; ``hand`` is the seven cards put down."""

    player: int
    hand: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Pass:
    player: int


@dataclass(frozen=True, slots=True)
class Renew:
    """The middle replaced by seven new cards: allowed while a wish card lies in it, or
    when everybody passed since this player's last move."""

    player: int


@dataclass(frozen=True, slots=True)
class PlayWish:
    """A wish card from the hand set aside: the player draws a card for it, the middle is
    renewed, and the player moves again."""

    player: int
    card: str


@dataclass(frozen=True, slots=True)
class Claim:
    """The seven cards of a winning hand shown."""

    player: int
    hand: tuple[str, ...]


Action = Union[LayMiddle, Swap, SwapAll, Pass, Renew, PlayWish, Claim]
_ACTION_TYPES: dict[str, type[Action]] = {"lay_middle": LayMiddle, "swap": Swap, "swap_all": SwapAll, "pass": Pass,
                                  "renew": Renew, "play_wish": PlayWish, "claim": Claim}
_ACTION_NAMES = {cls: name for name, cls in _ACTION_TYPES.items()}
_FIELD_TYPES: dict[str, Any] = {"player": int, "give": str, "take": str, "card": str, "cards": STRINGS,
                                "hand": STRINGS}


# --- state --------------------------------------------------------------------------------------

class Win(NamedTuple):
    """How a round was won: the hand, the line that scored, the bonuses, the points."""

    player: int
    hand: tuple[str, ...]
    line: Line
    bonuses: tuple[tuple[str, int], ...]
    points: int


class TadikaState(NamedTuple):
    players: int
    mode: str                                  # "virtual": the core deals; "physical": real cards
    seed: int
    target: int
    forbidden: bool
    first_dealer: int
    round: int                                 # 0-based
    dealer: int
    phase: str                                 # "lay_middle", "turn", "over"
    to_act: int | None
    middle: tuple[str, ...]
    hands: tuple[tuple[str, ...], ...]         # virtual: the hands; physical: the cards the table saw go there
    stock: tuple[str, ...]                     # virtual: the draw pile, top first; physical: ()
    stock_left: int
    discard: tuple[str, ...]                   # set aside: played wish cards, replaced middles
    passes: int                                # passes in a row
    wish_used: bool                            # the middle's wish card was used this turn
    moved: bool                                # the player on turn swapped: "vor seinem Zug" is over
    just_moved: int | None                     # whose swap just ended their turn: they may still claim
    last_change: tuple[str | None, ...]        # per seat, this round: "swap", "swap_all", "swap_all_row", "wish"
    turns: tuple[int, ...]                     # per seat, turns begun this round
    laying: str | None                         # physical: why the middle is being laid: deal, renew, wish
    scores: tuple[int, ...]
    history: tuple[Win, ...]                   # one per round won


def place_of(state: TadikaState, card: str) -> str | int | None:
    """Where the table knows ``card`` is: ``"middle"``, ``"discard"``, a seat, or None
    (unseen: in a hand it has not seen or in the draw pile)."""
    if card in state.middle:
        return "middle"
    for seat, hand in enumerate(state.hands):
        if card in hand:
            return seat
    if card in state.discard:
        return "discard"
    return None


class Tadika(GameRules):
    name = "tadika"
    title = "Tadika"
    player_counts = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))
    options = (GameOption("target", "the points that win the match", TARGETS),
               GameOption("forbidden", "play with the forbidden cards (the harder variant)"))

    # -- creation ----------------------------------------------------------------------------------
    def new_game(self, config: Mapping[str, Any], seed: int) -> TadikaState:
        players = config.get("players", 4)
        if not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise IllegalAction("tadika_player_count", low=MIN_PLAYERS, high=MAX_PLAYERS)
        mode = config.get("mode", "virtual")
        if mode not in MODES:
            raise IllegalAction("unknown_mode", mode=str(mode))
        target = config.get("target", TARGETS[0])
        if target not in TARGETS:
            raise IllegalAction("tadika_target", targets=" / ".join(map(str, TARGETS)))
        forbidden = bool(config.get("forbidden", False))
        first_dealer = random.Random(f"tadika:{seed}:dealer").randrange(players)
        blank = TadikaState(players, mode, int(seed), target, forbidden, first_dealer, 0, first_dealer,
                            "lay_middle", first_dealer, (), ((),) * players, (), 0, (), 0, False, False, None,
                            (None,) * players, (0,) * players, "deal", (0,) * players, ())
        return _start_round(blank, 0)

    def card_names(self) -> list[str]:
        return list(deck(True))

    # -- queries -----------------------------------------------------------------------------------
    def to_act(self, state: TadikaState) -> int | None:
        return state.to_act

    def may_act(self, state: TadikaState) -> tuple[int, ...]:
        """The one whose swap just ended its turn, first: it may still show a winning hand
        (``just_moved``) until the next player moves, so it is the more pressing; then the
        seat on turn."""
        seats: tuple[int, ...] = () if state.to_act is None else (state.to_act,)
        if state.phase == "turn" and state.just_moved is not None and state.just_moved not in seats:
            seats = (state.just_moved,) + seats
        return seats

    def legal_actions(self, state: TadikaState, player: int) -> list[Action]:
        """Every action ``player`` may take now (virtual cards; with physical cards the
        table does not know the hands, so only the moves without cards are listed)."""
        if state.phase != "turn":
            return []
        actions: list[Action] = []
        if state.just_moved == player or state.to_act == player:
            if state.mode == "virtual" and hand_score(state.hands[player]):
                actions.append(Claim(player, state.hands[player]))
        if state.to_act != player:
            return actions
        actions.append(Pass(player))
        if may_renew(state):
            actions.append(Renew(player))
        if state.mode != "virtual":
            return actions
        hand = state.hands[player]
        actions.append(SwapAll(player, hand))
        barred = barred_rows(state.middle)
        wish_may = wish_open(state)
        for give in hand:
            if give in WISH_CARDS:
                actions.append(PlayWish(player, give))
            for take in state.middle:
                if take in WISH_CARDS:
                    if wish_may:
                        actions.append(Swap(player, give, take))
                elif _MATCHES[(give, take, barred)]:
                    actions.append(Swap(player, give, take))
        return actions

    def outcome(self, state: TadikaState) -> Outcome | None:
        if state.phase != "over":
            return None
        best = max(state.scores)
        return Outcome(state.scores, tuple(p for p, s in enumerate(state.scores) if s == best))

    # -- the moves ---------------------------------------------------------------------------------
    def apply(self, state: TadikaState, action: Action) -> TadikaState:
        player = check_move(action, _ACTION_NAMES, state.players, state.phase == "over")
        if state.phase == "lay_middle":
            if not isinstance(action, LayMiddle):
                raise IllegalAction("tadika_lay_middle_first", player=state.to_act)
            if player != state.to_act:
                raise IllegalAction("tadika_lays_middle", player=player, expected=state.to_act)
            return _lay_middle(state, action)
        if isinstance(action, Claim):
            return _claim(state, action)
        if isinstance(action, LayMiddle):
            raise IllegalAction("tadika_middle_lies", player=player)
        if player != state.to_act:
            raise IllegalAction("not_your_turn", player=player, expected=state.to_act)
        if isinstance(action, Swap):
            return _swap(state, action)
        if isinstance(action, SwapAll):
            return _swap_all(state, action)
        if isinstance(action, Pass):
            return _next_turn(state._replace(passes=state.passes + 1), player)
        if isinstance(action, Renew):
            if not may_renew(state):
                if any(c in WISH_CARDS for c in state.middle):
                    check_wish_open(state)
                raise IllegalAction("tadika_cannot_renew")
            return _renew(state._replace(wish_used=True, passes=0, just_moved=None), player, "renew",
                          draw_for_hand=False)
        return _play_wish(state, action)

    # -- what the screen shows ---------------------------------------------------------------------
    def unseen(self, state: TadikaState) -> tuple[int, ...]:
        return (state.stock_left,)

    def seat_view(self, state: TadikaState, seat: int) -> TadikaState:
        """The seat's own hand and the open middle and set-aside cards; the other hands and
        the draw pile hidden (how many stays); the seed, which shuffles, 0. (A person may
        remember a card someone took from the middle: the state does not keep it, and the
        bot does not use it.)"""
        hands = tuple(h if p == seat else (HIDDEN,) * len(h) for p, h in enumerate(state.hands))
        return state._replace(hands=hands, stock=(HIDDEN,) * len(state.stock), seed=0)

    def public_view(self, state: TadikaState) -> dict[str, Any]:
        outcome = self.outcome(state)
        last = state.history[-1] if state.history else None
        return {
            "game": self.name,
            "players": state.players,
            "mode": state.mode,
            "target": state.target,
            "forbidden": state.forbidden,
            "teams": [[p] for p in range(state.players)],
            "team_of": list(range(state.players)),
            "round": state.round,
            "dealer": state.dealer,
            "phase": state.phase,
            "to_act": state.to_act,
            "laying": state.laying,
            "middle": list(state.middle),
            "middle_rows": [list(ALL_CARDS[c].rows) for c in state.middle],
            "barred_rows": sorted(barred_rows(state.middle)),
            "hand_sizes": [HAND_SIZE] * state.players,
            "stock_left": state.stock_left,
            "set_aside": len(state.discard),
            "passes": state.passes,
            "passed": _passed_seats(state),
            "may_renew": state.phase == "turn" and may_renew(state),
            "wish_in_middle": any(c in WISH_CARDS for c in state.middle) and wish_open(state),
            "just_moved": state.just_moved,
            "scores": list(state.scores),
            "history": [_win_json(w) for w in state.history],
            "last_win": None if last is None else _win_json(last),
            "winners": None if outcome is None else list(outcome.winners),
        }

    # -- JSON --------------------------------------------------------------------------------------
    def action_to_json(self, action: Action) -> dict[str, Any]:
        return action_to_fields(action, _ACTION_NAMES[type(action)])

    def action_from_json(self, data: Mapping[str, Any]) -> Action:
        cls = _ACTION_TYPES.get(str(data.get("type")))
        if cls is None:
            raise IllegalAction("unknown_action", text=str(data.get("type")))
        return action_from_fields(cls, data, {name: _FIELD_TYPES[name] for name in cls.__slots__})

    def state_to_json(self, state: TadikaState) -> dict[str, Any]:
        data = state._asdict()                 # json writes the tuples as lists
        data["history"] = [_win_json(w) for w in state.history]
        return data

    def state_from_json(self, data: Mapping[str, Any]) -> TadikaState:
        values = dict(data)
        for name in ("middle", "stock", "discard", "last_change", "turns", "scores"):
            values[name] = tuple(values[name])
        values["hands"] = tuple(tuple(h) for h in values["hands"])
        values["history"] = tuple(
            Win(w["player"], tuple(w["hand"]), Line(w["line"]["kind"], w["line"]["what"], w["line"]["points"]),
                tuple((b, p) for b, p in w["bonuses"]), w["points"]) for w in values["history"])
        return TadikaState(**values)


# --- the moves, one function each ------------------------------------------------------------------

def may_renew(state: TadikaState) -> bool:
    """The player on turn may renew the middle before moving: a wish card lies in it (once
    a turn), or everybody passed since this player's last move."""
    wish = wish_open(state) and any(c in WISH_CARDS for c in state.middle)
    return wish or state.passes >= state.players


def wish_open(state: TadikaState) -> bool:
    """The middle's wish card may still be used ("vor seinem Zug"): not yet in this move, and
    the player has not swapped since the move began (a turn begins a move; so does playing a
    wish card from the hand, after which the player is "noch mal am Zug")."""
    return not state.wish_used and not state.moved


def check_wish_open(state: TadikaState) -> None:
    """Refuses the middle's wish card when its moment has passed, saying why."""
    if state.wish_used:
        raise IllegalAction("tadika_wish_used")
    if state.moved:
        raise IllegalAction("tadika_wish_before_move")


def check_in_deck(state: TadikaState, card: str) -> Card:
    parsed = Card.parse(card)
    if parsed.name not in _DECKS[state.forbidden]:
        raise IllegalAction("tadika_not_in_deck", card=parsed.name)
    return parsed


def check_hand_card(state: TadikaState, player: int, card: str) -> Card:
    """``card`` may be in ``player``'s hand: the hand itself with virtual cards; with
    physical cards, any card the table has not seen elsewhere."""
    parsed = check_in_deck(state, card)
    if state.mode == "virtual":
        if parsed.name not in state.hands[player]:
            raise IllegalAction("card_not_in_hand", card=parsed.name)
        return parsed
    where = place_of(state, parsed.name)
    if where == "middle":
        raise IllegalAction("tadika_card_in_middle", card=parsed.name)
    if where == "discard":
        raise IllegalAction("tadika_card_set_aside", card=parsed.name)
    if isinstance(where, int) and where != player:
        raise IllegalAction("tadika_card_with_other", card=parsed.name, owner=where)
    return parsed


def check_new_middle_card(state: TadikaState, card: str) -> None:
    """``card`` may come from the draw pile into the middle: the table has not seen it
    anywhere since the pile was last shuffled."""
    parsed = check_in_deck(state, card)
    where = place_of(state, parsed.name)
    if where == "middle":
        raise IllegalAction("tadika_card_in_middle", card=parsed.name)
    if where == "discard":
        raise IllegalAction("tadika_card_set_aside", card=parsed.name)
    if isinstance(where, int):
        raise IllegalAction("tadika_card_with_other", card=parsed.name, owner=where)


def _check_hand(state: TadikaState, player: int, hand: Sequence[str]) -> tuple[str, ...]:
    """Seven distinct cards that may all be ``player``'s hand (all of it, with virtual cards;
    with physical cards including every card the table saw go there)."""
    if len(hand) != HAND_SIZE:
        raise IllegalAction("tadika_seven_cards", count=len(hand))
    if len(set(hand)) != len(hand):
        twice = next(c for c in hand if list(hand).count(c) > 1)
        raise IllegalAction("tadika_tapped_twice", card=twice)
    for card in hand:
        check_hand_card(state, player, card)
    missing = [c for c in state.hands[player] if c not in hand]
    if missing:
        raise IllegalAction("tadika_hand_lacks", card=missing[0])
    return tuple(hand)


def _set(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return items[:index] + (value,) + items[index + 1:]


def _draw(state: TadikaState, count: int) -> tuple[TadikaState, tuple[str, ...]]:
    """``count`` cards off the draw pile (virtual) or counted off it (physical); when the
    pile is short, the cards set aside are shuffled into it first."""
    if state.stock_left < count:
        if state.stock_left + len(state.discard) < count:
            raise IllegalAction("tadika_pile_empty")
        reshuffled = list(state.discard)
        random.Random(f"tadika:{state.seed}:{state.round}:{state.stock_left}:{len(reshuffled)}:"
                      f"{','.join(state.middle)}").shuffle(reshuffled)
        stock = state.stock + tuple(reshuffled) if state.mode == "virtual" else ()
        state = state._replace(stock=stock, stock_left=state.stock_left + len(reshuffled), discard=())
    if state.mode != "virtual":
        return state._replace(stock_left=state.stock_left - count), ()
    drawn, rest = state.stock[:count], state.stock[count:]
    return state._replace(stock=rest, stock_left=len(rest)), drawn


def _start_round(state: TadikaState, round_index: int) -> TadikaState:
    n = state.players
    dealer = (state.first_dealer + round_index) % n
    cards = list(deck(state.forbidden))
    state = state._replace(round=round_index, dealer=dealer, passes=0, wish_used=False, moved=False,
                           just_moved=None, last_change=(None,) * n, turns=(0,) * n, discard=())
    if state.mode != "virtual":
        return state._replace(phase="lay_middle", to_act=dealer, laying="deal", middle=(), hands=((),) * n,
                              stock=(), stock_left=len(cards) - HAND_SIZE * n - MIDDLE_SIZE)
    random.Random(f"tadika:{state.seed}:{round_index}").shuffle(cards)
    order = [(dealer + 1 + k) % n for k in range(n)]
    hands: list[tuple[str, ...]] = [()] * n
    for k, seat in enumerate(order):
        hands[seat] = tuple(cards[k * HAND_SIZE:(k + 1) * HAND_SIZE])
    middle = tuple(cards[n * HAND_SIZE:n * HAND_SIZE + MIDDLE_SIZE])
    stock = tuple(cards[n * HAND_SIZE + MIDDLE_SIZE:])
    state = state._replace(phase="turn", laying=None, middle=middle, hands=tuple(hands), stock=stock,
                           stock_left=len(stock))
    return _begin_turn(state, (dealer + 1) % n)


def _begin_turn(state: TadikaState, seat: int) -> TadikaState:
    return state._replace(to_act=seat, wish_used=False, moved=False,
                          turns=_set(state.turns, seat, state.turns[seat] + 1))


def _next_turn(state: TadikaState, player: int, just_moved: int | None = None) -> TadikaState:
    return _begin_turn(state._replace(just_moved=just_moved), (player + 1) % state.players)


def _lay_middle(state: TadikaState, action: LayMiddle) -> TadikaState:
    cards = tuple(action.cards)
    if len(cards) != MIDDLE_SIZE:
        raise IllegalAction("tadika_seven_middle", count=len(cards))
    for i, card in enumerate(cards):
        if card in cards[:i]:
            raise IllegalAction("tadika_tapped_twice", card=card)
        check_new_middle_card(state, card)
    state = state._replace(middle=cards, phase="turn", just_moved=None)
    if state.laying == "deal":
        return _begin_turn(state._replace(laying=None), (state.dealer + 1) % state.players)
    return state._replace(laying=None)


def _swap(state: TadikaState, action: Swap) -> TadikaState:
    player, give, take = action.player, action.give, action.take
    if take not in state.middle:
        check_in_deck(state, take)
        raise IllegalAction("tadika_not_in_middle", card=take)
    if give == take:
        raise IllegalAction("tadika_tapped_twice", card=give)
    check_hand_card(state, player, give)
    if take in WISH_CARDS:
        check_wish_open(state)
        stays, state = True, state._replace(wish_used=True)
    else:
        barred = barred_rows(state.middle)
        kinds = swap_match(give, take, barred)
        if not kinds:
            _refuse_swap(give, take, barred)
        stays = len(kinds) == 2
    hand = tuple(take if c == give else c for c in state.hands[player])
    if state.mode != "virtual" and give not in state.hands[player]:
        hand = state.hands[player] + (take,)          # the table learns the card taken
    middle = tuple(give if c == take else c for c in state.middle)
    state = state._replace(hands=_set(state.hands, player, hand), middle=middle, passes=0,
                           last_change=_set(state.last_change, player, "swap"))
    if stays:
        return state._replace(just_moved=None, moved=True)
    return _next_turn(state, player, just_moved=player)


def _refuse_swap(give: str, take: str, barred: frozenset[int]) -> None:
    g, t = ALL_CARDS[give], ALL_CARDS[take]
    if g.value is None:
        raise IllegalAction("tadika_special_stays", card=give)
    if t.value is None:
        raise IllegalAction("tadika_special_in_middle", card=take)
    shared = sorted(_shared_rows(g, t) & barred)
    if shared:
        raise IllegalAction("tadika_row_barred", give=give, take=take, row=shared[0])
    raise IllegalAction("tadika_no_match", give=give, take=take)


def _swap_all(state: TadikaState, action: SwapAll) -> TadikaState:
    player = action.player
    hand = _check_hand(state, player, action.hand)
    if not state.middle:
        raise IllegalAction("tadika_lay_middle_first", player=player)
    taken = state.middle
    row = any(line.kind in ("row", "row_in_one_colour") for line in winning_lines(taken))
    state = state._replace(hands=_set(state.hands, player, taken), middle=hand, passes=0,
                           last_change=_set(state.last_change, player, "swap_all_row" if row else "swap_all"))
    return _next_turn(state, player, just_moved=player)


def _renew(state: TadikaState, player: int, why: str, draw_for_hand: bool) -> TadikaState:
    """The middle set aside and seven new cards laid (virtual: drawn; physical: tapped)."""
    state = state._replace(discard=state.discard + state.middle, middle=())
    state, drawn = _draw(state, MIDDLE_SIZE + (1 if draw_for_hand else 0))
    if draw_for_hand and drawn:
        hand = state.hands[player] + (drawn[0],)
        state, drawn = state._replace(hands=_set(state.hands, player, hand)), drawn[1:]
    if state.mode == "virtual":
        return state._replace(middle=drawn)
    return state._replace(phase="lay_middle", laying=why)


def _play_wish(state: TadikaState, action: PlayWish) -> TadikaState:
    player = action.player
    card = check_hand_card(state, player, action.card)
    if card.kind != "wish":
        raise IllegalAction("tadika_not_a_wish", card=card.name)
    hand = tuple(c for c in state.hands[player] if c != card.name)
    state = state._replace(hands=_set(state.hands, player, hand), discard=state.discard + (card.name,),
                           passes=0, last_change=_set(state.last_change, player, "wish"), just_moved=None,
                           moved=False, wish_used=False)      # "noch mal am Zug": a move anew, its moment before it too
    return _renew(state, player, "wish", draw_for_hand=True)


def claim_bonuses(state: TadikaState, player: int) -> list[tuple[str, int]]:
    """The bonuses a win shown now earns besides its line: the book's "ohne Tauschen",
    "mit seinem erstem Spielzug" and a row got by swapping all."""
    bonuses = []
    change = state.last_change[player]
    if change is None:
        bonuses.append(("without_swapping", POINTS["without_swapping"]))
    elif state.turns[player] == 1:
        bonuses.append(("first_move", POINTS["first_move"]))
    if change == "swap_all_row":
        bonuses.append(("swap_all_for_a_row", POINTS["swap_all_for_a_row"]))
    return bonuses


def claim_points(state: TadikaState, player: int, hand: Sequence[str]) -> int:
    """What showing ``hand`` now scores for ``player``: its best line and the bonuses, as
    the claim counts them (0 for a hand that does not win). The hints say this number."""
    lines = winning_lines(hand)
    if not lines:
        return 0
    return lines[0].points + sum(p for _, p in claim_bonuses(state, player))


def _claim(state: TadikaState, action: Claim) -> TadikaState:
    player = action.player
    if player != state.to_act and player != state.just_moved:
        raise IllegalAction("tadika_claim_not_now", player=player)
    hand = _check_hand(state, player, action.hand)
    lines = winning_lines(hand)
    if not lines:
        kind, what, have, need = closest_goal(hand)
        raise IllegalAction(f"tadika_not_a_win_{kind}", what=what, colour=what, have=have, need=need)
    bonuses = claim_bonuses(state, player)
    points = lines[0].points + sum(p for _, p in bonuses)
    win = Win(player, hand, lines[0], tuple(bonuses), points)
    scores = _set(state.scores, player, state.scores[player] + points)
    state = state._replace(scores=scores, history=state.history + (win,), just_moved=None)
    if scores[player] >= state.target:
        return state._replace(phase="over", to_act=None, laying=None)
    return _start_round(state, state.round + 1)


def _passed_seats(state: TadikaState) -> list[int]:
    """The seats that passed in the current chain of passes, in order."""
    n = state.players
    if state.to_act is None or not state.passes:
        return []
    return [(state.to_act - k) % n for k in range(min(state.passes, n), 0, -1)]


def _win_json(win: Win) -> dict[str, Any]:
    return {"player": win.player, "hand": list(win.hand),
            "line": {"kind": win.line.kind, "what": win.line.what, "points": win.line.points},
            "bonuses": [list(b) for b in win.bonuses], "points": win.points}


RULES = Tadika()
