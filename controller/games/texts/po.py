"""Reading gettext catalogues (``.po``): the entries, the plural forms and the header's
plural rule, with the standard library only (the Pi needs no extra package for it).

Understood: ``msgctxt``, ``msgid``, ``msgid_plural``, ``msgstr``, ``msgstr[N]``, strings
continued on following lines, the C escapes a catalogue uses, comments and flags. An
entry flagged ``fuzzy`` is not a translation yet and is left out, as gettext does. The
tests read every catalogue with Babel too and compare."""

from __future__ import annotations

import gettext
from dataclasses import dataclass, field
from typing import Callable

ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r"}


@dataclass
class Entry:
    context: str | None = None
    id: str = ""
    id_plural: str | None = None
    strings: list[str] = field(default_factory=list)     # msgstr, or msgstr[0], msgstr[1], …
    flags: set[str] = field(default_factory=set)
    comments: list[str] = field(default_factory=list)    # the translator's ("# …")


class CatalogueError(ValueError):
    """A catalogue that is not well-formed: the file and line say where."""


def unquote(text: str, where: str) -> str:
    text = text.strip()
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        raise CatalogueError(f"{where}: a string in double quotes expected, not {text!r}")
    out, chars, i = [], text[1:-1], 0
    while i < len(chars):
        ch = chars[i]
        if ch == "\\":
            if i + 1 >= len(chars) or chars[i + 1] not in ESCAPES:
                raise CatalogueError(f"{where}: unknown escape in {text!r}")
            out.append(ESCAPES[chars[i + 1]])
            i += 2
            continue
        if ch == '"':
            raise CatalogueError(f"{where}: an unescaped quote in {text!r}")
        out.append(ch)
        i += 1
    return "".join(out)


def read_po(text: str, name: str = "catalogue") -> tuple[dict[str, str], list[Entry]]:
    """The header's fields and the entries of a ``.po`` file's text."""
    entries: list[Entry] = []
    target: tuple[str, int | None] | None
    entry, target = Entry(), None                  # target: (field, index) the strings go to
    seen_keyword = False

    def finish() -> None:
        nonlocal entry, target, seen_keyword
        if seen_keyword:
            entries.append(entry)
        entry, target, seen_keyword = Entry(), None, False

    for number, raw in enumerate(text.splitlines(), 1):
        where = f"{name}:{number}"
        line = raw.strip()
        if not line:
            finish()
            continue
        if line.startswith("#"):
            if seen_keyword and target is not None and target[0] == "strings":
                finish()                           # a comment starts the next entry
            if line.startswith("#,"):
                entry.flags |= {f.strip() for f in line[2:].split(",") if f.strip()}
            elif line.startswith("# ") or line == "#":
                entry.comments.append(line[2:])
            continue
        if line.startswith('"'):
            if target is None:
                raise CatalogueError(f"{where}: a string with no keyword before it")
            value = unquote(line, where)
            if target[0] == "strings" and target[1] is not None:
                entry.strings[target[1]] += value
            else:
                setattr(entry, target[0], getattr(entry, target[0]) + value)
            continue
        keyword, _, rest = line.partition(" ")
        if keyword in ("msgctxt", "msgid") and seen_keyword and target is not None and target[0] == "strings":
            finish()                               # entries not separated by a blank line
        seen_keyword = True
        if keyword == "msgctxt":
            entry.context, target = unquote(rest, where), ("context", None)
        elif keyword == "msgid":
            entry.id, target = unquote(rest, where), ("id", None)
        elif keyword == "msgid_plural":
            entry.id_plural, target = unquote(rest, where), ("id_plural", None)
        elif keyword == "msgstr":
            if entry.id_plural is not None:
                raise CatalogueError(f"{where}: msgstr in an entry with msgid_plural (msgstr[0], msgstr[1], …)")
            entry.strings, target = [unquote(rest, where)], ("strings", 0)
        elif keyword.startswith("msgstr[") and keyword.endswith("]") and keyword[7:-1].isdigit():
            index = int(keyword[7:-1])
            if entry.id_plural is None:
                raise CatalogueError(f"{where}: {keyword} in an entry without msgid_plural")
            if index != len(entry.strings):
                raise CatalogueError(f"{where}: {keyword} out of order")
            entry.strings.append(unquote(rest, where))
            target = ("strings", index)
        else:
            raise CatalogueError(f"{where}: unknown keyword {keyword!r}")
    finish()
    header: dict[str, str] = {}
    if entries and entries[0].id == "" and entries[0].context is None:
        for row in entries.pop(0).strings[0].splitlines():
            key, _, value = row.partition(":")
            if key.strip():
                header[key.strip()] = value.strip()
    return header, [e for e in entries if "fuzzy" not in e.flags]


def plural_rule(header: dict[str, str], name: str = "catalogue") -> Callable[[int], int]:
    """The header's ``Plural-Forms`` as a function: n → the index of the form to use."""
    forms = header.get("Plural-Forms", "")
    expression = forms.partition("plural=")[2].rstrip(";").strip()
    if not expression:
        raise CatalogueError(f"{name}: no Plural-Forms in the header")
    try:
        return gettext.c2py(expression)           # the standard library's own reading of it
    except ValueError as exc:
        raise CatalogueError(f"{name}: Plural-Forms {expression!r}: {exc}") from exc
