"""Vocabulary kept as data: one entry per line in `core/lexicons/<name>.txt`.

Closed classes (the people a fact can be about, ...) live in these files, not in regex literals
spread over modules, so that a word is added in one place and every reader sees it.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from core.words import words_of

LEXICONS = Path(__file__).resolve().parent / "lexicons"


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


def has_phrase(text: str, name: str) -> bool:
    """Whether `text` holds a phrase of lexicon `name`, as whole words."""
    padded = f" {' '.join(words_of(text))} "
    return any(f" {phrase} " in padded for phrase in lexicon(name))
