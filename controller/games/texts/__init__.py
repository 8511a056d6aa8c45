"""Every sentence a person reads, in German, English, French and Italian.

The texts live in ``<lang>.json`` beside this file; code refers to them by key.
Parameters named like a seat (``player``, ``expected``, ``seat``) are shown as the
seat's name, ``card``, ``give`` and ``take`` as the card's name, ``colour`` and ``team`` as the colour's name, so the
rules core can say "not_your_turn" with seat numbers and each screen says it in
its own language.

A sentence that counts is written in plural forms, ``{"one": "{n} card", "other": "{n}
cards"}``; the parameter ``n`` chooses the form by the language's rule (French says "0
carte", the others "0 cards").
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any, Mapping, Sequence

LANGUAGES = ("de", "en", "fr", "it")
DEFAULT_LANGUAGE = "en"
_SEAT_PARAMS = frozenset({"player", "expected", "seat", "winner", "owner"})
_CARD_PARAMS = frozenset({"card", "give", "take"})


@lru_cache(maxsize=None)
def table(lang: str) -> dict[str, str]:
    if lang not in LANGUAGES:
        raise ValueError(f"no texts for language {lang!r}; choose one of {', '.join(LANGUAGES)}")
    with resources.files(__name__).joinpath(f"{lang}.json").open(encoding="utf-8") as f:
        return json.load(f)


def text(lang: str, key: str, **params: Any) -> str:
    return render(lang, key, params)


def render(lang: str, key: str, params: Mapping[str, Any] | None = None,
           seat_names: Sequence[str] | None = None) -> str:
    """The sentence for ``key`` in ``lang`` (English when ``lang`` lacks it)."""
    template = table(lang).get(key) or table(DEFAULT_LANGUAGE).get(key)
    if template is None:
        return key
    if isinstance(template, dict):
        template = template.get(plural_form(lang, (params or {}).get("n", 0))) or template.get("other", key)
    shown = {name: _show(lang, name, value, seat_names) for name, value in (params or {}).items()}
    try:
        return template.format(**shown)
    except (KeyError, IndexError, ValueError):
        return template


def plural_form(lang: str, n: Any) -> str:
    """CLDR's plural category of ``n`` for our languages: "one" or "other"."""
    try:
        count = abs(int(n))
    except (TypeError, ValueError):
        return "other"
    if lang == "fr":
        return "one" if count in (0, 1) else "other"
    return "one" if count == 1 else "other"


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
    """The letter printed on a special card, in the language's own edition (German: the King
    and Queen share their K, as the book prints it)."""
    return table(lang).get("_card_marks", {}).get(card) or table(DEFAULT_LANGUAGE)["_card_marks"].get(card, "?")


def colour_name(lang: str, colour: str) -> str:
    return table(lang).get("_colours", {}).get(colour, colour)


def _show(lang: str, name: str, value: Any, seat_names: Sequence[str] | None) -> Any:
    if value is None:
        return "–"
    if name in _SEAT_PARAMS and isinstance(value, int):
        return seat_label(lang, value, seat_names)
    if name in _CARD_PARAMS:
        return card_name(lang, str(value))
    if name in ("colour", "team"):
        return colour_name(lang, str(value))
    if name == "mission":
        return table(lang).get("_missions", {}).get(str(value), value)
    return value
