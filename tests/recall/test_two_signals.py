"""Issue 32, session 39, with the real local embedder: a prompt about nothing the user said
gets nothing, however its words brush a life domain; a prompt naming a friend the memories
never mention is answered by the user's own facts before their people's.

- A word that is in any request ("out", "recommend", "pick") makes a prompt need no domain.
- A domain named by a word alone, which the prompt's meaning does not need, reaches only a
  memory that stands out from the user's others (two signals agree, not one).
- A word every caption holds around its value ("name", "likes") is no shared topic.
"""

from __future__ import annotations

import pytest

from memories.models import Memory
from recall.services import memory_recall_for_end_user

pytestmark = pytest.mark.django_db

DRIVER = (
    "User's name is Morag",
    "User drives a bus on early shifts",
    "User lives in a tenement flat in Glasgow",
    "User goes out dancing every Saturday night",
    "User is lactose intolerant",
    "User is saving for a deposit on a flat",
    "User's nephew Finn is eight and mad about dinosaurs",
    "User's gran has dementia and lives in a care home",
    "User's dog Bran is a twelve-year-old collie with arthritis",
)


@pytest.fixture
def driver(settings, end_user, remember):
    settings.MEMORY_EMBEDDER = "local"  # the floors are calibrated for MiniLM
    remember(end_user, *DRIVER, category=Memory.Category.PERSONAL)
    return end_user


def _captions(end_user, prompt: str) -> list[str]:
    recall = memory_recall_for_end_user(end_user=end_user, prompt=prompt, limit=10)
    return [memory.caption for memory in recall.memories]


@pytest.mark.parametrize(
    "prompt",
    [
        "how do I get chewing gum out of my jeans",
        "recommend a few podcasts about volcanoes",
        "what should I name my new cactus",
        "help me write a limerick about a cat",
        "tips for my first pottery class",
        "how do I descale an espresso machine",
    ],
)
def test_a_prompt_about_nothing_the_user_said_gets_nothing(driver, prompt):
    assert _captions(driver, prompt) == []


@pytest.mark.parametrize(
    ("prompt", "needed"),
    [
        ("any ideas for a pudding tonight?", "User is lactose intolerant"),
        ("what time should I go to bed on a work night", "User drives a bus on early shifts"),
        (
            "how often should Bran go to the vet?",
            "User's dog Bran is a twelve-year-old collie with arthritis",
        ),
    ],
)
def test_a_request_a_fact_shapes_still_finds_it(driver, prompt, needed):
    assert needed in _captions(driver, prompt)[:3]


def test_a_prompt_naming_a_friend_the_memories_never_mention_puts_the_users_own_facts_first(
    driver,
):
    captions = _captions(driver, "can I have the cheesecake at my friend's birthday do?")

    assert captions[0] == "User is lactose intolerant", captions
