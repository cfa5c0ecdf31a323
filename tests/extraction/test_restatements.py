"""A restatement in other words merges, and only when the wording kept says everything the
other one said (issue 31): nothing is lost, no other person, value or polarity is folded in."""

from __future__ import annotations

import uuid

import pytest

from extraction.jobs import extraction_perform
from extraction.restatements import restated_in_words
from extraction.updates import lemma, reading
from memories.models import Memory, ReviewItem


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


def test_derivations_of_one_stem_link():
    assert lemma("dentistry") == lemma("dentist")
    assert lemma("delivery") == lemma("delivered")
    assert lemma("groceries") == lemma("grocery")
