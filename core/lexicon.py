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
    return frozenset(_lines(name))


@cache
def pairs(name: str) -> dict[str, str]:
    """A lexicon of pairs, "word other" per line (`verb_forms`, `participles`), as a mapping."""
    return dict(entry.split(maxsplit=1) for entry in lexicon(name))


@cache
def group_heads(name: str) -> dict[str, str]:
    """A lexicon of groups, words meaning one thing per line (`same_words`), as a mapping of
    each word to its group's first word."""
    return {word: group.split()[0] for group in lexicon(name) for word in group.split()}


@cache
def names(name: str) -> dict[str, str]:
    """A lexicon of names kept as written (`given_names`, `place_names`): each name, lower-cased,
    to its written form ("new york" -> "New York")."""
    return {entry.lower(): entry for entry in _lines(name, written=True)}


def has_phrase(text: str, name: str) -> bool:
    """Whether `text` holds a phrase of lexicon `name`, as whole words."""
    padded = f" {' '.join(words_of(text))} "
    return any(f" {phrase} " in padded for phrase in lexicon(name))


class LexiconFormatError(ValueError):
    """A lexicon line that breaks its file's declared format: a data error, never ignored."""


def _lines(name: str, *, written: bool = False) -> list[str]:
    """A lexicon file's entries, lower-cased unless `written`; blank lines and `#` comments
    skipped."""
    lines = []
    for line in (LEXICONS / f"{name}.txt").read_text(encoding="utf-8").splitlines():
        entry = line.split("#", 1)[0].strip()
        if entry:
            lines.append(entry if written else entry.lower())
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
