"""Every finished game reaches `spieltisch results` and the leaderboard.

The move that ends a game and its result are written in one transaction
(``EventLog.append_final``). A database written before that can hold a game whose log is
complete but which has no result: the process was killed between the two. Opening such a
game records its result: ``Table.resume`` when the game is resumed, and
``record_complete_games`` for every such game before the results are shown or a game is
offered to go on with, so that none waits until its game is chosen again."""

from __future__ import annotations

import logging
from typing import Any, Sequence

from controller.games import GAMES, texts
from controller.table.eventlog import BrokenLog, EventLog, SavedGame, StorageError
from controller.table.table import Table

log = logging.getLogger(__name__)

# The demo's bots, seat by seat: a saved demo's seats are named by them too (seat_names).
NAMES = ["Anna", "Ben", "Clara", "David", "Eva", "Felix", "Greta", "Hugo"]


def seat_names(store: Any, saved: SavedGame, lang: str = "en") -> list[str]:
    """Who sat where in a saved game, as far as the table knows: a demo's bots by the demo's
    names; a person as recorded when the game began, or (a game saved before people were
    recorded) by the name last chosen at their station; the bots at a real table's empty
    seats as bots ("" where nothing is known: "seat N")."""
    if saved.config.get("demo"):
        return NAMES[:len(saved.seats)]
    sat = store.players_of([saved.id]).get(saved.id, {})
    remembered = store.station_names()
    bots = int(saved.config.get("bots", 0))
    people = len(saved.seats) - bots
    return [sat[seat][0] if seat in sat else remembered.get(station or "", "")
            for seat, station in enumerate(saved.seats[:people])] + \
        [texts.text(lang, "bot_name", n=k + 1) for k in range(bots)]


def record_complete_games(store: Any) -> list[int]:
    """Record the result of every unfinished game whose log is complete; returns their ids.
    A log that cannot be replayed is left for `play` to name when that game is started; a
    database that takes no writes now leaves them for the next time it is opened."""
    recorded = []
    for game_id in store.unfinished_ids():
        try:
            saved = store.load(game_id)
            rules = GAMES.get(saved.game)
            if rules is None:
                continue
            table = Table.resume(rules, saved, store, names=seat_names(store, saved))
        except BrokenLog:
            continue
        except StorageError as exc:
            log.warning("finished games could not be recorded now: %s", exc)
            break
        if table.finished:
            recorded.append(game_id)
    return recorded


def finished_games(store: EventLog, game: str, *, demo: bool) -> list[dict[str, Any]]:
    """The finished games' results, newest first: demos or real games, never mixed."""
    return [r for r in store.results(game, limit=500)
            if isinstance(r.get("config"), dict) and bool(r["config"].get("demo")) == demo]


def played_by_others(store: EventLog, game_id: Any, names: Sequence[str]) -> bool:
    """Whether a game that replays an earlier one (Team UP!'s challenge: ``from_game`` in its
    config) is played by other people: nobody named at this table sat at that game. Then the
    pile is prepared for them and lies face down, its order unknown to them. Unknown people
    (no names, a game nobody was recorded for) are taken to be the same team, who stacked
    the pile themselves as the book's challenge has them do."""
    if not isinstance(game_id, int):
        return False
    here = {name.strip().casefold() for name in names if name and name.strip()}
    there = {name.strip().casefold() for name, _ in store.players_of([game_id]).get(game_id, {}).values() if name}
    return bool(here) and bool(there) and not here & there
