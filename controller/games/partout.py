"""Partout (SpielMr): trick taking for 3, 4 or 6 players with trump number, trump colour
and six special cards. The rule decisions the book leaves open are in ``docs/partout.md``.

Cards are written as in the rule book's components: ``red5``, ``black1``, ``king``,
``queen``, ``jester``, ``dungeon``, ``mathematician``, ``alchemist``. A special card's
choice follows a colon: ``dungeon:2`` locks the play at index 2 of the trick,
``mathematician:7`` makes 7 the trump number, ``alchemist:blue`` makes blue the trump
colour.

>>> trick_winner(["red5", "green3", "blue9"], trump_number=3, trump_colour="blue")
1
>>> team_points(bid=3, tricks=3, teams=3)
19
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Mapping, NamedTuple, Sequence, Union

from controller.games.core import HIDDEN, GameRules, IllegalAction, Outcome, action_from_fields, load_data

DATA = load_data("partout")
COLOURS: tuple[str, ...] = tuple(DATA["colours"])
VALUES: tuple[int, ...] = tuple(DATA["values"])
ROYALS = frozenset(DATA["royals"])
PLAYER_COUNTS: tuple[int, ...] = tuple(sorted(int(n) for n in DATA["setups"]))


@dataclass(frozen=True, slots=True)
class Card:
    """One Partout card. ``Card.parse("red5").notation() == "red5"``."""

    name: str
    colour: str | None = None
    value: int | None = None

    @property
    def choice_kind(self) -> str | None:
        """What the player chooses when playing it: a trick index, a number, a colour."""
        return _CHOICE_KIND.get(self.name)

    @classmethod
    def parse(cls, text: str) -> "Card":
        try:
            return ALL_CARDS[text.strip().lower()]
        except (KeyError, AttributeError):
            raise IllegalAction("unknown_card", text=str(text)) from None

    def notation(self) -> str:
        return self.name


_CHOICE_KIND = {"dungeon": "target", "mathematician": "number", "alchemist": "colour"}

ALL_CARDS: dict[str, Card] = {f"{c}{v}": Card(f"{c}{v}", c, v) for c in COLOURS for v in VALUES}
ALL_CARDS.update({s: Card(s) for s in DATA["specials"]})

Choice = Union[int, str, None]


# --- actions -------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class NameTrumpNumber:
    player: int
    number: int


@dataclass(frozen=True, slots=True)
class NameTrumpColour:
    player: int
    colour: str


@dataclass(frozen=True, slots=True)
class Bid:
    player: int
    tricks: int


@dataclass(frozen=True, slots=True)
class Play:
    """A card played to the trick; ``choice`` is the special card's choice."""

    player: int
    card: str
    choice: Choice = None


Action = Union[NameTrumpNumber, NameTrumpColour, Bid, Play]

_ACTION_TYPES: dict[str, type[Action]] = {
    "trump_number": NameTrumpNumber,
    "trump_colour": NameTrumpColour,
    "bid": Bid,
    "play": Play,
}
_ACTION_NAMES = {cls: name for name, cls in _ACTION_TYPES.items()}
_FIELD_TYPES: dict[type, dict[str, Any]] = {
    NameTrumpNumber: {"player": int, "number": int},
    NameTrumpColour: {"player": int, "colour": str},
    Bid: {"player": int, "tricks": int},
    Play: {"player": int, "card": str, "choice": (int, str, type(None))},
}


def parse_play(text: str) -> tuple[Card, Choice]:
    """``"dungeon:2"`` → (dungeon, 2); ``"alchemist:blue"`` → (alchemist, "blue")."""
    name, _, raw = text.partition(":")
    card = Card.parse(name)
    if not raw:
        return card, None
    kind = card.choice_kind
    if kind in ("target", "number"):
        try:
            return card, int(raw)
        except ValueError:
            raise IllegalAction("choice_not_a_number", card=card.name, text=raw) from None
    if kind == "colour":
        return card, raw.strip().lower()
    raise IllegalAction("card_takes_no_choice", card=card.name)


# --- the ranking: one place for every rule of who wins a trick -------------------------

@dataclass(frozen=True, slots=True)
class TrickResult:
    winner: int                 # index into the plays
    locked: frozenset[int]      # indices a Dungeon locked
    trump_number: int           # trumps in force at the end of the trick
    trump_colour: str


def resolve_trick(plays: Sequence[tuple[Card, Choice]], trump_number: int, trump_colour: str) -> TrickResult:
    """Who wins a (possibly unfinished) trick, which cards are locked, and the trumps
    after it. Decisions for the cases the rule book leaves open: docs/partout.md."""
    if not plays:
        raise ValueError("a trick needs at least one card")
    # A Dungeon may itself be locked by a later Dungeon, so resolve locks from the back:
    # every card that could lock play i comes after i.
    locked: set[int] = set()
    for i in range(len(plays) - 1, -1, -1):
        card, choice = plays[i]
        if card.name == "dungeon" and i not in locked and choice is not None:
            if not isinstance(choice, int) or not 0 <= choice < i:
                raise ValueError(f"the dungeon at {i} can only lock an earlier card, not {choice!r}")
            locked.add(choice)
    for i, (card, choice) in enumerate(plays):
        if i in locked:
            continue
        if card.name == "mathematician":
            trump_number = int(choice)  # type: ignore[arg-type]
        elif card.name == "alchemist":
            trump_colour = str(choice)

    winner = _rank_winner(plays, locked, trump_number, trump_colour)
    return TrickResult(winner, frozenset(locked), trump_number, trump_colour)


def _rank_winner(plays: Sequence[tuple[Card, Choice]], locked: set[int], trump_number: int,
                 trump_colour: str) -> int:
    first_royal = next((i for i, (c, _) in enumerate(plays) if c.name in ROYALS and i not in locked), None)
    if first_royal is not None:
        jester = next((i for i, (c, _) in enumerate(plays) if c.name == "jester" and i not in locked), None)
        return first_royal if jester is None else jester

    lead_colour = next((c.colour for i, (c, _) in enumerate(plays) if c.colour and i not in locked), None)
    best, best_key = 0, None
    for i, (card, _) in enumerate(plays):
        if i in locked or card.colour is None or card.value is None:     # (every coloured card has a value)
            continue
        if card.value == trump_number and card.colour == trump_colour:
            key = (4, 0)
        elif card.value == trump_number:
            key = (3, -i)            # among the trump numbers the first played wins
        elif card.colour == trump_colour:
            key = (2, card.value)
        elif card.colour == lead_colour:
            key = (1, card.value)
        else:
            continue
        if best_key is None or key > best_key:
            best, best_key = i, key
    # No card with a value (only specials, or all locked): the first card played takes it.
    return best


def trick_winner(plays: Sequence[str], trump_number: int, trump_colour: str) -> int:
    """Index of the winning play. ``plays`` are card strings with special choices after a
    colon, e.g. ``["red5", "king", "jester", "dungeon:1"]``."""
    return resolve_trick([parse_play(p) for p in plays], trump_number, trump_colour).winner


# --- scoring ---------------------------------------------------------------------------

def team_points(bid: int, tricks: int, teams: int) -> int:
    """Points for one team in one round: 1 per trick, plus the bonus from the table when
    the bid was reached; a team that bid and took no trick loses 1 per missing trick.
    The 3-player game scores with the 3-team table."""
    if teams not in (2, 3):
        raise ValueError("teams must be 2 or 3")
    if bid < 0 or tricks < 0:
        raise ValueError("bid and tricks cannot be negative")
    if bid > 0 and tricks == 0:
        return -bid
    bonus: dict[str, int] = DATA["bonus_for_bid"][f"{teams}_teams"]
    if bid >= 1 and tricks >= bid:
        if str(bid) not in bonus:
            raise ValueError(f"no bonus for a bid of {bid}")
        return tricks + bonus[str(bid)]
    return tricks


# --- setup ------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Setup:
    players: int
    teams: tuple[tuple[int, ...], ...]
    team_of: tuple[int, ...]
    deck: frozenset[str]
    numbers: tuple[int, ...]     # trump numbers that can be named (the values in play)
    hand_size: int
    cards_per_trick: int         # per player: 2 in the 3-player game
    tricks: int
    rounds: int
    scoring_teams: int

    @classmethod
    def for_players(cls, players: int) -> "Setup":
        raw = DATA["setups"].get(str(players))
        if raw is None:
            raise IllegalAction("partout_player_count", players=players)
        removed = set(raw["removed_values"])
        numbers = tuple(v for v in VALUES if v not in removed)
        deck = frozenset(n for n, c in ALL_CARDS.items() if c.value is None or c.value in numbers)
        teams = tuple(tuple(t) for t in raw["teams"])
        team_of = tuple(next(ti for ti, t in enumerate(teams) if p in t) for p in range(players))
        return cls(players, teams, team_of, deck, numbers, raw["hand_size"],
                   raw["cards_per_player_per_trick"], raw["tricks"], raw["rounds"],
                   int(raw["scoring_table"][0]))


_SETUPS: dict[int, Setup] = {}


def setup_for(players: int) -> Setup:
    setup = _SETUPS.get(players)
    if setup is None:
        setup = _SETUPS[players] = Setup.for_players(players)
    return setup


# --- state ------------------------------------------------------------------------------

MODES = ("virtual", "physical")


class PartoutState(NamedTuple):
    """Immutable; a NamedTuple because ``_replace`` is several times faster than
    ``dataclasses.replace`` and the random-play benchmark lives on it."""

    players: int
    mode: str                                   # "virtual": the core deals; "physical": real cards
    seed: int
    first_dealer: int
    round: int                                  # 0-based
    dealer: int
    phase: str
    to_act: int | None
    hands: tuple[tuple[str, ...], ...] | None   # virtual mode only
    played: frozenset[str]                      # cards played this round
    trump_number: int | None
    trump_colour: str | None
    bids: tuple[int | None, ...]
    trick: tuple[tuple[int, str, Choice], ...]  # (player, card, choice)
    trick_leader: int
    tricks_won: tuple[int, ...]
    last_trick: tuple[tuple[tuple[int, str, Choice], ...], int] | None   # plays, winning index
    history: tuple[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]], ...]
    # per finished round: (bids, tricks, points), each per team

    @property
    def setup(self) -> Setup:
        return setup_for(self.players)


class Partout(GameRules):
    name = "partout"
    title = "Partout"
    player_counts = PLAYER_COUNTS

    # -- creation ----------------------------------------------------------------------
    def new_game(self, config: Mapping[str, Any], seed: int) -> PartoutState:
        players = int(config.get("players", 4))
        setup = setup_for(players)
        mode = config.get("mode", "virtual")
        if mode not in MODES:
            raise IllegalAction("unknown_mode", mode=str(mode))
        first_dealer = int(config.get("first_dealer", 0))
        if not 0 <= first_dealer < players:
            raise IllegalAction("dealer_out_of_range", players=players)
        blank = PartoutState(players, mode, int(seed), first_dealer, 0, first_dealer, "trump_number",
                             None, None, frozenset(), None, None, (None,) * players, (), 0,
                             (0,) * players, None, ())
        return _start_round(blank, setup, 0)

    def card_names(self) -> list[str]:
        return sorted(ALL_CARDS, key=_hand_order)

    # -- queries ---------------------------------------------------------------------------
    def to_act(self, state: PartoutState) -> int | None:
        return state.to_act

    def legal_actions(self, state: PartoutState, player: int) -> list[Action]:
        if state.to_act != player:
            return []
        setup = state.setup
        phase = state.phase
        if phase == "trump_number":
            return [_interned(NameTrumpNumber, player, n) for n in setup.numbers]
        if phase == "trump_colour":
            return [_interned(NameTrumpColour, player, c) for c in COLOURS]
        if phase == "bidding":
            return [_interned(Bid, player, b) for b in range(max_bid(state, player) + 1)]
        if phase == "playing":
            actions: list[Action] = []
            trick_len = len(state.trick)
            for name in playable_cards(state, player):
                options = _PLAY_OPTIONS.get((player, name, trick_len, setup.players))
                if options is None:
                    options = _play_options(player, name, trick_len, setup)
                actions.extend(options)
            return actions
        return []

    def outcome(self, state: PartoutState) -> Outcome | None:
        if state.phase != "finished":
            return None
        scores = totals(state)
        best = max(scores)
        return Outcome(scores, tuple(t for t, s in enumerate(scores) if s == best))

    # -- the moves -------------------------------------------------------------------------
    def apply(self, state: PartoutState, action: Action) -> PartoutState:
        if state.phase == "finished":
            raise IllegalAction("game_over")
        expected = _PHASE_ACTION[state.phase]
        if not isinstance(action, expected):
            raise IllegalAction(f"phase_{state.phase}", expected=state.to_act)
        if not 0 <= action.player < state.players:
            raise IllegalAction("no_such_seat", seat=action.player)
        if action.player != state.to_act:
            raise IllegalAction("not_your_turn", player=action.player, expected=state.to_act)
        setup = state.setup
        n = state.players

        if isinstance(action, NameTrumpNumber):
            if action.number not in setup.numbers:
                raise IllegalAction("number_out_of_range", number=action.number,
                                    low=setup.numbers[0], high=setup.numbers[-1])
            return state._replace(trump_number=action.number, phase="trump_colour",
                           to_act=(state.dealer + 2) % n)

        if isinstance(action, NameTrumpColour):
            if action.colour not in COLOURS:
                raise IllegalAction("unknown_colour", text=str(action.colour))
            return state._replace(trump_colour=action.colour, phase="bidding",
                           to_act=(state.dealer + 1) % n)

        if isinstance(action, Bid):
            highest = max_bid(state, action.player)
            if action.tricks < 0:
                raise IllegalAction("bid_negative")
            if action.tricks > highest:
                partners = _partner_bid(state, action.player)
                if partners:
                    raise IllegalAction("bid_over_team", bid=action.tricks, high=highest,
                                        partner_bid=partners, tricks=setup.tricks)
                raise IllegalAction("bid_too_high", bid=action.tricks, high=highest)
            bids = state.bids[:action.player] + (action.tricks,) + state.bids[action.player + 1:]
            if all(b is not None for b in bids):
                leader = (state.dealer + 1) % n
                return state._replace(bids=bids, phase="playing", to_act=leader, trick_leader=leader)
            return state._replace(bids=bids, to_act=(action.player + 1) % n)

        return self._play(state, setup, action)

    def _play(self, state: PartoutState, setup: Setup, action: Play) -> PartoutState:
        card = Card.parse(action.card)
        if card.name not in setup.deck:
            raise IllegalAction("card_not_in_deck", card=card.name, players=state.players)
        if card.name in state.played:
            raise IllegalAction("card_already_played", card=card.name)
        if state.hands is not None and card.name not in state.hands[action.player]:
            raise IllegalAction("card_not_in_hand", card=card.name)
        choice = _check_choice(card, action.choice, len(state.trick), setup)

        trick = state.trick + ((action.player, card.name, choice),)
        played = state.played | {card.name}
        hands = state.hands
        if hands is not None:
            hand = hands[action.player]
            i = hand.index(card.name)
            hands = hands[:action.player] + (hand[:i] + hand[i + 1:],) + hands[action.player + 1:]
        n = state.players
        if len(trick) < n * setup.cards_per_trick:
            return state._replace(trick=trick, played=played, hands=hands, to_act=(action.player + 1) % n)

        result = resolve_trick([(ALL_CARDS[c], ch) for _, c, ch in trick],
                               state.trump_number, state.trump_colour)  # type: ignore[arg-type]
        winner = trick[result.winner][0]
        won = state.tricks_won[:winner] + (state.tricks_won[winner] + 1,) + state.tricks_won[winner + 1:]
        after = state._replace(trick=(), played=played, hands=hands, tricks_won=won,
                        trump_number=result.trump_number, trump_colour=result.trump_colour,
                        last_trick=(trick, result.winner), to_act=winner, trick_leader=winner)
        if sum(won) < setup.tricks:
            return after
        return _end_round(after, setup)

    # -- what the screen shows --------------------------------------------------------------
    def unseen(self, state: PartoutState) -> tuple[int, ...]:
        return (state.setup.rounds - state.round,)       # each new round deals hidden hands

    def seat_view(self, state: PartoutState, seat: int) -> PartoutState:
        """The seat's own hand; every other hand's cards hidden (how many stays); the seed,
        which deals the rounds to come, 0. Every card played lies open."""
        hands = state.hands
        if hands is not None:
            hands = tuple(h if p == seat else (HIDDEN,) * len(h) for p, h in enumerate(hands))
        return state._replace(hands=hands, seed=0)

    def public_view(self, state: PartoutState) -> dict[str, Any]:
        setup = state.setup
        trick_plays = [(ALL_CARDS[c], ch) for _, c, ch in state.trick]
        locked: frozenset[int]
        trump_number, trump_colour, locked = state.trump_number, state.trump_colour, frozenset()
        if trick_plays:   # trumps changed by a special in this trick hold already
            result = resolve_trick(trick_plays, trump_number, trump_colour)  # type: ignore[arg-type]
            trump_number, trump_colour, locked = result.trump_number, result.trump_colour, result.locked
        team_bids = [None if any(state.bids[p] is None for p in t) else sum(state.bids[p] for p in t)  # type: ignore[misc]
                     for t in setup.teams]
        outcome = self.outcome(state)
        return {
            "game": self.name,
            "players": state.players,
            "mode": state.mode,
            "teams": [list(t) for t in setup.teams],
            "team_of": list(setup.team_of),
            "round": state.round,
            "rounds": setup.rounds,
            "dealer": state.dealer,
            "phase": state.phase,
            "to_act": state.to_act,
            "trump_number": trump_number,
            "trump_colour": trump_colour,
            "numbers": list(setup.numbers),
            "bids": list(state.bids),
            "team_bids": team_bids,
            "tricks_won": list(state.tricks_won),
            "team_tricks": [sum(state.tricks_won[p] for p in t) for t in setup.teams],
            "tricks_per_round": setup.tricks,
            "cards_left": cards_left(state),
            "trick": [{"player": p, "card": c, "choice": ch, "locked": i in locked}
                      for i, (p, c, ch) in enumerate(state.trick)],
            "last_trick": None if state.last_trick is None else _last_trick_view(state),
            "history": [{"bids": list(b), "tricks": list(t), "points": list(p)}
                        for b, t, p in state.history],
            "scores": list(totals(state)),
            "winners": None if outcome is None else list(outcome.winners),
        }

    # -- JSON ------------------------------------------------------------------------------------
    def action_to_json(self, action: Action) -> dict[str, Any]:
        data: dict[str, Any] = {"type": _ACTION_NAMES[type(action)]}
        for field in action.__slots__:
            data[field] = getattr(action, field)
        return data

    def action_from_json(self, data: Mapping[str, Any]) -> Action:
        cls = _ACTION_TYPES.get(str(data.get("type")))
        if cls is None:
            raise IllegalAction("unknown_action", text=str(data.get("type")))
        return action_from_fields(cls, data, _FIELD_TYPES[cls])

    def state_to_json(self, state: PartoutState) -> dict[str, Any]:
        return {
            "players": state.players, "mode": state.mode, "seed": state.seed,
            "first_dealer": state.first_dealer, "round": state.round, "dealer": state.dealer,
            "phase": state.phase, "to_act": state.to_act,
            "hands": None if state.hands is None else [list(h) for h in state.hands],
            "played": sorted(state.played), "trump_number": state.trump_number,
            "trump_colour": state.trump_colour, "bids": list(state.bids),
            "trick": [list(p) for p in state.trick], "trick_leader": state.trick_leader,
            "tricks_won": list(state.tricks_won),
            "last_trick": None if state.last_trick is None else
            [[list(p) for p in state.last_trick[0]], state.last_trick[1]],
            "history": [[list(part) for part in r] for r in state.history],
        }

    def state_from_json(self, data: Mapping[str, Any]) -> PartoutState:
        last = data["last_trick"]
        return PartoutState(
            data["players"], data["mode"], data["seed"], data["first_dealer"], data["round"],
            data["dealer"], data["phase"], data["to_act"],
            None if data["hands"] is None else tuple(tuple(h) for h in data["hands"]),
            frozenset(data["played"]), data["trump_number"], data["trump_colour"],
            tuple(data["bids"]), tuple(tuple(p) for p in data["trick"]), data["trick_leader"],
            tuple(data["tricks_won"]),
            None if last is None else (tuple(tuple(p) for p in last[0]), last[1]),
            tuple((tuple(bids), tuple(tricks), tuple(points)) for bids, tricks, points in data["history"]),
        )


_PHASE_ACTION: dict[str, type] = {
    "trump_number": NameTrumpNumber,
    "trump_colour": NameTrumpColour,
    "bidding": Bid,
    "playing": Play,
}


# --- helpers shared by the rules and the table's hints -------------------------------------

_INTERNED: dict[tuple[Any, ...], Any] = {}


_PLAY_OPTIONS: dict[tuple[int, str, int, int], tuple[Play, ...]] = {}


def _play_options(player: int, name: str, trick_len: int, setup: Setup) -> tuple[Play, ...]:
    """Every way to play one card: a card's choices depend only on the trick's length and
    the player count, so the options are built once and shared."""
    kind = _CHOICE_KIND.get(name)
    choices: Sequence[Choice]
    if kind is None:
        choices = (None,)
    elif kind == "target":
        choices = range(trick_len) or (None,)
    else:
        choices = setup.numbers if kind == "number" else COLOURS
    options = tuple(_interned(Play, player, name, c) for c in choices)
    _PLAY_OPTIONS[(player, name, trick_len, setup.players)] = options
    return options


def _interned(cls: type, *args: Any) -> Any:
    """Actions are immutable and few, so legal_actions hands out shared instances."""
    key = (cls, *args)
    action = _INTERNED.get(key)
    if action is None:
        action = _INTERNED[key] = cls(*args)
    return action


def playable_cards(state: PartoutState, player: int) -> list[str]:
    """Cards ``player`` may play now: the hand (virtual) or every unplayed card (physical)."""
    if state.phase != "playing" or state.to_act != player:
        return []
    if state.hands is not None:
        return list(state.hands[player])
    return sorted(state.setup.deck - state.played)


def max_bid(state: PartoutState, player: int) -> int:
    """The highest bid ``player`` may make: a team's bids together cannot exceed the
    tricks in a round (the scoring table ends there)."""
    return state.setup.tricks - _partner_bid(state, player)


def _partner_bid(state: PartoutState, player: int) -> int:
    team = state.setup.teams[state.setup.team_of[player]]
    return sum(state.bids[p] or 0 for p in team if p != player)


def _last_trick_view(state: PartoutState) -> dict[str, Any]:
    plays, winner = state.last_trick  # type: ignore[misc]
    # the locks are re-derived from the trick itself; the trumps at its start do not matter for them
    locked = resolve_trick([(ALL_CARDS[c], ch) for _, c, ch in plays], 1, COLOURS[0]).locked
    return {"plays": [{"player": p, "card": c, "choice": ch, "locked": i in locked}
                      for i, (p, c, ch) in enumerate(plays)],
            "winner": plays[winner][0]}


def cards_left(state: PartoutState) -> list[int]:
    if state.hands is not None:
        return [len(h) for h in state.hands]
    setup = state.setup
    played_by = [0] * state.players
    for p, _, _ in state.trick:
        played_by[p] += 1
    done = sum(state.tricks_won) * setup.cards_per_trick
    return [setup.hand_size - done - played_by[p] for p in range(state.players)]


def totals(state: PartoutState) -> tuple[int, ...]:
    teams = len(state.setup.teams)
    return tuple(sum(points[t] for _, _, points in state.history) for t in range(teams))


def _check_choice(card: Card, choice: Choice, trick_len: int, setup: Setup) -> Choice:
    kind = card.choice_kind
    if kind is None:
        if choice is not None:
            raise IllegalAction("card_takes_no_choice", card=card.name)
        return None
    if kind == "target":
        if trick_len == 0:
            if choice is not None:
                raise IllegalAction("dungeon_nothing_to_lock")
            return None
        if choice is None:
            raise IllegalAction("dungeon_needs_target")
        if isinstance(choice, bool) or not isinstance(choice, int) or not 0 <= choice < trick_len:
            raise IllegalAction("dungeon_target_invalid", target=str(choice), high=trick_len)
        return choice
    if kind == "number":
        if isinstance(choice, bool) or not isinstance(choice, int) or choice not in setup.numbers:
            raise IllegalAction("mathematician_needs_number", low=setup.numbers[0], high=setup.numbers[-1])
        return choice
    if choice not in COLOURS:
        raise IllegalAction("alchemist_needs_colour")
    return choice


def _deal(state: PartoutState, setup: Setup, round_index: int) -> tuple[tuple[str, ...], ...]:
    deck = sorted(setup.deck)
    # A string seed hashes with SHA-512, so the deal is the same on every machine and run.
    random.Random(f"partout:{state.seed}:{round_index}").shuffle(deck)
    size = setup.hand_size
    return tuple(tuple(sorted(deck[p * size:(p + 1) * size], key=_hand_order))
                 for p in range(state.players))


def _hand_order(name: str) -> tuple[int, str, int]:
    card = ALL_CARDS[name]
    if card.colour is None:
        return (1, name, 0)
    return (0, card.colour, card.value)                 # type: ignore[return-value]  # a colour has a value


def _start_round(state: PartoutState, setup: Setup, round_index: int) -> PartoutState:
    dealer = (state.first_dealer + round_index) % state.players
    n = state.players
    state = state._replace(round=round_index, dealer=dealer, phase="trump_number",
                    to_act=(dealer + 1) % n, played=frozenset(), trump_number=None,
                    trump_colour=None, bids=(None,) * n, trick=(), trick_leader=(dealer + 1) % n,
                    tricks_won=(0,) * n)
    if state.mode == "virtual":
        state = state._replace(hands=_deal(state, setup, round_index))
    return state


def _end_round(state: PartoutState, setup: Setup) -> PartoutState:
    # (ignored: a bid is None until it is made, and every bid is made before the tricks are played)
    bids = tuple(sum(state.bids[p] for p in team) for team in setup.teams)  # type: ignore[misc]
    tricks = tuple(sum(state.tricks_won[p] for p in team) for team in setup.teams)
    points = tuple(team_points(b, t, setup.scoring_teams) for b, t in zip(bids, tricks))
    state = state._replace(history=state.history + ((bids, tricks, points),))
    if state.round + 1 >= setup.rounds:
        return state._replace(phase="finished", to_act=None)
    return _start_round(state, setup, state.round + 1)


RULES = Partout()
