"""Issue 32, session 40, with the real local embedder: the sentence encoder places a name by
its sound, so the fact that gives the user's name does not make a prompt about them
("Giuseppe" and "an app to learn Italian"); a prompt asking for their name still gets it."""

from __future__ import annotations

import pytest

from memories.models import Memory
from recall.services import memory_recall_for_end_user

pytestmark = pytest.mark.django_db

BUS_DRIVER = (
    "User's name is Giuseppe",
    "User is a bus driver in Leeds",
    "User lives in Headingley",
    "User has a cat called Olive",
    "User runs 5k every Saturday",
)


@pytest.fixture
def giuseppe(settings, end_user, remember):
    settings.MEMORY_EMBEDDER = "local"  # the floors are calibrated for MiniLM
    remember(end_user, *BUS_DRIVER, category=Memory.Category.PERSONAL)
    return end_user


def _captions(end_user, prompt: str) -> list[str]:
    recall = memory_recall_for_end_user(end_user=end_user, prompt=prompt, limit=10)
    return [memory.caption for memory in recall.memories]


def test_a_language_app_is_nothing_the_user_said_though_their_name_sounds_of_it(giuseppe):
    assert _captions(giuseppe, "what's a good app to learn Italian?") == []


def test_asking_for_their_name_still_gets_it_first(giuseppe):
    assert _captions(giuseppe, "what's my name?")[:1] == ["User's name is Giuseppe"]
