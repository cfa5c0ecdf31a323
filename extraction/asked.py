"""A fact the user states inside a question or a request (issue 33): "can you help me set up
the mesh wifi now that we're on Hyperoptic?" asks for help, and says in passing that the user is
on Hyperoptic now. The reason opens on a closed class (`core/lexicons/reasons_asked.txt`) and on
the user (`user_subjects.txt`, `first_person.txt`); what it says is read as a statement. A
condition ("if we move to Leeds") is no reason and is never read.
"""

from __future__ import annotations

from functools import cache

from core.lexicon import lexicon
from core.words import word_spans

# A reason said this far into a question at most, after the words that ask: a longer one is a
# second question or a run-on whose parts the clause reader would not separate.
REASON_MAX_WORDS = 12


def stated_in_question(clause: str) -> str | None:
    """What a question states in passing ("we're on Hyperoptic now"), None when it states
    nothing."""
    spans = word_spans(clause)
    words = [span.group().lower().replace("\u2019", "'") for span in spans]
    for at in range(1, len(words)):
        opener = _opener_at(words, at)
        if opener is None:
            continue
        rest = at + len(opener)
        if rest >= len(words) or words[rest] not in _subjects():
            continue
        if len(words) - rest > REASON_MAX_WORDS:
            return None
        said = clause[spans[rest].start() :].rstrip(" ?!.,")
        return f"{said} now" if "now" in opener else said
    return None


def _opener_at(words: list[str], at: int) -> tuple[str, ...] | None:
    """The longest opener of a reason at `at`, if one is there."""
    for opener in _openers():
        if tuple(words[at : at + len(opener)]) == opener:
            return opener
    return None


@cache
def _openers() -> tuple[tuple[str, ...], ...]:
    return tuple(
        sorted((tuple(line.split()) for line in lexicon("reasons_asked")), key=len, reverse=True)
    )


@cache
def _subjects() -> frozenset[str]:
    """The words a stated reason opens on: the user ("i'm", "we're", "my")."""
    return lexicon("user_subjects") | (lexicon("first_person") - {"me", "us", "myself"})
