"""Crazy Kick on the shared screen: every player's piles around the edge, the centre
card large with its pass and tackle names, whose ball it is, the score, a goal
celebration (its whistle is in ``cues``), the ball-out call and the final whistle.

The view keeps only animation state (when the last goal was seen); it never changes
the game."""

from __future__ import annotations

import time
from typing import Any, NamedTuple

import pygame

from controller.games import texts
from controller.games.crazykick import GOAL_PAUSE_S, load_deck
from display import draw
from display.draw import GOLD, INK, MUTED, RED

TABLE_AREA = pygame.Rect(0, 100, 1920, 980)
SEAT_SIZE = (440, 220)
PILE_CARD_H = 120               # a pile's top card in a seat panel
CENTRE_CARD = (250, 340)
PILE_AREA = 226                 # the left part of a seat panel; the soft keys take the right
KEY_SIZE = (62, 32)
CELEBRATION_S = GOAL_PAUSE_S     # the goal's banner stays while play pauses, and goes at the whistle
# the regions (draw.Regions) and what of the public view each reads
HEADER = pygame.Rect(0, 0, 1920, 100)
HEADER_READS = ("edition_title", "team_colours", "team_names", "ball", "goals", "scores", "needed",
                "attacks", "centre_count")
CENTRE_READS = ("centre", "covered", "last", "team_names", "team_colours")
_CARD = pygame.Rect(0, 0, *CENTRE_CARD)
_CARD.center = (TABLE_AREA.centerx + 13, TABLE_AREA.centery)
# the ball's headline, the card, its pass and tackle names
CENTRE_REGION = pygame.Rect(_CARD.centerx - 13 - 330, _CARD.top - 50, 660, _CARD.height + 50 + 78)
# the table's news, one line across the band that no seat takes at any player count (top
# seats end at y 324, side seats start at 396): wide enough for the longest at 28 px or more
MESSAGE_REGION = pygame.Rect(40, _CARD.top - 92, 1840, 42)


def seat_rects(players: int) -> list[pygame.Rect]:
    """Seats clockwise around the table, seat 1 at the bottom centre. A seat between a side
    and the top or bottom goes to that edge, so the middle stays free for the centre card,
    its names and the table's news."""
    rects = draw.seat_ring(players, TABLE_AREA, SEAT_SIZE, (10, 4))
    widest = TABLE_AREA.width / 2 - SEAT_SIZE[0] / 2 - 10
    for rect in rects:
        off_centre = abs(rect.centerx - TABLE_AREA.centerx)
        if 2 < off_centre < 0.9 * widest:          # not the top or bottom seat, not at a side
            if rect.centery < TABLE_AREA.centery:
                rect.top = TABLE_AREA.top + 4
            else:
                rect.bottom = TABLE_AREA.bottom - 4
    return rects


def latest_that_fit(names: list[str], size: int, width: int) -> str:
    """The scorers, earliest dropped ("… Paul, Max") until the line fits ``width`` at ``size``."""
    shown = list(names)
    while len(shown) > 1 and draw.font(size).size(", ".join(shown))[0] > width:
        shown.pop(0)
    words = ", ".join(shown)
    return words if len(shown) == len(names) else "… " + words


TEAM_SHAPE = ("triangle", "circle")   # each team's own shape, so the teams differ beyond colour


def team_mark(surface: pygame.Surface, team: int, colour: tuple[int, int, int], centre: tuple[int, int], r: int) -> None:
    """The team's shape in its colour, ringed pale so a dark team shows on the dark panel."""
    draw.shape(surface, TEAM_SHAPE[team], centre, r + 2, MUTED)
    draw.shape(surface, TEAM_SHAPE[team], centre, r, colour)


def rgb(hex_colour: str) -> tuple[int, int, int]:
    return tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]


class CrazyKickView:
    def __init__(self, lang: str, *, live: bool = False) -> None:
        self.lang = lang
        self.live = live                     # a screen people watch: celebrate goals
        self.names: list[str] = []
        self._scores: tuple[int, ...] | None = None
        self._goal_at = 0.0
        self._goal_text = ""
        self.regions = draw.Regions()         # the screen is repainted only where it changed
        self.overlaid = False

    end_cue = "final_whistle"                # the match ends on the referee's whistle, not a fanfare

    def cues(self, before: dict[str, Any], after: dict[str, Any]) -> list[str]:
        """A goal is whistled (the winning one gets the final whistle instead)."""
        return ["goal"] if sum(after["scores"]) > sum(before["scores"]) and after["winner"] is None else []

    def t(self, key: str, **params: Any) -> str:
        return texts.render(self.lang, key, params, self.names)

    def animating(self) -> bool:
        return self.live and time.monotonic() - self._goal_at < CELEBRATION_S + 0.1

    def draw(self, surface: pygame.Surface, snap: Any) -> None:
        """The header, each seat and the centre as regions (``draw.Regions``); the banners
        and table-wide news across them, after which the next frame is drawn afresh."""
        view = snap.view
        self.names = [s.name for s in snap.seats]
        self._notice(view)
        names = (self.lang, tuple(self.names))
        paint = self.regions.paint
        paint(surface, "header", HEADER, names + (snap.title, repr([view[k] for k in HEADER_READS])),
              lambda: self._header(surface, snap, view), draw.FELT_DARK)
        last = view["last"]
        for seat, rect in zip(snap.seats, seat_rects(view["players"])):
            i = seat.seat
            on_ball = last is not None and last["seat"] == i and last["kind"] != "ball_out"
            key = names + (repr(seat), view["team_of"][i], repr(view["team_colours"]), on_ball, view["hands"][i],
                           repr(view["piles"][i]))
            self.regions.paint_kept(surface, f"seat{i}", rect, key,
                                    lambda image, at, seat=seat: self._seat(image, snap, view, seat, at))
        centre_key = names + (repr([view[k] for k in CENTRE_READS]), tuple(len(p) for p in view["piles"]))
        paint(surface, "centre", CENTRE_REGION, centre_key, lambda: self._centre(surface, view))
        paint(surface, "message", MESSAGE_REGION, names + (repr(snap.message), repr(snap.notices), snap.finished),
              lambda: self._message(surface, snap))
        overlaid = False
        if self.animating() and not snap.finished:
            self._celebration(surface)
            overlaid = True
        if snap.finished and view["winner"] is not None:
            self._banner(surface, self.t("ck_winner_banner", team=view["team_names"][view["winner"]]), GOLD, 60,
                         " : ".join(str(s) for s in view["scores"]))
            overlaid = True
        self.overlaid = draw.pause_banner(surface, self.lang, snap, self.names) or overlaid



    # -- what happened since the last frame -----------------------------------------------------------
    def _notice(self, view: dict[str, Any]) -> None:
        scores = tuple(view["scores"])
        if self._scores is not None and scores != self._scores and sum(scores) > sum(self._scores):
            last = view["last"]
            self._goal_at = time.monotonic()
            if last and last["kind"] == "goal":
                self._goal_text = self.t("ck_event_goal", name=last["card"]["player"], team=last["card"]["team"])
        self._scores = scores

    # -- parts ----------------------------------------------------------------------------------------
    def _header(self, surface, snap, view) -> None:
        draw.text(surface, snap.title, (30, 8), 56, GOLD, True)
        draw.text(surface, view["edition_title"], (30, 62), 28, MUTED, max_width=400)
        cx = TABLE_AREA.centerx
        names = [texts.colour_name(self.lang, view["team_names"][team]) for team in (0, 1)]
        for team in (0, 1):
            colour = rgb(view["team_colours"][team])
            name = names[team]
            box = pygame.Rect(0, 0, 330, 88)
            if team == 0:
                box.midright = (cx - 70, 50)
            else:
                box.midleft = (cx + 70, 50)
            draw.panel(surface, box, GOLD if view["ball"] == team else None, 4, colour)
            ink = (20, 20, 20) if sum(colour) > 500 else INK
            scorers = view["goals"][team]
            team_mark(surface, team, ink, (box.right - 26, box.top + 24), 12)
            draw.text(surface, name, (box.left + 18, box.top + 8 if scorers else box.centery),
                      36 if scorers else 40, ink, True, "topleft" if scorers else "midleft", 250)
            if scorers:                                # in the box, at 28 px: the latest that fit
                draw.text(surface, latest_that_fit(scorers, 28, box.width - 30), (box.left + 18, box.bottom - 8),
                          28, ink, False, "bottomleft")
        draw.text(surface, f"{view['scores'][0]} : {view['scores'][1]}", (cx, 50), 80, INK, True, "center")
        needed = view["needed"]
        if needed[0] == needed[1]:
            aim = self.t("ck_first_to", n=needed[0])
        else:                                            # an uneven table's handicap: each team's own aim
            aim = self.t("ck_goals_needed", team0=names[0], n0=needed[0], team1=names[1], n1=needed[1])
        draw.text(surface, aim, (1900, 24), 28, MUTED, False, "topright")
        if view["attacks"]:
            draw.text(surface, self.t("ck_attack_n", n=view["attacks"], plays=view["centre_count"]),
                      (1900, 60), 28, MUTED, False, "topright")

    def _seat(self, surface, snap, view, seat, rect) -> None:
        i = seat.seat
        team = view["team_of"][i]
        refused = seat.refusal is not None               # while it stands (Table._moved_on)
        last = view["last"]
        on_ball = last is not None and last["seat"] == i and last["kind"] != "ball_out"
        draw.seat_frame(surface, rect, turn=on_ball, refused=refused)
        # everything inside keeps clear of the panel's edge, where the frames are (draw.SEAT_MARGIN)
        team_mark(surface, team, rgb(view["team_colours"][team]), (rect.left + 21, rect.top + 27), 10)
        shown = draw.text(surface, texts.seat_label(self.lang, i, self.names), (rect.left + 35, rect.top + 6), 36,
                          INK, True, max_width=230)
        draw.seat_colour(surface, seat.colour, shown)
        draw.text(surface, self.t("ck_hand", cards=view["hands"][i]), (rect.right - 14, rect.top + 10), 28,
                  MUTED, False, "topright")
        if not seat.connected and seat.station:
            draw.text(surface, self.t("station_offline"), (rect.right - 130, rect.top + 10), 28, RED, True, "topright")
        # the piles stand over the station's button columns: the top button plays the pile
        # above it, the bottom one flips onto it (the legend is at the foot of the screen)
        piles = view["piles"][i]
        gap = 8
        w = (rect.width - 24 - gap * (len(piles) - 1)) // len(piles)    # a chosen pile's ring inside the margin
        target = seat.pending.get("flip_target") if seat.pending else None
        hint = seat.hints[0] if getattr(seat, "hints", ()) else None      # the learning option: piles that fit
        fitting = {n - 1 for n in hint.params["piles"]} if hint is not None else set()
        for k, pile in enumerate(piles):
            card_rect = pygame.Rect(rect.left + 12 + k * (w + gap), rect.top + 48, w, PILE_CARD_H)
            if k == target:                            # the four-pile layout's chosen pile
                draw.rounded(surface, GOLD, card_rect.inflate(8, 8), 4, 12)
            if k in fitting:                           # said in words on the seat's line too
                draw.rounded(surface, GOLD, card_rect.inflate(8, 8), 0, 12)
            self._pile_card(surface, view, pile, card_rect)
        line = rect.bottom - 38
        if refused:
            # one line at 28 px: the sentence's short form where it has one (msgctxt "seat")
            body = texts.render_at_seat(self.lang, seat.refusal.key, seat.refusal.params, self.names)
            draw.text(surface, body, (rect.left + 12, line), 28, RED, True, max_width=rect.width - 24)
        elif hint is not None:
            draw.text(surface, texts.render(self.lang, hint.key, hint.params, self.names), (rect.left + 12, line), 28,
                      GOLD, True, max_width=rect.width - 24)
        elif seat.prompt is not None:
            key, params = seat.prompt
            draw.text(surface, texts.render(self.lang, key, params, self.names), (rect.left + 12, line), 28, GOLD,
                      True, max_width=rect.width - 24)

    def _pile_card(self, surface, view, pile, rect) -> None:
        """A pile's top card as it is read from the sofa: its number and its player's name
        (the centre card lists the names that fit on it), how many cards the pile holds."""
        card = pile["top"]
        if card is None:
            draw.rounded(surface, (40, 80, 56), rect, 2, 8)
            return
        key = ("ck-pile", self.lang, rect.size, repr(card), pile["count"], repr(view["team_colours"]))
        draw.face(surface, rect, key, lambda image, at: self._paint_pile_card(image, view, pile, at))

    def _paint_pile_card(self, surface, view, pile, rect) -> None:
        card = pile["top"]
        colour = rgb(view["team_colours"][card["team_index"]])
        draw.rounded(surface, draw.CARD_FACE, rect, 0, 10)
        draw.rounded(surface, colour, rect, 5, 10)
        dark = (20, 20, 20)
        ink = colour if sum(colour) < 600 else dark
        if card["goal"]:                               # the goal card's word takes the top; no count over it
            draw.text(surface, self.t("ck_goal_card"), (rect.centerx, rect.top + 10), 32, RED, True, "midtop",
                      rect.width - 12)
        else:
            draw.text(surface, str(card["number"]), (rect.left + 10, rect.top + 6), 40, ink, True)
        if pile["count"] > 1 and not card["goal"]:
            draw.text(surface, f"×{pile['count']}", (rect.right - 10, rect.top + 10), 28, (90, 90, 90), True, "topright")
        draw.text(surface, card["player"], (rect.centerx, rect.bottom - 10), 30, dark, True, "midbottom",
                  rect.width - 10)

    def _face(self, surface, view, card, rect, small: bool = False, corners: bool = True) -> None:
        key = ("ck-face", self.lang, rect.size, repr(card), repr(view["team_colours"]), small, corners)
        draw.face(surface, rect, key, lambda image, at: self._paint_face(image, view, card, at, small, corners))

    def _paint_face(self, surface, view, card, rect, small: bool, corners: bool) -> None:
        colour = rgb(view["team_colours"][card["team_index"]])
        other = rgb(view["team_colours"][1 - card["team_index"]])
        draw.rounded(surface, draw.CARD_FACE, rect, 0, 10 if small else 16)
        draw.rounded(surface, colour, rect, 5 if small else 10, 10 if small else 16)
        dark = (20, 20, 20)
        if card["goal"]:
            draw.text(surface, self.t("ck_goal_card"), (rect.centerx, rect.centery - rect.height // 8),
                      int(rect.height * 0.22), RED, True, "center", rect.width - 10)
            draw.text(surface, card["player"], (rect.centerx, rect.centery + rect.height // 6),
                      int(rect.height * 0.14), dark, True, "center", rect.width - 10)
            return
        draw.text(surface, str(card["number"]), (rect.centerx, rect.centery - rect.height // 10),
                  int(rect.height * 0.3), colour if sum(colour) < 600 else dark, True, "center")
        draw.text(surface, card["player"], (rect.centerx, rect.centery + rect.height // 7),
                  int(rect.height * 0.15), dark, True, "center", rect.width - 10)
        if not corners:
            return
        corner = max(28, int(rect.height * (0.15 if small else 0.08)))   # the names to pass to, from the sofa
        pad = 6 if small else 16
        passes, tackles = card["passes"], card["tackles"]
        for j, name in enumerate(passes[:2]):
            pos = (rect.left + pad, rect.top + pad) if j == 0 else (rect.right - pad, rect.top + pad)
            draw.text(surface, name, pos, corner, colour if sum(colour) < 600 else dark, True,
                      "topleft" if j == 0 else "topright", rect.width // 2 - pad)
        for j, name in enumerate(tackles[:2]):
            pos = (rect.left + pad, rect.bottom - pad) if j == 0 else (rect.right - pad, rect.bottom - pad)
            draw.text(surface, name, pos, corner, other if sum(other) < 600 else dark, True,
                      "bottomleft" if j == 0 else "bottomright", rect.width // 2 - pad)

    def _centre(self, surface, view) -> None:
        rect = pygame.Rect(0, 0, *CENTRE_CARD)
        rect.center = (TABLE_AREA.centerx + 13, TABLE_AREA.centery)
        card = view["centre"]
        if card is None:                               # before the kick-off: what to do, and the buttons
            draw.wrapped(surface, self.t("ck_waiting_kickoff"), pygame.Rect(rect.left - 100, rect.centery - 90,
                                                                          rect.width + 200, 120), 40, INK)
            draw.wrapped(surface, self._legend(view), pygame.Rect(rect.left - 100, rect.centery + 20,
                                                                  rect.width + 200, 160), 30, MUTED)
            return
        if view["covered"] is not None:
            under = rect.move(-26, -12)
            draw.rounded(surface, (200, 196, 186), under, 0, 16)
            draw.rounded(surface, (90, 90, 90), under, 2, 16)
        self._face(surface, view, card, rect)
        team = view["team_names"][card["team_index"]]
        headline = self.t("ck_ball_with", team=team)
        last = view["last"]
        if last is not None and last["kind"] != "goal":
            key = {"kickoff": "ck_event_kickoff", "pass": "ck_event_pass", "tackle": "ck_event_tackle",
                   "ball_out": "ck_event_ball_out"}[last["kind"]]
            headline += " · " + self.t(key, seat=last["seat"], name=last["card"]["player"])
        draw.text(surface, headline, (rect.centerx - 13, rect.top - 18), 30, GOLD, True, "midbottom", 620)
        passes = ", ".join(card["passes"]) or "–"
        tackles = ", ".join(card["tackles"]) or "–"
        draw.text(surface, texts.labelled(self.lang, self.t("ck_passes"), passes),
                  (rect.centerx - 13, rect.bottom + 6), 30, INK, False, "midtop", 640)
        draw.text(surface, texts.labelled(self.lang, self.t("ck_tackles"), tackles),
                  (rect.centerx - 13, rect.bottom + 40), 30, MUTED, False, "midtop", 640)

    def _legend(self, view) -> str:
        """What the buttons do, once for everybody (the same at every station)."""
        four = any(len(piles) == 4 for piles in view["piles"])
        return self.t("ck_legend") + (" " + self.t("ck_legend_four") if four else "")

    def _message(self, surface, snap) -> None:
        """Table-wide news (a station unplugged, a stall's hint); a seat's refusal is shown at
        its seat, and then the lasting news (a station too slow to judge) stays here."""
        m = snap.message
        if m is None or m.seat is not None:
            m = snap.notices[-1] if snap.notices else None
        if m is None or snap.finished:
            return
        draw.text(surface, texts.render(self.lang, m.key, m.params, self.names),
                  (MESSAGE_REGION.centerx, MESSAGE_REGION.top + 4), 30, RED if m.refusal else MUTED, True,
                  "midtop", MESSAGE_REGION.width)

    def _celebration(self, surface) -> None:
        self._banner(surface, self._goal_text or self.t("ck_goal_card"), GOLD, 72)

    def _banner(self, surface, words: str, colour, size: int, second: str | None = None) -> None:
        banner = pygame.Rect(0, 0, 1150, 190 if second else 140)
        banner.center = (TABLE_AREA.centerx, TABLE_AREA.centery + 10)
        draw.panel(surface, banner, colour, 6)
        draw.text(surface, words, (banner.centerx, banner.top + 30), size, colour, True, "midtop", banner.width - 40)
        if second:
            draw.text(surface, second, (banner.centerx, banner.top + 110), 56, INK, True, "midtop")


# -- how to play: the pictures beside the pages (controller/games/data/how_to_play.json) ---------------

def how_to_picture(surface: pygame.Surface, lang: str, picture: dict[str, Any], rect: pygame.Rect) -> None:
    """A page's picture, cards of the Schmidt edition drawn as the game draws them: ``cards``
    (a card of each player named), ``card`` (one card large, with whom it passes to and who
    tackles it), ``piles`` (a seat's piles over the buttons that play and flip them) or
    ``goal`` (a player's card and his goal card)."""
    deck = load_deck("schmidt")
    view = CrazyKickView(lang)
    colours = {"team_colours": list(deck.team_colours)}
    kind = picture["kind"]
    if kind in ("cards", "goal"):
        cards = [_card_of(deck, p) for p in picture["players"]] if kind == "cards" else \
            [_card_of(deck, picture["player"]), _card_of(deck, picture["player"], goal=True)]
        w, h = CENTRE_CARD
        gap = 120
        x = rect.centerx - (len(cards) * w + (len(cards) - 1) * gap) // 2
        for k, card in enumerate(cards):
            view._face(surface, colours, card, pygame.Rect(x + k * (w + gap), rect.top + 120, w, h))
        if kind == "goal":                                # the scorer has the ball: his goal card follows
            y, left = rect.top + 120 + h // 2, x + w + 16
            pygame.draw.line(surface, GOLD, (left, y), (left + gap - 40, y), 8)
            pygame.draw.polygon(surface, GOLD, [(left + gap - 24, y), (left + gap - 48, y - 20), (left + gap - 48, y + 20)])
    elif kind == "card":
        card = _card_of(deck, picture["player"])
        box = pygame.Rect(rect.left + 20, rect.top + 40, 330, 450)
        view._face(surface, colours, card, box)
        x = box.right + 40
        for k, (key, names, colour) in enumerate(
                (("ck_passes", card["passes"], rgb(deck.team_colours[card["team_index"]])),
                 ("ck_tackles", card["tackles"], rgb(deck.team_colours[1 - card["team_index"]])))):
            y = box.top + 40 + k * 230
            draw.text(surface, texts.labelled(lang, texts.render(lang, key)), (x, y), 36, MUTED)
            for n, name in enumerate(names):
                draw.text(surface, name, (x, y + 50 + n * 50), 44, INK, True)
            pygame.draw.rect(surface, colour, (x - 20, y + 50, 8, max(1, len(names)) * 50 - 10))
    else:                                                  # a seat's piles over its buttons
        cards = [_card_of(deck, p) for p in picture["players"]]
        w, h, gap = 220, 200, 24
        left = rect.centerx - (3 * w + 2 * gap) // 2
        for k, card in enumerate(cards):
            box = pygame.Rect(left + k * (w + gap), rect.top + 60, w, h)
            pile = {"top": card, "count": 3 - k}
            draw.face(surface, box, ("ck-howto-pile", lang, repr(card), pile["count"]),
                      lambda image, at, pile=pile: view._paint_pile_card(image, colours, pile, at))
        play, flip = _Key("howto_crazykick_key_play"), _Key("howto_crazykick_key_flip")
        draw.soft_keys(surface, lang, (play, play, play, flip, flip, flip), (left - 6, rect.top + 60 + h + 40),
                       (w + gap - 6, 64))


class _Key(NamedTuple):
    """A button's label, as ``draw.soft_keys`` reads one."""

    key: str
    params: dict[str, Any] = {}    # noqa: RUF012 - shared, so never changed: its readers copy it


def _card_of(deck: Any, player: str, goal: bool = False) -> dict[str, Any]:
    """A card of ``player`` as the screen reads cards: his goal card, or the one with the most
    names in its corners (the first such in the deck)."""
    cards = [c for c in deck.cards if c.player == player and c.goal == goal]
    card = max(cards, key=lambda c: len(c.passes) + len(c.tackles))
    return {"team": card.team, "team_index": card.team_index, "player": card.player, "number": card.number,
            "goal": card.goal, "passes": list(card.passes), "tackles": list(card.tackles)}


VIEW = CrazyKickView
