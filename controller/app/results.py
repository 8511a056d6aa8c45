"""Finished games for people: ``spieltisch results`` (a table; ``--json`` and ``--csv`` for
machines) and the menu's history on the TV. Demo games are kept apart from real ones
(``--demo`` shows those instead); games set aside unfinished are not results.

Each row: when it ended, the game, who played (by team), the scores, who won (ties
included); a cooperative game (Team UP!) has no winner but a score against the best. The
leaderboard is per person across games: games played and won, and each cooperative game's
best score. It counts the games whose people the table recorded (``players``, schema 3):
before that a name was picked from a fixed list by whoever sat down."""

from __future__ import annotations

import csv
import io
import json
import logging
import math
import time
from typing import Any

from controller.games import GAMES
from controller.table.names import readable_name

log = logging.getLogger(__name__)


class BadResult(ValueError):
    """A stored result this version cannot show; the message says what is wrong with it."""


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _row(r: dict[str, Any]) -> dict[str, Any]:
    """One stored result as a row to show; BadResult when it is not one (a damaged or
    hand-edited database, another version's game). Names come out readable."""
    if "unreadable" in r or "result" in r:
        raise BadResult("its result is not a JSON object")
    name = r.get("game")
    if not isinstance(name, str) or name not in GAMES:
        raise BadResult("it is of a game this table does not have")
    scores = r.get("scores")
    if not isinstance(scores, list) or not scores or not all(_number(s) for s in scores):
        raise BadResult("its scores are not a list of numbers")
    teams = r.get("teams")
    if teams is None:
        teams = [[f"seat {i + 1}"] for i in range(len(scores))]
    if not isinstance(teams, list) or len(teams) != len(scores) or \
            not all(isinstance(t, list) and all(isinstance(n, str) for n in t) for t in teams):
        raise BadResult("its teams are not one list of names per score")
    teams = [[readable_name(n) or "?" for n in team] for team in teams]
    winner = r.get("winner")
    winners = winner if isinstance(winner, list) else ([] if winner is None else [winner])
    if not all(isinstance(w, int) and not isinstance(w, bool) for w in winners):
        raise BadResult("its winner is not a seat's team number")
    ended = r.get("finished_at")
    if ended is not None and not _number(ended):
        raise BadResult("its end is not a time")
    try:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(ended)) if ended else ""
    except (OverflowError, OSError, ValueError) as exc:
        raise BadResult("its end is not a time") from exc
    best = GAMES[name].cooperative_best
    return {
        "id": r.get("id"), "ended": ended, "when": when, "game": name, "title": GAMES[name].title,
        "teams": teams, "scores": scores,
        # a cooperative game is scored, not won: its one team "winning" says nothing
        "winners": [] if best is not None else [teams[w] for w in winners if 0 <= w < len(teams)],
        **({"best": best} if best is not None else {}),
    }


def result_rows(store: Any, *, demo: bool = False, game: str | None = None, limit: int = 200) -> list[dict[str, Any]]:
    """The finished games to show, newest first. A result that cannot be shown (issue 42:
    four odd rows hid every game) is left out with a line to the log; every other is shown."""
    rows = []
    for r in store.results(game, limit=limit * 4):
        config = r.get("config", {})
        if r.get("abandoned") or not r.get("finished", True):
            continue
        try:
            if not isinstance(config, dict):
                raise BadResult("its settings are not a JSON object")
            if bool(config.get("demo")) != demo:
                continue
            rows.append(_row(r))
        except BadResult as exc:
            log.warning("game %s is left out of the results: %s", r.get("id"), exc)
            continue
        if len(rows) >= limit:
            break
    people = store.players_of([row["id"] for row in rows]) if hasattr(store, "players_of") else {}
    for row in rows:
        if row["id"] in people:                   # who sat at the table, as people (by seat)
            row["people"] = [name for _, (name, _) in sorted(people[row["id"]].items())]
    return rows


def people_board(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per person, across every game whose people were recorded: the games that are won
    played and won (a tie is won by each team in it), and each cooperative game's best
    score (played together: nobody wins or loses it); by most won, then most played."""
    board: dict[str, dict[str, Any]] = {}
    for row in rows:
        winners = {name for team in row["winners"] for name in team}
        for person in row.get("people", ()):
            entry = board.setdefault(person, {"player": person, "played": 0, "won": 0, "best": {}})
            entry["played"] += "best" not in row
            if "best" in row:
                score = row["scores"][0] if row["scores"] else None
                if score is not None and score > entry["best"].get(row["title"], (score - 1,))[0]:
                    entry["best"][row["title"]] = (score, row["best"])        # (their best, the game's)
            else:
                entry["won"] += person in winners
    return sorted(board.values(), key=lambda e: (-e["won"], -e["played"], e["player"].casefold()))


def score_line(row: dict[str, Any]) -> str:
    """Every score with its team's names: "Anna & Clara 21 : Ben & David 23"; a cooperative
    game's against its best: "Anna & Ben 17 of 25"."""
    if "best" in row:
        return f"{' & '.join(row['teams'][0]) if row['teams'] else ''} {row['scores'][0]} of {row['best']}".strip()
    return " : ".join(f"{' & '.join(team)} {score}" for team, score in zip(row["teams"], row["scores"]))


def _names(teams: list[list[str]]) -> str:
    return " · ".join(" & ".join(team) for team in teams)


def as_table(rows: list[dict[str, Any]]) -> str:
    header = ("ended", "game", "scores", "won")
    lines = [header] + [(r["when"], r["title"], score_line(r),
                         "together" if "best" in r else
                         ("shared win: " if len(r["winners"]) > 1 else "") + (_names(r["winners"]) or "–")) for r in rows]
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(header))]
    return "\n".join("  ".join(str(c).ljust(w) for c, w in zip(line, widths)).rstrip() for line in lines)


def as_csv(rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["ended", "game", "players", "scores", "winners"])
    for r in rows:
        writer.writerow([r["when"], r["game"], _names(r["teams"]), " : ".join(map(str, r["scores"])),
                         _names(r["winners"])])
    return out.getvalue()


def show(store: Any, *, demo: bool, game: str | None, fmt: str) -> str:
    rows = result_rows(store, demo=demo, game=game)
    if fmt == "json":
        return "\n".join(json.dumps(r, ensure_ascii=False) for r in rows)
    if fmt == "csv":
        return as_csv(rows)
    if not rows:
        return "No finished games yet." if not demo else "No finished demo games yet."
    parts = [as_table(rows)]
    board = people_board(rows)
    if board:
        parts += ["", "people (won of played; a game played together: its best score)"]
        for e in board:
            best = "".join(f", {title} best {score} of {of}" for title, (score, of) in sorted(e["best"].items()))
            won = f" {e['won']} of {e['played']}" if e["played"] else ""
            parts.append(f"{e['player']}:{won}{best.lstrip(',') if not won else best}")
    return "\n".join(parts)
