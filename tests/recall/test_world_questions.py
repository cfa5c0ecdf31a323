"""Issue 32, fourth round, with the real local embedder: a question about the world gets no
memory however close one is ("how do bees make honey?" from a beekeeper), while a question
asking for a judgement depends on who asks ("are lilies ok to have in the house?" from a cat
owner) and a question naming someone the user's memories name is about their world."""

from __future__ import annotations

import pytest

from memories.models import Memory
from recall.domains import reading
from recall.services import memory_recall_for_end_user

pytestmark = pytest.mark.django_db

KEEPER = (
    "User keeps two hives of bees at the bottom of the garden",
    "User's dog Biscuit is a nervous rescue greyhound",
    "User has a cat called Mochi",
    "User plays off a golf handicap of 14",
    "User works as an architect designing Passivhaus schools",
    "User's knee still clicks since the ACL surgery",
)


@pytest.fixture
def keeper(settings, end_user, remember):
    settings.MEMORY_EMBEDDER = "local"  # the floors are calibrated for MiniLM
    remember(end_user, *KEEPER, category=Memory.Category.PERSONAL)
    return end_user


def _recall(end_user, prompt: str):
    return memory_recall_for_end_user(end_user=end_user, prompt=prompt, limit=10, explain=True)


@pytest.mark.parametrize(
    "prompt",
    [
        "how do bees make honey?",
        "How does the golf handicap system work",
        "what is the passivhaus standard?",
        "How does an ACL tear usually happen?",
        "why do greyhounds wear muzzles",
    ],
)
def test_a_question_about_the_world_gets_nothing_however_close_a_memory_is(keeper, prompt):
    recall = _recall(keeper, prompt)

    assert recall.memories == [], [m.caption for m in recall.memories]
    assert recall.explanation["general_question"] is True


@pytest.mark.parametrize(
    ("prompt", "needed"),
    [
        ("are lilies ok to have in the house?", "User has a cat called Mochi"),
        ("is a smart lock worth it for when the dog walker comes", "User's dog Biscuit"),
    ],
)
def test_a_question_asking_for_a_judgement_is_answered_for_the_user(keeper, prompt, needed):
    recall = _recall(keeper, prompt)

    assert recall.explanation["general_question"] is False
    assert any(m.caption.startswith(needed) for m in recall.memories[:3]), [
        m.caption for m in recall.memories
    ]


@pytest.mark.parametrize(
    "prompt",
    [
        "What's a good password manager?",
        "is nicotine gum worth it",
        "Is it OK to take ibuprofen with a cold?",
    ],
)
def test_a_judgement_reads_as_a_request_for_advice_not_a_general_question(prompt):
    personal, general = reading(prompt)

    assert (personal, general) == (True, False)


def test_a_judgement_word_inside_a_name_is_no_judgement():
    assert reading("Who co-wrote Good Omens with Terry Pratchett?") == (False, True)


def test_a_question_naming_someone_the_memories_name_is_about_their_world(keeper):
    recall = _recall(keeper, "Why is Biscuit scared of the hoover?")

    assert recall.explanation["general_question"] is False
    assert recall.memories[0].caption.startswith("User's dog Biscuit")


def test_a_famous_full_name_is_not_one_of_the_users_people(settings, end_user, remember):
    settings.MEMORY_EMBEDDER = "local"
    remember(end_user, "User's uncle Terry taught them to fish", "User reads fantasy novels")

    recall = _recall(end_user, "Who co-wrote Good Omens with Terry Pratchett?")

    assert recall.memories == [], [m.caption for m in recall.memories]


@pytest.mark.parametrize(
    ("prompt", "memory"),
    [
        (
            "What was discussed in the grief counselling workshop?",
            "User went to a grief counselling workshop where they discussed journaling and sleep",
        ),
        ("when's choir practice?", "User sings in a community choir that practises on Thursdays"),
    ],
)
def test_a_question_about_an_event_of_the_users_life_finds_it(
    settings, end_user, remember, prompt, memory
):
    settings.MEMORY_EMBEDDER = "local"
    remember(end_user, memory, "User lives in Leeds", "User plays the trumpet")

    recall = _recall(end_user, prompt)

    assert recall.memories and recall.memories[0].caption == memory


@pytest.mark.parametrize(
    "prompt", ["When did the Berlin Wall fall?", "how did coal mines keep the air breathable?"]
)
def test_a_question_about_history_stays_the_worlds(settings, end_user, remember, prompt):
    settings.MEMORY_EMBEDDER = "local"
    remember(end_user, "User moved to Berlin after the wall fell", "User's grandad was a miner")

    assert _recall(end_user, prompt).memories == []


@pytest.mark.parametrize(
    "prompt", ["What did Mel and her kids paint last month?", "Who is Anthony?"]
)
def test_a_short_form_or_a_given_name_the_memories_use_is_about_their_world(
    settings, end_user, remember, prompt
):
    settings.MEMORY_EMBEDDER = "local"
    remember(
        end_user,
        "Melanie painted a sunset with her kids last month",
        "Melanie's friend Anthony restores old motorbikes",
        "Melanie lives near the coast",
    )

    recall = _recall(end_user, prompt)

    assert recall.explanation["general_question"] is False
    assert recall.memories, prompt
