"""Partout on the shared screen: seats around the table with bids, tricks and soft keys;
the trumps; the trick as cards (locked ones barred, the winning one in gold); the score
table by round; the table's prompt and the last refusal."""

from __future__ import annotations

from typing import Any

import pygame

from controller.games import texts
from controller.games.partout import ALL_CARDS, trick_winner
from display import draw
from display.draw import GOLD, INK, MUTED, RED, TEAM

SUIT = {"red": (200, 40, 40), "green": (30, 130, 60), "blue": (30, 90, 190), "black": (30, 30, 30)}
SPECIAL_FACE = (58, 36, 88)
SPECIAL_MARK = {"king": "K", "queen": "Q", "jester": "J", "dungeon": "D", "mathematician": "M", "alchemist": "A"}

TABLE_AREA = pygame.Rect(0, 100, 1460, 980)
SIDE = pygame.Rect(1470, 100, 440, 970)
SEAT_SIZE = (330, 210)
CARD_SIZE = (128, 184)


def seat_rects(players: int) -> list[pygame.Rect]:
    """Seats clockwise around the table, seat 1 at the bottom centre."""
    return draw.seat_ring(players, TABLE_AREA, SEAT_SIZE, (10, 10))


class PartoutView:
    def __init__(self, lang: str, *, live: bool = False) -> None:
        self.lang = lang

    def t(self, key: str, **params: Any) -> str:
        return texts.render(self.lang, key, params, self.names)

    def cues(self, before: dict[str, Any], after: dict[str, Any]) -> list[str]:
        """A trick won: one more trick taken this round, or the round's last one (a new row)."""
        won = sum(after["tricks_won"]) > sum(before["tricks_won"]) or len(after["history"]) > len(before["history"])
        return ["point"] if won else []

    def draw(self, surface: pygame.Surface, snap: Any) -> None:
        view = snap.view
        self.names = [s.name for s in snap.seats]
        self._header(surface, snap, view)
        for seat, rect in zip(snap.seats, seat_rects(view["players"])):
            self._seat(surface, snap, view, seat, rect)
        self._trick(surface, view)
        self._centre_prompt(surface, snap, view)
        self._scores(surface, view)
        self._message(surface, snap)
        if snap.finished:
            self._winner(surface, view)
        draw.pause_banner(surface, self.lang, snap, self.names)

    # -- parts ---------------------------------------------------------------------------------------
    def _header(self, surface, snap, view) -> None:
        draw.text(surface, snap.title, (30, 24), 64, GOLD, True)
        draw.text(surface, self.t("round_of", n=min(view["round"] + 1, view["rounds"]), total=view["rounds"]),
                  (300, 38), 40, INK)
        x = 700
        draw.text(surface, self.t("trump"), (x, 38), 40, MUTED)
        x += 130
        number = view["trump_number"]
        badge = pygame.Rect(x, 18, 84, 70)
        draw.panel(surface, badge, GOLD if number is not None else None, 3, (250, 248, 240))
        draw.text(surface, "–" if number is None else str(number), badge.center, 62, (20, 20, 20), True, "center")
        colour = view["trump_colour"]
        badge2 = pygame.Rect(x + 100, 18, 190, 70)
        fill = SUIT.get(colour, (60, 60, 60))
        draw.panel(surface, badge2, GOLD if colour else None, 3, fill)
        draw.text(surface, texts.colour_name(self.lang, colour) if colour else "–", badge2.center, 44,
                  INK, True, "center")
        dealer = view["dealer"]
        draw.text(surface, self.t("dealer_is", player=dealer), (x + 320, 38), 36, MUTED)

    def _seat(self, surface, snap, view, seat, rect) -> None:
        i = seat.seat
        team = view["team_of"][i]
        acting = view["to_act"] == i
        refused = seat.refused_at is not None and snap.message is not None and \
            snap.message.refusal and snap.message.seat == i and snap.message.revision == seat.refused_at
        border = RED if refused else (GOLD if acting else None)
        draw.panel(surface, rect, border, 5 if border else 3)
        pygame.draw.rect(surface, TEAM[team % len(TEAM)], (rect.left + 10, rect.top + 12, 10, 40), border_radius=4)
        name = texts.seat_label(self.lang, i, self.names)
        draw.text(surface, name, (rect.left + 30, rect.top + 10), 40, INK, True, max_width=200)
        if view["dealer"] == i:
            draw.text(surface, self.t("dealer_badge"), (rect.right - 12, rect.top + 14), 28, GOLD, True, "topright")
        if not seat.connected and seat.station:
            draw.text(surface, self.t("station_offline"), (rect.right - 12, rect.top + 44), 26, RED, True, "topright")
        bid = view["bids"][i]
        line = self.t("bid_tricks", bid="–" if bid is None else bid, tricks=view["tricks_won"][i],
                      cards=view["cards_left"][i])
        draw.text(surface, line, (rect.left + 30, rect.top + 56), 30, MUTED, max_width=rect.width - 40)
        if seat.prompt is not None:
            key, params = seat.prompt
            draw.text(surface, texts.render(self.lang, key, params, self.names), (rect.left + 14, rect.top + 90),
                      32, GOLD, True, max_width=rect.width - 24)
        draw.soft_keys(surface, self.lang, seat.soft_keys, (rect.left + 14, rect.bottom - 84))

    def _trick(self, surface, view) -> None:
        plays = view["trick"]
        shown, winner_seat, title = plays, None, None
        leading = leading_play(view)
        if not plays and view["last_trick"] and view["phase"] == "playing":
            shown = view["last_trick"]["plays"]
            winner_seat = view["last_trick"]["winner"]
            title = self.t("last_trick_won", winner=winner_seat)
        if not shown:
            return
        w, h = CARD_SIZE
        gap = 18 if len(shown) <= 6 else 8
        total = len(shown) * w + (len(shown) - 1) * gap
        x = TABLE_AREA.centerx - total // 2
        y = TABLE_AREA.centery - h // 2 - 10
        for i, play in enumerate(shown):
            rect = pygame.Rect(x + i * (w + gap), y, w, h)
            is_leading = (i == leading) if plays else (play["player"] == winner_seat)
            draw_card(surface, self.lang, play["card"], rect, choice=self._choice_label(play, shown),
                      locked=play.get("locked", False), leading=is_leading)
            draw.text(surface, texts.seat_label(self.lang, play["player"], self.names),
                      (rect.centerx, rect.bottom + 8), 28, MUTED, False, "midtop", w + gap)
        if title:
            draw.text(surface, title, (TABLE_AREA.centerx, y - 44), 32, MUTED, False, "midtop")

    def _choice_label(self, play: dict[str, Any], plays: list[dict[str, Any]]) -> str | None:
        """What a special card chose, in words: the Dungeon names whose card it locked."""
        choice = play.get("choice")
        if choice is None:
            return None
        if play["card"] == "dungeon":
            return texts.seat_label(self.lang, plays[choice]["player"], self.names)
        if play["card"] == "alchemist":
            return texts.colour_name(self.lang, choice)
        return str(choice)

    def _centre_prompt(self, surface, snap, view) -> None:
        if snap.finished:
            return
        to_act = view["to_act"]
        key = {"trump_number": "names_trump_number", "trump_colour": "names_trump_colour",
               "bidding": "bids_now", "playing": "plays_now"}.get(view["phase"])
        if key is None or to_act is None:
            return
        y = TABLE_AREA.centery + CARD_SIZE[1] // 2 + 60
        draw.text(surface, self.t(key, player=to_act), (TABLE_AREA.centerx, y), 40, INK, True, "midtop")
        # the teams' bids and tricks this round are in the score table's "now" row (readable
        # at every player count; one line here ran to 18 px with three teams)

    def _team_name(self, view, team: int) -> str:
        return " & ".join(texts.seat_label(self.lang, p, self.names) for p in view["teams"][team])

    def _scores(self, surface, view) -> None:
        teams = view["teams"]
        box = pygame.Rect(SIDE.left, SIDE.top, SIDE.width, 620)
        draw.panel(surface, box)
        draw.text(surface, self.t("score_table"), (box.left + 20, box.top + 14), 40, GOLD, True)
        col_w = (box.width - 90) // len(teams)
        for t, team in enumerate(teams):
            x = box.left + 80 + t * col_w
            pygame.draw.rect(surface, TEAM[t % len(TEAM)], (x, box.top + 64, col_w - 10, 6))
            for k, p in enumerate(team):                 # one name a line: readable with three teams too
                draw.text(surface, texts.seat_label(self.lang, p, self.names), (x, box.top + 74 + 30 * k), 28,
                          INK, True, max_width=col_w - 12)
        y = box.top + 74 + 30 * max(len(team) for team in teams) + 8
        draw.text(surface, self.t("score_header"), (box.left + 20, y), 28, MUTED, max_width=box.width - 40)
        y += 36
        for r, row in enumerate(view["history"]):
            draw.text(surface, str(r + 1), (box.left + 24, y), 28, MUTED)
            for t in range(len(teams)):
                x = box.left + 80 + t * col_w
                cell = f"{row['bids'][t]}/{row['tricks'][t]}"
                draw.text(surface, cell, (x, y), 28, MUTED)
                points = row["points"][t]
                draw.text(surface, f"{points:+d}", (x + col_w - 20, y), 28, INK if points >= 0 else RED,
                          True, "topright")
            y += 32
        if view["phase"] == "playing" and view["team_bids"][0] is not None:     # this round so far
            draw.text(surface, self.t("score_now"), (box.left + 20, y), 28, GOLD, True, max_width=58)
            for t, (b, k) in enumerate(zip(view["team_bids"], view["team_tricks"])):
                draw.text(surface, f"{b}/{k}", (box.left + 80 + t * col_w, y), 28, GOLD, True)
        pygame.draw.line(surface, MUTED, (box.left + 20, box.bottom - 60), (box.right - 20, box.bottom - 60), 2)
        draw.text(surface, self.t("total"), (box.left + 20, box.bottom - 48), 32, INK, True)
        for t, total in enumerate(view["scores"]):
            x = box.left + 80 + t * col_w
            draw.text(surface, str(total), (x + col_w - 20, box.bottom - 50), 40, GOLD, True, "topright")

    def _message(self, surface, snap) -> None:
        box = pygame.Rect(SIDE.left, SIDE.top + 640, SIDE.width, 330)
        draw.message_box(surface, self.lang, snap, self.names, box, "help_line", 32)

    def _winner(self, surface, view) -> None:
        banner = pygame.Rect(0, 0, 1100, 200)
        banner.center = (TABLE_AREA.centerx, TABLE_AREA.centery)
        draw.panel(surface, banner, GOLD, 6)
        names = [self._team_name(view, t) for t in view["winners"]]
        if len(names) > 1:                             # a tie: said as one, not as "A · B win!"
            words = self.t("winners_tie", names=self.t("names_and").join(names), n=view["scores"][view["winners"][0]])
        else:
            words = self.t("winner_banner", names=names[0])
        draw.text(surface, words, (banner.centerx, banner.top + 40), 56, GOLD, True, "midtop", banner.width - 40)
        scores = " : ".join(str(s) for s in view["scores"])
        draw.text(surface, scores, (banner.centerx, banner.top + 118), 52, INK, True, "midtop")


def leading_play(view: dict[str, Any]) -> int | None:
    """The play now winning the trick, recomputed by the rules' own public function."""
    plays = [p["card"] if p["choice"] is None else f"{p['card']}:{p['choice']}" for p in view["trick"]]
    if not plays:
        return None
    return trick_winner(plays, view["trump_number"], view["trump_colour"])


def draw_card(surface: pygame.Surface, lang: str, name: str, rect: pygame.Rect, *, choice: str | None = None,
              locked: bool = False, leading: bool = False) -> None:
    """A card face: crest cards by colour and number, specials by their printed name."""
    c = ALL_CARDS.get(name)
    special = c is None or c.colour is None
    if leading:
        pygame.draw.rect(surface, GOLD, rect.inflate(14, 14), border_radius=16)
    pygame.draw.rect(surface, SPECIAL_FACE if special else draw.CARD_FACE, rect, border_radius=12)
    pygame.draw.rect(surface, (20, 20, 20), rect, 2, border_radius=12)
    if special:
        draw.text(surface, SPECIAL_MARK.get(name, "?"), rect.center, int(rect.height * 0.45), GOLD, True, "center")
        draw.text(surface, texts.card_name(lang, name), (rect.centerx, rect.bottom - 12), 28, INK, True,
                  "midbottom", rect.width - 8)
        if choice is not None:
            draw.text(surface, f"» {choice}", (rect.centerx, rect.top + 10), 28, INK, True, "midtop", rect.width - 8)
    else:
        ink = SUIT[c.colour]
        draw.text(surface, str(c.value), rect.center, int(rect.height * 0.5), ink, True, "center")
        draw.text(surface, str(c.value), (rect.left + 10, rect.top + 6), 30, ink, True)
        draw.text(surface, texts.colour_name(lang, c.colour), (rect.centerx, rect.bottom - 10), 28, ink,
                  True, "midbottom", rect.width - 8)
    if locked:
        shade = pygame.Surface(rect.size, pygame.SRCALPHA)
        shade.fill((0, 0, 0, 150))
        surface.blit(shade, rect)
        for x in range(rect.left + 18, rect.right - 8, 22):
            pygame.draw.line(surface, (150, 150, 150), (x, rect.top + 4), (x, rect.bottom - 4), 4)


def card_face(surface: pygame.Surface, lang: str, card: str, rect: pygame.Rect) -> None:
    """One card of the deck, large, by its name in the rules' notation (enrollment shows it)."""
    draw_card(surface, lang, card, rect)


VIEW = PartoutView
