"""A restatement in other words: the new fact says nothing the stored one does not, read by the
linker (`extraction.updates.Reading`) when the facets cannot read both sides ("not a coffee
drinker" and "doesn't drink coffee", "my go-to breakfast is porridge" and "porridge for
breakfast every day").

It is evidence for a merge (`extraction.merge_evidence.same_fact`), so it keeps every fact: each
side holds each content word of the other (the words, or a broader kind of them), of the same
person and polarity, and the new one announces no change, correction or addition, nor either
a wish. Another person, pet, number or name is another word, so it never merges.
"""

from __future__ import annotations

from extraction.updates import Reading


def _holds(kept: Reading, other: Reading) -> bool:
    """Whether the kept wording says each content word of the other, or a broader kind of it,
    and each of its cue words: "User sells teapots" is not "User restores teapots", though
    "sell" (a change cue, as in "sold the car") is no word the linker links on."""
    return (
        bool(other.words)
        and other.words <= kept.concepts
        and other.people <= kept.people
        and other.cued <= kept.cued
    )


def restated_in_words(new: Reading, old: Reading, kept: Reading | None = None) -> bool:
    """Whether the two say the same in other words, so that merging them loses nothing: the
    same person and polarity, no cue on the new one, and each holds the other's content words.

    `kept` is the wording a merge keeps (the longer, as `memories.services.memories.memory_merge`
    does): when given, it alone must hold the other's content words, so a restatement that
    adds a detail ("User's cat Luna is a tabby" of "User's cat is Luna", "has banked with
    Lloyds since age 16" of "banks with Lloyds") merges into the wording that keeps the
    detail. The caller passes it for a new wording only: a new fact inside a longer stored
    one ("fully remote" in "a data analyst at a charity, fully remote") is its own."""
    if new.subject != old.subject or new.negative != old.negative:
        return False
    if new.ends or new.starts or new.corrects or new.additive or new.wish or old.wish:
        return False
    if new.scopes != old.scopes:
        return False  # "at work" and "at home" are two facts
    if kept is not None:
        return _holds(kept, old if kept is new else new)
    return _holds(new, old) and _holds(old, new)
