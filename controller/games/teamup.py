"""Team UP! (Helvetiq): 1 to 4 players stack packages on a pallet together, as the order
cards demand; the rule decisions are in ``docs/team-up.md``.

The game: drawing, placing, turning a card face down, stopping, the challenge and the
puzzle. The pallet, the packages, the cards and the placement rules are in
``teamup_pallet.py`` (shared with the solver and the screen; its names are this module's
too); the search for the best score a card order allows is in ``teamup_solver.py``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Mapping, NamedTuple, Sequence, Union

from controller.games.core import (
    HIDDEN_NUMBER, GameOption, GameRules, IllegalAction, Outcome, action_from_fields, action_to_fields, check_move,
)
from controller.games.teamup_pallet import (  # noqa: F401  (the pallet's names are the game's too)
    BEST, CARD_KIND, CARD_NUMBERS, CELLS, COLOUR_NAME, COLOURS, COLUMNS, COPIES, DATA, FLOORS, HEIGHT, KINDS, NEUTRAL,
    NEUTRAL_ORIENTATIONS, PACKAGES, PER_FACE_DOWN, PER_FLOOR, PER_PACKAGE_LEFT, SHAPES, X, Y, CardKind, Package,
    Pallet, _pallet, as_package, box_cells, cell, clone_of, colour_of, fitting, kind_of_card, lowest_fit, orientations,
    pallet_of, placement_error, placement_problem, puzzle_neutral, random_neutral, resting_floor, score,
    screen_steps, view_coordinates,
)
from controller.games.teamup_solver import solve

MIN_PLAYERS, MAX_PLAYERS = DATA["players"]
MODES = ("virtual", "physical")


def best_score(cards: Sequence[Any], neutral: Sequence[Any], time_limit: float,
               clock: Any = None) -> tuple[int, list[Package | None]]:
    """The best score the team can reach with this card order from this neutral package,
    and the moves that reach it: per card drawn, in order, the package placed for it or
    None where it had to be turned face down (cards after the last move are not drawn).
    ``cards`` are card kinds (``"A/B"``) or card numbers. Searches for ``time_limit``
    seconds by ``clock`` (e.g. ``time.monotonic``), or without one for about as long counted
    in steps, the same answer on every machine; ``teamup_solver.solve`` also says whether
    the score is proven the best."""
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
_ACTION_TYPES: dict[str, type[Action]] = {"draw": Draw, "place": Place, "face_down": FaceDown, "stop": Stop}
_ACTION_NAMES = {cls: name for name, cls in _ACTION_TYPES.items()}
_FIELD_TYPES: dict[str, Any] = {"player": int, "card": int, "package": list}


class TeamupState(NamedTuple):
    players: int
    mode: str                          # "virtual": the table shuffles; "physical": the drawn cards are tapped
    seed: int
    puzzle: bool
    deck: tuple[int, ...]              # virtual or a challenge: the pile, top first; physical: the cards drawn so far
    placed: tuple[Package, ...]        # the neutral first
    moves: tuple[int, ...]             # per card dealt with: the index of its package in placed, −1 face down
    phase: str                         # "draw", "place", "over"
    to_act: int | None
    ended: str | None                  # "all_placed", "no_cards", "stopped"
    to_beat: int | None                # a challenge: the best score these cards had
    order_known: bool = False          # puzzle, and a challenge the team plays again: it knows the cards' order
    pile: int = len(CARD_NUMBERS)      # the cards in the pile at the start: the deck, or a challenge's cards


def current_card(state: TeamupState) -> int | None:
    """The number of the card drawn and waiting for its package."""
    return state.deck[len(state.moves)] if state.phase == "place" else None


def card_to_place(state: TeamupState) -> int:
    """The card drawn and waiting for its package; before one is drawn, no package is asked
    for: a refusal, as a move would get."""
    card = current_card(state)
    if card is None:
        raise IllegalAction("teamup_draw_first")
    return card


def face_down_count(state: TeamupState) -> int:
    return sum(1 for m in state.moves if m < 0)


def cards_left(state: TeamupState) -> int:
    return state.pile - len(state.moves) - (1 if state.phase == "place" else 0)


def drawn_cards(state: TeamupState) -> tuple[int, ...]:
    """The cards drawn and dealt with (placed or turned face down), in order: after the
    game, the pile its challenge plays."""
    return state.deck[:len(state.moves)]


def state_score(state: TeamupState) -> int:
    return score(pallet_of(state.placed), face_down_count(state))


def _check_pile(cards: Any) -> tuple[int, ...]:
    """A challenge's pile: order cards, each at most once, at least one."""
    if not isinstance(cards, (list, tuple)) or not cards or any(type(n) is not int for n in cards) or \
            any(n not in CARD_KIND for n in cards) or len(set(cards)) != len(cards):
        raise IllegalAction("teamup_bad_deck")
    return tuple(cards)


class TeamUp(GameRules):
    name = "team-up"
    title = "Team UP!"
    player_counts = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))
    cooperative_best = BEST                  # one team builds together: a score against a perfect pallet
    options = (
        GameOption("puzzle", "Team UP!'s Kopfnuss: the cards in number order, the neutral upright in a corner "
                             "(a perfect pallet is possible)"),
        GameOption("challenge", "Team UP!'s challenge: the cards the last game drew, in the same order from the "
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
        if "deck" in config:                       # a challenge: the cards a game before drew, from its start
            deck = _check_pile(config["deck"])
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
        pile = len(deck)
        if mode == "physical" and "deck" not in config:
            deck = ()                              # learned card by card as they are tapped
        to_beat = config.get("to_beat")
        if to_beat is not None and (not isinstance(to_beat, int) or isinstance(to_beat, bool)):
            raise IllegalAction("teamup_bad_deck")
        # the puzzle's order is the cards' numbers; a challenge's pile the team re-stacked
        # itself knows; one prepared for the team by another lies face down, its order
        # unknown to them (the book: "So kann auch ein anderes Team herausgefordert werden")
        order_known = puzzle or ("deck" in config and not config.get("by_others"))
        return TeamupState(players, mode, int(seed), puzzle, deck, (neutral,), (), "draw", 0, None, to_beat,
                           order_known, pile)

    def check_config(self, config: Mapping[str, Any]) -> None:
        """A challenge's cards come from the log later (``prepare_config``): the rest is checked."""
        self.new_game({k: v for k, v in config.items() if k != "challenge"}, 0)

    def prepare_config(self, config: Mapping[str, Any], previous: Any) -> dict[str, Any]:
        """A challenge plays the cards the last finished game drew, in the order it drew
        them (its face-down cards among them), from the same neutral package (``previous()``:
        finished games' results, newest first). The score to beat is the best any game made
        from that start with these cards: one that drew them, or fewer of them from the top
        (whatever it did, a team with this pile can do too)."""
        config = dict(config)
        if not config.get("challenge") or "deck" in config:
            return config
        games = [g for g in previous() if g.get("game") == self.name and isinstance(g.get("config"), dict)]
        last = self._played(games[0]) if games else None
        if last is None:
            raise IllegalAction("teamup_no_game_to_repeat")
        pile, neutral = last
        if not pile:
            raise IllegalAction("teamup_nothing_drawn")
        best = None
        for game in games:
            played = self._played(game)
            scores = game.get("scores")
            if played is not None and played[1] == neutral and pile[:len(played[0])] == played[0] and \
                    isinstance(scores, list) and scores and type(scores[0]) is int:
                best = scores[0] if best is None else max(best, scores[0])
        # ``from_game``: whose pile it is, so the table can tell whether the same people play
        # it again (``by_others``, set by the app that knows who sits)
        config.update(deck=list(pile), neutral=list(neutral), to_beat=best, from_game=games[0].get("id"))
        return config

    def _played(self, game: Mapping[str, Any]) -> tuple[tuple[int, ...], Package] | None:
        """The cards a finished game drew, in order, and its neutral package; None when its
        result does not say (kept before results named the cards drawn) or cannot be read."""
        drawn = game.get("drawn")
        if drawn is None:
            return None
        try:
            state = self.new_game(game["config"], int(game["seed"]))
            cards = () if drawn == [] else _check_pile(drawn)
        except (IllegalAction, KeyError, TypeError, ValueError):
            return None
        return cards, state.placed[0]

    def result_details(self, state: TeamupState) -> dict[str, Any]:
        """The cards the game drew, in order: a challenge's pile."""
        return {"drawn": list(drawn_cards(state))}

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
                return [*(Draw(player, n) for n in CARD_NUMBERS if n not in drawn), Stop(player)]
            return [Draw(player), Stop(player)]
        places: list[Action] = [Place.of(player, p) for p in fitting(pallet_of(state.placed), kind_of_card(card_to_place(state)))]
        return places or [FaceDown(player)]

    # -- the moves -------------------------------------------------------------------------------------
    def apply(self, state: TeamupState, action: Action) -> TeamupState:
        player = check_move(action, _ACTION_NAMES, state.players, state.phase == "over")
        if player != state.to_act:
            raise IllegalAction("not_your_turn", player=player, expected=state.to_act)
        if isinstance(action, Draw):
            return _draw(state, action)
        if isinstance(action, Stop):
            if state.phase != "draw":
                raise IllegalAction("teamup_finish_card_first")
            return state._replace(phase="over", to_act=None, ended="stopped")
        if state.phase != "place":
            raise IllegalAction("teamup_draw_first")
        if isinstance(action, FaceDown):
            return _face_down(state, action)
        return _place(state, action)

    # -- what the screen shows -------------------------------------------------------------------------
    def unseen(self, state: TeamupState) -> tuple[int, ...]:
        return (cards_left(state),)

    def seat_view(self, state: TeamupState, seat: int) -> TeamupState:
        """The pallet and the cards drawn; the order of the cards still in the pile hidden
        unless the team knows it (puzzle, a challenge of its own game); the seed, which
        shuffled it, 0."""
        drawn = len(state.moves) + (1 if state.phase == "place" else 0)
        deck = state.deck if state.order_known else \
            state.deck[:drawn] + (HIDDEN_NUMBER,) * (len(state.deck) - drawn)
        return state._replace(deck=deck, seed=0)

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
        if isinstance(action, Place):            # the list checked and read as a package
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
    card = card_to_place(state)
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
    kind = kind_of_card(card_to_place(state))
    fits = lowest_fit(pallet_of(state.placed), kind)
    if fits is not None:
        raise IllegalAction("teamup_still_fits", shape=fits.shape, colour=COLOUR_NAME[colour_of(fits)],
                            x=fits.x + 1, y=fits.y + 1, floor=fits.z + 1)
    return _next_turn(state._replace(moves=state.moves + (-1,)))


def _next_turn(state: TeamupState) -> TeamupState:
    if len(state.placed) - 1 == PACKAGES:
        return state._replace(phase="over", to_act=None, ended="all_placed")
    if len(state.moves) == state.pile:
        return state._replace(phase="over", to_act=None, ended="no_cards")
    return state._replace(phase="draw", to_act=(state.to_act + 1) % state.players)  # type: ignore[operator]  # (None only when over)


RULES = TeamUp()
