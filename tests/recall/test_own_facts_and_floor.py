"""Issue 32, second round, with the real local embedder: a prompt naming one of the user's
people however it is written is about them; a prompt about the user themself is answered by
their own facts, not by their people's through a shared life domain; and a domain alone does
not make a prompt about the user when its memories are further from it than the user's
average memory."""

from __future__ import annotations

import pytest

from memories.models import Memory
from recall.services import memory_recall_for_end_user

pytestmark = pytest.mark.django_db

NURSE = (
    "User works as a dental nurse",
    "User's brother Callum is a firefighter in Glasgow",
    "User lives in a flat in Bristol",
    "User drinks green tea",
    "User's dad lives in Cardiff",
    "User plays five-a-side football on Mondays",
    "User is learning Spanish",
)


@pytest.fixture
def nurse(settings, end_user, remember):
    settings.MEMORY_EMBEDDER = "local"  # the floors are calibrated for MiniLM
    remember(end_user, *NURSE, category=Memory.Category.PERSONAL)
    return end_user


def _recall(end_user, prompt: str):
    return memory_recall_for_end_user(end_user=end_user, prompt=prompt, limit=10, explain=True)


@pytest.mark.parametrize(
    "prompt",
    [
        "callum's shattered after a run of night shifts, what could i post him?",
        "callum has an interview on monday, how can i help him prep",
    ],
)
def test_a_prompt_naming_one_of_the_users_people_in_lower_case_is_about_them(nurse, prompt):
    recall = _recall(nurse, prompt)

    assert recall.explanation["about_self"] is False
    assert recall.memories[0].caption == "User's brother Callum is a firefighter in Glasgow"


def test_a_domain_alone_does_not_answer_a_prompt_its_memories_are_far_from(nurse):
    # Pets and home are needed, and the user lives somewhere, but never spoke of a pet.
    recall = _recall(nurse, "my puppy keeps chewing the sofa, what do I do")

    assert recall.memories == [], [m.caption for m in recall.memories]


@pytest.mark.parametrize(
    "prompt",
    [
        "tips for my first triathlon",
        "build me a workout plan",
        "I keep getting headaches at work",
    ],
)
def test_a_prompt_about_the_user_gets_nothing_of_their_peoples_health(
    settings, end_user, remember, prompt
):
    settings.MEMORY_EMBEDDER = "local"
    remember(
        end_user,
        "User's mum has asthma",
        "User's grandad needs a new hip",
        "User lives in Norwich",
        "User is a primary school teacher",
        category=Memory.Category.PERSONAL,
    )

    recall = _recall(end_user, prompt)

    assert recall.explanation["about_self"] is True
    assert not [m.caption for m in recall.memories if m.caption.startswith("User's")]


@pytest.mark.parametrize("prompt", ["what's a good time to ring Callum?", "is callum on nights"])
def test_a_question_naming_one_of_the_users_people_is_not_a_general_question(nurse, prompt):
    recall = _recall(nurse, prompt)

    assert recall.explanation["general_question"] is False
    assert recall.memories[0].caption == "User's brother Callum is a firefighter in Glasgow"


def test_explain_says_the_domain_reached_only_memories_further_than_average(nurse):
    why = _recall(nurse, "my puppy keeps chewing the sofa, what do I do").explanation

    assert why["best_domain_need"] >= why["domain_floor"]
    assert why["best_domain_z"] < why["domain_z_floor"] == 0.0
