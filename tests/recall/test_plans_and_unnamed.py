"""Issue 32, session 41: a plan to go somewhere or do something (a trip, a day out, an event)
is shaped by the user's standing constraints, whatever the place; and a prompt that speaks of
others without naming any of the user's people ("we", "her") is answered by the user's own
facts first. Real local embedder; topics of no bench set."""

from __future__ import annotations

import pytest

from memories.models import Memory
from recall.people import names_nobody
from recall.services import memory_recall_for_end_user

pytestmark = pytest.mark.django_db

LOCKSMITH = (
    "User's name is Tobias",
    "User works as a locksmith in Exeter",
    "User lives in a flat above a bakery in Exeter",
    "User has lupus and can't be out in strong sunshine",
    "User collects old typewriters",
    "User's husband Piet is a keen wild swimmer",
)


@pytest.fixture
def tobias(settings, end_user, remember):
    settings.MEMORY_EMBEDDER = "local"  # the floors and the domains' meaning are MiniLM's
    remember(end_user, *LOCKSMITH, category=Memory.Category.PERSONAL)
    return end_user


def _captions(end_user, prompt: str) -> list[str]:
    recall = memory_recall_for_end_user(end_user=end_user, prompt=prompt, limit=10)
    return [memory.caption for memory in recall.memories]


@pytest.mark.parametrize(
    "prompt",
    [
        "we're off to Portugal for a fortnight in August, what should we plan?",
        "we've been invited to an outdoor wedding in June, anything to think about?",
        "thinking of a weekend away in Spain with friends, where should we go?",
    ],
)
def test_a_trip_or_an_event_is_shaped_by_the_users_condition(tobias, prompt):
    top3 = _captions(tobias, prompt)[:3]

    assert "User has lupus and can't be out in strong sunshine" in top3


def test_a_plan_naming_none_of_the_users_people_answers_with_their_own_facts_first(tobias):
    captions = _captions(
        tobias, "thinking of a weekend away in Spain with friends, where should we go?"
    )

    assert captions[0] == "User has lupus and can't be out in strong sunshine"


@pytest.mark.parametrize(
    "prompt",
    [
        "how do I fix a wobbly table leg",
        "what's the best way to season a wok",
    ],
)
def test_a_chore_still_gets_nothing(tobias, prompt):
    assert _captions(tobias, prompt) == []


@pytest.mark.parametrize(
    ("prompt", "nobody"),
    [
        ("we're off to Portugal for a fortnight", True),
        ("someone at work offered us their caravan for a week", True),
        ("a friend has offered me her caravan", False),
        ("my husband wants to go to the Algarve", False),
        ("Piet wants to go to the Algarve", False),
        ("the kids want a day at the beach", False),
    ],
)
def test_a_pronoun_names_no_one_but_a_relation_or_a_name_does(prompt, nobody):
    assert names_nobody(prompt, frozenset({"piet"})) is nobody
