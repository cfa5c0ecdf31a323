"""The LLM path's safety net: what the user stated that no candidate of the model covers.

A small model often writes one fact where the user gave three; the offline reader's own
statements (`reader.read_statements`) fill the gap, each only when no candidate already says
it about the same person with the same facts.
"""

from __future__ import annotations

from core.lexicon import lexicon
from core.words import words_of
from extraction.candidates import Candidate
from memories.comparison import restates
from memories.facets import facets_read
from memories.facets import subject_of as caption_subject


def _content(caption: str) -> set[str]:
    """What a caption says, without the person it is about ("User's grandad has Parkinson's"
    and "User's grandad lives with their aunt" are two facts)."""
    return set(words_of(caption)) - lexicon("generic_words") - lexicon("people")


def _said(caption: str) -> set[str]:
    """The words a caption says, the person it is about included."""
    return set(words_of(caption)) - lexicon("generic_words")


def statements_missed(candidates: list[Candidate], statements: list[Candidate]) -> list[Candidate]:
    """What the user stated about themselves that no candidate covers: the LLM path's safety
    net, since a small model often writes one fact where the user gave three. A candidate
    covers a statement when they share half the content words of the shorter, are about the
    same person, and, when the statement's facets can be read, the candidate restates them
    (`judge.restates`): "User's husband is allergic to shellfish" does not cover "User is
    allergic to peanuts", nor "... allergic to nuts" cover "... vegan", nor a caption whose
    full text alone says it ("User's dog is a beagle", "... and is 9") cover "User's dog is
    9"."""
    covered = list(candidates)
    missed = []
    for statement in statements:
        if _content(statement.caption) and not any(_covers(c, statement) for c in covered):
            missed.append(statement)
            covered.append(statement)
    return missed


def _covers(candidate: Candidate, statement: Candidate) -> bool:
    words, theirs = _content(statement.caption), _content(candidate.caption)
    if not theirs or len(words & theirs) * 2 < min(len(words), len(theirs)):
        return False
    about = caption_subject(statement.caption)
    if caption_subject(candidate.caption) != about:
        return False
    if _said(statement.caption) == _said(candidate.caption):
        return True  # the same words, however written ("Biscuit", "biscuit")
    said = facets_read(statement.caption)
    # The candidate's caption, which is what the assistant's context shows: a fact only its
    # full text adds ("... and is 9 years old") is not covered.
    return not said or restates(facets_read(candidate.caption), said, about)
