"""The offline reader stores a fact on a topic no rule was written for by its structure: a slot
of the user's and its value, said value first or in passing (issue 31)."""

from __future__ import annotations

import uuid

import pytest

from extraction.jobs import extraction_perform
from extraction.reader import offline_candidates
from memories.models import ReviewItem


def _read(text: str) -> list[str]:
    return [c.caption for c in offline_candidates([{"role": "user", "content": text}])]


@pytest.mark.parametrize(
    ("user_says", "captions"),
    [
        ("Bupa is my health insurer, is dental extra?", ["User's health insurer is Bupa"]),
        ("Wednesday is my late shift", ["User's late shift is Wednesday"]),
        ("Size 9 is my ring size - would a wider band fit?", ["User's ring size is Size 9"]),
        ("Arsenal are my team honestly", ["User's team is Arsenal"]),
        ("ring size N btw, for the engraving", ["User's ring size is N"]),
        ("tax code 1257L fyi", ["User's tax code is 1257L"]),
        # A longer slot, and a name typed as a title (its function words are the name's).
        (
            "Ted Lasso is my comfort show of all time, anything similar?",
            ["User's comfort show of all time is Ted Lasso"],
        ),
        ("The Archers is my guilty pleasure tbh", ["User's guilty pleasure is The Archers"]),
        ("the Guardian is my morning paper", ["User's morning paper is the Guardian"]),
    ],
)
def test_a_slot_said_value_first_or_in_passing_is_stored_as_the_users(user_says, captions):
    assert _read(user_says) == captions


@pytest.mark.parametrize(
    "user_says",
    [
        "that is my problem",
        "he is my brother",
        "it was my fault",
        "what is my best option here?",
        "thanks Sam btw",
        "good morning Alice btw",
        "see you Tuesday btw",
        "It is my round",  # one capital at a sentence's start is no name
        "This is my favourite bit of the whole film",
    ],
)
def test_a_pronoun_a_question_or_a_greeting_is_no_slot_of_the_users(user_says):
    assert _read(user_says) == []


@pytest.mark.django_db
def test_another_value_of_a_slot_said_in_passing_is_held(tenant, offline):
    user_id = uuid.uuid4()
    for text in ("tax code 1257L btw", "fyi my tax code is BR since the new job started"):
        extraction_perform(tenant=tenant, external_id=user_id,
                           messages=[{"role": "user", "content": text}])  # fmt: skip

    item = ReviewItem.objects.get(end_user__external_id=user_id)
    assert item.existing_memories.get().caption == "User's tax code is 1257L"
