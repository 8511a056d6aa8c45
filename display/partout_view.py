"""Partout on the shared screen: seats around the table with bids, tricks and soft keys;
the trumps; the trick as cards (locked ones barred, the winning one in gold); the score
table by round; the table's prompt and the last refusal; between rounds, the round's
summary; at the end, the winners.

Colours are never the only difference: every suit has its own shape (red square, green
triangle, blue circle, black diamond) on its cards and on the trump badge, and every
team its own shape beside its players' names and above its score column. The middle of
the table, where the trick and the summaries go, is only as wide as the seats leave free
at this player count, so nothing there runs into a seat."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import pygame

from controller.games import texts
from controller.games.partout import ALL_CARDS, DATA, trick_winner
from display import draw
from display.draw import GOLD, INK, MUTED, RED, TEAM

SUIT = {"red": (200, 40, 40), "green": (30, 130, 60), "blue": (30, 90, 190), "black": (30, 30, 30)}
SUIT_SHAPE = {"red": "square", "green": "triangle", "blue": "circle", "black": "diamond"}
SPECIAL_FACE = (58, 36, 88)

TABLE_AREA = pygame.Rect(0, 100, 1460, 980)
SIDE = pygame.Rect(1470, 100, 440, 970)
SEAT_SIZE = (330, 210)
CARD_SIZE = (128, 184)
CARD_GAP = 12
HEADER = pygame.Rect(0, 0, 1920, 100)
SCORES = pygame.Rect(SIDE.left, SIDE.top, SIDE.width, 620)
MESSAGE = pygame.Rect(SIDE.left, SIDE.top + 640, SIDE.width, 330)
# what of the public view each region reads (its key): the middle (trick, summary, winners,
# the prompt) and the score table
MIDDLE_READS = ("trick", "last_trick", "phase", "to_act", "round", "trump_number", "trump_colour", "teams",
                "winners", "scores", "players")
SCORES_READS = ("teams", "history", "phase", "team_bids", "team_tricks", "scores")


def seat_rects(players: int) -> list[pygame.Rect]:
    """Seats clockwise around the table, seat 1 at the bottom centre; the side seats pushed
    to the table's edges, so that six cards fit large between them."""
    rects = draw.seat_ring(players, TABLE_AREA, SEAT_SIZE, (10, 10))
    for rect in rects:
        if rect.centerx < TABLE_AREA.centerx - 1:
            rect.left = TABLE_AREA.left + 10
        elif rect.centerx > TABLE_AREA.centerx + 1:
            rect.right = TABLE_AREA.right - 10
    return rects


def middle(players: int) -> pygame.Rect:
    """The middle of the table that no seat covers: between the side seats, below the top
    seat and above the bottom one (the trick, the summaries and the winners go here)."""
    return pygame.Rect(_middle(players))


@lru_cache(maxsize=None)
def _middle(players: int) -> pygame.Rect:
    # worked out once per player count: a frame asks for it several times
    seats = seat_rects(players)
    bottom = seats[0]
    top = min((r.bottom for r in seats if r.centerx == bottom.centerx and r is not bottom), default=TABLE_AREA.top)
    left = max((r.right for r in seats if r.right < bottom.left), default=TABLE_AREA.left)
    right = min((r.left for r in seats if r.left > bottom.right), default=TABLE_AREA.right)
    return pygame.Rect(left + 14, max(top, TABLE_AREA.top) + 14, right - left - 28, bottom.top - max(top, TABLE_AREA.top) - 28)


def trick_card_size(players: int, cards: int) -> tuple[int, int]:
    """As large as the middle allows for this many cards, at most the full size."""
    w = min(CARD_SIZE[0], (middle(players).width - (cards - 1) * CARD_GAP) // max(cards, 1))
    return w, round(w * CARD_SIZE[1] / CARD_SIZE[0])


def between_rounds(view: dict[str, Any]) -> bool:
    """A round is over and the next one has not begun (its trump number is not named yet)."""
    return view["phase"] == "trump_number" and 0 < view["round"] == len(view["history"])


class PartoutView:
    def __init__(self, lang: str, *, live: bool = False) -> None:
        self.lang = lang
        self.regions = draw.Regions()         # the screen is repainted only where it changed
        self.overlaid = False

    def t(self, key: str, **params: Any) -> str:
        return texts.render(self.lang, key, params, self.names)

    def cues(self, before: dict[str, Any], after: dict[str, Any]) -> list[str]:
        """A trick won: one more trick taken this round, or the round's last one (a new row)."""
        won = sum(after["tricks_won"]) > sum(before["tricks_won"]) or len(after["history"]) > len(before["history"])
        return ["point"] if won else []

    def draw(self, surface: pygame.Surface, snap: Any) -> None:
        """Each region with the key of what it shows (``draw.Regions``)."""
        view = snap.view
        self.names = [s.name for s in snap.seats]
        names = (self.lang, tuple(self.names))
        paint = self.regions.paint
        header = (snap.title, view["round"], view["rounds"], view["trump_number"], view["trump_colour"], view["dealer"])
        paint(surface, "header", HEADER, names + header, lambda: self._header(surface, snap, view), draw.FELT_DARK)
        for seat, rect in zip(snap.seats, seat_rects(view["players"])):
            i = seat.seat
            key = names + (repr(seat), view["team_of"][i], view["to_act"] == i, view["dealer"] == i, view["bids"][i],
                           view["tricks_won"][i], view["cards_left"][i])
            self.regions.paint_kept(surface, f"seat{i}", rect, key,
                                    lambda image, at, seat=seat: self._seat(image, snap, view, seat, at))
        middle_key = names + (snap.finished, repr([view[k] for k in MIDDLE_READS]), len(view["history"]),
                              repr(view["history"][-1:]))
        paint(surface, "middle", middle(view["players"]).inflate(24, 24), middle_key,
              lambda: self._middle(surface, snap, view))
        scores_key = names + (repr([view[k] for k in SCORES_READS]),)
        paint(surface, "scores", SCORES, scores_key, lambda: self._scores(surface, view))
        paint(surface, "message", MESSAGE, names + (draw.message_key(snap),),
              lambda: self._message(surface, snap))
        self.overlaid = draw.pause_banner(surface, self.lang, snap, self.names)

    def _middle(self, surface, snap, view) -> None:
        if between_rounds(view) and not snap.finished:
            self._summary(surface, view)
        else:
            self._trick(surface, view)
        self._centre_prompt(surface, snap, view)
        if snap.finished:
            self._winner(surface, view)

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
        if colour:
            draw.shape(surface, SUIT_SHAPE[colour], (badge2.left + 28, badge2.centery), 16, INK)
            draw.text(surface, texts.colour_name(self.lang, colour), (badge2.centerx + 20, badge2.centery), 40,
                      INK, True, "center", badge2.width - 64)
        else:
            draw.text(surface, "–", badge2.center, 44, INK, True, "center")
        dealer = view["dealer"]
        draw.text(surface, self.t("dealer_is", player=dealer), (x + 320, 38), 36, MUTED)

    def _seat(self, surface, snap, view, seat, rect) -> None:
        i = seat.seat
        team = view["team_of"][i]
        acting = view["to_act"] == i
        refused = seat.refusal is not None               # while it stands (Table._moved_on)
        draw.seat_frame(surface, rect, turn=acting, refused=refused)
        draw.team_mark(surface, team, (rect.left + 24, rect.top + 30), 12)
        name = texts.seat_label(self.lang, i, self.names)
        shown = draw.text(surface, name, (rect.left + 42, rect.top + 10), 40, INK, True, max_width=190)
        draw.seat_colour(surface, seat.colour, shown)
        if view["dealer"] == i:
            draw.text(surface, self.t("dealer_badge"), (rect.right - 12, rect.top + 14), 28, GOLD, True, "topright")
        bid = view["bids"][i]
        line = self.t("bid_tricks", bid="–" if bid is None else bid, tricks=view["tricks_won"][i],
                      cards=view["cards_left"][i])
        if not seat.connected and seat.station:
            # in the status line's place while the game waits for it (nothing changes meanwhile):
            # beside the dealer's badge it overlapped that line, at 26 px
            draw.text(surface, self.t("station_offline"), (rect.left + 30, rect.top + 56), 30, RED, True,
                      max_width=rect.width - 40)
        else:
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
        area = middle(view["players"])
        w, h = trick_card_size(view["players"], len(shown))
        total = len(shown) * w + (len(shown) - 1) * CARD_GAP
        x = area.centerx - total // 2
        y = area.top + 60
        for i, play in enumerate(shown):
            rect = pygame.Rect(x + i * (w + CARD_GAP), y, w, h)
            is_leading = (i == leading) if plays else (play["player"] == winner_seat)
            draw_card(surface, self.lang, play["card"], rect, choice=self._choice_label(play, shown),
                      locked=play.get("locked", False), leading=is_leading)
            draw.text(surface, texts.seat_label(self.lang, play["player"], self.names),
                      (rect.centerx, rect.bottom + 10), 28, MUTED, False, "midtop", w + CARD_GAP)
        if title:
            draw.text(surface, title, (area.centerx, area.top + 6), 32, MUTED, False, "midtop", area.width)

    def _summary(self, surface, view) -> None:
        """Between rounds: the last trick, and per team what it bid, took and scored, until
        the next round's first move (the dealer deals meanwhile); it covers no seat."""
        area = middle(view["players"])
        box = pygame.Rect(area.left, area.top, area.width, area.height - 70)
        draw.panel(surface, box, GOLD, 4)
        draw.text(surface, self.t("round_over", n=view["round"]), (box.centerx, box.top + 14), 40, GOLD, True,
                  "midtop", box.width - 30)
        last = view["last_trick"]
        y = box.top + 66
        if last:
            plays = last["plays"]
            w = min(84, (box.width - 40 - (len(plays) - 1) * 8) // len(plays))
            h = round(w * CARD_SIZE[1] / CARD_SIZE[0])
            x = box.centerx - (len(plays) * (w + 8) - 8) // 2
            for i, play in enumerate(plays):
                draw_card(surface, self.lang, play["card"], pygame.Rect(x + i * (w + 8), y, w, h), small=True,
                          locked=play.get("locked", False), leading=play["player"] == last["winner"])
            y += h + 16
        row = view["history"][-1]
        rows_h = (box.bottom - 12 - y) // max(len(view["teams"]), 1)
        for t in range(len(view["teams"])):
            top = y + t * rows_h
            draw.team_mark(surface, t, (box.left + 30, top + 18), 12)
            draw.text(surface, self._team_name(view, t), (box.left + 52, top), 32, INK, True,
                      max_width=box.width - 180)
            draw.text(surface, self.t("summary_bid_tricks", bid=row["bids"][t], tricks=row["tricks"][t]),
                      (box.left + 52, top + 34), 28, MUTED, max_width=box.width - 180)
            points = row["points"][t]
            draw.text(surface, texts.number(points, signed=True), (box.right - 24, top + 4), 52, INK if points >= 0 else RED, True,
                      "topright")

    def _choice_label(self, play: dict[str, Any], plays: list[dict[str, Any]]) -> str | None:
        """What a special card chose, in words: the Dungeon names whose card it locked."""
        choice = play.get("choice")
        if choice is None:
            return None
        if play["card"] == "dungeon":
            return texts.seat_label(self.lang, plays[choice]["player"], self.names)
        return choice                                  # a number, or the Alchemist's colour (drawn by _choice)

    def _centre_prompt(self, surface, snap, view) -> None:
        if snap.finished:
            return
        to_act = view["to_act"]
        key = {"trump_number": "names_trump_number", "trump_colour": "names_trump_colour",
               "bidding": "bids_now", "playing": "plays_now"}.get(view["phase"])
        if key is None or to_act is None:
            return
        area = middle(view["players"])
        draw.text(surface, self.t(key, player=to_act), (area.centerx, area.bottom - 50), 40, INK, True, "midtop",
                  area.width)
        # the teams' bids and tricks this round are in the score table's "now" row (readable
        # at every player count; one line here ran to 18 px with three teams)

    def _team_name(self, view, team: int) -> str:
        return " & ".join(texts.seat_label(self.lang, p, self.names) for p in view["teams"][team])

    def _scores(self, surface, view) -> None:
        teams = view["teams"]
        box = SCORES
        draw.panel(surface, box)
        draw.text(surface, self.t("score_table"), (box.left + 20, box.top + 14), 40, GOLD, True)
        col_w = (box.width - 90) // len(teams)
        for t, team in enumerate(teams):
            x = box.left + 80 + t * col_w
            pygame.draw.rect(surface, TEAM[t % len(TEAM)], (x + 22, box.top + 64, col_w - 32, 6))
            draw.team_mark(surface, t, (x + 8, box.top + 66), 9)
            for k, p in enumerate(team):                 # one name a line: readable with three teams too
                draw.text(surface, texts.seat_label(self.lang, p, self.names), (x, box.top + 74 + 30 * k), 28,
                          INK, True, max_width=col_w - 12)
        y = box.top + 74 + 30 * max(len(team) for team in teams) + 8
        # one legend for every team's column (in the first column's place it read as that column's)
        legend = self.t("score_header")
        lines = 1 if draw.font(28).size(legend)[0] <= box.width - 40 else 2
        draw.wrapped(surface, legend, pygame.Rect(box.left + 20, y, box.width - 40, 36 * lines), 28, MUTED)
        y += 4 + 32 * lines
        for r, row in enumerate(view["history"]):
            draw.text(surface, str(r + 1), (box.left + 24, y), 28, MUTED)
            for t in range(len(teams)):
                x = box.left + 80 + t * col_w
                cell = f"{row['bids'][t]}/{row['tricks'][t]}"
                draw.text(surface, cell, (x, y), 28, MUTED)
                points = row["points"][t]
                draw.text(surface, texts.number(points, signed=True), (x + col_w - 20, y), 28, INK if points >= 0 else RED,
                          True, "topright")
            y += 32
        if view["phase"] == "playing" and view["team_bids"][0] is not None:     # this round so far
            # the round under way, numbered like the rows above it, in gold (a word here would not
            # fit at 28 px in every language)
            draw.text(surface, str(len(view["history"]) + 1), (box.left + 24, y), 28, GOLD, True)
            for t, (b, k) in enumerate(zip(view["team_bids"], view["team_tricks"])):
                draw.text(surface, f"{b}/{k}", (box.left + 80 + t * col_w, y), 28, GOLD, True)
        pygame.draw.line(surface, MUTED, (box.left + 20, box.bottom - 60), (box.right - 20, box.bottom - 60), 2)
        draw.text(surface, self.t("total"), (box.left + 20, box.bottom - 48), 32, INK, True)
        for t, total in enumerate(view["scores"]):
            x = box.left + 80 + t * col_w
            draw.text(surface, texts.number(total), (x + col_w - 20, box.bottom - 50), 40, GOLD, True, "topright")

    def _message(self, surface, snap) -> None:
        box = MESSAGE
        # the table deals (a demo, virtual cards): nobody taps real cards on a reader
        help_key = "help_line_virtual" if snap.view.get("mode") == "virtual" else "help_line"
        draw.message_box(surface, self.lang, snap, self.names, box, help_key, 32)

    def _winner(self, surface, view) -> None:
        """The winners named (a tie said as one), then every team's total, best first."""
        area = middle(view["players"])
        banner = pygame.Rect(area.left, area.top, area.width, area.height - 20)
        draw.panel(surface, banner, GOLD, 6)
        names = [self._team_name(view, t) for t in view["winners"]]
        if len(names) > 1:                             # a tie: said as one, not as "A · B win!"
            words = self.t("winners_tie", names=self.t("names_and").join(names), n=view["scores"][view["winners"][0]])
        else:
            words = self.t("winner_banner", names=names[0])
        draw.wrapped(surface, words, banner.inflate(-40, -40), 48, GOLD, bold=True, align="center")
        ranked = sorted(range(len(view["teams"])), key=lambda t: -view["scores"][t])
        row_h = 58
        y = banner.bottom - 24 - row_h * len(ranked)
        for k, t in enumerate(ranked):
            top = y + k * row_h
            place = 1 + sum(1 for other in ranked if view["scores"][other] > view["scores"][t])
            draw.text(surface, f"{place}.", (banner.left + 24, top), 40, INK, True)
            draw.team_mark(surface, t, (banner.left + 90, top + 20), 12)
            draw.text(surface, self._team_name(view, t), (banner.left + 112, top + 2), 36, INK, True,
                      max_width=banner.width - 250)
            draw.text(surface, texts.number(view["scores"][t]), (banner.right - 24, top), 44, GOLD, True, "topright")


def leading_play(view: dict[str, Any]) -> int | None:
    """The play now winning the trick, recomputed by the rules' own public function."""
    plays = [p["card"] if p["choice"] is None else f"{p['card']}:{p['choice']}" for p in view["trick"]]
    if not plays:
        return None
    return trick_winner(plays, view["trump_number"], view["trump_colour"])


def draw_card(surface: pygame.Surface, lang: str, name: str, rect: pygame.Rect, *, choice: Any = None,
              locked: bool = False, leading: bool = False, small: bool = False) -> None:
    """A card face: crest cards by number, colour and the colour's shape; specials by the
    letter their edition prints and their name. ``small``: a reminder (the summary's last
    trick), numbers and shapes only."""
    if leading:
        draw.rounded(surface, GOLD, rect.inflate(14, 14), 0, 16)
    draw.face(surface, rect, ("partout", lang, name, rect.size, small),
              lambda image, at: _paint_face(image, lang, name, at, small))
    if choice is not None:
        _choice(surface, lang, name, choice, rect)
    if locked:
        shade = pygame.Surface(rect.size, pygame.SRCALPHA)
        shade.fill((0, 0, 0, 150))
        surface.blit(shade, rect)
        for x in range(rect.left + 18, rect.right - 8, 22):
            pygame.draw.line(surface, (150, 150, 150), (x, rect.top + 4), (x, rect.bottom - 4), 4)


def _paint_face(surface: pygame.Surface, lang: str, name: str, rect: pygame.Rect, small: bool) -> None:
    c = ALL_CARDS.get(name)
    special = c is None or c.colour is None
    draw.rounded(surface, SPECIAL_FACE if special else draw.CARD_FACE, rect, 0, 12)
    draw.rounded(surface, (20, 20, 20), rect, 2, 12)
    if special:
        # the name at the foot first; the letter fills what is left above it, never under it
        # (issue 40: "Mathematiker" in two lines lay over the big M of a hand card)
        top = rect.bottom if small else _special_name(surface, texts.card_name(lang, name), rect)
        room = pygame.Rect(rect.left, rect.top + 6, rect.width, top - 4 - rect.top - 6)
        mark, size = texts.card_mark(lang, name), int(rect.height * 0.45)
        while size > 28 and draw.font(size, True).size(mark)[1] > room.height:
            size -= 2
        draw.text(surface, mark, room.center, size, GOLD, True, "center")
    elif c is not None and c.colour is not None:             # (not special: both)
        ink = SUIT[c.colour]
        r = max(8, rect.width // 9)
        draw.text(surface, str(c.value), (rect.centerx, rect.centery + (0 if small else -6)),
                  int(rect.height * 0.46), ink, True, "center")
        draw.shape(surface, SUIT_SHAPE[c.colour], (rect.left + r + 8, rect.top + r + 8), r, ink)
        draw.shape(surface, SUIT_SHAPE[c.colour], (rect.right - r - 8, rect.top + r + 8), r, ink)
        if not small and colour_words_fit(lang, rect.width - 8):
            draw.text(surface, texts.colour_name(lang, c.colour), (rect.centerx, rect.bottom - 10), 28, ink,
                      True, "midbottom")


def colour_words_fit(lang: str, width: int) -> bool:
    """Whether every colour's word fits ``width`` at 28 px: if not, no card of the trick shows
    its word (their shapes and numbers still tell them apart), rather than some shrunk."""
    return max(draw.font(28, True).size(texts.colour_name(lang, c))[0] for c in SUIT) <= width


def _choice(surface: pygame.Surface, lang: str, card: str, choice: Any, rect: pygame.Rect) -> None:
    """What a special card chose, at its top: "» 9", "» Clara"; the Alchemist's colour by its
    shape, with its word where that fits (the trump badge says it in full)."""
    words = f"» {choice}"
    if card == "alchemist":
        words = f"» {texts.colour_name(lang, choice)}"
        if draw.font(28, True).size(words)[0] > rect.width - 8:
            draw.text(surface, "»", (rect.centerx - 14, rect.top + 10), 28, INK, True, "midtop")
            draw.shape(surface, SUIT_SHAPE[choice], (rect.centerx + 14, rect.top + 24), 11, INK)
            return
    draw.text(surface, words, (rect.centerx, rect.top + 10), 28, INK, True, "midtop", rect.width - 8)


def _special_name(surface: pygame.Surface, name: str, rect: pygame.Rect) -> int:
    """A special card's name at 28 px: on one line, or broken in two with a hyphen where it
    is too long for the card. Returns the top of what it drew."""
    font = draw.font(28, True)
    if font.size(name)[0] <= rect.width - 8:
        return draw.text(surface, name, (rect.centerx, rect.bottom - 12), 28, INK, True, "midbottom").top
    vowels = "aeiouyäöüéèàìòù"
    # break before a syllable (a consonant and a vowel: "Mathe-matiker", "Alche-mistin"),
    # the two halves as even as may be
    syllables = [i for i in range(3, len(name) - 2) if name[i] not in vowels and name[i + 1] in vowels]
    cut = min(syllables or range(3, len(name) - 2),
              key=lambda i: abs(font.size(name[:i] + "-")[0] - font.size(name[i:])[0]))
    first = draw.text(surface, name[:cut] + "-", (rect.centerx, rect.bottom - 42), 28, INK, True, "midbottom",
                      rect.width - 8)
    draw.text(surface, name[cut:], (rect.centerx, rect.bottom - 12), 28, INK, True, "midbottom", rect.width - 8)
    return first.top


def card_face(surface: pygame.Surface, lang: str, card: str, rect: pygame.Rect) -> None:
    """One card of the deck, large, by its name in the rules' notation (enrollment shows it)."""
    draw_card(surface, lang, card, rect)


# -- how to play: the pictures beside the pages (controller/games/data/how_to_play.json) ---------------

def how_to_picture(surface: pygame.Surface, lang: str, picture: dict[str, Any], rect: pygame.Rect) -> None:
    """A page's picture: ``cards`` (rows of cards; with ``trump`` the trumps' badges above
    them, ``ranked`` their rank above each card, ``leading`` the card that wins in gold) or
    ``bonus`` (the bonus table)."""
    if picture["kind"] == "bonus":
        _bonus_table(surface, lang, rect)
        return
    rows = picture["rows"]
    top = rect.top
    if "trump" in picture:
        number, colour = picture["trump"]
        _trump_badges(surface, lang, number, colour, (rect.centerx, top))
        top += 110
    label = 44 if picture.get("ranked") else 0          # the rank over each card
    across = max(len(row) for row in rows)
    w = min(200, (rect.width - (across - 1) * 20) // across,
            int(((rect.bottom - top) // len(rows) - label - 24) * CARD_SIZE[0] / CARD_SIZE[1]))
    h = round(w * CARD_SIZE[1] / CARD_SIZE[0])
    block = len(rows) * (label + h) + (len(rows) - 1) * 24
    y = top + max(0, (rect.bottom - top - block) // 2)
    rank = 0
    for row in rows:
        x = rect.centerx - (len(row) * w + (len(row) - 1) * 20) // 2
        for k, card in enumerate(row):
            rank += 1
            box = pygame.Rect(x + k * (w + 20), y + label, w, h)
            if label:
                draw.text(surface, f"{rank}.", (box.centerx, y), 40, GOLD, True, "midtop")
            draw_card(surface, lang, card, box, leading=picture.get("leading") == rank - 1)
        y += label + h + 24


def _trump_badges(surface: pygame.Surface, lang: str, number: int, colour: str, midtop: tuple[int, int]) -> None:
    """The trumps as the header shows them: the word, the number's badge, the colour's."""
    word = texts.render(lang, "trump")
    width = draw.font(40).size(word)[0]
    x = midtop[0] - (width + 20 + 84 + 16 + 220) // 2
    draw.text(surface, word, (x, midtop[1] + 22), 40, MUTED)
    x += width + 20
    badge = pygame.Rect(x, midtop[1], 84, 80)
    draw.panel(surface, badge, GOLD, 3, (250, 248, 240))
    draw.text(surface, str(number), badge.center, 62, (20, 20, 20), True, "center")
    badge2 = pygame.Rect(badge.right + 16, midtop[1], 220, 80)
    draw.panel(surface, badge2, GOLD, 3, SUIT[colour])
    draw.shape(surface, SUIT_SHAPE[colour], (badge2.left + 30, badge2.centery), 16, INK)
    draw.text(surface, texts.colour_name(lang, colour), (badge2.centerx + 20, badge2.centery), 40, INK, True, "center")


def _bonus_table(surface: pygame.Surface, lang: str, rect: pygame.Rect) -> None:
    """The rule book's table: the bonus for each bid made, with two teams and with three (and
    the 3-player game), from the component data."""
    bids = sorted(int(b) for b in DATA["bonus_for_bid"]["2_teams"])
    box = pygame.Rect(rect.left, rect.top + 40, rect.width, 3 * 86 + 40)
    draw.panel(surface, box)
    col = (box.width - 300) // len(bids)
    rows = (("howto_partout_bonus_bid", None), ("howto_partout_bonus_two", "2_teams"),
            ("howto_partout_bonus_three", "3_teams"))
    for r, (key, table) in enumerate(rows):
        y = box.top + 30 + r * 86
        draw.text(surface, texts.render(lang, key), (box.left + 24, y), 32, GOLD if table is None else INK, True,
                  max_width=270)
        for k, bid in enumerate(bids):
            value = bid if table is None else DATA["bonus_for_bid"][table][str(bid)]
            draw.text(surface, str(value), (box.left + 300 + k * col + col // 2, y), 36 if table else 40,
                      GOLD if table is None else INK, True, "midtop")
    example = texts.render(lang, "howto_partout_bonus_example")
    draw.paragraph(surface, example, (rect.left + 24, box.bottom + 40), rect.width - 48, 36, INK)


VIEW = PartoutView
