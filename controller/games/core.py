"""The contract every game of the table follows.

A game is a pure state machine (no I/O, no clocks, no randomness outside the seed):

>>> from controller.games import find_game
>>> partout = find_game("partout")
>>> state = partout.new_game({"players": 4}, seed=7)
>>> action = partout.legal_actions(state, partout.to_act(state))[0]
>>> state = partout.apply(state, action)

``apply`` returns the next state or raises :class:`IllegalAction`, whose message a
player can read. Actions and states serialise to JSON, and a game replays from its
config, seed and action list to the identical state: that gives save/resume, crash
recovery, undo and replays.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence, TypeVar

from controller.games import texts


class IllegalAction(ValueError):
    """An action the rules refuse. ``key`` and ``params`` name a text in
    ``controller/games/texts/*.po``; ``str()`` is the English sentence."""

    def __init__(self, key: str, **params: Any) -> None:
        self.key = key
        self.params = params
        super().__init__(texts.render("en", key, params))

    def message(self, lang: str = "en", seat_names: Sequence[str] | None = None) -> str:
        return texts.render(lang, key=self.key, params=self.params, seat_names=seat_names)


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended. ``winners`` are team indices (several on a tie)."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "winners": list(self.winners)}


@dataclass(frozen=True)
class GameOption:
    """A choice a game offers before it starts (a rule book's variant), kept in the game's
    config under ``name`` and offered on the command line as ``--name``. With ``choices``
    the first is the default; without, it is a yes/no switch that is off by default."""

    name: str
    help: str
    choices: tuple[Any, ...] = ()
    # the player counts it changes something at, where alone it is offered (empty: every count)
    player_counts: tuple[int, ...] = ()

    @property
    def is_switch(self) -> bool:
        return not self.choices

    def offered_at(self, players: int) -> bool:
        """Whether the menu offers it, and the command line takes it, at ``players``."""
        return not self.player_counts or players in self.player_counts


# Every game's: the learning hints (``controller/learn``), a choice of the table, not of the
# rules, kept in the config like a variant so a resumed game keeps it
LEARN = GameOption("learn", "learning hints: the player on turn sees on the screen what they may do now")


STRINGS = "strings"       # a field holding a list of strings (a hand of cards): a tuple in the action


if TYPE_CHECKING:
    from _typeshed import DataclassInstance

_Action = TypeVar("_Action", bound="DataclassInstance")


def action_from_fields(cls: type[_Action], data: Mapping[str, Any], types: Mapping[str, Any]) -> _Action:
    """An action of ``cls`` from JSON (a log, a file), each field checked against ``types``:
    a type, a tuple of types, or ``STRINGS``. A bool is no int and a float no int; a field
    the action has a default for may be missing. Anything else is refused, never raised."""
    def refused() -> IllegalAction:
        # made only when refusing: its sentence took a fifth of a resume's replay
        return IllegalAction("unknown_action", text=str(dict(data)))

    fields = {k: v for k, v in data.items() if k != "type"}
    optional = {f.name for f in dataclasses.fields(cls) if f.default is not dataclasses.MISSING}
    if not set(fields) <= set(types) or set(types) - set(fields) - optional:
        raise refused()
    values = {}
    for name, value in fields.items():
        wanted = types[name]
        if wanted == STRINGS:
            if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
                raise refused()
            value = tuple(value)
        elif isinstance(value, bool) and bool not in (wanted if isinstance(wanted, tuple) else (wanted,)):
            raise refused()
        elif not isinstance(value, wanted):
            raise refused()
        values[name] = value
    return cls(**values)


def action_to_fields(action: Any, type_name: str) -> dict[str, Any]:
    """An action as JSON: its type's name and every field (tuples as lists); the inverse of
    :func:`action_from_fields`."""
    data: dict[str, Any] = {"type": type_name}
    for field in dataclasses.fields(action):
        value = getattr(action, field.name)
        data[field.name] = list(value) if isinstance(value, tuple) else value
    return data


def check_move(action: Any, known: Mapping[type, str], players: int, over: bool) -> int:
    """The checks a move of any turn-based game goes through first, in this order: the game
    is not over, the action is one of the game's (``known``), its player is a seat. Returns
    the player."""
    if over:
        raise IllegalAction("game_over")
    if type(action) not in known:
        raise IllegalAction("unknown_action", text=str(action))
    player = action.player
    if not isinstance(player, int) or not 0 <= player < players:
        raise IllegalAction("no_such_seat", seat=player)
    return player


def load_data(name: str) -> dict[str, Any]:
    """A game's component data from ``controller/games/data/<name>.json``."""
    with (resources.files("controller.games") / "data" / f"{name}.json").open(encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    return data


HIDDEN = "?"           # in a seat's view: a card the seat cannot know (games whose cards are names)
HIDDEN_NUMBER = -1     # the same, for games whose cards are numbers (Crazy Kick, Team UP!)


class GameRules:
    """Base of every game's rules. Subclasses implement the methods below and are
    registered in ``controller.games.GAMES``; everything is a pure function of its
    arguments."""

    name: str = ""             # as typed on the command line and in docs/<name>.md: "crazy-kick"
    title: str = ""
    player_counts: tuple[int, ...] = ()    # how many may play; new_game refuses the others
    options: tuple[GameOption, ...] = ()   # the variants a game offers (config keys); LEARN is added last
    realtime: bool = False     # everybody acts at once: presses go through the arbiter
    bots_fill_seats: bool = False   # the box may seat bots at empty seats (nothing hidden in a hand)
    cooperative_best: int | None = None   # everybody plays together: a score against this best, no winner

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Every game offers the learning hints, after its own variants: added here, once, so
        that no game (a new one too) can be without them."""
        super().__init_subclass__(**kwargs)
        if LEARN not in cls.options:
            cls.options = tuple(cls.options) + (LEARN,)

    @property
    def module(self) -> str:
        """The name of the game's module in every room of the house: ``crazy-kick`` →
        ``controller/games/crazykick.py``, ``controller/inputs/crazykick.py``,
        ``controller/bots/crazykick.py``, ``display/crazykick_view.py``."""
        return self.name.replace("-", "")

    def new_game(self, config: Mapping[str, Any], seed: int) -> Any:
        raise NotImplementedError

    def to_act(self, state: Any) -> int | None:
        """The seat whose input the game waits for, ``None`` when the game is over."""
        raise NotImplementedError

    def may_act(self, state: Any) -> tuple[int, ...]:
        """Every seat that may act now: the seat on turn, and in a game that lets a seat act
        out of turn (Tadika: a claim after the swap that ended its turn) that seat too."""
        seat = self.to_act(state)
        return () if seat is None else (seat,)

    def legal_actions(self, state: Any, player: int) -> list[Any]:
        raise NotImplementedError

    def apply(self, state: Any, action: Any) -> Any:
        raise NotImplementedError

    def outcome(self, state: Any) -> Outcome | None:
        raise NotImplementedError

    def public_view(self, state: Any) -> dict[str, Any]:
        """What every person at the table may see, as plain JSON-able data."""
        raise NotImplementedError

    def seat_view(self, state: Any, seat: int) -> Any:
        """What a person at ``seat`` knows, as a state of the game's own type: the public
        table, the seat's own hand and what the seat saw go into other hands; every card it
        cannot know (other hands, a draw pile's cards and order, face-down cards) is
        :data:`HIDDEN` or :data:`HIDDEN_NUMBER`, so every count stays, and the seed (which
        decides every deal and shuffle) is 0. The seat's own ``legal_actions`` are the same
        on its view as on the state. Bots decide from this alone (``controller/bots``), so
        none can read what its seat cannot see."""
        raise NotImplementedError

    def unseen(self, state: Any) -> tuple[int, ...]:
        """How many cards each pile nobody has seen still holds (the draw pile; Partout: the
        deals to come). An action after which one is smaller revealed something hidden, and
        undo stops before it when the table deals (virtual cards): taken back, the same card
        would come again, and the players would know it. Games without hidden cards: ()."""
        return ()

    def action_to_json(self, action: Any) -> dict[str, Any]:
        raise NotImplementedError

    def action_from_json(self, data: Mapping[str, Any]) -> Any:
        raise NotImplementedError

    def state_to_json(self, state: Any) -> dict[str, Any]:
        raise NotImplementedError

    def state_from_json(self, data: Mapping[str, Any]) -> Any:
        raise NotImplementedError

    def pause_after(self, before: Any, after: Any) -> tuple[float, str] | None:
        """Real-time games: how long play pauses after the change ``before`` → ``after``, in
        seconds, and the refusal a press during it gets; a signal ends it (the table keeps
        the time). None: play goes on at once."""
        return None

    def idle_hint(self, state: Any) -> tuple[float, str, dict[str, Any]] | None:
        """Real-time games: after this many seconds with no move, the table says this
        (a text key and its parameters). None: nothing to say."""
        return None

    def switch_on(self, config: Mapping[str, Any], name: str) -> bool:
        """Whether the game plays its switch ``name`` (an option without choices) with
        ``config``: what the pages before a game say. Most games read the key."""
        return bool(config.get(name))

    def hint_restarts(self, before: Any, after: Any) -> bool:
        """Real-time games: whether the move ``before`` → ``after`` starts the idle hint's
        time anew although a hint still holds (a new situation that looks the same). False:
        the time runs on from when the hint first held."""
        return False

    def card_names(self) -> list[str]:
        """Every card of the game's full deck, in notation (empty for games without cards)."""
        return []

    def check_config(self, config: Mapping[str, Any]) -> None:
        """Refuses (IllegalAction) a config no game can start from, before anything opens."""
        self.new_game(config, 0)

    def prepare_config(self, config: Mapping[str, Any], previous: Any) -> dict[str, Any]:
        """The config a new game starts from, given ``previous()``: the finished games'
        results, newest first (a game that replays an earlier one, as Team UP!'s challenge,
        takes what it needs from them). Most games take the config as it is."""
        return dict(config)

    def result_details(self, state: Any) -> dict[str, Any]:
        """What a game's result keeps beyond its scores, for a later game that repeats it
        (Team UP!'s challenge: the cards drawn). Most games keep nothing more."""
        return {}

    def replay(self, config: Mapping[str, Any], seed: int, actions: Iterable[Any]) -> Any:
        """The state reached by applying ``actions`` to a new game."""
        state = self.new_game(config, seed)
        for action in actions:
            state = self.apply(state, action)
        return state
