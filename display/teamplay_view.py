"""Teamplay on the shared screen: the general mission, the bank and the piles at the top;
every player with their missions drawn as cards (points, and the printed cards' icons:
boxes with equal letters for equal values, consecutive letters for a run, the values
themselves, a wavy line for odd and a straight one for even, Σ for a sum, the colour
named), hand size and soft keys; the teams' points and missions toward the end; whose turn
it is and what they do next; the final-round banner; the winners.

The icons are drawn from the same mission data the rules read (``Mission``), so a mission
corrected in ``controller/games/data/teamplay.json`` is drawn as it is checked. Colours are
never the only difference: a coloured mission names its colour, teams carry their names."""

from __future__ import annotations

import math
from typing import Any

import pygame

from controller.games import texts
from controller.games.teamplay import Card, Mission, mission_type
from display import draw
from display.draw import GOLD, INK, MUTED, RED

MAIN = pygame.Rect(0, 100, 1460, 980)
SIDE = pygame.Rect(1470, 100, 440, 970)
MISSION_SIZE = (214, 104)
NUMBER_SIZE = (96, 136)
KEY_SIZE = (148, 44)
SEATS_TOP = 440
INK_OF = {"red": (190, 30, 30), "blue": (25, 75, 180)}
SHAPE = {"red": "square", "blue": "circle"}       # the colour told by shape too (colour-blind players)
ANY_INK = (40, 40, 40)
CARD = (250, 248, 240)
ODD = (1, 3, 5, 7)
EVEN = (2, 4, 6, 8)


def seat_rects(players: int) -> list[pygame.Rect]:
    rows = 1 if players <= 3 else 2
    cols = math.ceil(players / rows)
    area = pygame.Rect(MAIN.left + 10, SEATS_TOP, MAIN.width - 20, MAIN.bottom - 10 - SEATS_TOP)
    gap = 14
    w = (area.width - (cols - 1) * gap) // cols
    h = min(330, (area.height - (rows - 1) * gap) // rows)
    return [pygame.Rect(area.left + (i % cols) * (w + gap), area.top + (i // cols) * (h + gap), w, h)
            for i in range(players)]


GENERAL_RECT = pygame.Rect(30, 150, *MISSION_SIZE)
BANK_LEFT = 330


def bank_rects() -> list[pygame.Rect]:
    return [pygame.Rect(BANK_LEFT + k * (NUMBER_SIZE[0] + 14), 150, *NUMBER_SIZE) for k in range(3)]


HEADER = pygame.Rect(0, 0, 1920, 100)
MIDDLE = pygame.Rect(MAIN.left, MAIN.top, MAIN.width, SEATS_TOP - MAIN.top - 4)
MESSAGE = pygame.Rect(SIDE.left, SIDE.bottom - 330, SIDE.width, 330)


def teams_rect(teams: int) -> pygame.Rect:
    return pygame.Rect(SIDE.left, SIDE.top, SIDE.width, 70 + 92 * teams)


class TeamplayView:
    def __init__(self, lang: str, *, live: bool = False) -> None:
        self.lang = lang
        self.names: list[str] = []
        self.regions = draw.Regions()         # the screen is repainted only where it changed
        self.overlaid = False

    def t(self, key: str, **params: Any) -> str:
        return texts.render(self.lang, key, params, self.names)

    def cues(self, before: dict[str, Any], after: dict[str, Any]) -> list[str]:
        """A mission fulfilled."""
        return ["point"] if sum(map(len, after["fulfilled"])) > sum(map(len, before["fulfilled"])) else []

    def draw(self, surface: pygame.Surface, snap: Any) -> None:
        """Regions (``draw.Regions``), each with the key of what it shows."""
        view = snap.view
        self.names = [s.name for s in snap.seats]
        acting = view["to_act"]
        chosen = None
        if acting is not None and acting < len(snap.seats) and snap.seats[acting].pending:
            chosen = snap.seats[acting].pending.get("mission")
        names = (self.lang, tuple(self.names))
        paint = self.regions.paint
        header = (snap.title, snap.finished, view["dealer"], view["final_turns"], view["end_at"])
        paint(surface, "header", HEADER, names + header, lambda: self._header(surface, snap, view), draw.FELT_DARK)
        on_turn = snap.seats[acting] if acting is not None and acting < len(snap.seats) else None
        paint(surface, "middle", MIDDLE, names + (snap.finished, repr(view), repr(on_turn)),
              lambda: self._middle(surface, snap, view, chosen))
        for seat, rect in zip(snap.seats, seat_rects(view["players"])):
            i = seat.seat
            key = names + (repr(seat), acting == i and not snap.finished, view["team_of"][i], repr(view["fulfilled"][i]),
                           view["hand_sizes"][i], view["dealer"] == i, repr(view["missions"][i]), chosen)
            self.regions.paint_kept(surface, f"seat{i}", rect, key,
                                    lambda image, at, seat=seat: self._seat(image, snap, view, seat, at, chosen))
        paint(surface, "teams", teams_rect(len(view["teams"])),
              names + (repr([view["teams"], view["team_points"], view["team_missions"], view["end_at"]]),),
              lambda: self._teams(surface, view))
        paint(surface, "message", MESSAGE, names + (draw.message_key(snap),),
              lambda: self._message(surface, snap))
        self.overlaid = draw.pause_banner(surface, self.lang, snap, self.names)

    def _middle(self, surface, snap, view, chosen) -> None:
        self._table_middle(surface, view, chosen)
        self._status(surface, snap, view)
        if snap.finished:
            self._winners(surface, view)

    # -- parts -----------------------------------------------------------------------------------------
    def _team_name(self, view, team: int) -> str:
        return " & ".join(texts.seat_label(self.lang, p, self.names) for p in view["teams"][team])

    def _header(self, surface, snap, view) -> None:
        draw.text(surface, snap.title, (30, 24), 64, GOLD, True)
        draw.text(surface, self.t("dealer_is", player=view["dealer"]), (1900, 38), 36, MUTED, anchor="topright")
        if view["final_turns"] is not None and not snap.finished:
            draw.text(surface, self.t("teamplay_final_round", n=view["final_turns"] + 1), (420, 36), 40, RED, True)
        else:
            draw.text(surface, self.t("teamplay_first_to", n=view["end_at"]), (420, 36), 40, INK)

    def _table_middle(self, surface, view, chosen) -> None:
        draw.text(surface, self.t("teamplay_general"), (GENERAL_RECT.left, GENERAL_RECT.top - 40), 30, MUTED)
        if view["general"]:
            draw_mission(surface, self.lang, view["general"], GENERAL_RECT, chosen=view["general"] == chosen)
        draw.text(surface, self.t("teamplay_bank"), (BANK_LEFT, 110), 30, MUTED)
        for rect, card in zip(bank_rects(), view["bank"] + [None] * 3):
            if card is None:
                draw.rounded(surface, (40, 100, 66), rect, 3, 10)
            else:
                draw_number(surface, self.lang, card, rect)
        x = BANK_LEFT + 3 * (NUMBER_SIZE[0] + 14) + 30
        draw.text(surface, self.t("teamplay_pile", n=view["deck_left"]), (x, 160), 32, INK)
        draw.text(surface, self.t("teamplay_discards", n=view["discard_count"]), (x, 200), 32, MUTED)
        draw.text(surface, self.t("teamplay_missions_left", n=view["mission_pile"]), (x, 240), 32, MUTED)

    def _status(self, surface, snap, view) -> None:
        if snap.finished or view["to_act"] is None:
            return
        acting = view["to_act"]
        key = {"choose_missions": "teamplay_choosing", "lay_bank": "teamplay_laying_bank",
               "refill": "teamplay_refilling"}.get(view["phase"], "teamplay_on_turn")
        draw.text(surface, self.t(key, player=acting), (MAIN.centerx, 312), 42, GOLD, True, "midtop", MAIN.width - 40)
        seat = snap.seats[acting] if acting < len(snap.seats) else None
        if seat is not None and seat.prompt is not None:
            words = texts.render(self.lang, seat.prompt[0], seat.prompt[1], self.names)
            draw.text(surface, words, (MAIN.centerx, 364), 32, INK, False, "midtop", MAIN.width - 40)
        if seat is not None and seat.pending and seat.pending.get("cards"):
            shown = " ".join(texts.card_name(self.lang, Card.parse(c).notation()) for c in seat.pending["cards"])
            draw.text(surface, shown, (MAIN.centerx, 400), 30, GOLD, True, "midtop", MAIN.width - 40)

    def _seat(self, surface, snap, view, seat, rect, chosen) -> None:
        i = seat.seat
        acting = view["to_act"] == i and not snap.finished
        refused = seat.refusal is not None               # while it stands (Table._moved_on)
        draw.seat_frame(surface, rect, turn=acting, refused=refused, width=6)
        team = view["team_of"][i]
        draw.team_mark(surface, team, (rect.left + 18, rect.top + 30), 10)
        shown = draw.text(surface, texts.seat_label(self.lang, i, self.names), (rect.left + 32, rect.top + 10), 38,
                          INK, True, max_width=rect.width - 220)
        draw.seat_colour(surface, seat.colour, shown)
        done = len(view["fulfilled"][i])
        draw.text(surface, self.t("teamplay_done", n=done), (rect.right - 14, rect.top + 14), 30, GOLD, True,
                  "topright")
        facts = [self.t("teamplay_cards", n=view["hand_sizes"][i])]
        if acting:
            facts.append(self.t("teamplay_on_turn_badge"))
        if view["dealer"] == i:
            facts.append(self.t("dealer_badge"))
        if not seat.connected and seat.station:
            facts.append(self.t("station_offline"))
        draw.text(surface, " · ".join(facts), (rect.left + 30, rect.top + 54), 30, GOLD if acting else MUTED, acting,
                  max_width=rect.width - 44)
        w, h = MISSION_SIZE
        for k, card in enumerate(view["missions"][i]):
            box = pygame.Rect(rect.left + 14 + k * (w + 10), rect.top + 90, w, h)
            if box.right <= rect.right - 8:
                draw_mission(surface, self.lang, card, box, chosen=card == chosen)
        keys_top = rect.bottom - 2 * KEY_SIZE[1] - 6 - 8
        if any(seat.soft_keys):
            # at the right, clear of the panel's edge (draw.SEAT_MARGIN), centred where that is all the room
            keys_left = max(rect.left + (rect.width - 3 * KEY_SIZE[0] - 12) // 2,
                            rect.right - 3 * KEY_SIZE[0] - 12 - 12)
            draw.soft_keys(surface, self.lang, seat.soft_keys, (keys_left, keys_top), KEY_SIZE, bold=False)

    def _teams(self, surface, view) -> None:
        teams = view["teams"]
        box = teams_rect(len(teams))
        draw.panel(surface, box)
        draw.text(surface, self.t("teamplay_points"), (box.left + 20, box.top + 12), 40, GOLD, True)
        for t in range(len(teams)):
            y = box.top + 66 + 92 * t
            draw.team_mark(surface, t, (box.left + 20, y + 18), 11)
            draw.text(surface, self._team_name(view, t), (box.left + 34, y), 30, INK, True, max_width=box.width - 130)
            draw.text(surface, texts.number(view["team_points"][t]), (box.right - 16, y - 4), 44, GOLD, True, "topright")
            bar = pygame.Rect(box.left + 34, y + 44, box.width - 150, 24)
            draw.rounded(surface, (40, 80, 56), bar, 0, 6)
            filled = bar.copy()
            filled.width = round(bar.width * min(1.0, view["team_missions"][t] / view["end_at"]))
            draw.rounded(surface, GOLD, filled, 0, 6)
            draw.text(surface, f"{view['team_missions'][t]}/{view['end_at']}", (box.right - 16, y + 40), 30, INK,
                      False, "topright")

    def _message(self, surface, snap) -> None:
        # with 3 and 5 players everyone plays alone: no partner to help
        alone = all(len(team) == 1 for team in snap.view["teams"])
        draw.message_box(surface, self.lang, snap, self.names, MESSAGE,
                         "teamplay_help_line_alone" if alone else "teamplay_help_line", 30)

    def _winners(self, surface, view) -> None:
        banner = pygame.Rect(0, 0, 1200, 140)             # between the bank and the seats
        banner.midtop = (MAIN.centerx, bank_rects()[0].bottom + 8)
        draw.panel(surface, banner, GOLD, 6)
        winners = view["winners"]
        names = [self._team_name(view, t) for t in winners]
        key = "teamplay_winner" if len(names) == 1 else "teamplay_winners_tie"
        draw.text(surface, self.t(key, names=self.t("teamplay_and").join(names), n=view["team_points"][winners[0]]),
                  (banner.centerx, banner.top + 16), 50, GOLD, True, "midtop", banner.width - 40)
        scores = " : ".join(texts.number(s) for s in view["team_points"])
        draw.text(surface, scores, (banner.centerx, banner.top + 80), 44, INK, True, "midtop")


def draw_number(surface: pygame.Surface, lang: str, card: str, rect: pygame.Rect) -> None:
    draw.face(surface, rect, ("teamplay-number", lang, card, rect.size),
              lambda image, at: _paint_number(image, lang, card, at))


def _paint_number(surface: pygame.Surface, lang: str, card: str, rect: pygame.Rect) -> None:
    c = Card.parse(card)
    ink = INK_OF[c.colour]
    draw.rounded(surface, CARD, rect, 0, 10)
    draw.rounded(surface, ink, rect, 4, 10)
    draw.shape(surface, SHAPE[c.colour], (rect.left + 18, rect.top + 18), 9, ink)
    draw.shape(surface, SHAPE[c.colour], (rect.right - 18, rect.top + 18), 9, ink)
    draw.text(surface, str(c.value), (rect.centerx, rect.centery - 6), 60, ink, True, "center")
    draw.text(surface, texts.colour_name(lang, c.colour), (rect.centerx, rect.bottom - 8), 28, ink, True, "midbottom",
              rect.width - 8)


def icon_boxes(m: Mission) -> list[str]:
    """The labels of the mission's boxes, as the printed card shows them."""
    if m.cards is None:
        return [f"Σ{m.sum}"]
    if m.exact_values is not None:
        return [str(v) for v in m.exact_values]
    if m.run:
        return [chr(ord("A") + k) for k in range(m.cards)]
    if m.groups is not None:
        return [chr(ord("A") + g) for g, size in enumerate(m.groups) for _ in range(size)]
    if m.sum_of_two:
        return ["a", "b", "a+b"]
    if m.values is not None and m.values not in (frozenset(ODD), frozenset(EVEN)):
        low, high = min(m.values), max(m.values)
        return [f"{low}-{high}"] * m.cards
    return ["?"] * m.cards


def draw_mission(surface: pygame.Surface, lang: str, card: str, rect: pygame.Rect, *, chosen: bool = False) -> None:
    """A mission card: its points, what colour it asks for (in words), and its icons."""
    if chosen:
        draw.rounded(surface, GOLD, rect.inflate(12, 12), 0, 14)
    draw.face(surface, rect, ("teamplay-mission", lang, card, rect.size),
              lambda image, at: _paint_mission(image, lang, card, at))


def _paint_mission(surface: pygame.Surface, lang: str, card: str, rect: pygame.Rect) -> None:
    m = mission_type(card)
    draw.rounded(surface, CARD, rect, 0, 10)
    draw.rounded(surface, (30, 30, 30), rect, 2, 10)
    badge = (rect.left + 22, rect.top + 20)                       # the points, in a gold disc
    pygame.draw.circle(surface, GOLD, badge, 17)
    pygame.draw.circle(surface, (120, 80, 0), badge, 17, 2)
    draw.text(surface, str(m.points), badge, 30, (40, 30, 0), True, "center")
    ink = INK_OF.get(m.colour or "", ANY_INK)
    tag = {"red": texts.colour_name(lang, "red"), "blue": texts.colour_name(lang, "blue"),
           "same": texts.render(lang, "teamplay_one_colour")}.get(m.colour or "")
    if m.parity == "same":
        tag = texts.render(lang, "teamplay_same_parity")
    elif m.sum is not None and m.cards is not None:
        tag = f"{tag + ' ' if tag else ''}Σ{m.sum}"
    if tag:
        draw.text(surface, tag, (rect.right - 8, rect.top + 6), 28, ink, True, "topright", rect.width - 70)
    labels = icon_boxes(m)
    size = 30 if len(labels) <= 6 else 24
    widths = [max(size, draw.font(28, True).size(label)[0] + 8) for label in labels]
    total = sum(widths) + 3 * (len(labels) - 1)
    x = rect.centerx - total // 2
    y = rect.top + 42
    for label, w in zip(labels, widths):
        box = pygame.Rect(x, y, w, 36)
        draw.rounded(surface, ink if m.colour in INK_OF else (255, 255, 255), box, 0, 5)
        draw.rounded(surface, ink, box, 2, 5)
        draw.text(surface, label, box.center, 28, (255, 255, 255) if m.colour in INK_OF else ink, True, "center")
        x += w + 3
    line_y = y + 46
    left, right = rect.centerx - total // 2, rect.centerx + total // 2
    values = m.values or frozenset()
    if values == frozenset(ODD) or m.parity == "same":                     # the crooked line: odd
        points = [(px, line_y + (5 if ((px - left) // 8) % 2 else -5)) for px in range(left, right, 8)]
        if len(points) > 1:
            pygame.draw.lines(surface, ink, False, points, 3)
    if values == frozenset(EVEN) or m.parity == "same":                    # the straight line: even
        pygame.draw.line(surface, ink, (left, line_y + 10), (right, line_y + 10), 3)


def card_face(surface: pygame.Surface, lang: str, card: str, rect: pygame.Rect) -> None:
    """One card of the deck, large, by its name in the rules' notation (enrollment shows it)."""
    draw_number(surface, lang, card, rect)


# -- how to play: the pictures beside the pages (controller/games/data/how_to_play.json) ---------------

def how_to_picture(surface: pygame.Surface, lang: str, picture: dict[str, Any], rect: pygame.Rect) -> None:
    """A page's picture: ``mission`` (a mission card, its name, and number cards that fulfil
    it), ``missions`` (mission cards, each with its name beside it) or ``table`` (the general
    mission and the bank, as the table's middle shows them)."""
    kind = picture["kind"]
    if kind == "mission":
        box = _big(MISSION_SIZE)
        box.midtop = (rect.centerx, rect.top + 30)
        _mission_large(surface, lang, picture["mission"], box)
        name = texts.table(lang)["_missions"].get(mission_type(picture["mission"]).id, "")
        draw.text(surface, name, (rect.centerx, box.bottom + 20), 40, INK, True, "midtop")
        cards = picture["cards"]
        card = _big(NUMBER_SIZE)
        gap = 16
        x = rect.centerx - (len(cards) * card.width + (len(cards) - 1) * gap) // 2
        for k, name in enumerate(cards):
            _number_large(surface, lang, name, card.move(x + k * (card.width + gap), box.bottom + 100))
    elif kind == "missions":
        missions = picture["missions"]
        box = _big(MISSION_SIZE)
        step = min(box.height + 30, rect.height // len(missions))
        for k, card in enumerate(missions):
            at = box.move(rect.left + 10, rect.top + k * step)
            _mission_large(surface, lang, card, at)
            name = texts.table(lang)["_missions"].get(mission_type(card).id, "")
            draw.paragraph(surface, name, (at.right + 30, at.top + 30), rect.right - at.right - 40, 40, INK, True)
    else:                                                     # the middle of the table
        draw.text(surface, texts.render(lang, "teamplay_general"), (rect.left + 10, rect.top + 10), 36, MUTED)
        general = _big(MISSION_SIZE).move(rect.left + 10, rect.top + 60)
        _mission_large(surface, lang, picture["general"], general)
        draw.text(surface, texts.render(lang, "teamplay_bank"), (rect.left + 10, general.bottom + 50), 36, MUTED)
        card = _big(NUMBER_SIZE)
        for k, name in enumerate(picture["bank"]):
            _number_large(surface, lang, name, card.move(rect.left + 10 + k * (card.width + 20), general.bottom + 100))


PICTURE_SCALE = 1.6        # a page's mission and number cards, larger than on the table


def _big(size: tuple[int, int]) -> pygame.Rect:
    return pygame.Rect(0, 0, round(size[0] * PICTURE_SCALE), round(size[1] * PICTURE_SCALE))


def _mission_large(surface: pygame.Surface, lang: str, card: str, rect: pygame.Rect) -> None:
    draw.enlarged(surface, rect, MISSION_SIZE, lambda image, at: draw_mission(image, lang, card, at))


def _number_large(surface: pygame.Surface, lang: str, card: str, rect: pygame.Rect) -> None:
    draw.enlarged(surface, rect, NUMBER_SIZE, lambda image, at: draw_number(image, lang, card, at))

VIEW = TeamplayView
