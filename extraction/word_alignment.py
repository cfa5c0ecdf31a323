"""Two wordings of one fact that each say a word the other does not ("on the Netflix plan with
ads" and "with adverts"; "a Kew membership" and "a Kew member"): which of those words have a
counterpart on the other side that means the same, by the embedder's cosine between the two
words alone.

A counterpart is evidence for a merge (`extraction.restatements.reworded`), so it is strict:
two words are counterparts only when the embedder puts them at or above WORD_ALIGN_SIMILARITY
and neither is a value of a closed class (a number, a day or a month, a person's or a place's
name, a person of the user's), and they are not two members of one kind of the kinds lexicon (a
cat and a dog are both pets, close as the embedder puts them) nor two points of one scale
(`core/lexicons/scales.txt`: "older" and "younger"). Under an embedder that does not place words by
meaning (the hashing one of the tests and benches) no two different words are counterparts,
and nothing merges on a counterpart.
"""

from __future__ import annotations

from collections.abc import Callable, Set
from functools import cache, lru_cache

import numpy as np

from core.lexicon import lexicon, names
from core.words import words_of
from extraction.updates import Reading, closure, lemma
from integrations.embeddings import current_model_id, embed_query

# Cosine at or above which two single words are one meaning (MiniLM, measured on the dev
# splits of bench/data/conflicts_*.jsonl: "ads"/"adverts" 0.78, "member"/"membership" 0.73,
# "lotto"/"lottery" 0.72, "fan"/"supporter" 0.71; the closest two words of different meaning
# of those pairs are "saturday"/"tuesday" 0.78 and "2"/"4" 0.81, values of closed classes, and
# "bald"/"hair" 0.75; "developer"/"engineer" sit at 0.55. See docs/benchmarks.md).
WORD_ALIGN_SIMILARITY = 0.7

# The cosine of two words as said (the reading keeps only their lemmas).
WordSimilarity = Callable[[str, str], float]


def word_similarity(first: str, second: str) -> float:
    """The configured embedder's cosine between two words, each embedded alone (through the
    per-process cache of `integrations.embeddings.embed_query`)."""
    if first == second:
        return 1.0
    return _cosine(current_model_id(), *sorted((first, second)))


@lru_cache(maxsize=4096)
def _cosine(model_id: str, first: str, second: str) -> float:
    """Cached per model: the tests switch embedders within one process."""
    return float(np.dot(embed_query(first), embed_query(second)))


def _as_said(word: str, reading: Reading) -> str:
    """A lemma as the reading's text wrote it ("adverts" of "advert")."""
    for said in words_of(reading.text):
        for part in said.split("-"):
            if lemma(part) == word:
                return part.strip("'")
    return word


def _value(word: str) -> bool:
    """A value of a closed class: a number, a day or a month, a given name or a place."""
    if any(ch.isdigit() for ch in word):
        return True
    return word in _closed_values() or word.removesuffix("s") in _closed_values()  # "mondays"


@cache
def _closed_values() -> frozenset[str]:
    found = lexicon("numerals") | lexicon("calendar_names") | lexicon("months")
    found |= lexicon("people")  # "husband" and "wife": two people, never one meaning
    return found | names("given_names").keys() | names("place_names").keys()


def siblings(first: str, second: str) -> bool:
    """Two members of one kind of the kinds lexicon (two pets, two instruments), or two points
    of one scale (`core/lexicons/scales.txt`: "older" and "younger", "cheap" and "expensive")."""
    mine, theirs = closure([lemma(first)]) - {lemma(first)}, closure([lemma(second)])
    if mine & (theirs - {lemma(second)}):
        return True
    plain = {first.removesuffix("s"), second.removesuffix("s")}  # "mornings", "evenings"
    return any({first, second} <= group or plain <= group for group in _scales())


@cache
def _scales() -> tuple[frozenset[str], ...]:
    return tuple(frozenset(line.split()) for line in lexicon("scales"))


def counterparts(
    extra: Set[str],
    reading: Reading,
    others: Set[str],
    other: Reading,
    similar: WordSimilarity = word_similarity,
) -> set[str]:
    """The words of `extra` (lemmas of `reading`) that have a counterpart among `others`
    (lemmas of `other`): see the module docstring."""
    found: set[str] = set()
    for word in extra:
        said = _as_said(word, reading).lower()
        if _value(said):
            continue
        for candidate in others:
            theirs = _as_said(candidate, other).lower()
            if _value(theirs) or siblings(said, theirs):
                continue
            if similar(said, theirs) >= WORD_ALIGN_SIMILARITY:
                found.add(word)
                break
    return found
