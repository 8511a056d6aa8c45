"""Tadika on the shared screen: the seven middle cards large, each with the times tables it
belongs to; whose turn it is and what the table allows now (a forbidden card open, a wish
card to take, the middle to renew after everybody passed); every seat with its points,
its soft keys and whether it passed; the match toward its target; the last winning hand
with the line that scored; the end of the match.

Colours are never the only difference: every colour has its own shape (blue circle,
yellow triangle, red square, pink diamond) and its name on the card."""

from __future__ import annotations

import math
from typing import Any

import pygame

from controller.games import texts
from controller.games.tadika import ALL_CARDS, POINTS, swap_match
from display import draw
from display.draw import GOLD, INK, MUTED, RED

MAIN = pygame.Rect(0, 100, 1460, 980)
SIDE = pygame.Rect(1470, 100, 440, 970)
MIDDLE_CARD = (170, 240)
SMALL_CARD = (56, 80)
KEY_SIZE = (148, 44)
STATUS_TOP, NOTE_TOP, NOTE_STEP, NOTE_SIZE, MAX_NOTES = 420, 474, 38, 32, 3   # under the middle
SEATS_TOP = 600
# per colour: card face, ink, and the shape that tells it without colour
FACE = {"blue": (214, 228, 252), "yellow": (255, 242, 176), "red": (252, 214, 208), "pink": (250, 218, 242)}
INK_OF = {"blue": (20, 70, 170), "yellow": (130, 95, 0), "red": (175, 30, 30), "pink": (170, 30, 130)}
SHAPE = {"blue": "circle", "yellow": "triangle", "red": "square", "pink": "diamond"}
WISH_FACE, FORBID_FACE = (70, 40, 110), (40, 40, 40)
LINE_TEXT = {"row": "tadika_line_row", "one_colour": "tadika_line_one_colour",
             "four_of_a_number": "tadika_line_four_of_a_number", "row_in_one_colour": "tadika_line_row_in_one_colour"}
BONUS_TEXT = {"first_move": "tadika_bonus_first_move", "without_swapping": "tadika_bonus_without_swapping",
              "swap_all_for_a_row": "tadika_bonus_swap_all_for_a_row"}


def seat_rects(players: int) -> list[pygame.Rect]:
    """The seats in a grid below the middle: one row up to three players, else two."""
    rows = 1 if players <= 3 else 2
    cols = math.ceil(players / rows)
    area = pygame.Rect(MAIN.left + 10, SEATS_TOP, MAIN.width - 20, MAIN.bottom - 10 - SEATS_TOP)
    gap = 16
    w = (area.width - (cols - 1) * gap) // cols
    h = 300 if rows == 1 else (area.height - gap) // 2
    rects = []
    for i in range(players):
        r, c = divmod(i, cols)
        rects.append(pygame.Rect(area.left + c * (w + gap), area.top + r * (h + gap), w, h))
    return rects


def middle_rects(count: int = 7) -> list[pygame.Rect]:
    w, h = MIDDLE_CARD
    gap = 20
    x = MAIN.centerx - (count * w + (count - 1) * gap) // 2
    return [pygame.Rect(x + i * (w + gap), 128, w, h) for i in range(count)]


HEADER = pygame.Rect(0, 0, 1920, 100)
MIDDLE = pygame.Rect(MAIN.left, MAIN.top, MAIN.width, SEATS_TOP - MAIN.top - 4)
MESSAGE = pygame.Rect(SIDE.left, SIDE.bottom - 300, SIDE.width, 300)


def scores_rect(players: int) -> pygame.Rect:
    return pygame.Rect(SIDE.left, SIDE.top, SIDE.width, 60 + 52 * players)


def last_win_rect(players: int) -> pygame.Rect:
    return pygame.Rect(SIDE.left, SIDE.top + 60 + 52 * players + 16, SIDE.width, 250)


class TadikaView:
    def __init__(self, lang: str, *, live: bool = False) -> None:
        self.lang = lang
        self.names: list[str] = []
        self.regions = draw.Regions()         # the screen is repainted only where it changed
        self.overlaid = False

    def t(self, key: str, **params: Any) -> str:
        return texts.render(self.lang, key, params, self.names)

    def cues(self, before: dict[str, Any], after: dict[str, Any]) -> list[str]:
        """A set won (the middle taken)."""
        return ["point"] if len(after["history"]) > len(before["history"]) else []

    def draw(self, surface: pygame.Surface, snap: Any) -> None:
        """Regions (``draw.Regions``), each with the key of what it shows."""
        view = snap.view
        self.names = [s.name for s in snap.seats]
        names = (self.lang, tuple(self.names))
        paint = self.regions.paint
        paint(surface, "header", HEADER, names + (snap.title, view["round"], view["target"], view["dealer"]),
              lambda: self._header(surface, snap, view), draw.FELT_DARK)
        acting = view["to_act"]
        on_turn = snap.seats[acting] if acting is not None and acting < len(snap.seats) else None
        paint(surface, "middle", MIDDLE, names + (snap.finished, repr(view), repr(on_turn)),
              lambda: self._middle(surface, snap, view))
        for seat, rect in zip(snap.seats, seat_rects(view["players"])):
            i = seat.seat
            key = names + (repr(seat), acting == i and not snap.finished, view["scores"][i], view["hand_sizes"][i],
                           i in view["passed"], view["dealer"] == i)
            self.regions.paint_kept(surface, f"seat{i}", rect, key,
                                    lambda image, at, seat=seat: self._seat(image, snap, view, seat, at))
        paint(surface, "scores", scores_rect(view["players"]), names + (repr(view["scores"]), view["target"]),
              lambda: self._scores(surface, view))
        paint(surface, "last_win", last_win_rect(view["players"]),
              names + (repr(view["last_win"]), len(view["history"])), lambda: self._last_win(surface, view))
        paint(surface, "message", MESSAGE, names + (draw.message_key(snap),),
              lambda: self._message(surface, snap))
        self.overlaid = draw.pause_banner(surface, self.lang, snap, self.names)

    def _middle(self, surface, snap, view) -> None:
        if snap.finished and view["last_win"]:
            self._cards_row(surface, view["last_win"]["hand"], None)
            self._winner(surface, view)
        elif view["phase"] == "lay_middle":                # the cards appear as they are tapped
            pending = snap.seats[view["to_act"]].pending or {}
            laid = pending.get("cards", []) if pending.get("what") == "lay" else []
            self._cards_row(surface, laid, [list(ALL_CARDS[c].rows) for c in laid])
            self._status(surface, snap, view)
        else:
            self._cards_row(surface, view["middle"], view["middle_rows"])
            self._status(surface, snap, view)

    # -- parts ---------------------------------------------------------------------------------------
    def _header(self, surface, snap, view) -> None:
        draw.text(surface, snap.title, (30, 24), 64, GOLD, True)
        line = f"{self.t('tadika_round', n=view['round'] + 1)} · {self.t('tadika_first_to', target=view['target'])}"
        draw.text(surface, line, (290, 36), 40, INK)
        draw.text(surface, self.t("dealer_is", player=view["dealer"]), (1900, 38), 36, MUTED, anchor="topright")

    def _cards_row(self, surface, cards, rows) -> None:
        """The middle (with the times tables of each card), or at the end the winning hand."""
        for i, rect in enumerate(middle_rects()):
            if i >= len(cards):
                draw.rounded(surface, (40, 100, 66), rect, 3, 14)
                continue
            draw_card(surface, self.lang, cards[i], rect)
            if rows is None:
                continue
            label = "" if not rows[i] else self.t("tadika_every_row") if len(rows[i]) == 8 else \
                "×" + " ".join(str(n) for n in rows[i])
            draw.text(surface, label, (rect.centerx, rect.bottom + 8), 30, INK, True, "midtop", rect.width + 16)

    def _status(self, surface, snap, view) -> None:
        if snap.finished:
            return
        y = STATUS_TOP
        if view["phase"] == "lay_middle":
            headline = self.t("tadika_lays", player=view["to_act"])
        else:
            headline = self.t("tadika_on_turn", player=view["to_act"])
        draw.text(surface, headline, (MAIN.centerx, y), 44, GOLD, True, "midtop", MAIN.width - 40)
        seats = snap.seats
        acting = view["to_act"]
        notes = []
        if acting is not None and acting < len(seats) and seats[acting].prompt is not None:
            key, params = seats[acting].prompt
            notes.append((texts.render(self.lang, key, params, self.names), INK))
        if view["barred_rows"]:
            notes.append((self.t("tadika_barred", row=" / ".join(map(str, view["barred_rows"]))), RED))
        if view["phase"] == "turn" and view["wish_in_middle"]:
            notes.append((self.t("tadika_wish_open"), INK))
        elif view["phase"] == "turn" and view["may_renew"]:
            notes.append((self.t("tadika_may_renew", player=view["to_act"]), INK))
        elif view["passes"]:
            notes.append((self.t("tadika_pass_chain", n=min(view["passes"], view["players"])), MUTED))
        notes.append((self.t("tadika_pile", n=view["stock_left"]), MUTED))
        for k, (words, colour) in enumerate(notes[:MAX_NOTES]):
            draw.text(surface, words, (MAIN.centerx, NOTE_TOP + k * NOTE_STEP), NOTE_SIZE, colour, False, "midtop",
                      MAIN.width - 40)

    def _seat(self, surface, snap, view, seat, rect) -> None:
        i = seat.seat
        acting = view["to_act"] == i and not snap.finished
        refused = seat.refusal is not None               # while it stands (Table._moved_on)
        draw.seat_frame(surface, rect, turn=acting, refused=refused, width=6)
        name = texts.seat_label(self.lang, i, self.names)
        shown = draw.text(surface, name, (rect.left + 18, rect.top + 10), 40, INK, True, max_width=rect.width - 200)
        draw.seat_colour(surface, seat.colour, shown)
        draw.text(surface, self.t("tadika_points", n=view["scores"][i]), (rect.right - 16, rect.top + 12), 36, GOLD,
                  True, "topright")
        facts = [self.t("tadika_cards_in_hand", n=view["hand_sizes"][i])]
        if acting:
            facts.append(self.t("tadika_on_turn_badge"))
        elif i in view["passed"]:
            facts.append(self.t("tadika_passed"))
        if view["dealer"] == i:
            facts.append(self.t("dealer_badge"))
        if not seat.connected and seat.station:
            facts.append(self.t("station_offline"))
        draw.text(surface, " · ".join(facts), (rect.left + 18, rect.top + 56), 30, GOLD if acting else MUTED,
                  acting, max_width=rect.width - 36)
        if seat.prompt is not None and not acting:       # the player on turn reads theirs in the centre
            key, params = seat.prompt
            draw.text(surface, texts.render(self.lang, key, params, self.names), (rect.left + 18, rect.top + 90),
                      30, GOLD, True, max_width=rect.width - 36)
        keys_top = rect.bottom - 2 * KEY_SIZE[1] - 6 - 10
        # at the right, clear of the panel's edge (draw.SEAT_MARGIN), centred where that is all the room
        keys_left = max(rect.left + (rect.width - 3 * KEY_SIZE[0] - 12) // 2, rect.right - 3 * KEY_SIZE[0] - 12 - 14)
        draw.soft_keys(surface, self.lang, seat.soft_keys, (keys_left, keys_top), KEY_SIZE, bold=False)

    def _scores(self, surface, view) -> None:
        box = scores_rect(view["players"])
        draw.panel(surface, box)
        draw.text(surface, self.t("tadika_scoreboard"), (box.left + 20, box.top + 12), 40, GOLD, True)
        best = max(view["scores"]) if view["scores"] else 0
        for i, score in enumerate(view["scores"]):
            y = box.top + 62 + 52 * i
            name = texts.seat_label(self.lang, i, self.names)
            draw.text(surface, name, (box.left + 20, y), 30, INK, score == best and best > 0, max_width=170)
            bar = pygame.Rect(box.left + 200, y + 4, 160, 26)
            draw.rounded(surface, (40, 80, 56), bar, 0, 6)
            filled = bar.copy()
            filled.width = max(0, min(bar.width, round(bar.width * score / view["target"])))
            draw.rounded(surface, GOLD, filled, 0, 6)
            draw.text(surface, texts.number(score), (box.right - 16, y), 32, INK, True, "topright")

    def _last_win(self, surface, view) -> None:
        win = view["last_win"]
        box = last_win_rect(view["players"])
        if win is None:
            return
        draw.panel(surface, box)
        draw.text(surface, self.t("tadika_last_round", n=len(view["history"]), player=win["player"]),
                  (box.left + 16, box.top + 12), 30, GOLD, True, max_width=box.width - 32)
        w, h = SMALL_CARD
        for k, card in enumerate(win["hand"]):
            draw_card(surface, self.lang, card, pygame.Rect(box.left + 16 + k * (w + 4), box.top + 54, w, h), small=True)
        draw.wrapped(surface, self.line_words(win), pygame.Rect(box.left + 16, box.top + 146, box.width - 32, 100),
                     28, INK)

    def line_words(self, win: dict[str, Any]) -> str:
        """"the 3 times table 2 + with the first move 5 = 7 points"."""
        line = win["line"]
        what = texts.colour_name(self.lang, line["what"]) if line["kind"] == "one_colour" else line["what"]
        colour = texts.colour_name(self.lang, ALL_CARDS[win["hand"][0]].colour or "") \
            if line["kind"] == "row_in_one_colour" else ""
        named = self.t(LINE_TEXT[line["kind"]], row=line["what"], what=what, colour=colour)
        if not win["bonuses"]:
            return texts.labelled(self.lang, named, self.t("tadika_points", n=win["points"]))
        parts = [f"{named} {line['points']}"] + [f"{self.t(BONUS_TEXT[name])} {points}"
                                                for name, points in win["bonuses"]]
        return f"{' + '.join(parts)} = {self.t('tadika_points', n=win['points'])}"

    def _message(self, surface, snap) -> None:
        draw.message_box(surface, self.lang, snap, self.names, MESSAGE, "tadika_help_line", 30)

    def _winner(self, surface, view) -> None:
        """Under the winning hand: who won, the line that scored, the final points."""
        banner = pygame.Rect(MAIN.left + 60, 410, MAIN.width - 120, 170)
        draw.panel(surface, banner, GOLD, 6)
        names = [texts.seat_label(self.lang, p, self.names) for p in view["winners"]]
        if len(names) > 1:                             # a tie: said as one
            words = self.t("tadika_winners_tie", names=self.t("names_and").join(names))
        else:
            words = self.t("tadika_winner_banner", player=names[0])
        draw.text(surface, words, (banner.centerx, banner.top + 18), 56, GOLD, True, "midtop", banner.width - 40)
        draw.text(surface, self.line_words(view["last_win"]), (banner.centerx, banner.top + 82), 34, INK, False,
                  "midtop", banner.width - 40)
        scores = " : ".join(texts.number(s) for s in view["scores"])
        draw.text(surface, scores, (banner.centerx, banner.top + 124), 36, INK, True, "midtop")


def draw_card(surface: pygame.Surface, lang: str, name: str, rect: pygame.Rect, *, small: bool = False) -> None:
    """A NumNum card: its number in its colour's ink, the colour's shape in the corner and
    its name at the foot; the joker says so; wish and forbidden cards by their faces."""
    draw.face(surface, rect, ("tadika", lang, name, rect.size, small),
              lambda image, at: _paint_card(image, lang, name, at, small))


def _paint_card(surface: pygame.Surface, lang: str, name: str, rect: pygame.Rect, small: bool) -> None:
    card = ALL_CARDS[name]
    radius = 8 if small else 14
    if card.kind == "number" and card.colour is not None:      # (every number card has a colour)
        face, ink = FACE[card.colour], INK_OF[card.colour]
    else:
        face, ink = (WISH_FACE, GOLD) if card.kind == "wish" else (FORBID_FACE, RED)
    draw.rounded(surface, face, rect, 0, radius)
    draw.rounded(surface, ink if card.kind == "number" else (20, 20, 20), rect, 2 if small else 4, radius)
    if card.kind == "number" and card.colour is not None:
        big = int(rect.height * (0.5 if small else 0.42))
        draw.text(surface, str(card.value), (rect.centerx, rect.centery - 12), max(28, big), ink, True, "center")
        if small:
            draw.shape(surface, SHAPE[card.colour], (rect.centerx, rect.bottom - 14), 8, ink)
            return
        draw.shape(surface, SHAPE[card.colour], (rect.left + 24, rect.top + 24), 14, ink)
        draw.shape(surface, SHAPE[card.colour], (rect.right - 24, rect.top + 24), 14, ink)
        label = texts.render(lang, "tadika_joker") if card.is_joker else texts.colour_name(lang, card.colour)
        draw.text(surface, label, (rect.centerx, rect.bottom - 12), 30, ink, True, "midbottom", rect.width - 12)
    elif card.kind == "wish":
        star(surface, rect.center if small else (rect.centerx, rect.centery - 16), rect.width * 0.3, GOLD)
        if not small:
            draw.text(surface, texts.render(lang, "tadika_wish_face"), (rect.centerx, rect.bottom - 12), 30, GOLD,
                      True, "midbottom", rect.width - 12)
    else:
        centre = rect.center if small else (rect.centerx, rect.centery - 16)
        r = int(rect.width * 0.32)
        pygame.draw.circle(surface, RED, centre, r, max(3, r // 5))
        pygame.draw.line(surface, RED, (centre[0] - r * 0.7, centre[1] + r * 0.7),
                         (centre[0] + r * 0.7, centre[1] - r * 0.7), max(3, r // 5))
        draw.text(surface, str(card.bars), centre, max(28, r), INK, True, "center")
        if not small:
            draw.text(surface, texts.render(lang, "tadika_forbidden_face"), (rect.centerx, rect.bottom - 12), 30,
                      RED, True, "midbottom", rect.width - 12)


def star(surface: pygame.Surface, centre: tuple[float, float], r: float, colour: tuple[int, int, int]) -> None:
    points = []
    for k in range(10):
        angle = -math.pi / 2 + k * math.pi / 5
        radius = r if k % 2 == 0 else r * 0.45
        points.append((centre[0] + radius * math.cos(angle), centre[1] + radius * math.sin(angle)))
    pygame.draw.polygon(surface, colour, points)


def card_face(surface: pygame.Surface, lang: str, card: str, rect: pygame.Rect) -> None:
    """One card of the deck, large, by its name in the rules' notation (enrollment shows it)."""
    draw_card(surface, lang, card, rect)


# -- how to play: the pictures beside the pages (controller/games/data/how_to_play.json) ---------------

def how_to_picture(surface: pygame.Surface, lang: str, picture: dict[str, Any], rect: pygame.Rect) -> None:
    """A page's picture: ``hands`` (rows of cards, each with its label above), ``swap`` (cards
    swapped one for the next, how each pair matches written between them) or ``points`` (the
    points table, from the component data)."""
    kind = picture["kind"]
    if kind == "points":
        _points_table(surface, lang, picture["lines"], rect)
    elif kind == "swap":
        _swaps(surface, lang, picture["cards"], rect)
    else:
        rows, labels = picture["rows"], picture.get("labels", [])
        label_h = 50 if labels else 0
        step = (rect.height - 10) // len(rows)
        for r, row in enumerate(rows):
            top = rect.top + 10 + r * step
            if r < len(labels):
                draw.text(surface, texts.render(lang, labels[r]), (rect.left + 10, top), 34, GOLD, True)
            h = min(step - label_h - 20, 300)
            w = min(round(h * MIDDLE_CARD[0] / MIDDLE_CARD[1]), (rect.width - 20 - 12 * (len(row) - 1)) // len(row))
            h = round(w * MIDDLE_CARD[1] / MIDDLE_CARD[0])
            x = rect.left + 10 if labels else rect.centerx - (len(row) * (w + 12) - 12) // 2
            for k, card in enumerate(row):
                draw_card(surface, lang, card, pygame.Rect(x + k * (w + 12), top + label_h, w, h), small=w < 120)


def _swaps(surface: pygame.Surface, lang: str, cards: list[str], rect: pygame.Rect) -> None:
    """The book's stepping stones: each card swapped for the next; between them how they
    match (the colour, the times tables they share, the joker) and, matching twice, that the
    player stays on turn."""
    w, h = MIDDLE_CARD
    gap = (rect.width - len(cards) * w) // max(1, len(cards) - 1)   # room between the cards for the words
    top = rect.top + (rect.height - h) // 3
    for k, card in enumerate(cards):
        box = pygame.Rect(rect.left + k * (w + gap), top, w, h)
        draw_card(surface, lang, card, box)
        c = ALL_CARDS[card]
        rows = "" if not c.rows else texts.render(lang, "tadika_every_row") if c.is_joker else \
            "×" + " ".join(str(n) for n in c.rows)
        draw.text(surface, rows, (box.centerx, box.bottom + 10), 30, INK, True, "midtop", w + gap - 10)
        if k + 1 == len(cards):
            break
        nxt = ALL_CARDS[cards[k + 1]]
        y = top + h // 2
        pygame.draw.line(surface, GOLD, (box.right + 16, y), (box.right + gap - 16, y), 6)
        pygame.draw.polygon(surface, GOLD, [(box.right + gap - 12, y), (box.right + gap - 30, y - 14),
                                            (box.right + gap - 30, y + 14)])
        pygame.draw.polygon(surface, GOLD, [(box.right + 12, y), (box.right + 30, y - 14), (box.right + 30, y + 14)])
        matches = swap_match(card, cards[k + 1])
        words = []
        if "colour" in matches:
            words.append(texts.colour_name(lang, c.colour or ""))
        if "divisor" in matches:
            shared = sorted(set(c.rows) & set(nxt.rows)) if not (c.is_joker or nxt.is_joker) else []
            words.append("×" + " ".join(map(str, shared)) if shared else texts.render(lang, "tadika_joker"))
        if len(matches) == 2:
            words.append(texts.render(lang, "howto_tadika_match_again"))
        centre, below = box.right + gap // 2, y + 30
        for line in (line for word in words for line in draw.lines_of(word, gap - 24, 28, True)):
            draw.text(surface, line, (centre, below), 28, GOLD, True, "midtop")    # between the cards
            below += draw.line_step(28, True)


def _points_table(surface: pygame.Surface, lang: str, lines: list[list[str]], rect: pygame.Rect) -> None:
    """What a round's winner scores: each line of the rule page's table with its points."""
    box = rect.inflate(-10, -10)
    draw.panel(surface, box)
    step = (box.height - 30) // len(lines)
    for k, (key, points) in enumerate(lines):
        y = box.top + 20 + k * step
        draw.text(surface, texts.render(lang, key), (box.left + 24, y), 32, INK, False)
        draw.text(surface, str(POINTS[points]), (box.right - 24, y - 2), 36, GOLD, True, "topright")


VIEW = TadikaView
