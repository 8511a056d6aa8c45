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

A sentence that counts has plural forms (``msgid_plural``, ``msgstr[0]``, ``msgstr[1]``);
the parameter ``n`` chooses the form by the catalogue's own ``Plural-Forms`` rule (French
says "0 carte", the others "0 cards").
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Any, Callable, Mapping, Sequence

from controller.games.texts.po import plural_rule, read_po

LANGUAGES = ("de", "en", "fr", "it")
DEFAULT_LANGUAGE = "en"
_SEAT_PARAMS = frozenset({"player", "expected", "seat", "winner", "owner"})
_CARD_PARAMS = frozenset({"card", "give", "take"})
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


def _fill(lang: str, template: Any, params: Mapping[str, Any] | None, seat_names: Sequence[str] | None) -> str:
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
    specials = names.get("_cards", {})
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
    return table(lang).get("_card_marks", {}).get(card) or table(DEFAULT_LANGUAGE)["_card_marks"].get(card, "?")


def date_time(lang: str, day: int, month: int, hour: int, minute: int) -> str:
    """A moment as people here write it: day and month in the language's way ("25.11." in
    German, "25/11" in English, French and Italian) and the time ("19:40")."""
    return f"{text(lang, 'date_day_month', d=f'{day:02d}', m=f'{month:02d}')} {hour:02d}:{minute:02d}"


def colour_name(lang: str, colour: str) -> str:
    return table(lang).get("_colours", {}).get(colour, colour)


def _show(lang: str, name: str, value: Any, seat_names: Sequence[str] | None) -> Any:
    if value is None:
        return "–"
    if name in _SEAT_PARAMS and isinstance(value, int):
        return seat_label(lang, value, seat_names)
    if name == "seats" and isinstance(value, (list, tuple)):        # "Anna, Ben and Clara"
        labels = [seat_label(lang, int(s), seat_names) for s in value]
        if len(labels) < 2:
            return "".join(labels)
        return f"{', '.join(labels[:-1])} {render(lang, 'list_and')} {labels[-1]}"
    if name in _CARD_PARAMS:
        return card_name(lang, str(value))
    if name in ("colour", "team"):
        return colour_name(lang, str(value))
    if name == "mission":
        return table(lang).get("_missions", {}).get(str(value), value)
    return value
