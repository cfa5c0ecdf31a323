"""A prompt's word no memory uses meets the user's words it derives from or that derive from it
("when did I decide to adopt?" and "User is looking into adoption"), for ranking only; and a
name written without its possessive apostrophe ("Omars reaction") still names whom the
memories are about."""

from __future__ import annotations

import pytest

from recall.lexical import derived_terms, query_terms, tokenize
from recall.services import memory_recall

pytestmark = pytest.mark.django_db


def _derived(prompt: str, *memories: str) -> list[str]:
    known = {term for memory in memories for term in tokenize(memory)}
    return derived_terms(query_terms(prompt), sorted(known), known)


def test_a_word_the_user_never_used_meets_the_words_it_derives_from_or_that_derive_from_it():
    assert _derived("when did I adopt?", "User is looking into adoption") == ["adoption"]
    assert _derived("is there a musician I should see", "User loves folk music") == ["music"]


def test_a_word_the_user_used_keeps_its_exact_meaning():
    # "music" is a word of the memories: "musical" and "musician" are not added beside it.
    assert _derived("any music for tonight?", "User loves folk music", "User is a musician") == []


@pytest.mark.parametrize(
    ("prompt", "memory"),
    [
        ("help me plan the week", "User wants to visit every planet in a sim game"),  # too short
        ("find a photo for my wall", "User took up photography last spring"),  # too far apart
        ("what's my nickname", "User's name is Ines"),  # a generic caption word
    ],
)
def test_short_distant_or_generic_words_are_not_derivations(prompt, memory):
    assert _derived(prompt, memory) == []


def test_a_question_with_a_verb_recalls_the_memory_using_its_noun(tenant, end_user, remember):
    remember(
        end_user,
        "User's sister wants to decide on a new car soon",
        "User is going to decide on a kitchen colour soon",
    )
    (adoption,) = remember(end_user, "User has started the adoption process with an agency")

    recall = memory_recall(
        tenant=tenant, external_id=end_user.external_id, prompt="when did I decide to adopt?"
    )

    assert recall.memories[0].id == adoption.id, [m.caption for m in recall.memories]


def test_a_possessive_without_its_apostrophe_still_names_whom_memories_are_about(
    tenant, end_user, remember
):
    (offer,) = remember(end_user, "Omar was thrilled to get the offer from the bakery")
    remember(end_user, "Lena is training for a half marathon in the autumn")

    recall = memory_recall(
        tenant=tenant,
        external_id=end_user.external_id,
        prompt="What was Omars reaction to the offer from the bakery?",
        explain=True,
    )

    assert recall.explanation["general_question"] is False
    assert recall.memories[0].id == offer.id
