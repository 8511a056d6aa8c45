"""Teamplay (Schmidt Spiele): 3 to 6 players, partners sitting opposite, fulfil missions
with number cards; the rule decisions are in ``docs/teamplay.md``.

The missions: whether the cards shown fulfil one (``fulfills``), every way a hand can
(``ways``), and what the cards miss when they do not (``shortfall``), each read from the
missions' data in ``controller/games/data/teamplay.json``. Then the game: the table deals
and shows the missions; the number cards are dealt by the table (virtual) or held for real
(physical: each of the 64 cards its own tag, and the table follows every card it sees).

Cards are written by colour and value, ``red3``, ``blue7``; the 64 cards themselves add
their copy (``red3-2``: the second red 3), which the missions do not look at. Mission cards
are written by type and copy, ``pair/2``.

>>> fulfills("pair", ["red3", "blue3"])
True
>>> fulfills("three-pairs", ["red3", "blue3", "red5", "blue5", "red3", "blue3"])
False
>>> fulfills("red-three-sum-7", ["red3", "red2", "red2"])
True
>>> shortfall("red-three-sum-7", ["red3", "red2", "red3"])
('teamplay_needs_sum', {'sum': 7, 'total': 8})
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from itertools import combinations, permutations
from typing import Any, Iterable, Mapping, NamedTuple, Sequence, Union

from controller.games.core import (
    HIDDEN, STRINGS, GameRules, IllegalAction, Outcome, action_from_fields, action_to_fields, check_move, load_data,
)

DATA = load_data("teamplay")
COLOURS: tuple[str, ...] = tuple(DATA["colours"])
VALUES: tuple[int, ...] = tuple(DATA["values"])
COPIES = DATA["copies_per_colour"]


@dataclass(frozen=True, slots=True)
class Card:
    colour: str
    value: int

    @classmethod
    def parse(cls, text: str) -> "Card":
        name = str(text).strip().lower()
        base, dash, copy = name.partition("-")
        card = _CARDS.get(base)
        if card is None or (dash and not (copy.isdigit() and 1 <= int(copy) <= COPIES)):
            raise IllegalAction("teamplay_unknown_card", text=str(text))
        return card

    def notation(self) -> str:
        return f"{self.colour}{self.value}"


_CARDS = {f"{c}{v}": Card(c, v) for c in COLOURS for v in VALUES}
NUMBER_CARDS: tuple[str, ...] = tuple(f"{c}{v}-{k}" for c in COLOURS for v in VALUES for k in range(1, COPIES + 1))
_COPIES = frozenset(NUMBER_CARDS)


@dataclass(frozen=True)
class Mission:
    """One mission type, as the data file describes it."""

    id: str
    points: int
    copies: int
    cards: int | None                # every field is given by _mission, from the data
    colour: str | None
    values: frozenset[int] | None
    exact_values: tuple[int, ...] | None
    groups: tuple[int, ...] | None
    sum: int | None
    sum_of_two: bool
    run: bool
    parity: str | None


def _mission(data: dict[str, Any]) -> Mission:
    return Mission(
        data["id"], data["points"], data["copies"], data.get("cards"), data.get("colour"),
        frozenset(data["values"]) if "values" in data else None,
        tuple(sorted(data["exact_values"])) if "exact_values" in data else None,
        tuple(sorted(data["groups"], reverse=True)) if "groups" in data else None,
        data.get("sum"), bool(data.get("sum_of_two")), bool(data.get("run")), data.get("parity"))


MISSIONS: dict[str, Mission] = {m["id"]: _mission(m) for m in DATA["missions"]}


def mission(mission_id: str) -> Mission:
    found = MISSIONS.get(mission_id)
    if found is None:
        raise IllegalAction("teamplay_unknown_mission", text=str(mission_id))
    return found


def shortfall(mission_id: str, cards: Sequence[str]) -> tuple[str, dict[str, Any]] | None:
    """None when ``cards`` fulfil the mission exactly; else the first thing they miss, as a
    text key and its parameters ("needs exactly 3 red cards summing to 7; these sum to 8")."""
    m = mission(mission_id)
    parsed = [Card.parse(c) for c in cards]
    values = [c.value for c in parsed]
    if not parsed:
        return "teamplay_needs_cards", {"n": m.cards or 1, "shown": 0}
    if m.cards is not None and len(parsed) != m.cards:
        return "teamplay_needs_cards", {"n": m.cards, "shown": len(parsed)}
    if m.colour in COLOURS:
        other = next((c for c in parsed if c.colour != m.colour), None)
        if other is not None:
            return "teamplay_needs_colour", {"colour": m.colour, "card": other.notation()}
    elif m.colour == "same" and len({c.colour for c in parsed}) > 1:
        return "teamplay_needs_one_colour", {}
    if m.values is not None:
        wrong = next((v for v in values if v not in m.values), None)
        if wrong is not None:
            return "teamplay_needs_values", {"values": ", ".join(map(str, sorted(m.values))), "value": wrong}
    if m.exact_values is not None and tuple(sorted(values)) != m.exact_values:
        return "teamplay_needs_exact_values", {"values": ", ".join(map(str, m.exact_values))}
    if m.groups is not None:
        shape = tuple(sorted(Counter(values).values(), reverse=True))
        if shape != m.groups:
            return "teamplay_needs_groups", {"groups": " + ".join(map(str, m.groups)),
                                             "shown": " + ".join(map(str, shape))}
    if m.sum is not None and sum(values) != m.sum:
        return "teamplay_needs_sum", {"sum": m.sum, "total": sum(values)}
    if m.sum_of_two and not any(a + b == c for a, b, c in permutations(values, 3)):
        return "teamplay_needs_sum_of_two", {}
    if m.run:
        ordered = sorted(values)
        if any(b - a != 1 for a, b in zip(ordered, ordered[1:])):
            return "teamplay_needs_run", {"n": len(values)}
    if m.parity == "same" and len({v % 2 for v in values}) > 1:
        return "teamplay_needs_parity", {}
    return None


def card_of(name: str) -> Card:
    """A card by its name, fast for the names the game uses."""
    return _BY_NAME.get(name) or Card.parse(name)


def _parsed(cards: Iterable[str]) -> list[Card]:
    return [_BY_NAME.get(c) or Card.parse(c) for c in cards]


_BY_NAME: dict[str, Card] = {**_CARDS, **{n: _CARDS[n.partition("-")[0]] for n in NUMBER_CARDS}}


def _fits(m: Mission, parsed: Sequence[Card]) -> bool:
    """``shortfall(...) is None`` without building a reason: the search's inner loop."""
    n = len(parsed)
    if not n or (m.cards is not None and n != m.cards):
        return False
    values = [c.value for c in parsed]
    if m.colour is not None:
        colours = {c.colour for c in parsed}
        if (m.colour == "same" and len(colours) > 1) or (m.colour != "same" and colours != {m.colour}):
            return False
    if m.values is not None and not m.values.issuperset(values):
        return False
    if m.exact_values is not None and tuple(sorted(values)) != m.exact_values:
        return False
    if m.groups is not None and tuple(sorted(Counter(values).values(), reverse=True)) != m.groups:
        return False
    if m.sum is not None and sum(values) != m.sum:
        return False
    if m.sum_of_two and not any(a + b == c for a, b, c in permutations(values, 3)):
        return False
    if m.run:
        ordered = sorted(values)
        if any(b - a != 1 for a, b in zip(ordered, ordered[1:])):
            return False
    if m.parity == "same" and len({v % 2 for v in values}) > 1:
        return False
    return True


def fulfills(mission_id: str, cards: Sequence[str]) -> bool:
    """Whether the cards shown form the mission's combination exactly, no card left over."""
    return _fits(mission(mission_id), _parsed(cards))


def ways(mission_id: str, hand: Iterable[str]) -> list[tuple[str, ...]]:
    """Every part of ``hand`` that fulfils the mission (each as the hand's own cards, one per
    combination of colours and values). Cards the mission cannot use are left out first
    (its colour, its values), and sums are searched with the running total pruned, so all
    sixteen missions in an eight-card hand take well under a millisecond."""
    m = mission(mission_id)
    names = list(hand)
    parsed = _parsed(names)
    usable = [(card, name) for card, name in zip(parsed, names)
              if (m.colour not in COLOURS or card.colour == m.colour) and (m.values is None or card.value in m.values)
              and (m.exact_values is None or card.value in m.exact_values)]
    if m.groups is not None:                     # only values with enough cards can form the groups
        counts = Counter(card.value for card, _ in usable)
        usable = [cn for cn in usable if counts[cn[0].value] >= m.groups[-1]]
        have = sorted((counts[v] for v in {card.value for card, _ in usable}), reverse=True)
        if len(have) < len(m.groups) or any(h < g for h, g in zip(have, m.groups)):
            return []
    usable.sort(key=lambda cn: (cn[0].colour, cn[0].value, cn[1]))
    found: dict[tuple[Card, ...], tuple[str, ...]] = {}
    if m.cards is None:                          # any number of cards: a sum, searched with pruning
        target = m.sum if m.sum is not None else 0

        def extend(start: int, chosen: list[int], total: int) -> None:
            if total == target and chosen:
                key = tuple(usable[i][0] for i in chosen)
                if key not in found and _fits(m, key):
                    found[key] = tuple(usable[i][1] for i in chosen)
            for i in range(start, len(usable)):
                value = usable[i][0].value
                if total + value <= target:
                    chosen.append(i)
                    extend(i + 1, chosen, total + value)
                    chosen.pop()
        extend(0, [], 0)
        return list(found.values())
    for part in combinations(usable, m.cards):
        key = tuple(card for card, _ in part)
        if key not in found and _fits(m, key):
            found[key] = tuple(name for _, name in part)
    return list(found.values())


# === the game ===========================================================================================

MIN_PLAYERS, MAX_PLAYERS = DATA["players"]
BANK_SIZE: int = DATA["bank_size"]
STARTING_HANDS: tuple[int, ...] = tuple(DATA["starting_hands"])
MODES = ("virtual", "physical")
MISSION_CARDS: tuple[str, ...] = tuple(f"{m.id}/{k}" for m in MISSIONS.values() for k in range(1, m.copies + 1))


def mission_type(card: str) -> Mission:
    """``"pair/2"`` (the second pair mission card) → the pair mission."""
    return mission(card.partition("/")[0])


def teams_for(players: int) -> tuple[tuple[int, ...], ...]:
    """Partners sit opposite: 1&3 / 2&4 with four, 1&4 / 2&5 / 3&6 with six; with three and
    five everyone plays alone."""
    teams = DATA["teams"].get(str(players))
    return tuple(tuple(t) for t in teams) if teams else tuple((p,) for p in range(players))


def hand_limit(players: int) -> int:
    limit: int = DATA["hand_limit"]["teams" if players % 2 == 0 else "alone"]
    return limit


def end_missions(players: int) -> int:
    missions: int = DATA["end_missions"]["teams" if players % 2 == 0 else "alone"]
    return missions


# --- actions -------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class KeepMission:
    """Setup with an even count: keep the mission dealt (``exchange`` False) or put it back
    once for a new one, which must be kept."""

    player: int
    exchange: bool


@dataclass(frozen=True, slots=True)
class LayBank:
    """Physical cards: the dealer taps the three cards laid face up as the bank."""

    player: int
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RefillBank:
    """Physical cards: the card laid from the draw pile into the bank after one was taken."""

    player: int
    card: str


@dataclass(frozen=True, slots=True)
class Discard:
    """At the start of a turn, the cards above the hand limit onto the discard pile."""

    player: int
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DrawDeck:
    player: int


@dataclass(frozen=True, slots=True)
class DrawBank:
    player: int
    card: str


@dataclass(frozen=True, slots=True)
class Fulfil:
    """The cards shown for a mission (its card, e.g. ``"pair/2"``): one's own or the general one."""

    player: int
    mission: str
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PutBack:
    """The own mission just drawn as a replacement is put back, once, for the next one."""

    player: int


@dataclass(frozen=True, slots=True)
class Give:
    """One or two cards to the partner, face down (games of teams)."""

    player: int
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class EndTurn:
    player: int


Action = Union[KeepMission, LayBank, RefillBank, Discard, DrawDeck, DrawBank, Fulfil, PutBack, Give, EndTurn]
_ACTION_TYPES: dict[str, type[Action]] = {
    "keep_mission": KeepMission, "lay_bank": LayBank, "refill_bank": RefillBank, "discard": Discard,
    "draw_deck": DrawDeck, "draw_bank": DrawBank, "fulfil": Fulfil, "put_back": PutBack, "give": Give,
    "end_turn": EndTurn,
}
_ACTION_NAMES = {cls: name for name, cls in _ACTION_TYPES.items()}
_FIELD_TYPES: dict[str, Any] = {"player": int, "exchange": bool, "cards": STRINGS, "card": str, "mission": str}


# --- state ---------------------------------------------------------------------------------------------

class TeamplayState(NamedTuple):
    players: int
    mode: str                                   # "virtual": the table deals; "physical": real number cards
    seed: int
    dealer: int
    phase: str                                  # "choose_missions", "lay_bank", "turn", "refill", "over"
    to_act: int | None
    hands: tuple[tuple[str, ...], ...]          # virtual: the hands; physical: the cards the table saw go there
    hand_sizes: tuple[int, ...]                 # public: anyone may ask how many cards someone holds
    from_bank: tuple[tuple[str, ...], ...]      # per seat, the cards in its hand everybody saw it take from the bank
    from_partner: tuple[tuple[str, ...], ...]   # per seat, the cards in its hand its partner gave it (known to both)
    bank: tuple[str, ...]
    deck: tuple[str, ...]                       # virtual: the draw pile, top first; physical: ()
    deck_left: int
    discard: tuple[str, ...]                    # the discard pile (physical: the cards seen go there)
    general: str | None                         # the general mission
    missions: tuple[tuple[str, ...], ...]       # each player's missions (one, two with 3 and 5 players)
    mission_pile: tuple[str, ...]
    missions_out: tuple[str, ...]               # missions put back
    fulfilled: tuple[tuple[str, ...], ...]      # per player, the missions they fulfilled
    decided: tuple[bool, ...]                   # setup with an even count: chose to keep or exchange
    turns: tuple[int, ...]                      # turns begun per player
    draws: int                                  # cards drawn this turn
    gave: bool                                  # cards given this turn
    must_discard: int                           # cards above the limit, to discard before anything else
    fresh: str | None                           # the own mission just drawn, which may be put back once
    final_turns: int | None                     # after the end was announced: turns still to come
    refill_by: int | None                       # physical: who taps the card laid into the bank


def team_of(state: TeamplayState, player: int) -> int:
    return next(t for t, team in enumerate(teams_for(state.players)) if player in team)


def partner(state: TeamplayState, player: int) -> int | None:
    team = teams_for(state.players)[team_of(state, player)]
    return next((p for p in team if p != player), None)


def team_missions(state: TeamplayState) -> list[int]:
    return [sum(len(state.fulfilled[p]) for p in team) for team in teams_for(state.players)]


def team_points(state: TeamplayState) -> list[int]:
    return [sum(mission_type(m).points for p in team for m in state.fulfilled[p]) for team in teams_for(state.players)]


def place_of(state: TeamplayState, card: str) -> str | int | None:
    """Where the table knows a number card is: "bank", "discard", a seat, or None (unseen)."""
    if card in state.bank:
        return "bank"
    for seat, hand in enumerate(state.hands):
        if card in hand:
            return seat
    if card in state.discard:
        return "discard"
    return None


def check_card(card: str) -> None:
    """A physical number card's name (``red3-2``); a bare ``red3`` is refused with physical cards."""
    if card not in _COPIES:
        raise IllegalAction("teamplay_unknown_card", text=str(card))


def check_hand_card(state: TeamplayState, player: int, card: str) -> None:
    """``card`` may be in ``player``'s hand: it is (virtual cards); the table has not seen
    it elsewhere (physical cards)."""
    check_card(card)
    if state.mode == "virtual":
        if card not in state.hands[player]:
            raise IllegalAction("teamplay_not_in_hand", card=card)
        return
    where = place_of(state, card)
    if where == "bank":
        raise IllegalAction("teamplay_card_in_bank", card=card)
    if where == "discard":
        raise IllegalAction("teamplay_card_on_discard", card=card)
    if isinstance(where, int) and where != player:
        raise IllegalAction("teamplay_card_with_other", card=card, owner=where)


def check_unseen(state: TeamplayState, card: str) -> str:
    """A card coming off the draw pile (physical cards): not seen anywhere since it was shuffled."""
    check_card(card)
    where = place_of(state, card)
    if where == "bank":
        raise IllegalAction("teamplay_card_in_bank", card=card)
    if where == "discard":
        raise IllegalAction("teamplay_card_on_discard", card=card)
    if isinstance(where, int):
        raise IllegalAction("teamplay_card_with_other", card=card, owner=where)
    return card


def _check_distinct(cards: Sequence[str]) -> None:
    for i, card in enumerate(cards):
        if card in cards[:i]:
            raise IllegalAction("teamplay_card_twice", card=card)


def _set(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return items[:index] + (value,) + items[index + 1:]


class Teamplay(GameRules):
    name = "teamplay"
    title = "Teamplay"
    player_counts = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))

    # -- creation --------------------------------------------------------------------------------------
    def new_game(self, config: Mapping[str, Any], seed: int) -> TeamplayState:
        players = config.get("players", 4)
        if not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise IllegalAction("teamplay_player_count", low=MIN_PLAYERS, high=MAX_PLAYERS)
        mode = config.get("mode", "virtual")
        if mode not in MODES:
            raise IllegalAction("unknown_mode", mode=str(mode))
        rng = random.Random(f"teamplay:{seed}")
        dealer = rng.randrange(players)
        # from the dealer's left: 1 card, 2 cards, then 3 each
        sizes = [STARTING_HANDS[min((p - dealer - 1) % players, len(STARTING_HANDS) - 1)] for p in range(players)]
        pile = list(MISSION_CARDS)
        rng.shuffle(pile)
        per_player = 1 if players % 2 == 0 else 2
        general, pile = pile[0], pile[1:]
        missions = []
        for _ in range(players):
            missions.append(tuple(pile[:per_player]))
            pile = pile[per_player:]
        state = TeamplayState(
            players, mode, int(seed), dealer, "turn", None, ((),) * players, tuple(sizes), ((),) * players,
            ((),) * players, (), (), 0, (), general,
            tuple(missions), tuple(pile), (), ((),) * players, (False,) * players, (0,) * players, 0, False, 0, None,
            None, None)
        if mode == "virtual":
            cards = list(NUMBER_CARDS)
            rng.shuffle(cards)
            bank, cards = tuple(cards[:BANK_SIZE]), cards[BANK_SIZE:]
            hands = []
            for p in range(players):
                hands.append(tuple(cards[:sizes[p]]))
                cards = cards[sizes[p]:]
            state = state._replace(hands=tuple(hands), bank=bank, deck=tuple(cards), deck_left=len(cards))
        else:
            state = state._replace(deck_left=len(NUMBER_CARDS) - BANK_SIZE - sum(sizes), phase="lay_bank",
                                   to_act=dealer)
            return state
        return _after_setup(state)

    def card_names(self) -> list[str]:
        return list(NUMBER_CARDS)

    # -- queries ---------------------------------------------------------------------------------------
    def to_act(self, state: TeamplayState) -> int | None:
        return state.to_act

    def outcome(self, state: TeamplayState) -> Outcome | None:
        if state.phase != "over":
            return None
        # "Das Team mit den meisten Punkten gewinnt.": equal points share the win (the book
        # names no tie-break; docs/teamplay.md, decision 10)
        points = team_points(state)
        best = max(points)
        return Outcome(tuple(points), tuple(t for t, p in enumerate(points) if p == best))

    def legal_actions(self, state: TeamplayState, player: int) -> list[Action]:
        """Every action of ``player`` now (with physical cards, only those without cards)."""
        if state.to_act != player or state.phase in ("over", "lay_bank", "refill"):
            return []
        if state.phase == "choose_missions":
            return [KeepMission(player, False), KeepMission(player, True)]
        virtual = state.mode == "virtual"
        hand = state.hands[player]
        if state.must_discard:
            return [Discard(player, c) for c in combinations(hand, state.must_discard)] if virtual else []
        actions: list[Action] = []
        if state.draws < 2 and _pile_has_cards(state):
            actions.append(DrawDeck(player))
        if state.draws < 2 and virtual:
            actions.extend(DrawBank(player, c) for c in state.bank)
        if state.fresh is not None:
            actions.append(PutBack(player))
        if virtual:
            for card in missions_open_to(state, player):
                actions.extend(Fulfil(player, card, way) for way in ways(mission_type(card).id, hand))
            if partner(state, player) is not None and not state.gave:
                actions.extend(Give(player, (c,)) for c in hand)
                actions.extend(Give(player, pair) for pair in combinations(hand, 2))
        if state.draws >= 2 or not _can_draw(state):
            actions.append(EndTurn(player))
        return actions

    # -- the moves -------------------------------------------------------------------------------------
    def apply(self, state: TeamplayState, action: Action) -> TeamplayState:
        player = check_move(action, _ACTION_NAMES, state.players, state.phase == "over")
        if player != state.to_act:
            raise IllegalAction("not_your_turn", player=player, expected=state.to_act)
        expected = {"choose_missions": KeepMission, "lay_bank": LayBank, "refill": RefillBank}.get(state.phase)
        if expected is not None and not isinstance(action, expected):
            raise IllegalAction(f"teamplay_phase_{state.phase}", player=state.to_act)
        if expected is None and isinstance(action, (KeepMission, LayBank, RefillBank)):
            raise IllegalAction("teamplay_not_now")             # a setup step, after the setup
        if isinstance(action, KeepMission):
            return _keep_mission(state, action)
        if isinstance(action, LayBank):
            return _lay_bank(state, action)
        if isinstance(action, RefillBank):
            return _refill(state, action)
        if state.must_discard and not isinstance(action, Discard):
            raise IllegalAction("teamplay_discard_first", n=state.must_discard, held=state.hand_sizes[player],
                                limit=hand_limit(state.players))
        if isinstance(action, Discard):
            return _discard(state, action)
        state = state if isinstance(action, PutBack) else state._replace(fresh=None)   # any other move keeps the new mission
        if isinstance(action, (DrawDeck, DrawBank)):
            return _draw(state, action)
        if isinstance(action, Fulfil):
            return _fulfil(state, action)
        if isinstance(action, PutBack):
            return _put_back(state, action)
        if isinstance(action, Give):
            return _give(state, action)
        return _end_turn(state, action)

    # -- what the screen shows -------------------------------------------------------------------------
    def unseen(self, state: TeamplayState) -> tuple[int, ...]:
        return (state.deck_left, len(state.mission_pile))

    def seat_view(self, state: TeamplayState, seat: int) -> TeamplayState:
        """The seat's own hand, the bank, the missions on the table, the discards; of every
        other hand the cards everybody saw it take from the bank and, of the partner's, the
        cards this seat gave (the book: "darauf achten, welche Karten der Partner zieht"),
        the rest hidden (how many stays); the draw pile and the mission pile hidden; the
        seed, which shuffles the discards into a new pile, 0."""
        mate = partner(state, seat)

        def hand(p: int) -> tuple[str, ...]:
            if p == seat:
                return state.hands[p]
            known = tuple(sorted(state.from_bank[p] + (state.from_partner[p] if p == mate else ())))
            return known + (HIDDEN,) * (len(state.hands[p]) - len(known))

        gifts = tuple(g if p in (seat, mate) else (HIDDEN,) * len(g) for p, g in enumerate(state.from_partner))
        return state._replace(hands=tuple(hand(p) for p in range(state.players)), from_partner=gifts,
                              deck=(HIDDEN,) * len(state.deck), mission_pile=(HIDDEN,) * len(state.mission_pile),
                              seed=0)

    def public_view(self, state: TeamplayState) -> dict[str, Any]:
        outcome = self.outcome(state)
        teams = teams_for(state.players)
        return {
            "game": self.name, "players": state.players, "mode": state.mode, "phase": state.phase,
            "to_act": state.to_act, "dealer": state.dealer,
            "teams": [list(t) for t in teams], "team_of": [team_of(state, p) for p in range(state.players)],
            "hand_sizes": list(state.hand_sizes), "hand_limit": hand_limit(state.players),
            "bank": list(state.bank), "deck_left": state.deck_left, "discard_count": len(state.discard),
            "discard_top": state.discard[-1] if state.discard else None,
            "general": state.general, "missions": [list(m) for m in state.missions],
            "mission_pile": len(state.mission_pile),
            "fulfilled": [list(f) for f in state.fulfilled],
            "team_missions": team_missions(state), "team_points": team_points(state),
            "end_at": end_missions(state.players), "final_turns": state.final_turns,
            "draws": state.draws, "gave": state.gave, "must_discard": state.must_discard, "fresh": state.fresh,
            "decided": list(state.decided), "refill_by": state.refill_by,
            "scores": team_points(state),
            "winners": None if outcome is None else list(outcome.winners),
        }

    # -- JSON ------------------------------------------------------------------------------------------
    def action_to_json(self, action: Action) -> dict[str, Any]:
        return action_to_fields(action, _ACTION_NAMES[type(action)])

    def action_from_json(self, data: Mapping[str, Any]) -> Action:
        cls = _ACTION_TYPES.get(str(data.get("type")))
        if cls is None:
            raise IllegalAction("unknown_action", text=str(data.get("type")))
        return action_from_fields(cls, data, {name: _FIELD_TYPES[name] for name in cls.__slots__})

    def state_to_json(self, state: TeamplayState) -> dict[str, Any]:
        return {k: _jsonable(v) for k, v in state._asdict().items()}

    def state_from_json(self, data: Mapping[str, Any]) -> TeamplayState:
        return TeamplayState(**{k: _tupled(v) for k, v in data.items()})


def _jsonable(value: Any) -> Any:
    return [_jsonable(v) for v in value] if isinstance(value, tuple) else value


def _tupled(value: Any) -> Any:
    return tuple(_tupled(v) for v in value) if isinstance(value, list) else value


# --- the moves, one function each ----------------------------------------------------------------------

def missions_open_to(state: TeamplayState, player: int) -> list[str]:
    """The missions ``player`` may fulfil: their own, then the general one."""
    return list(state.missions[player]) + ([state.general] if state.general else [])


def _pile_has_cards(state: TeamplayState) -> bool:
    """The draw pile, or the discards that become it when it runs out, still hold a card."""
    return state.deck_left + len(state.discard) > 0


def _can_draw(state: TeamplayState) -> bool:
    return bool(state.bank) or _pile_has_cards(state)


def _after_setup(state: TeamplayState) -> TeamplayState:
    """With an even count everyone first keeps or exchanges their mission, from the dealer's left."""
    first = (state.dealer + 1) % state.players
    if state.players % 2 == 0:
        return state._replace(phase="choose_missions", to_act=first)
    return _begin_turn(state._replace(phase="turn"), first)


def _keep_mission(state: TeamplayState, action: KeepMission) -> TeamplayState:
    player = action.player
    if action.exchange:
        if not state.mission_pile:
            raise IllegalAction("teamplay_no_missions_left")
        old = state.missions[player][0]
        state = state._replace(missions=_set(state.missions, player, (state.mission_pile[0],)),
                               mission_pile=state.mission_pile[1:], missions_out=state.missions_out + (old,))
    decided = _set(state.decided, player, True)
    state = state._replace(decided=decided)
    if all(decided):
        return _begin_turn(state._replace(phase="turn"), (state.dealer + 1) % state.players)
    return state._replace(to_act=(player + 1) % state.players)


def _lay_bank(state: TeamplayState, action: LayBank) -> TeamplayState:
    cards = tuple(action.cards)
    if len(cards) != BANK_SIZE:
        raise IllegalAction("teamplay_bank_size", n=BANK_SIZE)
    _check_distinct(cards)
    for card in cards:
        check_unseen(state, card)
    return _after_setup(state._replace(bank=cards))


def _refill(state: TeamplayState, action: RefillBank) -> TeamplayState:
    state = _draw_count(state, 1)            # first: an empty pile takes the discards back in
    card = check_unseen(state, action.card)
    return state._replace(bank=state.bank + (card,), phase="turn", to_act=state.refill_by, refill_by=None)


def _begin_turn(state: TeamplayState, player: int) -> TeamplayState:
    limit = hand_limit(state.players)
    over = state.hand_sizes[player] - limit if state.turns[player] > 0 else 0   # not in the first round
    return state._replace(to_act=player, turns=_set(state.turns, player, state.turns[player] + 1), draws=0,
                          gave=False, must_discard=max(0, over), fresh=None)


def _take_from_hand(state: TeamplayState, player: int, cards: Sequence[str]) -> TeamplayState:
    """The cards leave the hand (and the table's and the players' knowledge of it)."""
    _check_distinct(cards)
    for card in cards:
        check_hand_card(state, player, card)
    hand = tuple(c for c in state.hands[player] if c not in cards)
    return state._replace(hands=_set(state.hands, player, hand),
                          hand_sizes=_set(state.hand_sizes, player, state.hand_sizes[player] - len(cards)),
                          from_bank=_set(state.from_bank, player, _without(state.from_bank[player], cards)),
                          from_partner=_set(state.from_partner, player, _without(state.from_partner[player], cards)))


def _without(cards: tuple[str, ...], gone: Sequence[str]) -> tuple[str, ...]:
    return tuple(c for c in cards if c not in gone)


def _discard(state: TeamplayState, action: Discard) -> TeamplayState:
    if not state.must_discard:
        raise IllegalAction("teamplay_no_discard_needed", limit=hand_limit(state.players))
    if len(action.cards) != state.must_discard:
        raise IllegalAction("teamplay_discard_count", n=state.must_discard, shown=len(action.cards))
    state = _take_from_hand(state, action.player, action.cards)
    return state._replace(discard=state.discard + tuple(action.cards), must_discard=0)


def _draw_count(state: TeamplayState, count: int) -> TeamplayState:
    """``count`` cards counted off the draw pile (physical); the discards become the pile when it runs out."""
    if state.deck_left < count:
        state = _reshuffle(state)
        if state.deck_left < count:
            raise IllegalAction("teamplay_pile_empty")
    return state._replace(deck_left=state.deck_left - count)


def _reshuffle(state: TeamplayState) -> TeamplayState:
    pile = list(state.discard)
    random.Random(f"teamplay:{state.seed}:reshuffle:{sum(state.turns)}:{len(pile)}").shuffle(pile)
    deck = state.deck + tuple(pile) if state.mode == "virtual" else ()
    return state._replace(deck=deck, deck_left=state.deck_left + len(pile), discard=())


def _draw(state: TeamplayState, action: DrawDeck | DrawBank) -> TeamplayState:
    player = action.player
    if state.draws >= 2:
        raise IllegalAction("teamplay_third_draw")
    if isinstance(action, DrawBank):
        card = action.card
        if card not in state.bank:
            check_card(card)
            raise IllegalAction("teamplay_not_in_bank", card=card)
        state = state._replace(bank=tuple(c for c in state.bank if c != card))
        state = _to_hand(state, player, card)
        state = state._replace(from_bank=_set(state.from_bank, player, state.from_bank[player] + (card,)))
        if state.mode != "virtual":                  # the card laid into the bank is tapped next
            if not _pile_has_cards(state):
                return state._replace(draws=state.draws + 1)
            return state._replace(draws=state.draws + 1, phase="refill", refill_by=player)
        if _pile_has_cards(state):
            if not state.deck:
                state = _reshuffle(state)
            state = state._replace(bank=state.bank + (state.deck[0],), deck=state.deck[1:],
                                   deck_left=state.deck_left - 1)
        return state._replace(draws=state.draws + 1)
    if state.mode == "virtual":
        if not state.deck:
            state = _reshuffle(state)
            if not state.deck:
                raise IllegalAction("teamplay_pile_empty")
        card = state.deck[0]
        state = state._replace(deck=state.deck[1:], deck_left=state.deck_left - 1)
        return _to_hand(state, player, card)._replace(draws=state.draws + 1)
    state = _draw_count(state, 1)
    return state._replace(hand_sizes=_set(state.hand_sizes, player, state.hand_sizes[player] + 1),
                          draws=state.draws + 1)


def _to_hand(state: TeamplayState, player: int, card: str) -> TeamplayState:
    return state._replace(hands=_set(state.hands, player, state.hands[player] + (card,)),
                          hand_sizes=_set(state.hand_sizes, player, state.hand_sizes[player] + 1))


def _fulfil(state: TeamplayState, action: Fulfil) -> TeamplayState:
    player, card = action.player, action.mission
    if card != state.general and card not in state.missions[player]:
        if card in MISSION_CARDS:
            raise IllegalAction("teamplay_not_your_mission", mission=mission_type(card).id)
        raise IllegalAction("teamplay_unknown_mission", text=str(card))
    shown = tuple(action.cards)
    _check_distinct(shown)
    for c in shown:
        check_hand_card(state, player, c)
    missing = shortfall(mission_type(card).id, shown)
    if missing is not None:
        key, params = missing
        raise IllegalAction(key, mission=mission_type(card).id, **params)
    state = _take_from_hand(state, player, shown)
    state = state._replace(discard=state.discard + shown,
                           fulfilled=_set(state.fulfilled, player, state.fulfilled[player] + (card,)))
    replacement = state.mission_pile[0] if state.mission_pile else None
    pile = state.mission_pile[1:]
    if card == state.general:
        state = state._replace(general=replacement, mission_pile=pile)
    else:
        own = tuple(m for m in state.missions[player] if m != card) + ((replacement,) if replacement else ())
        state = state._replace(missions=_set(state.missions, player, own), mission_pile=pile, fresh=replacement)
    return _announce_end(state, player)


def _announce_end(state: TeamplayState, player: int) -> TeamplayState:
    """A team's 8th mission (a player's 5th with 3 or 5): everybody, this player too, has
    exactly one more turn."""
    if state.final_turns is None and team_missions(state)[team_of(state, player)] >= end_missions(state.players):
        return state._replace(final_turns=state.players)
    return state


def _put_back(state: TeamplayState, action: PutBack) -> TeamplayState:
    if state.fresh is None:
        raise IllegalAction("teamplay_put_back_not_now")
    if not state.mission_pile:
        raise IllegalAction("teamplay_no_missions_left")
    player = action.player
    own = tuple(state.mission_pile[0] if m == state.fresh else m for m in state.missions[player])
    return state._replace(missions=_set(state.missions, player, own), mission_pile=state.mission_pile[1:],
                          missions_out=state.missions_out + (state.fresh,), fresh=None)


def _give(state: TeamplayState, action: Give) -> TeamplayState:
    player = action.player
    mate = partner(state, player)
    if mate is None:
        raise IllegalAction("teamplay_no_partner")
    if state.gave:
        raise IllegalAction("teamplay_gave_already")
    if not 1 <= len(action.cards) <= 2:
        raise IllegalAction("teamplay_give_count")
    state = _take_from_hand(state, player, action.cards)
    hands = _set(state.hands, mate, state.hands[mate] + tuple(action.cards))
    return state._replace(hands=hands, hand_sizes=_set(state.hand_sizes, mate, state.hand_sizes[mate] + len(action.cards)),
                          from_partner=_set(state.from_partner, mate, state.from_partner[mate] + tuple(action.cards)),
                          gave=True)


def _end_turn(state: TeamplayState, action: EndTurn) -> TeamplayState:
    if state.draws < 2 and _can_draw(state):
        raise IllegalAction("teamplay_draw_first", n=2 - state.draws)
    if state.final_turns is not None:
        if state.final_turns == 0:
            return state._replace(phase="over", to_act=None, fresh=None)
        state = state._replace(final_turns=state.final_turns - 1)
    return _begin_turn(state, (action.player + 1) % state.players)


RULES = Teamplay()
