"""The evidence a merge needs, whoever proposed it (the rules, or an LLM's "same", which is
advice): the same person, nothing of one kind stated two ways, and the same fact by cosine, by
facets, or in other words. Kept apart from `extraction.decisions`, which decides with it."""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from extraction.candidates import Candidate
from extraction.restatements import (
    advised_rewording,
    named_again,
    restated_close,
    restated_in_words,
    reworded,
    same_one,
    slot_restated,
)
from extraction.updates import Reading, reading
from memories.attributes import PRACTICE
from memories.comparison import NEAR_DUPLICATE_SIMILARITY, distinct, narrower_than, restates
from memories.facets import Facet, facets_read, subject_of


class Known(Protocol):
    """What the evidence reads of a known memory (`extraction.decisions.KnownMemory`)."""

    ref: str
    caption: str
    full_text: str

    @property
    def facets(self) -> tuple[Facet, ...]: ...


class Near(Protocol):
    """A known memory and its cosine to the candidate (`extraction.decisions.Neighbour`)."""

    @property
    def memory(self) -> Known: ...

    @property
    def similarity(self) -> float: ...


def candidate_facets(candidate: Candidate) -> tuple[Facet, ...]:
    """What a candidate states, read from its caption and full text."""
    return facets_read(candidate.caption, candidate.full_text)


def candidate_reading(candidate: Candidate) -> Reading:
    """The candidate as the linker reads it: its caption and the clause the user said."""
    return reading(candidate.caption, candidate.said, corrects=candidate.corrects)


def different_people(candidate: Candidate, memory: Known) -> bool:
    """Whether the two facts are about different people or pets (read from the captions; a
    breed of a pet that one name names is that pet, `restatements.same_one`)."""
    if subject_of(candidate.caption) == subject_of(memory.caption):
        return False
    return not same_one(candidate_reading(candidate), reading(memory.caption))


def same_fact(candidate: Candidate, target: Near) -> bool:
    """The evidence every merge needs, whoever proposed it (the rules, or an LLM's "same",
    which is advice): a cosine at or above NEAR_DUPLICATE_SIMILARITY, or a structured reading
    in which the wording the merge keeps states the same person, attribute and value as
    everything the other one says (`keeps_both`). It never folds a fact about one person, pet
    or value into another's; two facts about one person are two memories."""
    if different_people(candidate, target.memory):
        return False
    new, old = candidate_reading(candidate), reading(target.memory.caption)
    # A rewording compares the words of the two captions one by one ("ads" and "adverts"):
    # the values of an open attribute ("on: netflix plan with adverts") it has read already.
    similarity = target.similarity
    new_kept = len(candidate.full_text) > len(target.memory.full_text)
    said_again = (
        reworded(new, old, similarity)
        or slot_restated(new, old, similarity)
        or (said_before(target.memory) and named_again(new, old, similarity, new_kept=new_kept))
    )
    if _distinct(candidate, target.memory, open_values=not said_again):
        return False
    return (
        said_again
        or (said_before(target.memory) and restated_close(new, old, similarity, new_kept=new_kept))
        or target.similarity >= NEAR_DUPLICATE_SIMILARITY
        or keeps_both(candidate, target.memory)
        or in_other_words(candidate, target.memory)
    )


def advised_same_fact(candidate: Candidate, target: Near) -> bool:
    """The evidence an LLM's "same" needs to merge: `same_fact`, or its words bear the model
    out (`restatements.advised_rewording`: a restatement in other words with no number, name
    or other value apart). The caller asks only where the rules read no contradiction."""
    if same_fact(candidate, target):
        return True
    if different_people(candidate, target.memory) or _distinct(candidate, target.memory):
        return False
    return advised_rewording(
        candidate_reading(candidate),
        reading(target.memory.caption),
        target.similarity,
        new_kept=len(candidate.full_text) > len(target.memory.full_text),
    )


def _distinct(candidate: Candidate, memory: Known, *, open_values: bool = True) -> bool:
    """Whether the two visibly state different things of one kind (`comparison.distinct`): a
    registry attribute read anywhere in either (another pet's name in a full text), an open
    one ("practice:ask") only where both captions state it. A full text's aside ("... and
    asked how to approach a team transfer") is not the fact, and two asides are no two values
    of it. Without `open_values`, only registry attributes count: a rewording
    (`restatements.reworded`) has compared the open ones word by word."""
    both = {f.attribute for f in facets_read(candidate.caption)} & {
        f.attribute for f in facets_read(memory.caption)
    }

    def stated(facet: Facet) -> bool:
        if not facet.attribute.startswith((f"{PRACTICE}:", "about:")):
            return True
        return open_values and facet.attribute in both

    new = tuple(f for f in candidate_facets(candidate) if stated(f))
    old = tuple(f for f in memory.facets if stated(f))
    if subject_of(candidate.caption) != subject_of(memory.caption):  # one pet (`same_one`)
        new, old = _one_pet(new, old)
    return distinct(new, old)


def _one_pet(
    new: tuple[Facet, ...], old: tuple[Facet, ...]
) -> tuple[tuple[Facet, ...], tuple[Facet, ...]]:
    """The facets with a breed said on one side as the pet the other names (`same_one` has
    found one name for both: "User's corgi is called Biscuit" of "User's dog is called
    Biscuit"): the subject and what the user owns said as the broader word on both sides."""

    def words(facets: tuple[Facet, ...]) -> set[str]:
        return {f.subject for f in facets} | {f.value for f in facets if f.attribute == "owns"}

    def broadened(facets: tuple[Facet, ...], said: set[str]) -> tuple[Facet, ...]:
        found = []
        for facet in facets:
            for word in said:
                if narrower_than(facet.subject, word):
                    facet = replace(facet, subject=word)
                if facet.attribute == "owns" and narrower_than(facet.value, word):
                    facet = replace(facet, value=word)
            found.append(facet)
        return tuple(found)

    return broadened(new, words(old)), broadened(old, words(new))


def said_again(candidate: Candidate, target: Near, old: Reading) -> bool:
    """The rules' reading of a restatement (`same_fact` then checks the evidence for the
    merge): the same fact in other words, a close rewording, a value said again as a slot, or
    what a fact stored before names said again with more about it (`old`: the target as the
    linker reads it)."""
    new, similarity = candidate_reading(candidate), target.similarity
    new_kept = len(candidate.full_text) > len(target.memory.full_text)
    return (
        in_other_words(candidate, target.memory)
        or reworded(new, old, similarity)
        or (said_before(target.memory) and restated_close(new, old, similarity, new_kept=new_kept))
        or slot_restated(new, old, similarity)
        or (said_before(target.memory) and named_again(new, old, similarity, new_kept=new_kept))
    )


def in_other_words(candidate: Candidate, memory: Known) -> bool:
    """Whether the two say the same in other words (`extraction.restatements`), each read from
    its caption: what recall shows, not what a full text or an earlier merge added. A new
    wording that the merge keeps (the longer full text, `_learn`) may add a detail to the
    stored fact, which the merged memory keeps. A new fact that is only part of a longer one
    is said again when that one was stored before ("User is one of the altos" of "User sings
    alto in a community choir"): the memory keeps every word of it. Of the same conversation
    ("fully remote" of "a data analyst at a charity, fully remote", said in one message) it is
    its own: the user said it apart from the rest (`said_before`)."""
    new, old = candidate_reading(candidate), reading(memory.caption)
    if len(candidate.full_text) > len(memory.full_text):
        return restated_in_words(new, old, kept=new)
    if said_before(memory) and restated_in_words(new, old, kept=old):
        return True
    return restated_in_words(new, old)


def said_before(memory: Known) -> bool:
    """Whether the memory was stored before this conversation (`decisions.new_ref` names
    one of its own candidates)."""
    return not memory.ref.startswith("new:")


def keeps_both(candidate: Candidate, memory: Known) -> bool:
    """Whether the wording a merge keeps (the longer, as `memory_merge` does) states every
    facet of the other: "User has a dog called Rex" holds "User has a dog", but neither of
    "User's mum has dementia" and "User's mum lives with them" holds the other. What holds is
    the kept caption, which is what recall and the assistant's context show: "User is a nurse"
    whose full text adds "mostly works nights" does not hold "User mostly works nights". A
    text whose facets cannot be read holds nothing and is held by nothing."""
    if len(candidate.full_text) > len(memory.full_text):
        return restates(facets_read(candidate.caption), memory.facets, subject_of(memory.caption))
    kept = facets_read(memory.caption)  # its caption, not what its text or merges added
    return restates(kept, candidate_facets(candidate), subject_of(candidate.caption))
