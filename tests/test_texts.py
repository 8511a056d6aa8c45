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
    assert set(other["_colours"]) == set(en["_colours"]) and set(other["_cards"]) == set(en["_cards"])


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


def test_unknown_language_is_refused():
    with pytest.raises(ValueError, match="de, en, fr, it"):
        texts.table("xx")
