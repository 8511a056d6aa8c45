"""Finished games for people: ``spieltisch results`` (a table; ``--json`` and ``--csv`` for
machines) and the menu's history on the TV. Demo games are kept apart from real ones
(``--demo`` shows those instead); games set aside unfinished are not results.

Each row: when it ended, the game, who played (by team), the scores, who won (ties
included). The leaderboard counts, per game and per player name, games played and won."""

from __future__ import annotations

import csv
import io
import json
import time
from collections import defaultdict
from typing import Any

from controller.games import GAMES


def result_rows(store: Any, *, demo: bool = False, game: str | None = None, limit: int = 200) -> list[dict[str, Any]]:
    rows = []
    for r in store.results(game, limit=limit * 4):
        config = r.get("config") if isinstance(r.get("config"), dict) else {}
        if r.get("abandoned") or bool(config.get("demo")) != demo or not r.get("finished", True):
            continue
        name = r.get("game", "?")
        scores = list(r.get("scores") or [])
        teams = r.get("teams") or [[f"seat {i + 1}"] for i in range(len(scores))]
        winner = r.get("winner")
        winners = winner if isinstance(winner, list) else ([] if winner is None else [winner])
        rows.append({
            "id": r.get("id"), "ended": r.get("finished_at"),
            "when": time.strftime("%Y-%m-%d %H:%M", time.localtime(r["finished_at"])) if r.get("finished_at") else "",
            "game": name, "title": GAMES[name].title if name in GAMES else name,
            "teams": [list(t) for t in teams], "scores": scores,
            "winners": [teams[w] for w in winners if isinstance(w, int) and 0 <= w < len(teams)],
        })
        if len(rows) >= limit:
            break
    return rows


def leaderboard(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Per game title: players by games won, then played (a cooperative game's team wins together)."""
    counts: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for row in rows:
        won = {name for team in row["winners"] for name in team}
        for team in row["teams"]:
            for name in team:
                entry = counts[row["title"]][name]
                entry[0] += 1
                entry[1] += name in won
    return {title: sorted(({"player": p, "played": c[0], "won": c[1]} for p, c in players.items()),
                          key=lambda e: (-e["won"], -e["played"], e["player"]))
            for title, players in sorted(counts.items())}


def _names(teams: list[list[str]]) -> str:
    return " · ".join(" & ".join(team) for team in teams)


def as_table(rows: list[dict[str, Any]]) -> str:
    header = ("ended", "game", "players", "scores", "won")
    lines = [header] + [(r["when"], r["title"], _names(r["teams"]), " : ".join(map(str, r["scores"])),
                         ("a tie: " if len(r["winners"]) > 1 else "") + (_names(r["winners"]) or "–")) for r in rows]
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
    board = leaderboard(rows)
    parts = [as_table(rows), ""]
    for title, players in board.items():
        parts.append(f"{title}: " + ", ".join(f"{e['player']} {e['won']}/{e['played']}" for e in players[:8]))
    return "\n".join(parts)
