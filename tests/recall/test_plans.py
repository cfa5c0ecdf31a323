"""Issue 32, session 41: a plan to go somewhere or do something (a trip, a day out, an event)
is shaped by the user's standing constraints, whatever the place, when nothing else answers
it; a chore still gets nothing. Real local embedder; topics of no bench set."""

from __future__ import annotations

import numpy as np
import pytest

from memories.models import Memory
from recall.domains import COLUMNS, NAMES
from recall.services import memory_recall_for_end_user
from recall.standing import plans_need

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


@pytest.mark.parametrize(
    "prompt",
    [
        "how do I fix a wobbly table leg",
        "what's the best way to season a wok",
    ],
)
def test_a_chore_still_gets_nothing(tobias, prompt):
    assert _captions(tobias, prompt) == []


def test_only_the_domains_marked_as_plans_make_a_request_a_plan():
    meaning = np.zeros(COLUMNS, np.float32)
    meaning[NAMES.index("diet")] = 1.0
    assert plans_need(meaning) == 0.0

    meaning[NAMES.index("travel")] = 0.7
    assert plans_need(meaning) == pytest.approx(0.7)
    assert plans_need(None) == 0.0
