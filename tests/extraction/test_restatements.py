"""A restatement in other words merges, and only when the wording kept says everything the
other one said (issue 31): nothing is lost, no other person, value or polarity is folded in."""

from __future__ import annotations

import uuid

import numpy as np
import pytest

from extraction.candidates import Candidate
from extraction.decisions import Action, decide
from extraction.jobs import extraction_perform
from extraction.restatements import restated_in_words
from extraction.updates import lemma, reading
from memories.models import Memory, ReviewItem
from tests.extraction.decide_helpers import candidate, known, unit


def _say(tenant, user_id: uuid.UUID, text: str) -> None:
    extraction_perform(tenant=tenant, external_id=user_id,
                       messages=[{"role": "user", "content": text}])  # fmt: skip


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I don't read much", "I'm not a big reader tbh"),
        ("I don't cook much", "not a big cook tbh"),
    ],
)
def test_the_same_fact_in_other_words_is_one_memory(tenant, offline, first, second):
    user_id = uuid.uuid4()
    _say(tenant, user_id, first)
    _say(tenant, user_id, second)

    assert Memory.objects.filter(end_user__external_id=user_id).count() == 1
    assert not ReviewItem.objects.exists()


def test_a_merge_in_other_words_needs_each_wording_to_hold_the_other():
    reads = reading("User doesn't read much")

    assert restated_in_words(reading("User is not a big reader"), reads)
    # "keen" says more: merged either way, one wording would lose something.
    assert not restated_in_words(reading("User is not a keen reader"), reads)
    # Another polarity, another person or another value is never the same fact.
    assert not restated_in_words(reading("User reads a lot"), reads)
    assert not restated_in_words(reading("User's son doesn't read much"), reads)
    assert not restated_in_words(
        reading("User reads 2 books a month"), reading("User reads 4 books a month")
    )


@pytest.mark.parametrize(
    ("stored", "new"),
    [
        ("User restores vintage lamps from Porto", "User sells vintage lamps from Porto"),
        ("User sells handmade soap at the market", "User buys handmade soap at the market"),
    ],
)
def test_another_doing_with_the_same_things_is_another_fact(stored, new):
    # "sell" and "buy" are cue words ("sold the car"), no words the linker links on; each is
    # still what the fact says, so neither wording holds the other.
    new_reading, stored_reading = reading(new), reading(stored)

    assert not restated_in_words(new_reading, stored_reading)
    assert not restated_in_words(new_reading, stored_reading, kept=new_reading)
    assert not restated_in_words(stored_reading, new_reading, kept=stored_reading)


def test_derivations_of_one_stem_link():
    assert lemma("dentistry") == lemma("dentist")
    assert lemma("delivery") == lemma("delivered")
    assert lemma("groceries") == lemma("grocery")


def _rules_decide(stored: str, new: str, cosine: float = 0.5):
    """The rules' decision on `new` against `stored` (no LLM advice), at a middling cosine."""
    vector = unit(cosine, float(np.sqrt(1 - cosine**2)), 0)
    [decision] = decide(
        candidates=[candidate(new)],
        vectors=np.stack([vector]),
        known=[known("mem_a", stored, unit(1, 0, 0))],
        advice=lambda position, candidate, neighbours: None,
    )
    return decision


@pytest.mark.parametrize(
    ("stored", "new"),
    [
        # A restatement that adds a detail merges into the wording that keeps the detail.
        ("User volunteers at a food bank", "User has volunteered at a food bank for 3 years"),
        # A model's reporting frame is no part of the fact.
        ("User has a fear of heights", "User mentioned a fear of heights"),
        # "called" names no concept: the name said after the kind is the same name.
        ("User's parrot is called Mango", "User's parrot Mango is an African grey"),
    ],
)
def test_a_restatement_with_an_added_detail_or_a_reporting_frame_merges(stored, new):
    decision = _rules_decide(stored, new)

    # The new wording is the longer: the merge keeps it (`memory_merge`), detail and all.
    assert (decision.action, decision.target) == (Action.MERGE, "mem_a")


@pytest.mark.parametrize(
    ("stored", "new"),
    [
        # The detail is in the shorter wording: a merge would keep the stored one and lose it.
        ("User collects vinyl records", "User collects jazz vinyl"),
        # Another person, another number, another polarity: never the same fact.
        ("User collects vinyl records", "User's brother collects vinyl records, mostly jazz"),
        ("User owns 2 kayaks", "User owns 3 kayaks and a canoe trailer"),
        ("User's parrot is called Mango", "User's parrot Kiwi is an African grey"),
        ("User speaks Welsh", "User does not speak Welsh at home any more"),
    ],
)
def test_a_detail_the_kept_wording_would_lose_is_never_merged(stored, new):
    assert _rules_decide(stored, new).action != Action.MERGE


def test_a_restatement_merges_whatever_the_two_full_texts_asked_besides():
    # Each full text ends with what the user asked: two asides, not two values of the fact.
    stored = known("mem_a", "User volunteers at a food bank", unit(1, 0, 0))
    stored.full_text = "The user volunteers at a food bank and asked how to plan a fundraiser."
    new = Candidate(
        caption="User has volunteered at a food bank for 3 years",
        full_text="The user has volunteered at a food bank for three years and asked for help "
        "writing a thank-you letter to donors.",
        category="personal",
    )

    [decision] = decide(
        candidates=[new],
        vectors=np.stack([unit(0.5, float(np.sqrt(0.75)), 0)]),
        known=[stored],
        advice=lambda position, candidate, neighbours: None,
    )

    assert (decision.action, decision.target) == (Action.MERGE, "mem_a")


def test_another_pet_named_in_a_full_text_is_never_merged_away():
    stored = known("mem_a", "User has a ferret", unit(1, 0, 0))
    stored.full_text = "The user has a ferret called Pippin."
    new = Candidate(
        caption="User has a ferret",
        full_text="The user has a ferret called Nutmeg who likes tunnels.",
        category="personal",
    )

    [decision] = decide(
        candidates=[new],
        vectors=np.stack([unit(0.5, float(np.sqrt(0.75)), 0)]),
        known=[stored],
        advice=lambda position, candidate, neighbours: None,
    )

    assert decision.action != Action.MERGE
