"""Crazy Kick (Fußball-Ligretto): two teams play at once; the top card of the centre pile
says who has the ball, to whom he can pass and who can take it from him.

>>> deck = load_deck("schmidt")
>>> tim = next(c for c in deck if c.player == "Tim" and "Stefan" in c.passes)
>>> stefan = next(c for c in deck if c.player == "Stefan" and "Jonas" in c.tackles)
>>> can_play(tim, None), can_play(stefan, tim)           # a keeper kicks off; Tim → Stefan
(True, True)
>>> can_play(stefan, None)                                # only a keeper starts an attack
False

Everything lives in the table (the game is played on the button boxes): each player's
hand (face down), their face-up piles and the centre pile. Every player acts at any
time; the order of simultaneous presses is decided before the actions get here (the
arbiter), so this core stays a plain deterministic state machine. Shuffles draw from
``random.Random`` seeded by the game's seed and a counter kept in the state, so a game
replays exactly from its seed and actions.

Decisions where the rule books are silent are in ``docs/crazy-kick.md``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterator, Mapping, NamedTuple, Sequence

from controller.games.core import (
    HIDDEN_NUMBER, GameOption, GameRules, IllegalAction, Outcome, action_from_fields, load_data,
)

DATA = load_data("crazykick")
EDITIONS = tuple(DATA["editions"])
GOALS_TO_WIN = int(DATA["goals_to_win"])
GOAL_PAUSE_S = float(DATA["goal_pause_s"])     # the celebration after a goal, before the whistle
STALL_HINT_S = float(DATA["stall_hint_s"])     # a stall this long: the table asks whether the ball is out
MIN_PLAYERS, MAX_PLAYERS = 2, 8


# -- the cards ------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Card:
    id: int                    # index in its edition's deck
    team: str                  # "red", "black" or "white"
    team_index: int            # 0 or 1, the order of the edition's teams
    player: str                # the footballer in the centre of the card, who has the ball
    number: int                # his shirt number; 1 is a goalkeeper
    goal: bool                 # a goal card: shows only the scorer
    passes: tuple[str, ...]    # team-mates he can pass to (top corners)
    tackles: tuple[str, ...]   # opponents who can take the ball from him (bottom corners)

    @property
    def keeper(self) -> bool:
        return self.number == 1 and not self.goal


def can_play(card: Card, top: Card | None) -> bool:
    """Whether ``card`` may go on the centre pile whose top card is ``top``.

    ``None`` is an empty centre: only a goalkeeper starts an attack. A footballer named
    in a top corner of the top card gets a pass (same team), one named in a bottom
    corner takes the ball (the other team); a goal card needs its scorer on the ball.
    """
    if top is None:
        return card.keeper
    if top.goal:
        return False
    if card.goal:
        return card.player == top.player
    if card.team == top.team:
        return card.player in top.passes
    return card.player in top.tackles


class Deck(Sequence[Card]):
    """An edition's cards (a sequence of :class:`Card`) and what the game derives from them."""

    def __init__(self, edition: str, data: Mapping[str, Any]) -> None:
        self.edition = edition
        self.title: str = data["title"]
        self.team_names: tuple[str, ...] = tuple(t["name"] for t in data["teams"])
        self.team_colours: tuple[str, ...] = tuple(t["colour"] for t in data["teams"])
        self.numbers = {p["name"]: p["number"] for t in data["teams"] for p in t["players"]}
        team_index = {name: i for i, name in enumerate(self.team_names)}
        self.cards: tuple[Card, ...] = tuple(
            Card(i, c["team"], team_index[c["team"]], c["player"], self.numbers[c["player"]],
                 bool(c.get("goal")), tuple(c.get("passes", ())), tuple(c.get("tackles", ())))
            for i, c in enumerate(data["cards"]))
        # what may follow each card, and what starts an attack: asked on every press
        self.follows: tuple[frozenset[int], ...] = tuple(
            frozenset(c.id for c in self.cards if can_play(c, top)) for top in self.cards)
        self.kickoff: frozenset[int] = frozenset(c.id for c in self.cards if can_play(c, None))
        self.by_team: tuple[tuple[int, ...], ...] = tuple(
            tuple(c.id for c in self.cards if c.team_index == t) for t in range(len(self.team_names)))

    def __getitem__(self, index: int) -> Card:          # type: ignore[override]  # (no slices: a card by its id)
        return self.cards[index]

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)


@lru_cache(maxsize=None)
def load_deck(edition: str = "schmidt") -> Deck:
    """The cards of an edition: ``"schmidt"`` (red vs black, 75 a team) or ``"dlp"``
    (red vs white, 60 a team)."""
    key = edition.strip().lower()
    if key not in DATA["editions"]:
        raise IllegalAction("ck_unknown_edition", text=edition, editions=", ".join(EDITIONS))
    return Deck(key, DATA["editions"][key])


def starting_piles(players: int) -> tuple[int, int]:
    """Piles per player of team 0 and team 1 (seats alternate between the teams, so with
    3, 5 or 7 players team 0 is the larger one)."""
    return tuple(DATA["starting_piles"].get(str(players), DATA["starting_piles"]["even"]))


def uneven_goals(players: int) -> tuple[int, int]:
    """How many goals fewer than the match's target team 0 and team 1 need at an uneven
    table with the handicap variant (``--handicap``): the aims that let equal players win
    about half the matches (docs/crazy-kick.md, "Uneven tables"); none with an even number
    of players. The book has no handicap: both teams need 5."""
    return tuple(DATA["uneven_goals"].get(str(players), (0, 0)))


def keeps_goal_cards(players: int) -> tuple[bool, bool]:
    """Whether team 0's and team 1's scored goal cards go back into the team's cards instead
    of being set aside: the finer half of an uneven table's handicap (docs/crazy-kick.md,
    "Uneven tables")."""
    return tuple(DATA["uneven_goal_cards_kept"].get(str(players), (False, False)))


# -- actions --------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Flip:
    """Turn the next hand card face up onto one of your piles."""
    player: int
    pile: int


@dataclass(frozen=True, slots=True)
class Play:
    """Put the top card of one of your piles on the centre pile."""
    player: int
    pile: int


@dataclass(frozen=True, slots=True)
class Reshuffle:
    """Your hand is empty: take your piles back into your hand, shuffled."""
    player: int


@dataclass(frozen=True, slots=True)
class BallOut:
    """Say for your team that the ball is out (only while no open card fits the centre);
    once both teams have said so, the ball-out follows."""
    player: int


ACTION_TYPES = {"flip": Flip, "play": Play, "reshuffle": Reshuffle, "ball_out": BallOut}
_TYPE_NAMES = {cls: name for name, cls in ACTION_TYPES.items()}


class Event(NamedTuple):
    """The last thing that happened, for the screen: kind is kickoff, pass, tackle, goal
    or ball_out."""
    kind: str
    player: int
    card: int


class CrazyKickState(NamedTuple):
    edition: str
    seed: int
    goals_to_win: int
    needed: tuple[int, int]                      # goals each team needs to win (an uneven table's handicap)
    team_of: tuple[int, ...]                     # seat → team index
    pile_count: tuple[int, ...]                  # seat → number of piles
    hands: tuple[tuple[int, ...], ...]           # seat → face-down hand, next card first
    piles: tuple[tuple[tuple[int, ...], ...], ...]   # seat → piles, each bottom → top
    centre: tuple[int, ...]                      # the play pile, bottom → top; empty between attacks
    scores: tuple[int, int]
    goals: tuple[tuple[int, ...], tuple[int, ...]]   # goal cards set aside, per team
    shuffles: int                                # how many shuffles so far (seeds the next)
    votes: frozenset[int]                          # seats that said the ball is out, in this stall
    last: Event | None
    attacks: int                                 # attacks started so far
    plays: int                                   # cards played to the centre so far
    winner: int | None
    # an uneven table's handicap: per team, whether its scored goal cards go back to it
    kept: tuple[bool, bool]
    scored: tuple[tuple[int, ...], tuple[int, ...]]   # every goal card scored, per team, in order
    # seat → whether all its starting piles have been laid since the deal or its last
    # reshuffle: until then a flip goes onto an empty pile (docs/crazy-kick.md)
    laid: tuple[bool, ...] = ()

    @property
    def top(self) -> int | None:
        return self.centre[-1] if self.centre else None


# -- the rules ------------------------------------------------------------------------------------

class CrazyKick(GameRules):
    name = "crazy-kick"
    title = "Crazy Kick"
    realtime = True
    bots_fill_seats = True     # every card a seat plays lies open: a bot needs no hidden hand
    player_counts = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))
    options = (GameOption("edition", "which deck", EDITIONS),
               GameOption("handicap", "with 3 or 7 players, a handicap the rule book does not have: each team "
                                      "its own aim in goals (3: the lone player 3, the pair 5; 7: the four 4), "
                                      "because as printed the larger side wins 4 in 5 matches at 3 and 1 in 3 at 7",
                          player_counts=tuple(n for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)
                                              if any(uneven_goals(n)) or any(keeps_goal_cards(n)))))

    def new_game(self, config: Mapping[str, Any], seed: int) -> CrazyKickState:
        players = int(config.get("players", 4))
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise IllegalAction("ck_player_count", players=players)
        if config.get("mode", "virtual") != "virtual":
            raise IllegalAction("ck_virtual_only", mode=config.get("mode"))
        deck = load_deck(str(config.get("edition", "schmidt")))
        goals = int(config.get("goals", GOALS_TO_WIN))
        # goal cards are set aside once scored: a team can score no more than it has
        most = min(sum(1 for c in deck.cards if c.goal and c.team_index == t) for t in (0, 1))
        if not 1 <= goals <= most:
            raise IllegalAction("ck_goals_out_of_range", goals=goals, high=most)
        team_of = tuple(seat % 2 for seat in range(players))
        piles_by_team = starting_piles(players)
        book = not handicap_on(config)
        fewer = (0, 0) if book else uneven_goals(players)
        needed = (min(most, max(1, goals - fewer[0])), min(most, max(1, goals - fewer[1])))
        state = CrazyKickState(
            edition=deck.edition, seed=int(seed), goals_to_win=goals, needed=needed, team_of=team_of,
            pile_count=tuple(piles_by_team[t] for t in team_of),
            hands=tuple(() for _ in team_of),
            piles=tuple(tuple(() for _ in range(piles_by_team[t])) for t in team_of),
            centre=(), scores=(0, 0), goals=((), ()), shuffles=0, votes=frozenset(),
            last=None, attacks=0, plays=0, winner=None, kept=(False, False) if book else keeps_goal_cards(players),
            scored=((), ()), laid=tuple(False for _ in team_of))
        return _deal(deck, state, deck.by_team)

    def prepare_config(self, config: Mapping[str, Any], previous: Any) -> dict[str, Any]:
        """A new match's config says whether the handicap is on, always (off, the book's
        rule, unless chosen): a config without the key is an old one (``handicap_on``)."""
        return dict(config, handicap=bool(config.get("handicap", False)))

    def switch_on(self, config: Mapping[str, Any], name: str) -> bool:
        """The handicap as the match plays it (an old config without the key had it on)."""
        return handicap_on(config) if name == "handicap" else bool(config.get(name))

    def to_act(self, state: CrazyKickState) -> int | None:
        """Nobody waits for anybody in Crazy Kick: there is no seat to act."""
        return None

    def legal_actions(self, state: CrazyKickState, player: int) -> list[Any]:
        if state.winner is not None:
            return []
        deck = load_deck(state.edition)
        actions: list[Any] = []
        hand, piles = state.hands[player], state.piles[player]
        if hand:
            actions += [Flip(player, k) for k in range(len(piles)) if may_flip_onto(state, player, k)]
        elif any(piles):
            actions.append(Reshuffle(player))
        follows = deck.follows[state.top] if state.top is not None else deck.kickoff
        actions += [Play(player, k) for k, pile in enumerate(piles) if pile and pile[-1] in follows]
        if stalled(state) and state.team_of[player] not in agreed_teams(state):
            actions.append(BallOut(player))
        return actions

    def apply(self, state: CrazyKickState, action: Any) -> CrazyKickState:
        if state.winner is not None:
            raise IllegalAction("game_over")
        player = getattr(action, "player", None)
        if not isinstance(player, int) or not 0 <= player < len(state.team_of):
            raise IllegalAction("no_such_seat", seat=player)
        deck = load_deck(state.edition)
        if type(action) is Flip:
            after = self._flip(deck, state, player, action.pile)
        elif type(action) is Play:
            after = self._play(deck, state, player, action.pile)
        elif type(action) is Reshuffle:
            after = self._reshuffle(state, player)
        elif type(action) is BallOut:
            return self._ball_out(deck, state, player)
        else:
            raise IllegalAction("unknown_action", text=type(action).__name__)
        # a team's word that the ball is out holds while the stall lasts: an open card that
        # fits (a flip found one) or a new attack ends it
        return after if not after.votes or stalled(after) else after._replace(votes=frozenset())

    # -- the four things a player can do -------------------------------------------------------------
    def _pile(self, state: CrazyKickState, player: int, pile: int) -> tuple[int, ...]:
        if not isinstance(pile, int) or not 0 <= pile < state.pile_count[player]:
            raise IllegalAction("ck_no_such_pile", pile=pile + 1 if isinstance(pile, int) else pile,
                                piles=state.pile_count[player])
        return state.piles[player][pile]

    def _flip(self, deck: Deck, state: CrazyKickState, player: int, pile: int) -> CrazyKickState:
        target = self._pile(state, player, pile)
        hand = state.hands[player]
        if not hand:
            raise IllegalAction("ck_hand_empty" if any(state.piles[player]) else "ck_no_cards")
        card = hand[0]
        hands = _replace(state.hands, player, hand[1:])
        if not state.centre and card in deck.kickoff:
            # the first goalkeeper shown goes straight to the centre and starts the attack
            return state._replace(hands=hands, centre=(card,), last=Event("kickoff", player, card),
                                  attacks=state.attacks + 1, plays=state.plays + 1)
        if not may_flip_onto(state, player, pile):
            empty = next(k for k, p in enumerate(state.piles[player]) if not p)
            raise IllegalAction("ck_fill_empty_pile", pile=empty + 1)
        piles = _replace(state.piles, player, _replace(state.piles[player], pile, target + (card,)))
        laid = state.laid[player] or all(piles[player])
        return state._replace(hands=hands, piles=piles, laid=_replace(state.laid, player, laid))

    def _play(self, deck: Deck, state: CrazyKickState, player: int, pile: int) -> CrazyKickState:
        source = self._pile(state, player, pile)
        if not source:
            raise IllegalAction("ck_pile_empty", pile=pile + 1)
        card_id = source[-1]
        card = deck[card_id]
        top = deck[state.centre[-1]] if state.centre else None
        if not can_play(card, top):
            raise _refusal(deck, state, player, card, top)
        piles = _replace(state.piles, player, _replace(state.piles[player], pile, source[:-1]))
        plays = state.plays + 1
        if top is None:
            return state._replace(piles=piles, centre=(card_id,), last=Event("kickoff", player, card_id),
                                  attacks=state.attacks + 1, plays=plays)
        if card.goal:
            return self._goal(deck, state._replace(piles=piles, plays=plays), player, card)
        kind = "pass" if card.team == top.team else "tackle"
        return state._replace(piles=piles, centre=state.centre + (card_id,), plays=plays,
                              last=Event(kind, player, card_id))

    def _goal(self, deck: Deck, state: CrazyKickState, player: int, card: Card) -> CrazyKickState:
        team = card.team_index
        scores = _replace(state.scores, team, state.scores[team] + 1)
        won = scores[team] >= state.needed[team]
        kept = state.kept[team] and not won          # back into the team's cards for the next deal
        goals = state.goals if kept else _replace(state.goals, team, state.goals[team] + (card.id,))
        scored = _replace(state.scored, team, state.scored[team] + (card.id,))
        state = state._replace(scores=scores, goals=goals, scored=scored, last=Event("goal", player, card.id))
        if won:
            return state._replace(winner=team)
        # every card but the goal goes back to its team, and the team deals again
        owned: list[list[int]] = [[], []]
        for seat, t in enumerate(state.team_of):
            owned[t].extend(state.hands[seat])
            for pile in state.piles[seat]:
                owned[t].extend(pile)
        for c in state.centre:
            owned[deck[c].team_index].append(c)
        if kept:
            owned[team].append(card.id)
        return _deal(deck, state._replace(centre=()), owned)

    def _reshuffle(self, state: CrazyKickState, player: int) -> CrazyKickState:
        if state.hands[player]:
            raise IllegalAction("ck_hand_not_empty", cards=len(state.hands[player]))
        cards = [c for pile in state.piles[player] for c in pile]
        if not cards:
            raise IllegalAction("ck_no_cards")
        rng = _rng(state)
        rng.shuffle(cards)
        # "rentre dans le jeu en formant à nouveau trois piles devant lui": laid anew
        return state._replace(hands=_replace(state.hands, player, tuple(cards)),
                              piles=_replace(state.piles, player, tuple(() for _ in state.piles[player])),
                              shuffles=state.shuffles + 1, laid=_replace(state.laid, player, False))

    def _ball_out(self, deck: Deck, state: CrazyKickState, player: int) -> CrazyKickState:
        """The book: "Wenn beide Teams sich darüber einig sind" — a press from each team.
        The table never looks into a hand to decide: nothing open fitting is what everybody
        sees, and whether a fitting card is still face down is for the teams to judge."""
        if not stalled(state):
            raise IllegalAction("ck_ball_not_out")
        team = state.team_of[player]
        if team in agreed_teams(state):
            raise IllegalAction("ck_already_agreed")
        votes = state.votes | {player}
        if len({state.team_of[s] for s in votes}) < 2:
            return state._replace(votes=votes)
        # both teams agree: all centre cards but the top go back to their teams' hands
        rng = _rng(state)
        hands = [list(h) for h in state.hands]
        for team in (0, 1):
            returned = [c for c in state.centre[:-1] if deck[c].team_index == team]
            rng.shuffle(returned)
            mates = [s for s, t in enumerate(state.team_of) if t == team]
            for i, c in enumerate(returned):
                hands[mates[i % len(mates)]].append(c)
            for seat in mates:
                rng.shuffle(hands[seat])
        return state._replace(hands=tuple(tuple(h) for h in hands), centre=state.centre[-1:],
                              shuffles=state.shuffles + 1, votes=frozenset(),
                              last=Event("ball_out", player, state.centre[-1]))

    def pause_after(self, before: CrazyKickState, after: CrazyKickState) -> tuple[float, str] | None:
        """A goal is celebrated: nobody plays or flips for GOAL_PAUSE_S, then a whistle
        starts the next attack (the book: "Torjubel", then a new kick-off). The winning
        goal ends the match instead."""
        if after.scores != before.scores and after.winner is None:
            return GOAL_PAUSE_S, "ck_goal_pause"
        return None

    def idle_hint(self, state: CrazyKickState) -> tuple[float, str, dict[str, Any]] | None:
        """A stall (no open card fits): after STALL_HINT_S the table says that each team may
        say the ball is out, and which team has. It never says who holds what face down
        (docs/crazy-kick.md: a stall)."""
        if not stalled(state):
            return None
        agreed = agreed_teams(state)
        if not agreed:
            return STALL_HINT_S, "ck_stall_hint", {}
        team = load_deck(state.edition).team_names[min(agreed)]
        return STALL_HINT_S, "ck_stall_hint_agreed", {"team": team}

    def hint_restarts(self, before: CrazyKickState, after: CrazyKickState) -> bool:
        """A stall is one centre card's: a play, a kick-off or a ball-out that leaves a stall
        begins a new one (its time, and the table's question, start again); flips and a
        team's word do not."""
        return stall_key(before) != stall_key(after)

    def seat_view(self, state: CrazyKickState, seat: int) -> CrazyKickState:
        """Every hand lies face down, the seat's own too: its cards and their order hidden
        (how many stays); the seed, which shuffles, 0. The piles and the centre lie open
        (every card in them was face up on top once)."""
        return state._replace(hands=tuple([(HIDDEN_NUMBER,) * len(h) for h in state.hands]), seed=0)

    # -- the end ------------------------------------------------------------------------------------
    def outcome(self, state: CrazyKickState) -> Outcome | None:
        if state.winner is None:
            return None
        return Outcome(state.scores, (state.winner,))

    # -- what everybody sees ------------------------------------------------------------------------
    def public_view(self, state: CrazyKickState) -> dict[str, Any]:
        deck = load_deck(state.edition)
        show = _card_json(state.edition)
        players = len(state.team_of)
        return {
            "edition": state.edition,
            "edition_title": deck.title,
            "players": players,
            "team_of": list(state.team_of),
            "teams": [[s for s in range(players) if state.team_of[s] == t] for t in (0, 1)],
            "team_names": list(deck.team_names),
            "team_colours": list(deck.team_colours),
            "scores": list(state.scores),
            "goals_to_win": state.goals_to_win,
            "needed": list(state.needed),
            "goals": [[deck[c].player for c in team] for team in state.scored],
            "centre": show[state.top] if state.top is not None else None,
            "covered": show[state.centre[-2]] if len(state.centre) > 1 else None,
            "centre_count": len(state.centre),
            "ball": deck[state.top].team_index if state.top is not None else None,
            "hands": [len(h) for h in state.hands],
            "piles": [[{"count": len(p), "top": show[p[-1]] if p else None} for p in seat]
                      for seat in state.piles],
            "stalled": stalled(state),
            "votes": sorted(state.votes),
            "agreed": sorted(agreed_teams(state)),
            "last": {"kind": state.last.kind, "seat": state.last.player, "card": show[state.last.card]}
                    if state.last else None,
            "attacks": state.attacks,
            "plays": state.plays,
            "winner": state.winner,
        }

    # -- JSON ---------------------------------------------------------------------------------------
    def action_to_json(self, action: Any) -> dict[str, Any]:
        data: dict[str, Any] = {"type": _TYPE_NAMES[type(action)], "player": action.player}
        if hasattr(action, "pile"):
            data["pile"] = action.pile
        return data

    def action_from_json(self, data: Mapping[str, Any]) -> Any:
        cls = ACTION_TYPES.get(str(data.get("type")))
        if cls is None:
            raise IllegalAction("unknown_action", text=str(data.get("type")))
        types = {"player": int, "pile": int} if cls in (Flip, Play) else {"player": int}
        return action_from_fields(cls, data, types)

    def state_to_json(self, state: CrazyKickState) -> dict[str, Any]:
        data = state._asdict()
        data["votes"] = sorted(state.votes)
        lists: dict[str, Any] = _lists(data)
        return lists                                     # the last event, a tuple, becomes a list too

    def state_from_json(self, data: Mapping[str, Any]) -> CrazyKickState:
        return CrazyKickState(
            edition=data["edition"], seed=data["seed"], goals_to_win=data["goals_to_win"],
            needed=tuple(data["needed"]),
            team_of=tuple(data["team_of"]), pile_count=tuple(data["pile_count"]),
            hands=tuple(tuple(h) for h in data["hands"]),
            piles=tuple(tuple(tuple(p) for p in seat) for seat in data["piles"]),
            centre=tuple(data["centre"]), scores=tuple(data["scores"]),
            goals=tuple(tuple(g) for g in data["goals"]),  # type: ignore[arg-type]
            shuffles=data["shuffles"], votes=frozenset(data["votes"]),
            last=Event(*data["last"]) if data["last"] else None, attacks=data["attacks"],
            plays=data["plays"], winner=data["winner"],
            # a match saved before the goal cards kept: the book's rule, every goal scored set aside
            kept=tuple(data.get("kept", (False, False))),
            scored=tuple(tuple(g) for g in data.get("scored", data["goals"])),  # type: ignore[arg-type]
            # a match saved before: a seat whose piles all hold cards has laid them
            laid=tuple(data.get("laid", [all(seat) for seat in data["piles"]])))

    def card_names(self) -> list[str]:
        return []          # no tags: the cards live in the table


# -- helpers --------------------------------------------------------------------------------------

def _replace(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return items[:index] + (value,) + items[index + 1:]


def _rng(state: CrazyKickState) -> random.Random:
    return random.Random(f"crazy-kick:{state.seed}:{state.shuffles}")


def _deal(deck: Deck, state: CrazyKickState, cards_by_team: Sequence[Sequence[int]]) -> CrazyKickState:
    """Each team shuffles its cards and deals them round the team-mates; piles start empty."""
    rng = _rng(state)
    hands: list[list[int]] = [[] for _ in state.team_of]
    for team, cards in enumerate(cards_by_team):
        cards = list(cards)
        rng.shuffle(cards)
        mates = [s for s, t in enumerate(state.team_of) if t == team]
        for i, c in enumerate(cards):
            hands[mates[i % len(mates)]].append(c)
    return state._replace(hands=tuple(tuple(h) for h in hands),
                          piles=tuple(tuple(() for _ in seat) for seat in state.piles),
                          centre=(), shuffles=state.shuffles + 1, votes=frozenset(),
                          laid=tuple(False for _ in state.team_of))


def handicap_on(config: Mapping[str, Any]) -> bool:
    """Whether a match plays the handicap variant. Every new config says so (``handicap``,
    written by ``prepare_config``; the book's rule, off, unless chosen). A config saved
    before says it the old way: ``book_goals`` false had the handicap on, true off; and one
    with neither key was started when the handicap was the default and the old menu stored
    an option only when toggled, so it was played with the handicap on, and resumes so."""
    if "handicap" in config:
        return bool(config["handicap"])
    if "book_goals" in config:
        return not config["book_goals"]
    return True


def may_flip_onto(state: CrazyKickState, player: int, pile: int) -> bool:
    """Whether the player's next flip may go onto ``pile``. The starting piles are laid
    first ("Sobald die drei Karten offen ausliegen, kann jeder Spieler … auf einen beliebigen
    seiner offenen Stapel ablegen"; after a reshuffle "en formant à nouveau trois piles"):
    until all have been laid since the deal or the seat's last reshuffle, a flip goes onto
    an empty pile. After that, any pile, and a pile played empty may stay empty."""
    return state.laid[player] or not state.piles[player][pile]


def stalled(state: CrazyKickState) -> bool:
    """An attack runs and no open card (a pile's top) fits the centre: what everybody at
    the table sees. Whether a fitting card is still face down, nobody knows; each team may
    then say the ball is out (:class:`BallOut`)."""
    if not state.centre or state.winner is not None:
        return False
    follows = load_deck(state.edition).follows[state.centre[-1]]
    return not any(pile and pile[-1] in follows for seat in state.piles for pile in seat)


def stall_key(state: CrazyKickState) -> tuple[int, Event | None]:
    """What tells one stall from the next: every play, kick-off, goal and ball-out changes it;
    a flip, a reshuffle and a team's word do not."""
    return state.plays, state.last


def agreed_teams(state: CrazyKickState) -> frozenset[int]:
    """The teams that have said the ball is out in this stall."""
    return frozenset(state.team_of[seat] for seat in state.votes)


def _refusal(deck: Deck, state: CrazyKickState, player: int, card: Card, top: Card | None) -> IllegalAction:
    if top is None:
        return IllegalAction("ck_kickoff_needs_keeper", name=card.player)
    if len(state.centre) > 1 and can_play(card, deck[state.centre[-2]]) and state.last is not None:
        # it fitted the card just covered: somebody else was faster
        return IllegalAction("ck_too_late", name=card.player, winner=state.last.player, top=top.player)
    if card.goal:
        return IllegalAction("ck_goal_needs_ball", name=card.player, top=top.player)
    return IllegalAction("ck_does_not_fit", name=card.player, top=top.player)


@lru_cache(maxsize=None)
def _card_json(edition: str) -> tuple[dict[str, Any], ...]:
    return tuple({"id": c.id, "team": c.team, "team_index": c.team_index, "player": c.player,
                  "number": c.number, "goal": c.goal, "passes": list(c.passes), "tackles": list(c.tackles)}
                 for c in load_deck(edition))


def _lists(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_lists(v) for v in value]
    if isinstance(value, dict):
        return {k: _lists(v) for k, v in value.items()}
    return value


RULES = CrazyKick()
