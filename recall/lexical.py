"""The lexical side of recall: the words of a text (`core.words`) as its index matches them,
stemmed, without stopwords, and their BM25 postings."""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Container, Sequence
from functools import cache

import numpy as np

from core.lexicon import lexicon
from core.words import stem, words_of

# Function words and question words: they carry no topic, and in prompts ("what did I say
# about ...") they would otherwise match every memory that happens to contain them.
_STOPWORD_TEXT = """
    a about above after again against all am an and any are aren as at be because been before
    being below between both but by can could couldn did didn do does doesn doing don down
    during each few for from further had hadn has hasn have haven having he her here hers
    herself him himself his how i if in into is isn it its itself just let ll me might more
    most must my myself no nor not now of off on once only or other ought our ours ourselves
    out over own re s same shan she should shouldn so some such t than that the their theirs
    them themselves then there these they this those through to too under until up ve very
    was wasn we were weren what when where which while who whom why will with won would
    wouldn you your yours yourself yourselves also any anything something thing things really
    get got tell told said say says know like yes ok okay oh hey hi please thanks thank would
    could maybe much many one ever still even well yeah via etc kind sort
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def tokenize(text: str) -> list[str]:
    """The stems of the words of `text` an index matches (`core.words`), stopwords left out."""
    return [stem(word) for word in words_of(text, parts=True) if word not in STOPWORDS]


def query_terms(text: str) -> list[str]:
    """A prompt's terms (`tokenize`), each ending in a silent "e" with its inflections' stem
    beside it: a question asks with a verb's base form what a memory says in the past ("when
    did she move?" and "Sam moved to Leeds": "move" and "mov"). Only on the prompt's side, so
    a memory's "planes" never meets a prompt's "plan"; a generic word gains no form."""
    found = tokenize(text)
    generic = generic_terms()
    return found + [
        term[:-1]
        for term in found
        if len(term) > _SHORTEST_E_STEM
        and term.endswith("e")
        and not term.endswith("ee")
        and term not in generic
    ]


# A stem this short keeps its "e": "use" and "used" meet as they are.
_SHORTEST_E_STEM = 3

# A prompt's word the user never used meets the user's words it derives from or that derive
# from it (`derived_terms`): both at least this long ("plan" never meets "planet") ...
DERIVED_SHORTEST = 5
# ... and at most this many letters apart, a suffix's worth ("adopt" and "adoption",
# "musician" and "music"; "photo" and "photography" are too far apart).
DERIVED_LETTERS = 5


def derived_terms(terms: list[str], vocabulary: Sequence[str], known: Container[str]) -> list[str]:
    """The index's terms a prompt's absent terms derive from or that derive from them.

    `vocabulary` is the index's terms sorted, `known` the same terms for lookups. Only a term
    of the prompt no memory uses is read so: "When did she adopt?" and "User is looking into
    adoption" share no term, while a word the user did use keeps its exact meaning. A term the
    prompt holds only as another's form without its "e" (`query_terms`) is left alone, and no
    generic caption word is reached (`generic_terms`).
    """
    generic = generic_terms()
    found: list[str] = []
    for term in dict.fromkeys(terms):
        if (
            term in known
            or f"{term}e" in terms
            or len(term) < DERIVED_SHORTEST
            or not term.isalpha()
        ):
            continue
        # The user's words that extend it ("adopt" -> "adoption"): a range of the sorted terms.
        at = bisect_left(vocabulary, term)
        while at < len(vocabulary) and vocabulary[at].startswith(term):
            word = vocabulary[at]
            if len(word) - len(term) <= DERIVED_LETTERS and word.isalpha():
                found.append(word)
            at += 1
        # The user's words it extends ("musician" -> "music").
        for cut in range(max(DERIVED_SHORTEST, len(term) - DERIVED_LETTERS), len(term)):
            if term[:cut] in known:
                found.append(term[:cut])
    return [word for word in found if word not in generic]


@cache
def generic_terms() -> frozenset[str]:
    """The stems of the words captions hold around any value (`generic_words`: "name",
    "likes", "lives"): a prompt sharing only these with a memory shares no topic with it."""
    return frozenset(stem(word) for word in lexicon("generic_words"))


def bm25_postings(
    documents: list[list[str]], *, k1: float, b: float
) -> tuple[dict[str, int], np.ndarray, np.ndarray, np.ndarray]:
    """BM25 weights (Lucene's non-negative idf) of tokenized documents as CSR postings."""
    size = len(documents)
    terms: dict[str, int] = {}
    rows: list[int] = []
    columns: list[int] = []
    frequencies: list[int] = []
    for row, document in enumerate(documents):
        for term, count in Counter(document).items():
            rows.append(row)
            columns.append(terms.setdefault(term, len(terms)))
            frequencies.append(count)
    if not rows:
        empty = np.zeros(0, dtype=np.int32)
        return terms, np.zeros(1, dtype=np.int32), empty, empty.astype(np.float32)
    row_of = np.array(rows, dtype=np.int32)
    column_of = np.array(columns, dtype=np.int32)
    tf = np.array(frequencies, dtype=np.float32)
    lengths = np.array([len(d) for d in documents], dtype=np.float32)
    average = max(float(lengths.mean()), 1.0)
    df = np.bincount(column_of, minlength=len(terms)).astype(np.float32)
    idf = np.log1p((size - df + 0.5) / (df + 0.5))
    norm = k1 * (1 - b + b * lengths[row_of] / average)
    weights = idf[column_of] * tf * (k1 + 1) / (tf + norm)
    order = np.argsort(column_of, kind="stable")
    indptr = np.zeros(len(terms) + 1, dtype=np.int32)
    indptr[1:] = np.cumsum(df.astype(np.int32))
    return terms, indptr, row_of[order], weights[order].astype(np.float32)
