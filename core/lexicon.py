"""Vocabulary kept as data: one entry per line in `core/lexicons/<name>.txt`.

Closed classes (the people a fact can be about, ...) live in these files, not in regex literals
spread over modules, so that a word is added in one place and every reader sees it.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

LEXICONS = Path(__file__).resolve().parent / "lexicons"
# Letters of any script ("Inês", "Zürich", "東京"), digits, inner apostrophes and hyphens.
_WORD = re.compile(r"[^\W_][\w'\u2019-]*")


@cache
def lexicon(name: str) -> frozenset[str]:
    """The entries of one lexicon file, lower-cased; blank lines and `#` comments skipped."""
    entries = set()
    for line in (LEXICONS / f"{name}.txt").read_text(encoding="utf-8").splitlines():
        entry = line.split("#", 1)[0].strip().lower()
        if entry:
            entries.add(entry)
    return frozenset(entries)


@cache
def pairs(name: str) -> dict[str, str]:
    """A lexicon of pairs, "word other" per line (`verb_forms`, `participles`), as a mapping."""
    return dict(entry.split(maxsplit=1) for entry in lexicon(name))


@cache
def names(name: str) -> dict[str, str]:
    """A lexicon of names kept as written (`given_names`, `place_names`): each name, lower-cased,
    to its written form ("new york" -> "New York")."""
    written = {}
    for line in (LEXICONS / f"{name}.txt").read_text(encoding="utf-8").splitlines():
        entry = line.split("#", 1)[0].strip()
        if entry:
            written[entry.lower()] = entry
    return written


def words_of(text: str) -> list[str]:
    """The lower-cased words of `text`, in any script, with inner apostrophes and hyphens:
    the one tokeniser of the readers, the grounding check and the judge."""
    return _WORD.findall(text.lower().replace("\u2019", "'"))


def has_phrase(text: str, name: str) -> bool:
    """Whether `text` holds a phrase of lexicon `name`, as whole words."""
    padded = f" {' '.join(words_of(text))} "
    return any(f" {phrase} " in padded for phrase in lexicon(name))


def word_spans(text: str) -> list[re.Match]:
    """The words of `text` as `words_of` reads them, where they stand, as written: for a
    rewrite that keeps the rest of the text ("in turin," is "in Turin,")."""
    return list(_WORD.finditer(text))


class LexiconFormatError(ValueError):
    """A lexicon line that breaks its file's declared format: a data error, never ignored."""


def _lines(name: str) -> list[str]:
    lines = []
    for line in (LEXICONS / f"{name}.txt").read_text(encoding="utf-8").splitlines():
        entry = line.split("#", 1)[0].strip().lower()
        if entry:
            lines.append(entry)
    return lines


@cache
def broader(name: str) -> dict[str, str]:
    """A lexicon of kinds, "narrower > broader" per line (`kinds`), as a mapping; a line
    without exactly one ">", or a word given two broader terms, is a `LexiconFormatError`."""
    found: dict[str, str] = {}
    for entry in _lines(name):
        parts = [part.strip() for part in entry.split(">")]
        if len(parts) != 2 or not all(parts):
            raise LexiconFormatError(f"{name}: {entry!r} is not 'narrower > broader'")
        narrow, broad = (" ".join(words_of(part)) for part in parts)
        if found.get(narrow, broad) != broad:
            raise LexiconFormatError(f"{name}: {narrow!r} has two broader terms")
        found[narrow] = broad
    return found


@cache
def tagged(name: str, tags: tuple[str, ...]) -> dict[str, frozenset[str]]:
    """A lexicon of tagged phrases, "tag: phrase" per line (`change_cues`), as the phrases of
    each tag; an unknown tag or a line without one is a `LexiconFormatError`."""
    found: dict[str, set[str]] = {tag: set() for tag in tags}
    for entry in _lines(name):
        tag, colon, phrase = entry.partition(":")
        if not colon or tag.strip() not in found or not phrase.strip():
            raise LexiconFormatError(f"{name}: {entry!r} is not '<{'|'.join(tags)}>: phrase'")
        found[tag.strip()].add(" ".join(phrase.split()))
    return {tag: frozenset(phrases) for tag, phrases in found.items()}
