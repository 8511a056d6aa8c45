"""The games played, on the TV from the menu: the finished games, newest first (when, in the
language's way of writing a date; which game; every score with its team's names, the
winners' in gold and named as won, ties as a tie; a game played together as its score
against the best), and the leaderboard per person across games (won of played, and each
cooperative game's best). Both are laid out by measure and turned in pages, so nothing runs
past its panel, however many games and people there are."""

from __future__ import annotations

import time
from typing import Any

import pygame

from controller.games import texts
from display import draw
from display.draw import GOLD, INK, MUTED

GAMES_PANEL = pygame.Rect(30, 120, 1200, 930)
BOARD_PANEL = pygame.Rect(1250, 120, 640, 930)
TITLE_LINE = 46                 # a game's first line: when, which game, who won
SCORE_LINE = 42                 # each line of its scores
GAP = 18
SCORE_SIZE = 32
PERSON_LINE = 44
BEST_LINE = 36


class HistoryView:
    def __init__(self, lang: str, *, live: bool = False) -> None:
        self.lang = lang

    def t(self, key: str, **params: Any) -> str:
        return texts.render(self.lang, key, params)

    # -- laying out -------------------------------------------------------------------------------
    def date(self, ended: float | None) -> str:
        if not ended:
            return ""
        local = time.localtime(ended)
        return texts.date_time(self.lang, local.tm_mday, local.tm_mon, local.tm_hour, local.tm_min)

    def score_parts(self, row: dict[str, Any]) -> list[list[tuple[str, bool]]]:
        """The score line's words, as lines of (words, a winner's) that fit the panel: a team
        and its score stay together; a line breaks between teams."""
        if "best" in row:
            names = " & ".join(row["teams"][0]) if row["teams"] else ""
            return [[(self.t("history_cooperative", names=names, score=row["scores"][0], best=row["best"]), False)]]
        winners = [list(team) for team in row["winners"]]
        parts = [(f"{' & '.join(team)} {texts.number(score)}", list(team) in winners) for team, score in zip(row["teams"],
                                                                                             row["scores"])]
        width = GAMES_PANEL.width - 60
        f = draw.font(SCORE_SIZE, True)
        lines: list[list[tuple[str, bool]]] = [[]]
        used = 0
        for words, won in parts:
            between = " : " if lines[-1] else ""
            if lines[-1] and used + f.size(between + words)[0] > width:
                lines.append([])
                between, used = "", 0
            if between:                              # the separator is nobody's: plain
                lines[-1].append((between, False))
                used += f.size(between)[0]
            lines[-1].append((words, won))
            used += f.size(words)[0]
        return lines

    def game_pages(self, rows: list[dict[str, Any]]) -> list[list[tuple[dict[str, Any], list]]]:
        pages: list[list[tuple[dict[str, Any], list]]] = [[]]
        used = 0
        for row in rows:
            lines = self.score_parts(row)
            height = TITLE_LINE + SCORE_LINE * len(lines) + GAP
            if pages[-1] and used + height > GAMES_PANEL.height - 30:
                pages.append([])
                used = 0
            pages[-1].append((row, lines))
            used += height
        return pages

    @staticmethod
    def board_pages(board: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
        pages: list[list[dict[str, Any]]] = [[]]
        used = 0
        room = BOARD_PANEL.height - 100
        for entry in board:
            height = PERSON_LINE + BEST_LINE * len(entry["best"]) + 10
            if pages[-1] and used + height > room:
                pages.append([])
                used = 0
            pages[-1].append(entry)
            used += height
        return pages

    # -- drawing -----------------------------------------------------------------------------------
    def draw(self, surface: pygame.Surface, snap: Any) -> None:
        games = self.game_pages(snap.rows)
        people = self.board_pages(list(snap.board))
        count = max(len(games), len(people))
        page = getattr(snap, "page", 0) % count
        draw.text(surface, self.t("history_title"), (30, 24), 56, GOLD, True)
        help_key = "history_pages" if count > 1 else "history_any_button"
        draw.text(surface, self.t(help_key, page=page + 1, pages=count), (1890, 34), 30, MUTED, False, "topright",
                  1100)
        draw.panel(surface, GAMES_PANEL)
        if not snap.rows:
            draw.text(surface, self.t("history_none"), GAMES_PANEL.center, 40, INK, True, "center")
        y = GAMES_PANEL.top + 16
        for row, lines in games[page] if page < len(games) else []:
            self._game(surface, row, lines, y)
            y += TITLE_LINE + SCORE_LINE * len(lines) + GAP
        self._board(surface, people[page] if page < len(people) else [], bool(snap.rows) and not snap.board)

    def _game(self, surface: pygame.Surface, row: dict[str, Any], lines: list, y: int) -> None:
        left = GAMES_PANEL.left + 24
        head = f"{self.date(row.get('ended'))}  {row['title']}".strip()
        draw.text(surface, head, (left, y), 32, GOLD, True, max_width=560)
        winners = " · ".join(" & ".join(team) for team in row["winners"])
        if "best" in row:
            outcome = self.t("history_together")
        elif winners:
            outcome = self.t("history_tie" if len(row["winners"]) > 1 else "history_won", names=winners)
        else:
            outcome = "–"
        draw.text(surface, outcome, (GAMES_PANEL.right - 24, y + 2), 30, INK, False, "topright", 580)
        y += TITLE_LINE
        for line in lines:
            x = left + 20
            for words, won in line:                  # the winners' in gold and bold, the others plain
                image = draw.rendered(words, SCORE_SIZE, won, GOLD if won else INK)
                surface.blit(image, (x, y))
                x += image.get_width()
            y += SCORE_LINE

    def _board(self, surface: pygame.Surface, entries: list[dict[str, Any]], nobody_yet: bool) -> None:
        panel = BOARD_PANEL
        draw.panel(surface, panel)
        draw.text(surface, self.t("history_leaderboard"), (panel.left + 20, panel.top + 16), 40, GOLD, True)
        y = panel.top + 80
        if nobody_yet:                                # games from before people were recorded
            draw.wrapped(surface, self.t("history_no_people"), pygame.Rect(panel.left + 20, y, panel.width - 40, 300),
                         30, MUTED)
        for entry in entries:                         # played together only: the name, then the bests
            words = self.t("history_player", player=entry["player"], n=entry["won"], played=entry["played"]) \
                if entry["played"] else entry["player"]
            draw.text(surface, words, (panel.left + 20, y), 32, INK, True, max_width=panel.width - 40)
            y += PERSON_LINE
            for title, (score, best) in sorted(entry["best"].items()):
                draw.text(surface, self.t("history_best", game=title, score=score, best=best),
                          (panel.left + 44, y), 28, MUTED, max_width=panel.width - 64)
                y += BEST_LINE
            y += 10


VIEW = HistoryView
