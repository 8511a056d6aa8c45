"""The games played, on the TV from the menu: the latest finished games (when, which game,
who played by team, the scores, who won, ties included) and each game's leaderboard."""

from __future__ import annotations

from typing import Any

import pygame

from controller.games import texts
from display import draw
from display.draw import GOLD, INK, MUTED

ROW = 58


class HistoryView:
    def __init__(self, lang: str, *, live: bool = False) -> None:
        self.lang = lang

    def t(self, key: str, **params: Any) -> str:
        return texts.render(self.lang, key, params)

    def draw(self, surface: pygame.Surface, snap: Any) -> None:
        draw.text(surface, self.t("history_title"), (30, 24), 56, GOLD, True)
        draw.text(surface, self.t("history_any_button"), (1890, 34), 32, MUTED, False, "topright")
        games = pygame.Rect(30, 120, 1180, 930)
        draw.panel(surface, games)
        if not snap.rows:
            draw.text(surface, self.t("history_none"), games.center, 40, INK, True, "center")
        for i, row in enumerate(snap.rows[:15]):
            y = games.top + 20 + i * ROW
            winners = " · ".join(" & ".join(team) for team in row["winners"])
            draw.text(surface, f"{row['when'][5:]}  {row['title']}", (games.left + 20, y), 32, GOLD, True,
                      max_width=420)
            draw.text(surface, " : ".join(map(str, row["scores"])), (games.left + 470, y), 32, INK, True,
                      max_width=180)
            key = "history_tie" if len(row["winners"]) > 1 else "history_won"
            words = self.t(key, names=winners) if winners else "–"
            draw.text(surface, words, (games.left + 660, y), 30, INK, False, max_width=games.width - 680)
        board = pygame.Rect(1230, 120, 660, 930)
        draw.panel(surface, board)
        draw.text(surface, self.t("history_leaderboard"), (board.left + 20, board.top + 16), 40, GOLD, True)
        y = board.top + 76
        for title, players in snap.board.items():
            if y > board.bottom - 90:
                break
            draw.text(surface, title, (board.left + 20, y), 34, INK, True)
            y += 42
            for entry in players[:5]:
                draw.text(surface, self.t("history_player", player=entry["player"], n=entry["won"],
                                          played=entry["played"]), (board.left + 40, y), 30, MUTED, max_width=600)
                y += 36
            y += 14


VIEW = HistoryView
