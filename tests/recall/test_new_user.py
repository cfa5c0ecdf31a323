"""What a new user hit (issue 32), with the real local embedder: a question mark changes
nothing, a job is found however it is asked for, the user's own facts come before their
people's, a prompt about nothing the user said gets nothing, and scores stay in [0, 1]."""

from __future__ import annotations

import pytest

from memories.models import Memory
from recall.domains import reading
from recall.services import memory_recall_for_end_user

pytestmark = pytest.mark.django_db

ANALYST = (
    "User is vegetarian",
    "User is a junior data analyst at an nhs trust",
    "User just moved to leeds",
    "User's mum lives in york",
    "User's sister Jess works as a nurse in manchester",
    "User plays bass in a band on weekends",
    "User has a cat called Miso",
)


@pytest.fixture
def local_embedder(settings):
    settings.MEMORY_EMBEDDER = "local"  # the floors are calibrated for MiniLM


@pytest.fixture
def analyst(local_embedder, end_user, remember):
    remember(end_user, *ANALYST, category=Memory.Category.PERSONAL)
    return end_user


def _captions(end_user, prompt: str, limit: int = 10) -> list[str]:
    recall = memory_recall_for_end_user(end_user=end_user, prompt=prompt, limit=limit)
    return [m.caption for m in recall.memories]


@pytest.mark.parametrize(
    "prompt",
    ["any dinner ideas", "dinner ideas", "lunch suggestions", "something to cook tonight"],
)
def test_a_question_mark_does_not_turn_a_request_into_a_general_question(analyst, prompt):
    plain = _captions(analyst, prompt)
    asked = _captions(analyst, prompt + "?")

    assert "User is vegetarian" in asked[:3], asked
    assert asked == plain
    assert reading(prompt + "?") == reading(prompt)


@pytest.mark.parametrize(
    "prompt",
    [
        "How long do cats live",
        "Why are peanuts legumes",
        "Is coffee bad for you",
        "Which city is older",
    ],
)
def test_a_general_question_reads_the_same_with_or_without_its_question_mark(prompt):
    assert reading(prompt) == reading(prompt + "?") == (False, True)


@pytest.mark.parametrize(
    "prompt", ["what do i do for work?", "where do i work", "remind me what my job is"]
)
def test_the_users_job_is_found_however_it_is_asked_for(analyst, prompt):
    found = _captions(analyst, prompt)

    assert "User is a junior data analyst at an nhs trust" in found[:3], found


@pytest.mark.parametrize(
    ("prompt", "own"),
    [
        ("where do i live?", "User just moved to leeds"),
        ("help me write a cover letter", "User is a junior data analyst at an nhs trust"),
    ],
)
def test_a_prompt_about_the_user_ranks_their_own_facts_before_their_peoples(analyst, prompt, own):
    found = _captions(analyst, prompt)

    assert found and found[0] == own, found


def test_a_prompt_that_names_the_person_still_reaches_their_facts(analyst):
    found = _captions(analyst, "where does my mum live?")

    assert found and found[0] == "User's mum lives in york", found


@pytest.mark.parametrize(
    "prompt",
    [
        "set up my editor for a new project",
        "how do I configure eslint for my repo",
        "what's the capital of peru?",
    ],
)
def test_a_prompt_about_nothing_the_user_said_gets_nothing(
    local_embedder, end_user, remember, prompt
):
    # Films and music are hobbies, and "project" is a word of hobbies too: but the request is
    # about code, which the user never mentioned.
    remember(
        end_user,
        "User plays bass in a band on weekends",
        "User can't stand horror films",
        "User's mum loves gardening, especially roses",
        category=Memory.Category.PERSONAL,
    )

    assert _captions(end_user, prompt) == []


@pytest.mark.parametrize(
    "prompt",
    ["where do i live?", "any dinner ideas?", "plan my weekend", "help me write a cover letter"],
)
def test_scores_are_bounded_to_zero_and_one(analyst, prompt):
    recall = memory_recall_for_end_user(end_user=analyst, prompt=prompt, limit=10)

    assert recall.memories
    assert all(0.0 <= m.score <= 1.0 for m in recall.memories), recall.memories
    assert [m.score for m in recall.memories] == sorted(
        (m.score for m in recall.memories), reverse=True
    )
