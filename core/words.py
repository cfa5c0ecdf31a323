"""Words: the one tokenizer and the one stemmer of the service.

Every reader of text (the offline reader, the grounding check, the judge, the registry, recall's
index and its domains) splits it into words here and matches a word's inflections here, so
"full-time", "Zürich" or "don't" is one word, and "moved" one stem, wherever it is read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

# Letters of any script ("Inês", "Zürich", "東京"), digits, inner apostrophes and hyphens.
_WORD = re.compile(r"[^\W_][\w'\u2019-]*")
# Where a word splits into the parts an index matches: a hyphen or an underscore inside it.
_PART_BREAK = re.compile(r"[-_]+")


def words_of(text: str, *, case: bool = False, parts: bool = False) -> list[str]:
    """The lower-cased words of `text`, in any script, with inner apostrophes (a curly one
    straightened) and hyphens: "I'm full-time in Zürich" is ["i'm", "full-time", "in",
    "zürich"].

    `case`: as typed ("I'm", "Full-time"), for a name's capital; the same words otherwise.
    `parts`: the parts an index matches, each word cut at its hyphens and without the tail of
    its apostrophe ("full", "time"; "kid's" is "kid", "don't" is "don").
    """
    text = text.replace("\u2019", "'")
    found = _WORD.findall(text if case else text.lower())
    if not parts:
        return found
    cut: list[str] = []
    for word in found:
        head = word.split("'", 1)[0]
        if "-" in head or "_" in head:
            cut += [part for part in _PART_BREAK.split(head) if part]
        else:
            cut.append(head)
    return cut


# A sentence and the marks that end it; a run of marks alone is one too, so that the sentences
# put back together are the text.
_SENTENCE = re.compile(r"[^.!?\n]+[.!?\n]*|[.!?\n]+")


def sentences(text: str) -> list[str]:
    """The sentences of `text`, each with its marks, as `sentences_rewritten` cuts them."""
    return [match.group(0) for match in _SENTENCE.finditer(text)]


def sentences_rewritten(text: str, rewrite: Callable[[str], str]) -> str:
    """The text with each sentence rewritten on its own (its marks and spaces included): a
    message of thousands of matches costs one pass, never one pass a match."""
    return "".join(rewrite(match.group(0)) for match in _SENTENCE.finditer(text))


# The years a bare four-digit number can name ("since 2019"; "2000 steps" is no time): one
# span for the time phrases extraction reads and the dates recall reads in a prompt.
YEARS = range(1900, 2101)


def names_a_year(word: str) -> bool:
    """Whether a word is a number that names a year of `YEARS` ("2019"; not "20000")."""
    return word.isdigit() and int(word) in YEARS


def word_spans(text: str) -> list[re.Match]:
    """The words of `text` as `words_of` reads them, where they stand, as written: for a
    rewrite that keeps the rest of the text ("in turin," is "in Turin,")."""
    return list(_WORD.finditer(text))


_IRREGULAR = {"children": "child", "men": "man", "women": "woman", "people": "person"}
# The suffixes a light stemmer takes off, with what replaces each and how long the rest must
# be, in the order they are tried (plurals, -ing, -ed, -ly, -ness).
_SUFFIXES = (
    ("ies", "y", 3),
    ("sses", "ss", 2),
    ("ness", "", 4),
    ("ing", "", 3),
    ("edly", "", 3),
    ("ed", "", 3),
    ("ly", "", 4),
    ("es", "", 4),
    ("s", "", 3),
)
# How many letters of a stem a loose match keeps: where a word's derivations meet.
_LOOSE = 4


@lru_cache(maxsize=65536)
def stem(word: str, *, loose: bool = False) -> str:
    """A lower-cased word without its common English inflections ("moved" and "moving" are
    "mov", "puppies" is "puppy", "watches" "watch"), nor a possessive or contraction tail
    ("kid's" is "kid").

    `loose`: only the stem's first letters, where a word and its derivations meet ("vegan",
    "veganism"): enough to check that the user said a word in some form, too loose to rank by.
    """
    found = _inflections_off(word.strip("'-").split("'", 1)[0])
    return found[:_LOOSE] if loose else found


def _inflections_off(word: str) -> str:
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) <= 3 or word.isdigit():
        return word
    for suffix, replacement, min_stem in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= min_stem:
            base = word[: -len(suffix)] + replacement
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                return word
            if suffix == "es" and not base.endswith(("ch", "sh", "x", "ss", "z", "o")):
                # "likes" -> "like", "watches" -> "watch": only the sibilant plurals drop "es".
                return word[:-1]
            if suffix in {"ing", "ed"} and len(base) >= 3 and base[-1] == base[-2]:
                base = base[:-1]  # "running" -> "run", "planned" -> "plan"
            return base
    return word
