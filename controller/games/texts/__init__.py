"""Every sentence a person reads, in German, English, French and Italian.

The texts live in gettext catalogues, ``<lang>.po`` beside this file (edit them with any
PO editor, or by hand); code refers to a sentence by its key, which is the entry's
``msgid``. English (``en.po``) is the source; each other catalogue shows the English
sentence to its translator (``#.``). Names live under a context: ``msgctxt "colour"``,
``"card"``, ``"mission"`` and ``"card_mark"`` (the letter printed on a special card).
Under ``msgctxt "seat"`` a sentence has a short form for a seat's narrow panel, which
must be read from the sofa at 28 px (Crazy Kick's seats: ``render_at_seat``).

Parameters named like a seat (``player``, ``expected``, ``seat``) are shown as the
seat's name, ``card``, ``give`` and ``take`` as the card's name, ``colour`` and ``team`` as the colour's name, so the
rules core can say "not_your_turn" with seat numbers and each screen says it in
its own language.

A parameter holding a list is said as a list: ``seats`` as the seats' names, ``cards`` as the
cards' names ("red 5, green 3 and King"; a run of one colour as "green 6–9"), ``piles`` and
``rows`` as numbers, ``missions`` by their names, ``swaps`` ("blue5>blue15") as "blue 5 for
blue 15", all joined with "and"; ``takes`` and
``again`` (cards), ``colours`` and ``packages`` (Team UP!'s "A:red") joined with "or".

How to play a game: ``how_to_play(game, lang)``, short pages whose words are entries of these
catalogues (``howto_<game>_<page>_title`` and ``howto_<game>_<page>``) and whose order and
pictures are data (``controller/games/data/how_to_play.json``; each game's view draws the
pictures).

A sentence that counts has plural forms (``msgid_plural``, ``msgstr[0]``, ``msgstr[1]``);
the parameter ``n`` chooses the form by the catalogue's own ``Plural-Forms`` rule (French
says "0 carte", the others "0 cards").
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Callable, Iterable, Mapping, Sequence

from controller.games.texts.po import plural_rule, read_po

LANGUAGES = ("de", "en", "fr", "it")
DEFAULT_LANGUAGE = "en"
_SEAT_PARAMS = frozenset({"player", "expected", "seat", "winner", "owner"})
_CARD_PARAMS = frozenset({"card", "give", "take"})
# a list parameter said as a list: what each item is said as, and the word before the last
_LISTS = {"seats": ("seat", "list_and"), "cards": ("card", "list_and"), "takes": ("card", "list_or"),
          "again": ("card", "list_or"),
          "piles": ("number", "list_and"), "counts": ("number", "list_or"), "rows": ("number", "list_and"), "colours": ("colour", "list_or"),
          "packages": ("package", "list_or"), "missions": ("mission", "list_and"), "swaps": ("swap", "list_and")}
# a context of the catalogues → where its names are in ``table``
CONTEXTS = {"colour": "_colours", "card": "_cards", "mission": "_missions", "card_mark": "_card_marks",
            "seat": "_seat"}


@lru_cache(maxsize=None)
def table(lang: str) -> dict[str, Any]:
    """The catalogue of ``lang``: key → sentence, or the tuple of its plural forms; and the
    names of each context under ``_colours``, ``_cards``, ``_missions``, ``_card_marks``."""
    if lang not in LANGUAGES:
        raise ValueError(f"no texts for language {lang!r}; choose one of {', '.join(LANGUAGES)}")
    name = f"{lang}.po"
    header, entries = read_po(resources.files(__name__).joinpath(name).read_text(encoding="utf-8"), name)
    out: dict[str, Any] = {group: {} for group in CONTEXTS.values()}
    for entry in entries:
        value: Any = tuple(entry.strings) if entry.id_plural is not None else entry.strings[0]
        if entry.context is None:
            out[entry.id] = value
        else:
            out[CONTEXTS[entry.context]][entry.id] = value
    _PLURALS[lang] = plural_rule(header, name)
    return out


_PLURALS: dict[str, Callable[[int], int]] = {}


def text(lang: str, key: str, **params: Any) -> str:
    return render(lang, key, params)


def render(lang: str, key: str, params: Mapping[str, Any] | None = None,
           seat_names: Sequence[str] | None = None) -> str:
    """The sentence for ``key`` in ``lang`` (English when ``lang`` lacks it)."""
    template = table(lang).get(key) or table(DEFAULT_LANGUAGE).get(key)
    if template is None:
        return key
    return _fill(lang, template, params, seat_names)


def render_at_seat(lang: str, key: str, params: Mapping[str, Any] | None = None,
                   seat_names: Sequence[str] | None = None) -> str:
    """The sentence's short form for a seat's panel (``msgctxt "seat"``), or the sentence
    itself when it has none (it is short enough)."""
    template = table(lang)["_seat"].get(key)
    return render(lang, key, params, seat_names) if template is None else _fill(lang, template, params, seat_names)


def _fill(lang: str, template: str | tuple[str, ...], params: Mapping[str, Any] | None, seat_names: Sequence[str] | None) -> str:
    if isinstance(template, tuple):
        template = template[min(plural_index(lang, (params or {}).get("n", 0)), len(template) - 1)]
    shown = {name: _show(lang, name, value, seat_names) for name, value in (params or {}).items()}
    try:
        return template.format(**shown)
    except (KeyError, IndexError, ValueError):
        return template


def plural_index(lang: str, n: Any) -> int:
    """Which of a sentence's plural forms ``n`` takes in ``lang``: the catalogue's rule."""
    table(lang)
    try:
        count = abs(int(n))
    except (TypeError, ValueError):
        count = 2                          # not a number: the form for many
    return _PLURALS[lang](count)


def seat_label(lang: str, seat: int, seat_names: Sequence[str] | None = None) -> str:
    if seat_names is not None and 0 <= seat < len(seat_names) and seat_names[seat]:
        return seat_names[seat]
    return render(lang, "seat_n", {"n": seat + 1})


def card_name(lang: str, card: str) -> str:
    """``red5`` → "red 5" / "Rot 5"; specials by their printed names."""
    names = table(lang)
    specials: dict[str, str] = names.get("_cards", {})
    if card in specials:
        return specials[card]
    kind, dash, copy = card.rpartition("-")      # one of several equal cards: "wish-3", "red3-2"
    if dash and copy.isdigit():
        if kind in specials:
            return specials[kind]
        card = kind
    for colour in names.get("_colours", {}):
        if card.startswith(colour) and card[len(colour):].isdigit():
            return f"{names['_colours'][colour]} {card[len(colour):]}"
    return card


def card_mark(lang: str, card: str) -> str:
    """The letter printed on a special card, in the language's own edition; where two cards
    share one (German K, French and Italian R for King and Queen) the Queen's adds the letter
    that tells her apart (Kn, Rn, Rg): the screen shows which of the two was played."""
    mark: str = table(lang).get("_card_marks", {}).get(card) or table(DEFAULT_LANGUAGE)["_card_marks"].get(card, "?")
    return mark


def date_time(lang: str, day: int, month: int, hour: int, minute: int) -> str:
    """A moment as people here write it: day and month in the language's way ("25.11." in
    German, "25/11" in English, French and Italian) and the time ("19:40")."""
    return f"{text(lang, 'date_day_month', d=f'{day:02d}', m=f'{month:02d}')} {hour:02d}:{minute:02d}"


def colour_name(lang: str, colour: str) -> str:
    name: str = table(lang).get("_colours", {}).get(colour, colour)
    return name


def labelled(lang: str, label: str, value: Any = "") -> str:
    """"label: value" as ``lang`` writes it (French puts a space before the colon, as every
    sentence of its catalogue does); without a value, the label and its colon alone."""
    return render(lang, "label_value", {"label": label, "value": value}).rstrip()


def number(value: int, *, signed: bool = False) -> str:
    """A whole number as the screen shows it: below zero with a real minus sign ("−27", not
    the hyphen "-27"); ``signed``: a plus before the others ("+3", "+0")."""
    if value < 0:
        return f"−{-value}"
    return f"+{value}" if signed else str(value)


def _show(lang: str, name: str, value: Any, seat_names: Sequence[str] | None) -> Any:
    if value is None:
        return "–"
    if isinstance(value, int) and not isinstance(value, bool) and value < 0 and name not in _SEAT_PARAMS:
        return number(value)
    if name in _SEAT_PARAMS and isinstance(value, int):
        return seat_label(lang, value, seat_names)
    if name in _LISTS and isinstance(value, (list, tuple)):        # "Anna, Ben and Clara"
        kind, word = _LISTS[name]
        return said_as_list(lang, [_item(lang, kind, v, seat_names) for v in
                                   (_runs(lang, value) if kind == "card" else value)], word)
    if name in _CARD_PARAMS:
        return card_name(lang, str(value))
    if name in ("colour", "team"):
        return colour_name(lang, str(value))
    if name == "mission":
        return table(lang).get("_missions", {}).get(str(value), value)
    return value


def said_as_list(lang: str, labels: Sequence[str], word: str = "list_and") -> str:
    """"a, b and c" (``word``: the key of "and" or "or" in ``lang``)."""
    labels = list(labels)
    if len(labels) < 2:
        return "".join(labels)
    return f"{', '.join(labels[:-1])} {render(lang, word)} {labels[-1]}"


def _item(lang: str, kind: str, value: Any, seat_names: Sequence[str] | None) -> str:
    if kind == "seat":
        return seat_label(lang, int(value), seat_names)
    if kind == "card":
        return value if isinstance(value, _Run) else card_name(lang, str(value))
    if kind == "colour":
        return colour_name(lang, str(value))
    if kind == "swap":                              # "blue5>blue15": "blue 5 for blue 15"
        give, _, take = str(value).partition(">")
        return render(lang, "swap_for", {"give": give, "take": take})
    if kind == "mission":
        mission: str = table(lang).get("_missions", {}).get(str(value), str(value))
        return mission
    if kind == "package":                           # Team UP!'s "A:red": the shape's letter and the colour
        shape, _, colour = str(value).partition(":")
        return f"{shape} {colour_name(lang, colour)}".strip()
    return str(value)


class _Run(str):
    """Cards of one colour in a row, already said ("green 6–9")."""


def _runs(lang: str, cards: Sequence[Any]) -> list[Any]:
    """Three or more cards of one colour with consecutive numbers, said as one ("green 6–9");
    every other card as it is. The order is kept; a run takes the place of its first card."""
    names = table(lang).get("_colours", {})
    parsed = []
    for card in cards:
        kind = str(card).rpartition("-")[0] if str(card).rpartition("-")[2].isdigit() else str(card)
        colour = next((c for c in names if kind.startswith(c) and kind[len(c):].isdigit()), None)
        parsed.append((colour, int(kind[len(colour):]) if colour else 0))     # no colour: no run, its 0 unread
    out: list[Any] = []
    used: set[int] = set()
    for i, (colour, value) in enumerate(parsed):
        if i in used:
            continue
        run = [i]
        if colour is not None:
            following = {v: j for j, (c, v) in enumerate(parsed) if c == colour and j not in used and j != i}
            while value + len(run) in following:
                run.append(following[value + len(run)])
        if len(run) >= 3:
            used.update(run)
            out.append(_Run(f"{names[colour]} {value}–{value + len(run) - 1}"))
        else:
            used.add(i)
            out.append(cards[i])
    return out


@dataclass(frozen=True)
class Page:
    """One page of a game's how to play: its title, its words (paragraphs split at new lines)
    and the picture the game's view draws beside them (``display/<game>_view.py``,
    ``how_to_picture``)."""

    title: str
    text: str
    picture: dict[str, Any]


@lru_cache(maxsize=None)
def _pages() -> dict[str, Any]:
    path = resources.files("controller.games") / "data" / "how_to_play.json"
    pages: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return pages


def how_to_play(game: str, lang: str, variants: Iterable[str] = ()) -> list[Page]:
    """The pages that explain ``game`` (its name, "team-up") in ``lang``, in their order.
    ``variants``: the game's switches that are on (``GameRules.options``); a page that
    lists one of them under "variants" says it in its own words (``howto_<game>_<page>_<variant>``)."""
    pages = _pages().get(game)
    if pages is None:
        raise KeyError(f"no pages for {game!r}; there are pages for {', '.join(sorted(k for k in _pages() if k[0] != '_'))}")
    prefix = "howto_" + game.replace("-", "")
    on = set(variants)

    def words(page: dict[str, Any]) -> str:
        chosen = [v for v in page.get("variants", ()) if v in on]
        return render(lang, f"{prefix}_{page['page']}" + "".join(f"_{v}" for v in chosen))

    return [Page(render(lang, f"{prefix}_{page['page']}_title"), words(page), dict(page["picture"]))
            for page in pages]
