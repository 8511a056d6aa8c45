"""The table's menu, without the hardware: station buttons in, what to start out.

Any station drives it: the bottom row's left and right buttons move through the list,
the middle one (OK) chooses, the top-left one goes back. The menu offers:

- **Play**: the game, then how many play (as many as the game allows and stations are
  plugged in; where bots may fill empty seats, as the game allows), then each of the rule
  book's variants the game has (a switch, or a choice) and the learning hints (every game's
  ``learn`` option), how many seats bots take (Crazy
  Kick: every card lies open, so a bot hides nothing), then "start";
- **Games played**: the finished games and the leaderboard, until a button is pressed;
- **Language** of the screen;
- **Sound**: the volume in steps of 20 %, or mute (a chime at the new volume says how loud);
- **How to play**: a game's pages on the TV (``controller/app/howto.py``), turned at any
  station; the top-left button comes back here (they are offered before a game's first move too).
- **Service** (a page of its own, for whoever looks after the table, so that what a family
  needs fits on one screen with "Switch off" last):

  - **Check the table**: ``spieltisch doctor``'s checks, each line on the TV (``controller/app/doctor.py``);
  - **Update the stations**: the table's firmware onto every station, its progress on the TV
    (``controller/app/flash.py``);
  - **Test this station**: the self-test, at the station that chose it;
  - **Teach the table a deck** (enrollment): which deck; it runs at the station that chose it;
- **Switch off**: asked first ("no" comes first); then the box shuts the Pi down safely and
  the TV says when it may be unplugged (``controller/app/box.py``).

A game of the kind chosen that was not finished (a power cut, a crash) is never resumed
silently: "start" then asks whether to go on with it (its players and variants) or to
start a new one (the old one is set aside, kept in the log); and a box switched on with
such a game saved offers it first.

``press`` returns None while the person is choosing, or an ``Activity`` to start.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.games import GAMES
from controller.games.core import GameRules
from controller.games.texts import LANGUAGES

BACK, MINUS, OK, PLUS = 0, 3, 4, 5
MAIN_ITEMS = ("menu_play", "menu_history", "menu_how_to_play", "menu_language", "menu_volume", "menu_service",
              "menu_switch_off")
SERVICE_ITEMS = ("menu_doctor", "menu_flash", "menu_selftest", "menu_enroll")
VOLUMES = (0, 20, 40, 60, 80, 100)        # per cent; 0 is mute (display.sound.VOLUMES)


@dataclass(frozen=True)
class Activity:
    kind: str                          # "play", "enroll", "selftest", "history", "howto", "doctor", "flash",
                                       # "switch_off"
    station: str | None = None         # the station that chose it (enroll, self-test)
    game: str | None = None
    players: int | None = None
    options: dict[str, Any] = field(default_factory=dict)
    new: bool = False                  # play: set an unfinished game of this kind aside first


@dataclass(frozen=True)
class Saved:
    """An unfinished game, as the menu offers it."""

    game: str
    players: int
    options: dict[str, Any]
    when: str                          # when it started, for people ("22.11. 19:40")
    moves: int
    seats: tuple[str | None, ...] = ()  # the station at each seat


@dataclass(frozen=True)
class MenuLine:
    key: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class MenuSnapshot:
    game: str                          # "menu": the screen's view
    title: MenuLine
    lines: tuple[MenuLine, ...]
    chosen: int
    stations: int
    lang: str
    note: MenuLine | None = None


class Menu:
    def __init__(self, stations: int, lang: str = "en", unfinished: Any = None, volume: int = 60) -> None:
        self.stations = stations
        self.lang = lang
        self.volume = volume
        self.unfinished = unfinished or (lambda game: None)      # game → Saved or None
        self.saved: Saved | None = None
        self.set_aside: str | None = None         # the game kind whose saved game the family chose to leave
        self.page = "main"
        self.chosen = 0
        self.game: str | None = None
        self.players = 0
        self.options: dict[str, Any] = {}
        self.bots = 0                             # seats bots take (games that allow them)
        self.note: MenuLine | None = None

    # -- what is on the page -------------------------------------------------------------------
    def _games(self) -> list[str]:
        return sorted(GAMES, key=lambda name: GAMES[name].title)

    def _rules(self) -> GameRules:
        """The game chosen: every page after the choice of a game has one."""
        if self.game is None:
            raise ValueError(f"the menu's {self.page} page without a game chosen")
        return GAMES[self.game]

    def _offered(self) -> list[Any]:
        """The chosen game's options the menu offers at the chosen player count (one that
        changes nothing there, as Crazy Kick's handicap at 4, is not offered)."""
        return [option for option in self._rules().options if option.offered_at(self.players)]

    def _too_few_stations(self) -> MenuLine:
        rules = self._rules()
        return MenuLine("menu_too_few_stations", {"game": rules.title, "n": min(rules.player_counts)})

    def _resumed(self) -> Saved:
        """The unfinished game the resume page offers (``offer`` sets it)."""
        if self.saved is None:
            raise ValueError("the menu's resume page without a game to go on with")
        return self.saved

    def _decks(self) -> list[str]:
        return [name for name in self._games() if GAMES[name].card_names()]

    def _player_counts(self) -> list[int]:
        """As many as the stations allow; where bots may fill seats, as many as the game allows."""
        if not self.game:
            return []
        bots = GAMES[self.game].bots_fill_seats
        return [n for n in GAMES[self.game].player_counts if n <= self.stations or bots]

    def _bot_choices(self) -> tuple[int, ...]:
        """How many of the seats bots may take: at least one seat stays a person's."""
        if not self._rules().bots_fill_seats:
            return ()
        return tuple(range(max(0, self.players - self.stations), self.players))

    def lines(self) -> tuple[MenuLine, tuple[MenuLine, ...]]:
        if self.page == "main":
            return MenuLine("menu_title"), tuple(MenuLine(k, {"n": self.volume} if k == "menu_volume" else {})
                                                 for k in MAIN_ITEMS)
        if self.page == "service":
            return MenuLine("menu_service_title"), tuple(MenuLine(k) for k in SERVICE_ITEMS)
        if self.page == "volume":
            return MenuLine("menu_choose_volume"), tuple(
                MenuLine(("menu_volume_mute" if v == 0 else "menu_volume_level") + ("_now" if v == self.volume else ""),
                         {"n": v}) for v in VOLUMES)
        if self.page == "game":
            return MenuLine("menu_choose_game"), tuple(MenuLine("menu_game", {"game": GAMES[g].title})
                                                       for g in self._games())
        if self.page == "players":
            return (MenuLine("menu_choose_players", {"game": self._rules().title}),
                    tuple(MenuLine("menu_players", {"n": n}) for n in self._player_counts()))
        if self.page == "options":
            rules = self._rules()
            lines = []
            for option in self._offered():
                value = self.options.get(option.name, False if option.is_switch else option.choices[0])
                lines.append(MenuLine(f"menu_option_{option.name}", {"value": _shown(value)}))
            if self._bot_choices():
                lines.append(MenuLine("menu_bots", {"n": self.bots}))
            lines.append(MenuLine("menu_start", {"game": rules.title, "n": self.players}))
            return MenuLine("menu_choose_options", {"game": rules.title}), tuple(lines)
        if self.page == "resume":
            saved = self._resumed()
            return (MenuLine("menu_resume_title", {"game": GAMES[saved.game].title}),
                    (MenuLine("menu_resume_go_on", {"n": saved.players, "when": saved.when, "moves": saved.moves}),
                     MenuLine("menu_resume_new")))
        if self.page == "howto":
            return MenuLine("menu_choose_howto"), tuple(MenuLine("menu_game", {"game": GAMES[g].title})
                                                        for g in self._games())
        if self.page == "switch_off":
            return MenuLine("menu_switch_off_ask"), (MenuLine("menu_switch_off_no"), MenuLine("menu_switch_off_yes"))
        if self.page == "deck":
            return MenuLine("menu_choose_deck"), tuple(MenuLine("menu_game", {"game": GAMES[g].title})
                                                       for g in self._decks())
        return MenuLine("menu_choose_language"), tuple(MenuLine(f"menu_lang_{code}") for code in LANGUAGES)

    def snapshot(self) -> MenuSnapshot:
        title, lines = self.lines()
        return MenuSnapshot("menu", title, lines, self.chosen, self.stations, self.lang, self.note)

    # -- a press ---------------------------------------------------------------------------------
    def press(self, button: int, station: str | None = None) -> Activity | None:
        _, lines = self.lines()
        self.note = None
        if button in (MINUS, PLUS):
            if lines:
                self.chosen = (self.chosen + (1 if button == PLUS else -1)) % len(lines)
            return None
        if button == BACK:
            was = self.page
            self._go({"game": "main", "players": "game", "options": "players", "deck": "service",
                      "language": "main", "volume": "main", "resume": "main", "howto": "main",
                      "switch_off": "main", "service": "main"}.get(self.page, "main"))
            if self.page == "main" and was == "service":
                self.chosen = MAIN_ITEMS.index("menu_service")
            elif self.page == "service":
                self.chosen = SERVICE_ITEMS.index("menu_enroll")
            return None
        if button != OK:
            self.note = MenuLine("menu_buttons_help")
            return None
        activity = self._choose(station)
        if activity is not None:
            self._go("main")                     # back here when it ends
        return activity

    def offer(self, saved: Saved) -> None:
        """Ask whether to go on with an unfinished game or start anew (also at switch-on)."""
        self.saved = saved
        self._go("resume")

    def _chosen_options(self) -> dict[str, Any]:
        """The variants chosen, and how many seats bots take (kept with the game: a resumed
        game seats its bots again)."""
        offered = {option.name for option in self._offered()}
        chosen = {name: value for name, value in self.options.items() if name in offered}
        return dict(chosen, **({"bots": self.bots} if self.bots else {}))

    def _go(self, page: str, chosen: int = 0) -> None:
        self.page, self.chosen = page, chosen

    def _choose(self, station: str | None) -> Activity | None:
        if self.page == "main":
            item = MAIN_ITEMS[self.chosen]
            if item == "menu_play":
                self._go("game")
            elif item == "menu_how_to_play":
                self._go("howto")
            elif item == "menu_history":
                return Activity("history")
            elif item == "menu_service":
                self._go("service")
            elif item == "menu_volume":
                self._go("volume", VOLUMES.index(self.volume) if self.volume in VOLUMES else 0)
            elif item == "menu_switch_off":
                self._go("switch_off")               # "no" first: a slip of the finger changes nothing
            else:
                self._go("language", LANGUAGES.index(self.lang))
            return None
        if self.page == "service":
            item = SERVICE_ITEMS[self.chosen]
            if item == "menu_enroll":
                self._go("deck")
                return None
            if item == "menu_selftest":
                return Activity("selftest", station=station)
            return Activity("doctor" if item == "menu_doctor" else "flash")
        if self.page == "game":
            self.game = self._games()[self.chosen]
            if not self._player_counts():
                self.note = self._too_few_stations()
                return None
            self.options = {}
            self._go("players")
            return None
        if self.page == "players":
            self.players = self._player_counts()[self.chosen]
            self.bots = (self._bot_choices() or (0,))[0]             # the fewest bots the stations allow
            extra = 1 if self._bot_choices() else 0
            self._go("options", len(self._offered()) + extra)   # "start" is chosen first
            return None
        if self.page == "options":
            offered = self._offered()
            if self._bot_choices() and self.chosen == len(offered):     # the bots' line
                choices = self._bot_choices()
                self.bots = choices[(choices.index(self.bots) + 1) % len(choices)] if self.bots in choices else choices[0]
                return None
            if self.chosen == len(offered) + (1 if self._bot_choices() else 0):
                saved = self.unfinished(self.game) if self.set_aside != self.game else None
                if saved is not None:                # never a different game silently: ask
                    self.offer(saved)
                    return None
                return Activity("play", game=self.game, players=self.players, options=self._chosen_options(),
                                new=self.set_aside == self.game)
            option = offered[self.chosen]
            if option.is_switch:
                self.options[option.name] = not self.options.get(option.name, False)
            else:
                now = self.options.get(option.name, option.choices[0])
                self.options[option.name] = option.choices[(option.choices.index(now) + 1) % len(option.choices)]
            return None
        if self.page == "resume":
            saved = self._resumed()
            if self.chosen == 0:                     # go on: its own players and variants
                return Activity("play", game=saved.game, players=saved.players, options=dict(saved.options))
            self.set_aside = saved.game              # a new game: the saved one is set aside at its start
            if self.game == saved.game and self.players:
                return Activity("play", game=self.game, players=self.players, options=self._chosen_options(),
                                new=True)
            self.game, self.options = saved.game, {}
            if not self._player_counts():            # fewer stations than it needs: said, the games to choose from
                self.note = self._too_few_stations()
                self._go("game", self._games().index(saved.game))
                return None
            self._go("players")                      # offered at switch-on: now choose the new game's players
            return None
        if self.page == "howto":
            return Activity("howto", game=self._games()[self.chosen])
        if self.page == "switch_off":
            if self.chosen == 1:
                return Activity("switch_off")
            self._go("main", MAIN_ITEMS.index("menu_switch_off"))
            return None
        if self.page == "deck":
            return Activity("enroll", station=station, game=self._decks()[self.chosen])
        if self.page == "volume":                    # stays on the page: the chime says how loud
            self.volume = VOLUMES[self.chosen]
            return None
        self.lang = LANGUAGES[self.chosen]
        self._go("main", MAIN_ITEMS.index("menu_language"))
        return None


def _shown(value: Any) -> str:
    if value is True:
        return "on"
    if value is False:
        return "off"
    return str(value)
