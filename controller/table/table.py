"""The table: station events in, one rules core, feedback and snapshots out.

    event ─► seat of the station ─► the game's input adapter ─► action
          ─► rules core applies it (or refuses with a reason)
          ─► appended durably to the event log, then it becomes the state
          ─► LED and buzzer feedback; a new immutable snapshot for the display and bots

Input is handled on one thread (the runner's); readers only put events on a queue.
A refused input changes nothing but the message shown and a red flash at its station.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from typing import Any, NoReturn, Sequence

from controller.table.cards import CardResolver
from controller.table.eventlog import BrokenLog, EventLog, SavedGame, storage_error
from controller.games.core import GameRules, IllegalAction
from controller.games.team_colours import has_teams, seat_colours
from controller.inputs import InputAdapter, SoftKey, adapter_for
from controller.learn import Hint, hints_for, seats_to_hint
from hardware.events import (ButtonEvent, InputEvent, PanelEvent, StationFlooding, StationHello, StationLost,
                             StationProbed, StationProgress, TagEvent, TagGone, TagWritten)

log = logging.getLogger(__name__)

# Feedback a station gets; the colours and tones live here and nowhere else.
LED_YOUR_TURN = "00c000"
LED_OFF = "000000"
LED_WINNER = "ffb000"
LED_REFUSED = "ff0000"
FLASH_MS = 300
BUZZ_REFUSED = (220, 150)
TEAM_GLOW = 0.25                   # a team's colour while the seat waits: dim, so that a refusal's red
#                                    flash and "your turn" stand out from it even in a red or green team


GLOW_SEEN = 0x30                   # the brightest channel a dim glow needs to be seen on a station
LED_DARK_TEAM = "404040"           # a team too dark for that (Crazy Kick's black): a dim white glow


def team_glow(colour: str) -> str:
    """A seat's LED while it waits in a game with teams: its team's colour ("rrggbb") at
    ``TEAM_GLOW`` of its brightness. A colour too dark to be seen so (Crazy Kick's black
    #1a1a1a dims to 060606: an LED that is off) glows a dim white of its own; the TV's shape
    and underline still tell the teams apart."""
    glow = "".join(f"{round(int(colour[i:i + 2], 16) * TEAM_GLOW):02x}" for i in (0, 2, 4))
    return glow if max(int(glow[i:i + 2], 16) for i in (0, 2, 4)) >= GLOW_SEEN else LED_DARK_TEAM
BUZZ_ACCEPTED = (1760, 40)
BUZZ_WHISTLE = (2500, 400)         # a pause is over (Crazy Kick: the kick-off after a goal)

# Undo: asked for at the host panel (or the keyboard's u), or by holding a station's back
# button; then confirmed (the panel's undo again, or the asking station's bottom middle).
UNDO_HOLD_NS = 1_000_000_000       # the back button held this long asks to undo
CONFIRM_UNDO_BUTTON = 4            # bottom middle: "yes, take it back"
PANEL = -1                         # undo asked for by the host (panel button, keyboard)

# The events a table does nothing with: a FENCE's answer is the real-time loop's arbiter's
# (realtime.py), a card taken off its reader or written is the enrolment's (app/enroll.py), a
# bring-up probe's figures are `stations --probe`'s (app/probe.py): no game asks for them.
IGNORED_EVENTS = (StationProgress, TagGone, TagWritten, StationProbed)


@dataclass(frozen=True)
class Message:
    key: str
    params: dict[str, Any]
    seat: int | None            # whose input it answers, if any
    refusal: bool
    revision: int


@dataclass(frozen=True)
class SeatSnapshot:
    seat: int
    name: str
    station: str | None
    connected: bool
    soft_keys: tuple[SoftKey | None, ...]
    prompt: tuple[str, dict[str, Any]] | None
    pending: dict[str, Any] | None
    refusal: Message | None      # this seat's last refusal, while it is true (Table._moved_on)
    colour: str | None = None    # the seat's colour ("rrggbb"): its team's in a game with teams, else the
    #                              one chosen at seating, if any (controller/games/team_colours.py)
    hints: tuple[Hint, ...] = ()  # the learning option: what this seat may do now (controller/learn)


@dataclass(frozen=True)
class Snapshot:
    """Everything the display may draw: public game state plus the table's prompts."""

    revision: int
    game: str
    title: str
    view: dict[str, Any]
    seats: tuple[SeatSnapshot, ...]
    message: Message | None
    processed: dict[str, int] = field(default_factory=dict)   # station → last seq handled
    action_count: int = 0
    finished: bool = False
    paused_for: tuple[int, ...] = ()    # seats whose station is unplugged: the game waits
    cannot_save: str | None = None      # why the log takes no writes: the game waits
    private: tuple[int, tuple[str, ...]] | None = None   # the keyboard seat's own hand (a demo's --seat)
    notices: tuple[Message, ...] = ()   # lasting news (a station too slow to judge), shown when nothing newer is


@dataclass(frozen=True)
class Command:
    station: str
    kind: str                     # "LED" or "BUZZ"
    args: tuple[Any, ...]


@dataclass
class _Batch:
    before: dict[str, Any]                    # the table's attributes before the batch
    failed: BaseException | None = None       # a write of the batch that the log refused
    seats: list[int | None] = field(default_factory=list)    # who played in it


# not put back when a batch fails: the table's parts, the revision (it only goes forward), and
# what counts inputs rather than the game (the presses were processed; the arbiter's late count)
_NOT_CHECKPOINTED = frozenset({"rules", "store", "adapter", "resolver", "revision", "_batch", "_snapshot",
                               "processed", "late_presses", "decided_without"})


def _copied(value: Any) -> Any:
    """A checkpoint's copy: containers copied, everything else (immutable states, messages) shared."""
    return type(value)(value) if isinstance(value, (list, dict, set)) else value


class Table:
    def __init__(self, rules: GameRules, *, config: dict[str, Any], seed: int,
                 stations: Sequence[str | None], names: Sequence[str] | None = None,
                 log_store: EventLog | None = None, game_id: int | None = None,
                 actions: Sequence[dict[str, Any]] = (), adapter: InputAdapter | None = None,
                 resolver: CardResolver | None = None, colours: Sequence[str | None] | None = None) -> None:
        self.rules = rules
        self.config = dict(config)
        self.seed = seed
        self.stations = list(stations)
        self.names = list(names) if names else [""] * len(self.stations)
        self.colours = list(colours) if colours else [None] * len(self.stations)
        self.store = log_store
        self.adapter = adapter or adapter_for(rules)
        self.resolver = resolver or CardResolver(rules.name, log_store)
        self.actions, self.state = self._replay(rules, game_id, actions)
        if log_store is not None and game_id is None:
            game_id = log_store.start_game(rules.name, self.config, seed, self.stations)
        self.game_id = game_id
        self.revision = 0
        self.message: Message | None = None
        self.processed: dict[str, int] = {}
        self.connected = {s: True for s in self.stations if s}
        self._refusals: dict[int, Message] = {}  # seat → its refusal, until that seat's next input or
        #                                          the table moves on (_moved_on)
        self._leds: dict[str, str] = {}
        # the colour each seat is shown in (underline, idle LED): its team's in a game with
        # teams, else its person's (controller/games/team_colours.py); teams do not change
        view = rules.public_view(self.state)
        self.shown_colours = seat_colours(rules.name, view,
                                          (self.colours + [None] * len(self.stations))[:len(self.stations)])
        self._idle_leds = [team_glow(c) if has_teams(rules.name, view.get("team_of") or []) and c else LED_OFF
                           for c in self.shown_colours]
        self._finished_logged = rules.outcome(self.state) is not None
        self._snapshot: Snapshot | None = None
        self.cannot_save: str | None = None      # set while the log refuses writes
        self.private_seat: int | None = None     # a person at the keyboard plays this seat: its hand is shown
        self.undo_asked: int | None = None       # who asked to undo (a seat, or PANEL), until answered
        self._held: dict[str, int] = {}          # station → when its back button went down (host ns)
        self._deferred: dict[str, IllegalAction] = {}   # a back press's refusal, said at release unless held
        # a pause of a real-time game (rules.pause_after), on the presses' clock: from the
        # press that caused it until the whistle; presses in it are refused with its reason
        self.paused_from_ns: int | None = None
        self.paused_until_ns: int | None = None
        self._pause_refusal = ""
        self._pressed_ns: int | None = None          # the press being handled, for a pause it causes
        self._hint: tuple[float, str, dict[str, Any]] | None = None   # rules.idle_hint of the state, once a move
        self._hint_since_ns: int | None = None       # since when it has held (presses' clock)
        self._notices: dict[str, Message] = {}       # lasting news by what it is about (a station)
        self._batch: _Batch | None = None            # presses applied for one durable commit (begin_batch)
        self.late_presses: dict[str, int] | None = None   # a real-time table's: station → presses that came
        #                                                    after their race was decided (the arbiter's count)
        self.decided_without: dict[str, int] | None = None   # … and station → races decided without its word

    def _replay(self, rules: GameRules, game_id: int | None, logged: Sequence[dict[str, Any]]) -> tuple[list, Any]:
        """The state a saved game reached; a log that breaks is reported with the entry."""
        try:
            state = rules.new_game(self.config, self.seed)
        except Exception as exc:                     # a setup no game takes
            raise BrokenLog(game_id or 0, rules.name, -1, self.config, _reason(exc)) from exc
        actions = []
        for index, data in enumerate(logged):
            try:
                action = rules.action_from_json(data)
                state = rules.apply(state, action)
            except Exception as exc:                 # IllegalAction, or a log written by hand
                raise BrokenLog(game_id or 0, rules.name, index, data, _reason(exc)) from exc
            actions.append(action)
        return actions, state

    @classmethod
    def resume(cls, rules: GameRules, saved: SavedGame, log_store: EventLog, **kw: Any) -> "Table":
        """The saved game, replayed. One whose log is complete but has no result (written
        before the last move and the result were one transaction, and killed between the
        two) gets its result recorded now: every finished game reaches the results."""
        table = cls(rules, config=saved.config, seed=saved.seed, stations=kw.pop("stations", saved.seats),
                    log_store=log_store, game_id=saved.id, actions=saved.actions, **kw)
        if table.finished and not saved.finished:
            try:
                log_store.finish(saved.id, table.result())
            except Exception as exc:                 # a full disk: said at the start, nothing lost
                raise storage_error(log_store.path, exc) from exc
        return table

    # -- input --------------------------------------------------------------------------------------
    def handle(self, event: InputEvent) -> list[Command]:
        """One station event; returns the feedback to send. Never raises for bad input."""
        station = getattr(event, "station", None)
        seq = getattr(event, "seq", None)
        if station is not None and seq is not None:
            self.processed[station] = seq
        match event:
            case StationLost():
                return self._station_lost(event)
            case StationHello():
                return self._station_hello(event)
            case StationFlooding():
                seat = self.seat_of(event.station)
                self._note(Message("station_flooding", {"seat": seat, "n": event.dropped}, seat, True,
                                   self.revision + 1))
                return []
            case PanelEvent():
                if event.button == "undo":
                    return self.host_undo()
                if event.button == "menu":       # a short press: say how to stop
                    self._note(Message("panel_menu_hint", {}, None, False, self.revision + 1))
                return []                        # "menu_held" is the runner's: it stops
            case ButtonEvent() | TagEvent():
                return self._station_input(event)
            case _ if isinstance(event, IGNORED_EVENTS):
                return []
            case _:
                return _unknown_event(event)

    def _station_input(self, event: ButtonEvent | TagEvent) -> list[Command]:
        """A press or a card at a station: its seat's input (or a refusal)."""
        station = event.station
        seat = self.seat_of(station)
        if seat is None:
            log.info("input from station %s that has no seat", station)
            self._note(Message("station_without_seat", {"station": station}, None, True, self.revision + 1))
            return []
        if isinstance(event, ButtonEvent) and not event.pressed:
            return self._released(seat, event)
        if self._refusals.pop(seat, None) is not None:      # its next input: the refusal has been read
            self._changed()
        if self.undo_asked is not None:
            answer = self._answer_undo(seat, event)
            if answer is not None:
                return answer
        if self.paused_for and not self.finished:
            # nothing moves while a seat cannot play: it would not see or answer it
            return self._refuse(seat, IllegalAction("paused", seat=self.paused_for[0]))
        if self.cannot_save is not None and not self.check_saving():
            return self._refuse(seat, IllegalAction("cannot_save", reason=self.cannot_save))
        if isinstance(event, ButtonEvent):
            if (self.paused_from_ns is not None and self.paused_until_ns is not None
                    and self.paused_from_ns <= event.pressed_ns < self.paused_until_ns):
                return self._refuse(seat, IllegalAction(self._pause_refusal))
            back = event.button == getattr(self.adapter, "back_button", None)
            if back:
                self._held[station] = event.pressed_ns
            self._pressed_ns = event.pressed_ns
            due = self.hint_due_ns()
            self.adapter.hint_due = due is not None and event.pressed_ns >= due   # by the press's own time
            try:
                return self._input(seat, lambda: self.adapter.button(self.state, seat, event.button),
                                   defer_refusal=station if back else None)
            finally:
                self._pressed_ns = None
        return self._input(seat, lambda: self.adapter.card(
            self.state, seat, self.resolver.resolve(event.uid, event.text)))

    @property
    def paused_for(self) -> tuple[int, ...]:
        """Seats whose station is unplugged; the game waits for them."""
        return tuple(seat for seat, station in enumerate(self.stations)
                     if station and not self.connected.get(station, True))

    def seat_of(self, station: str | None) -> int | None:
        try:
            return self.stations.index(station) if station is not None else None
        except ValueError:
            return None

    def _input(self, seat: int, make_action: Any, defer_refusal: str | None = None) -> list[Command]:
        """``defer_refusal``: the back button's station; its refusal waits for the release,
        which tells a press (refused then) from a hold (asking to undo)."""
        try:
            action = make_action()
            if action is None:                       # a choice in progress moved
                self._changed()
                return []
            return self.apply(action)
        except IllegalAction as refusal:
            if defer_refusal is not None:
                self._deferred[defer_refusal] = refusal
                return []
            return self._refuse(seat, refusal)

    def _released(self, seat: int, event: Any) -> list[Command]:
        since = self._held.pop(event.station, None)
        deferred = self._deferred.pop(event.station, None)
        if since is not None and event.pressed_ns - since >= UNDO_HOLD_NS:
            return self.ask_undo(seat)
        return self._refuse(seat, deferred) if deferred is not None else []

    def apply(self, action: Any) -> list[Command]:
        """Apply an action from a seat: refused (IllegalAction) or durably logged, then taken
        (in a batch: logged, and durable at end_batch)."""
        if self._batch is not None and self._batch.failed is not None:
            raise IllegalAction("cannot_save", reason=self.cannot_save or str(self._batch.failed))
        new_state = self.rules.apply(self.state, action)
        if self.store is not None and self.game_id is not None:
            data = self.rules.action_to_json(action)
            try:
                if not self._finished_logged and self.rules.outcome(new_state) is not None:
                    # the move that ends the game and its result: one transaction, so a kill
                    # between the two cannot leave the game finished without its result
                    self.store.append_final(self.game_id, data, self._result(new_state, len(self.actions) + 1))
                else:
                    self.store.append(self.game_id, data)
            except Exception as exc:                 # disk full, card pulled: refuse, keep state, wait
                if self._batch is not None:
                    self._batch.failed = exc
                raise IllegalAction("cannot_save", reason=self._saving_failed(exc)) from exc
        if self._batch is not None:
            self._batch.seats.append(getattr(action, "player", None))
        pause = self.rules.pause_after(self.state, new_state) if self._pressed_ns is not None else None
        before, self.state = self.state, new_state
        self.actions.append(action)
        self.adapter.reset()
        if pause is not None and self._pressed_ns is not None:      # (a pause comes after a press only)
            seconds, self._pause_refusal = pause
            self.paused_from_ns, self.paused_until_ns = self._pressed_ns, self._pressed_ns + int(seconds * 1e9)
        self._hint = self.rules.idle_hint(new_state)   # asked once a move: the loop asks when it is due
        if self._hint is None:
            self._hint_since_ns = None
            self.adapter.hint_due = False
        elif self._hint_since_ns is None or self.rules.hint_restarts(before, new_state):
            self._hint_since_ns = self._pressed_ns
            self.adapter.hint_due = False
        actor = getattr(action, "player", None)
        self.message = None
        self._moved_on()
        commands = self._leds_now()
        station = self.stations[actor] if actor is not None and actor < len(self.stations) else None
        if station:
            commands.insert(0, Command(station, "BUZZ", BUZZ_ACCEPTED))
        self._changed()
        outcome = self.rules.outcome(self.state)
        if outcome is not None and not self._finished_logged:
            self._finished_logged = True                 # its result is in the log with the move
            self._note(Message("game_won", {"winners": list(outcome.winners)}, None, False, self.revision))
        return commands

    # -- an arbiter's batch: one durable commit -------------------------------------------------------
    def begin_batch(self) -> None:
        """The actions taken from here to ``end_batch`` are written to the log in one durable
        transaction: an arbiter's batch of presses costs one flush to the disk, not one per
        press (on an SD card a flush takes milliseconds). Their feedback waits for the commit,
        as every acknowledgement waits for its action to be durable."""
        if self._batch is not None or self.store is None or self.game_id is None or self.cannot_save is not None:
            return
        try:
            self.store.begin()
        except Exception as exc:  # noqa: BLE001 - then each action commits on its own, as always
            log.warning("event log: cannot begin a batch: %s", exc)
            return
        self._batch = _Batch({k: _copied(v) for k, v in vars(self).items() if k not in _NOT_CHECKPOINTED})

    def end_batch(self) -> list[Command]:
        """Commit the batch. Should the log refuse it (or any write in it), the table goes
        back to how it was before the batch, and every seat that played in it is told its
        move was not saved; nothing of the batch is in the log either."""
        batch, self._batch = self._batch, None
        if batch is None or self.store is None:
            return []
        try:
            if batch.failed is not None:
                raise batch.failed
            self.store.commit()
            return []
        except Exception as exc:  # noqa: BLE001 - whatever refused the batch: it is undone below
            try:
                self.store.rollback()
            except Exception:  # noqa: BLE001 - the log is in trouble already: said below
                pass
            for key, value in batch.before.items():
                setattr(self, key, value)
            self.adapter.reset()
            reason = self._saving_failed(exc)
            seats = sorted({seat for seat in batch.seats if seat is not None})
            return [command for seat in seats for command in self._refuse(seat, IllegalAction("cannot_save",
                                                                                              reason=reason))]

    def whistle_if_due(self, now_ns: int) -> list[Command]:
        """A pause whose time is up ends: every station whistles and the screen says so."""
        if self.paused_until_ns is None or now_ns < self.paused_until_ns:
            return []
        self.paused_from_ns = self.paused_until_ns = None
        self._moved_on()
        self._note(Message("whistle", {}, None, False, self.revision + 1))
        return [Command(station, "BUZZ", BUZZ_WHISTLE) for station in self.stations if station]

    def hint_due_ns(self) -> int | None:
        """When the game's idle hint (rules.idle_hint) is to be said, if one is coming."""
        if self._hint is None or self._hint_since_ns is None:
            return None
        return self._hint_since_ns + int(self._hint[0] * 1e9)

    def hint_if_due(self, now_ns: int) -> None:
        """Say the idle hint once its time is up, and again after a move cleared it while
        it still holds (Crazy Kick: a stall goes on while people flip)."""
        due = self.hint_due_ns()
        if due is None or now_ns < due:
            return
        self.adapter.hint_due = True                 # what the buttons mean follows what is said
        _, key, params = self._hint                  # type: ignore[misc]
        if self.message is None or (self.message.key == key and self.message.params != params):
            self._note(Message(key, params, None, False, self.revision + 1))

    def warn_slow_link(self, station: str, delay_ns: int | None, *, simulated: bool = False) -> None:
        """A station's word comes too late for its races to be judged fairly: say so on
        the screen, with what to do (docs/stations.md). ``delay_ns``: how long its races
        waited for it (95th percentile), None when it did not answer at all (a firmware
        that does not, a station that hangs). ``simulated``: a station simulated on this
        computer (a demo's, a bot's), late because the computer is busy; no USB adapter to set."""
        if delay_ns is None:
            log.warning("station %s does not answer the table's FENCE: races are decided without it", station)
            message = Message("station_silent", {"seat": self.seat_of(station)}, None, True, self.revision + 1)
            self._notices[station] = message
            self._note(message)
            return
        log.warning("station %s: its races waited %.1f ms for its word (95th percentile; more than one race in "
                    "twenty decided without it)%s", station, delay_ns / 1e6,
                    "; a simulated station: this computer is too busy" if simulated else "")
        message = Message("slow_link_simulated" if simulated else "slow_link",
                          {"seat": self.seat_of(station), "ms": round(delay_ns / 1e6)}, None, True,
                          self.revision + 1)
        self._notices[station] = message              # it lasts: a seat's refusal must not hide it
        self._note(message)

    def warn_poor_clock(self, station: str, error_ns: int, answered: int, sent: int) -> None:
        """A station's clock sync stays unsure (its bound above the tie window): its close
        presses are ties, and the owner is told what to look at (docs/stations.md)."""
        log.warning("station %s: its clock is known to ±%d µs only (%d of %d sync exchanges answered): close "
                    "presses against it are ties", station, error_ns // 1000, answered, sent)
        message = Message("poor_clock", {"seat": self.seat_of(station), "us": error_ns // 1000, "answered": answered,
                                         "sent": sent}, None, True, self.revision + 1)
        self._notices[station] = message
        self._note(message)

    def _saving_failed(self, exc: BaseException) -> str:
        """The log refused a write: the table waits until it takes them again (check_saving).
        The person is told where they look (the TV's line; a command's last line on stderr),
        so the log gets a record once a spell, at INFO: a second line saying the same on a
        terminal would only bury the one that says what to do."""
        if self.cannot_save is None:
            log.info("event log write failed: %s", exc)
        self.cannot_save = str(storage_error(self.store.path if self.store is not None else "the log", exc))
        self._changed()
        return self.cannot_save

    def check_saving(self) -> bool:
        """While the log refuses writes: try again; True (and the game goes on) once it takes them."""
        if self.cannot_save is None:
            return True
        if self._batch is not None:                   # a probe would write inside the failed batch
            return False
        problem = self.store.probe() if self.store is not None else None
        if problem is not None:
            if problem != self.cannot_save:
                self.cannot_save = problem
                self._changed()
            return False
        self.cannot_save = None
        self._moved_on()
        self._note(Message("saving_again", {}, None, False, self.revision + 1))
        return True

    # -- undo -----------------------------------------------------------------------------------------
    def host_undo(self) -> list[Command]:
        """The host's undo (the panel's button, the keyboard's u): asks first; pressed again
        while asked, takes the move back."""
        if self.undo_asked == PANEL:
            self.undo_asked = None
            return self.undo()
        return self.ask_undo(PANEL)

    def ask_undo(self, asker: int) -> list[Command]:
        """Ask, before anything is taken back, whether the last move should be (``asker``: the
        seat that held its back button, or PANEL)."""
        seat = None if asker == PANEL else asker
        refusal = self._undo_refusal(seat)
        if refusal is not None:
            return self._refuse(seat, refusal)
        self.undo_asked = asker
        actor = getattr(self.actions[-1], "player", None)
        key = "undo_ask_panel" if seat is None else "undo_ask_station"
        self._note(Message(key, {"player": actor, "seat": seat}, seat, False, self.revision + 1))
        return []

    def _answer_undo(self, seat: int, event: Any) -> list[Command] | None:
        """An input while undo is asked: the asking station's bottom middle says yes, its other
        buttons no (the press does nothing else). Any other input says no and counts as itself
        (None: go on handling it)."""
        asker, self.undo_asked = self.undo_asked, None
        if asker == seat and isinstance(event, ButtonEvent):
            if event.button == CONFIRM_UNDO_BUTTON:
                return self.undo()
            self._note(Message("undo_kept", {}, seat, False, self.revision + 1))
            return []
        self.message = None                          # the question is gone; the input speaks for itself
        self._changed()
        return None

    def _undo_refusal(self, seat: int | None) -> IllegalAction | None:
        """Why the last move cannot be taken back now (asked at ``seat``; None: the host)."""
        if self.rules.realtime:
            return IllegalAction("undo_realtime")
        if not self.actions:
            return IllegalAction("nothing_to_undo")
        actor = getattr(self.actions[-1], "player", None)
        if seat is not None and seat not in (actor, self.rules.to_act(self.state)):
            return IllegalAction("undo_not_yours", player=seat, expected=actor)
        if self.config.get("mode") == "virtual":
            before = self.rules.replay(self.config, self.seed, self.actions[:-1])
            if self.rules.unseen(before) != self.rules.unseen(self.state):
                return IllegalAction("undo_stops_at_reveal")
        return None

    def undo(self) -> list[Command]:
        """Take the last move back (in the log too): what ``ask_undo`` asked about."""
        refusal = self._undo_refusal(None)
        if refusal is not None:
            return self._refuse(None, refusal)
        if self.store is not None and self.game_id is not None:
            try:                                     # taking back the move that ended it takes back the result
                self.store.append_undo(self.game_id, reopens=self.finished)
            except Exception as exc:  # noqa: BLE001 - nothing taken back that the log would not know
                self._note(Message("cannot_save", {"reason": self._saving_failed(exc)}, None, True, self.revision + 1))
                return []
        self.actions.pop()
        self.state = self.rules.replay(self.config, self.seed, self.actions)
        self._hint = self._hint_since_ns = None           # the state went back: no hint is owed
        self.adapter.hint_due = False
        self.adapter.reset()
        self._finished_logged = self.rules.outcome(self.state) is not None
        self._moved_on()
        self._note(Message("undone", {}, None, False, self.revision + 1))
        return self._leds_now()

    def _refuse(self, seat: int | None, refusal: IllegalAction) -> list[Command]:
        """Say why an input was refused; at a seat (None: the host's), also flash its station red."""
        message = Message(refusal.key, dict(refusal.params), seat, True, self.revision + 1)
        self._note(message)
        if seat is None:
            return []
        self._refusals[seat] = message
        station = self.stations[seat]
        if not station:
            return []
        return [Command(station, "LED", (LED_REFUSED, FLASH_MS)), Command(station, "BUZZ", BUZZ_REFUSED)]

    def _station_lost(self, event: Any) -> list[Command]:
        self.connected[event.station] = False
        self._note(Message("station_lost", {"seat": self.seat_of(event.station), "reason": event.reason},
                           self.seat_of(event.station), True, self.revision + 1))
        return []

    def _station_hello(self, event: Any) -> list[Command]:
        if event.station in self.connected:
            was_lost = not self.connected[event.station]
            self.connected[event.station] = True
            self._leds.pop(event.station, None)      # a replugged station has forgotten its LED
            if was_lost:
                self._moved_on()
                self._note(Message("station_back", {"seat": self.seat_of(event.station)}, None, False,
                                   self.revision + 1))
            else:
                self._changed()
        return self._leds_now()

    # -- feedback -----------------------------------------------------------------------------------
    def _leds_now(self) -> list[Command]:
        """Steady LEDs: green where the game waits for input, gold for winners at the end; while
        a seat waits, dark, or in a game with teams its team's colour (as its name's underline)."""
        outcome = self.rules.outcome(self.state)
        to_act = self.rules.to_act(self.state)
        team_of = self.rules.public_view(self.state).get("team_of") if outcome else None
        commands = []
        for seat, station in enumerate(self.stations):
            if not station:
                continue
            if outcome is not None:
                colour = LED_WINNER if team_of and team_of[seat] in outcome.winners else LED_OFF
            else:                                    # waiting: dark, or its team's colour in a team game
                colour = LED_YOUR_TURN if seat == to_act else self._idle_leds[seat]
            if self._leds.get(station) != colour:
                self._leds[station] = colour
                commands.append(Command(station, "LED", (colour, 0)))
        return commands

    def initial_feedback(self) -> list[Command]:
        self._leds.clear()
        return self._leds_now()

    # -- what the display sees ------------------------------------------------------------------------
    def _moved_on(self) -> None:
        """The table moved on (a move was taken or taken back, a pause ended, a seat came back,
        the log takes writes again): every refusal spoke of a table that is gone. One left
        standing said "It is Clara's turn, not Anna's" while the centre said Anna was on turn
        (issue 30). Until then a refusal stays at its seat, however many other inputs are
        refused meanwhile, so that it can be read (issue 14)."""
        if self._refusals:
            self._refusals.clear()
            self._changed()

    def _note(self, message: Message) -> None:
        self.message = message
        self._changed()

    def _changed(self) -> None:
        self.revision += 1
        self._snapshot = None

    def snapshot(self) -> Snapshot:
        if self._snapshot is not None:
            # every change clears the cache, so only the processed counters can differ
            if self._snapshot.processed != self.processed:
                self._snapshot = replace(self._snapshot, processed=dict(self.processed))
            return self._snapshot
        state = self.state
        hints = self._hints(state)
        seats = tuple(
            SeatSnapshot(seat, self.names[seat] if seat < len(self.names) else "", station,
                         self.connected.get(station, False) if station else False,
                         UNDO_KEYS if seat == self.undo_asked else self.adapter.soft_keys(state, seat),
                         ("undo_prompt", {}) if seat == self.undo_asked else
                         (self._pause_refusal, {}) if self.paused_until_ns is not None else
                         self.adapter.prompt(state, seat),
                         self.adapter.pending(state, seat), self._refusals.get(seat),
                         self.shown_colours[seat], hints.get(seat, ()))
            for seat, station in enumerate(self.stations))
        self._snapshot = Snapshot(self.revision, self.rules.name, self.rules.title,
                                  self.rules.public_view(state), seats, self.message,
                                  dict(self.processed), len(self.actions),
                                  self.rules.outcome(state) is not None, self.paused_for, self.cannot_save,
                                  self._private_hand(state), tuple(self._notices.values()))
        return self._snapshot

    def _hints(self, state: Any) -> dict[int, tuple[Hint, ...]]:
        """With the learning option: each seat that may act now, and what it may do. The
        table says what is in a hand only where it deals and the hand is the keyboard
        player's own, or where a game hides nothing (``controller/learn``)."""
        if not self.config.get("learn"):
            return {}
        dealt = self.config.get("mode") == "virtual"
        hints = {seat: hints_for(self.rules, state, seat,
                                 hand_known=dealt and (seat == self.private_seat or self.rules.bots_fill_seats))
                 for seat in seats_to_hint(self.rules, state, len(self.stations))}
        if self.rules.realtime:
            return hints                         # every seat's line says its own
        # one message box shows one seat's hints: the first of ``may_act``'s order with any
        # (Tadika: a claim after the swap that ended the turn, before the next player's move)
        first = next((seat for seat, said in hints.items() if said), None)
        return {} if first is None else {first: hints[first]}

    def _private_hand(self, state: Any) -> tuple[int, tuple[str, ...]] | None:
        """The hand of the seat played from the keyboard, when the game keeps hands of named cards."""
        seat = self.private_seat
        hands = getattr(state, "hands", None)
        if seat is None or not isinstance(hands, (tuple, list)) or seat >= len(hands):
            return None
        hand = hands[seat]
        if not isinstance(hand, (tuple, list)) or not all(isinstance(c, str) for c in hand):
            return None
        return seat, tuple(hand)

    @property
    def finished(self) -> bool:
        return self.rules.outcome(self.state) is not None

    def result(self) -> dict[str, Any]:
        """The JSON result line: game, scores per team, winner(s); in a real-time game, the
        presses that came too late, by seat."""
        return self._result(self.state, len(self.actions))

    def _result(self, state: Any, actions: int) -> dict[str, Any]:
        """The result of ``state``, reached after ``actions`` actions (the move being
        applied: its result is written with it)."""
        outcome = self.rules.outcome(state)
        view = self.rules.public_view(state)
        teams = view.get("teams")
        names = [[self.names[p] or f"seat {p + 1}" for p in team] for team in teams] if teams else None
        result = {
            "game": self.rules.name,
            "config": self.config,
            "seed": self.seed,
            "scores": list(outcome.scores) if outcome else view.get("scores"),
            "winner": (list(outcome.winners) if len(outcome.winners) > 1 else outcome.winners[0]) if outcome else None,
            "teams": names,
            "actions": actions,
            "finished": outcome is not None,
        }
        result.update(self.rules.result_details(state))          # what a game repeating this one needs
        if self.late_presses is not None:      # by seat; the log keeps them, `spieltisch stations` shows them
            result["late_presses"] = {str(self.seat_of(s)): n for s, n in sorted(self.late_presses.items())}
        if self.decided_without is not None:   # by seat: races its station's silence left to the bound
            result["decided_without"] = {str(self.seat_of(s)): n for s, n in sorted(self.decided_without.items())}
        return result


# the asking station's buttons while undo is asked: bottom middle takes the move back
UNDO_KEYS = (None, None, None, SoftKey("undo_no"), SoftKey("undo_yes"), SoftKey("undo_no"))


def _reason(exc: BaseException) -> str:
    return exc.message("en") if isinstance(exc, IllegalAction) else f"{type(exc).__name__}: {exc}"


def _unknown_event(event: NoReturn) -> list[Command]:
    """Reached by no event while every kind has its case in ``Table.handle``: mypy checks
    that (what is left of ``InputEvent`` there must be nothing). Anything else that comes
    (a bug) is logged and changes nothing."""
    log.warning("an event the table does not know: %r", event)
    return []
