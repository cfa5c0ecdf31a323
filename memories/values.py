"""Whether a caption holds its value: "User loves", "User's dog is called", "User lives in" have
lost it (an emoji or a cut before the value), and say nothing. Every check of a caption (the
offline reader, the grounding check of the LLM's candidates, the pipeline's last gate) asks
here, from closed classes of words (`core/lexicons`) and the registry's phrases, never from a
pattern per sentence.
"""

from __future__ import annotations

from functools import cache

from core.lexicon import lexicon
from core.words import words_of
from memories.attributes import registry


def lacks_value(caption: str) -> bool:
    """Whether a caption ends before its value ("User loves", "User's dog is called", "User
    lives in", "User goes by"): on a word that takes a value after it (`waits_for_value`), or
    on a phrase of the registry that states an attribute, the value after it, unless those
    words close a clause of their own (`_gap_filled`). Such a caption says nothing."""
    words = words_of(caption)
    if not words:
        return True
    if _noun_compound(words):
        return False  # "User works in IT support": the verb-like word ends a noun
    ends_open = waits_for_value(words[-1]) or any(
        size < len(words) and tuple(words[-size:]) in _phrases()
        for size in range(2, _longest() + 1)
    )
    return ends_open and not _gap_filled(words)


# The verbs of `takes_value` that also end a noun ("IT support", "drug use", "special needs",
# "a labour of love"): a closed few; "loves", "hates", "got" are verbs wherever they stand.
_NOUNS_TOO = frozenset({"support", "use", "need", "needs", "love"})


def _noun_compound(words: list[str]) -> bool:
    """Whether the caption ends on a word of `_NOUNS_TOO` that ends a noun, after a word that is
    neither its subject nor an auxiliary, an adverb or "to" ("IT support", "in love", "special
    needs"), never "User needs", "User's dog really needs", "wants to use"."""
    last = words[-1]
    if len(words) < 3 or last not in _NOUNS_TOO:
        return False
    before = words[-2]
    verbal = (
        lexicon("copulas")
        | lexicon("auxiliaries")
        | lexicon("adverbs")
        | lexicon("negators")
        | lexicon("subject_pronouns")
        | lexicon("people")
        | {"user", "to", "and", "or", "but"}
    )
    return not (before in verbal or before.endswith("'s"))


def waits_for_value(word: str) -> bool:
    """Whether a word takes a value after it (closed classes: prepositions, articles, copulas
    and auxiliaries, conjunctions, the verbs of liking, owning and naming)."""
    return word in _waiting()


@cache
def _waiting() -> frozenset[str]:
    return lexicon("takes_value") | lexicon("copulas") | lexicon("conjunctions")


@cache
def _phrases() -> frozenset[tuple[str, ...]]:
    """The registry's phrases of more than one word that state an attribute, the value after
    them ("lives in", "goes by", "is now"); one word ("runs") may be a whole fact."""
    return frozenset(
        tuple(phrase.split())
        for entry in registry().values()
        for phrase in (*entry.says, *entry.denies)
        if " " in phrase and "{}" not in phrase
    )


@cache
def _longest() -> int:
    return max((len(phrase) for phrase in _phrases()), default=0)


def _gap_filled(words: list[str]) -> bool:
    """Whether the words a caption ends on close a clause whose value came before them: a
    relative clause with a subject of its own ("dark mode in every app I use", "the city they
    live in"), or an ellipsis after a whole statement ("not a morning person and never will
    be")."""
    if any(word in lexicon("subject_pronouns") for word in words[max(1, len(words) - 4) : -1]):
        return True
    elided = lexicon("copulas") | lexicon("auxiliaries") | lexicon("adverbs")
    at = len(words) - 1
    while at > 1 and words[at] in elided:
        at -= 1
    return (
        at < len(words) - 1
        and words[at] in lexicon("conjunctions")
        and not lacks_value(" ".join(words[:at]))
    )
