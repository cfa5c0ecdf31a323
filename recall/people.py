"""Whom memories and prompts are about: the user's people and the animals they keep.

A caption "User's indoor rabbits Pepper and Salt roam free" is about the rabbits, by their
relation and by their names; a prompt "can I eat the cheesecake at my mate's party" names a
friend, "how old are the twins?" the twins as someone's in particular. Words are compared as
`relation_groups` (then `same_words`) heads them, so "my spouse" names "User's wife".
"""

from __future__ import annotations

import re
from functools import cache
from itertools import pairwise

import numpy as np

from core.lexicon import group_heads, lexicon
from core.lexicon import names as lexicon_names
from core.words import words_of
from memories.facets import facets_read, subject_of


def person_words(text: str) -> frozenset[str]:
    """The words of `text` that may name one of the user's people: each word, without a
    possessive "'s", as `relation_groups` heads it ("wife" and "spouse" are "partner") or else
    `same_words` ("pup" is "dog")."""
    same, relation = group_heads("same_words"), group_heads("relation_groups")
    found = (word.removesuffix("'s").removesuffix("'") for word in words_of(text))
    return frozenset(relation.get(word, same.get(word, word)) for word in found)


def people_named(text: str, people_names: frozenset[str]) -> frozenset[str]:
    """Whom of the user's people a prompt names, as `person_words` heads them: a relation of
    `people` ("my mate's party", "my mother") or a name the user's memories give one of them.
    Empty when it names a group (`people_plural`: "the kids" may be "User's son"), where
    the words cannot tell whose facts it needs."""
    words = {word.removesuffix("'s").removesuffix("'") for word in words_of(text)}
    if words & lexicon("people_plural"):
        return frozenset()
    return person_words(" ".join(words & (lexicon("people") | people_names)))


def relations_held(text: str) -> frozenset[str]:
    """The relations a prompt names as someone's in particular ("the twins", "my mum's"), as
    `person_words` heads them, after a word of `particular`: a question about them is about
    the user's world when the user's memories hold that relation."""
    words = words_of(text)
    found = {
        word.removesuffix("'s").removesuffix("'")
        for before, word in pairwise(words)
        if before in lexicon("particular")
        and word.removesuffix("'s").removesuffix("'") in lexicon("people")
    }
    return person_words(" ".join(found))


# How many words may qualify a relation before it ("User's four rescue hens", "User's family
# pony Bramble").
RELATION_WITHIN = 4


def about_whom(caption: str) -> frozenset[str]:
    """Whom of the user's people a caption is about, as `person_words` heads them: its
    relation and the names it gives them ("User's twins Arjun and Maya are six": twins, arjun,
    maya); empty for a fact about the user. `subject_of` reads the relation; a relation after
    a few qualifying words ("User's indoor rabbits Pepper and Salt") is read here too."""
    subject = subject_of(caption)
    tokens = caption.split()
    if not tokens or tokens[0].lower().replace("\u2019", "'") != "user's":
        return frozenset() if subject == "user" else person_words(subject)
    relation = None
    previous = ""
    for at, token in enumerate(tokens[1 : 1 + RELATION_WITHIN], start=1):
        word = token.lower().strip(",.;:")
        if word in lexicon("generic_words") or token[0].isupper():
            break  # a verb ("is", "lives") or a name: the relation, if any, came before
        if word in lexicon("people") or f"{previous} {word}" in lexicon("people"):
            relation = at
        previous = word
    if relation is None:
        return frozenset() if subject == "user" else person_words(subject)
    names = []
    for token in tokens[relation + 1 :]:
        word = token.strip(",.;:'")
        if word.lower() in lexicon("name_joiners"):
            continue
        if not (word[:1].isupper() and word[1:].islower() and word.isalpha()):
            break
        names.append(word.lower())
    found = person_words(" ".join(tokens[1 : relation + 1]))
    return frozenset((found & _person_heads()) | set(names))


def names_of(caption: str) -> frozenset[str]:
    """The capitalised words of a caption past its first, lower-cased."""
    return frozenset(
        token.strip(",.;:'").lower() for token in caption.split()[1:] if token[:1].isupper()
    )


@cache
def _person_heads() -> frozenset[str]:
    return person_words(" ".join(lexicon("people")))


def whom_rows(about: list[frozenset[str]]) -> dict[str, np.ndarray]:
    """Each word naming one of the user's people -> the rows about them."""
    rows: dict[str, list[int]] = {}
    for row, words in enumerate(about):
        for word in words:
            rows.setdefault(word, []).append(row)
    return {word: np.array(found, dtype=np.int64) for word, found in rows.items()}


# A capitalised word whole past a sentence's start: "PhD" or "iPad" is no name.
_WHOLE_NAME = re.compile(r"(?<=[^.!?]\s)[A-Z][a-z]+(?![A-Za-z])")


def person_names(text: str) -> list[str]:
    """The capitalised words of `text` (quotations left out) that may name a person: not a day
    or a month (`calendar_names`), nor a place (`_a_place`)."""
    return [
        match.group()
        for match in _WHOLE_NAME.finditer(text)
        if match.group().lower() not in lexicon("calendar_names")
        and not _a_place(
            match.group(),
            (text[: match.start()].split() or [""])[-1].lower(),
            text[match.end() : match.end() + 1],
        )
    ]


def _a_place(name: str, before: str, after: str) -> bool:
    """Whether a capitalised word names a place, not a person: a place of `place_names`
    ("Lisbon"), or any word after one of `place_prepositions` ("a week in Crete"), unless
    possessive ("in Sam's car")."""
    if after and after in "'\u2019":
        return False
    return name.lower() in lexicon_names("place_names") or before in lexicon("place_prepositions")


# The registry's attribute of a fact that gives the user's name ("User's name is Segun").
NAME = "name"


def name_rows(captions: list[str], others: np.ndarray) -> np.ndarray:
    """(n,) whether each memory gives the user's own name and nothing else of them (the
    registry's `name`). A sentence encoder places a name by its sound ("Segun" sits 0.26 from
    "what's a good app to learn Spanish?"), not by anything the user said."""
    found = np.array(
        [
            bool(facets := facets_read(caption)) and all(f.attribute == NAME for f in facets)
            for caption in captions
        ],
        dtype=bool,
    ).reshape(len(captions))
    return found & ~others
