"""Every sentence exists in all four languages, and every key the code raises is written."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from controller.games import texts

ROOT = Path(__file__).resolve().parent.parent


def fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


@pytest.mark.parametrize("lang", texts.LANGUAGES)
def test_same_keys_and_placeholders_as_english(lang):
    en, other = texts.table("en"), texts.table(lang)
    assert set(other) == set(en)
    for key, template in en.items():
        if isinstance(template, str):
            assert fields(other[key]) == fields(template), (lang, key)
        elif not key.startswith("_"):              # plural forms: the same forms, the same fields
            assert set(other[key]) == set(template) == {"one", "other"}, (lang, key)
            for form in template:
                assert fields(other[key][form]) == fields(template[form]) >= {"n"}, (lang, key, form)
    assert set(other["_colours"]) == set(en["_colours"]) and set(other["_cards"]) == set(en["_cards"])
    assert set(other["_missions"]) == set(en["_missions"])


def test_every_key_used_in_code_has_a_text():
    used = set()
    for path in list((ROOT / "controller").rglob("*.py")) + list((ROOT / "display").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        used |= set(re.findall(r'IllegalAction\(\s*"([a-z_]+)"', source))
        used |= set(re.findall(r'(?:Message|SoftKey)\(\s*"([a-z_]+)"', source))
        used |= set(re.findall(r'self\.t\(\s*"([a-z_]+)"', source))
        used |= set(re.findall(r'return "(prompt_[a-z_]+)"', source))
    used |= {f"phase_{p}" for p in ("trump_number", "trump_colour", "bidding", "playing")}
    assert used, "the scan found no keys"
    missing = used - set(texts.table("en"))
    assert not missing


def test_seats_cards_and_colours_are_shown_by_name():
    assert texts.render("de", "card_already_played", {"card": "green4"}) == "Grün 4 wurde in dieser Runde schon gespielt."
    assert texts.render("en", "not_your_turn", {"player": 0, "expected": 1}) == "It is Seat 2’s turn, not Seat 1’s."
    assert texts.card_name("fr", "dungeon") == "Cachot"


@pytest.mark.parametrize("lang, n, words", [
    ("en", 1, "1 card"), ("en", 0, "0 cards"), ("en", 7, "7 cards"),
    ("de", 1, "1 Karte"), ("de", 2, "2 Karten"),
    ("fr", 0, "0 carte"), ("fr", 1, "1 carte"), ("fr", 2, "2 cartes"),
    ("it", 1, "1 carta"), ("it", 5, "5 carte"),
])
def test_counted_words_take_the_plural_of_their_language(lang, n, words):
    assert texts.render(lang, "tadika_cards_in_hand", {"n": n}) == words


def test_one_of_several_equal_cards_is_named_by_its_kind():
    assert texts.card_name("de", "wish-3") == "Wunschkarte"
    assert texts.card_name("it", "forbid5-1") == "Carta divieto 5"
    assert texts.card_name("fr", "pink14") == "rose 14"


def test_unknown_language_is_refused():
    with pytest.raises(ValueError, match="de, en, fr, it"):
        texts.table("xx")
