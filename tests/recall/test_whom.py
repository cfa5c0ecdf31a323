"""Whom a memory is about, and whom a prompt names: the relation after a few qualifying words
and every name a caption gives ("User's indoor rabbits Pepper and Salt"), relations that name
one person in other words ("my spouse" and "User's wife"), and a relation asked about as
someone's in particular ("how old are the twins?")."""

from __future__ import annotations

import pytest

from memories.models import Memory
from recall.people import about_whom, people_named, person_words, relations_held
from recall.services import memory_recall_for_end_user


@pytest.mark.parametrize(
    ("caption", "whom"),
    [
        ("User's sister Hannah is a nurse", {"siblings", "hannah"}),
        ("User's family pony Bramble is lame", {"pony", "bramble"}),
        ("User's indoor rabbits Pepper and Salt roam free", {"rabbits", "pepper", "salt"}),
        ("User's four rescue hens live in the garden", {"hens"}),
        ("User's twins Arjun and Maya are six", {"kids", "arjun", "maya"}),
        ("User's sister-in-law is expecting twins", {"sister-in-law"}),
        ("User's new car is a Tesla", set()),
        ("User's home office has a dog bed", set()),
        ("User is a nurse", set()),
    ],
)
def test_a_caption_says_whom_it_is_about(caption, whom):
    assert about_whom(caption) == whom


def test_relations_that_may_name_one_person_match():
    assert person_words("my spouse") & person_words("User's wife") == {"partner"}
    assert person_words("the kids") & person_words("User's son") == {"kids"}


def test_a_prompt_names_a_person_but_not_a_group_it_cannot_tell_apart():
    assert people_named("can I eat the cheesecake at my mate's party", frozenset()) == {"friends"}
    assert people_named("what shall we do with the kids today", frozenset()) == frozenset()
    assert people_named("is jo free on sunday", frozenset({"jo"})) == {"jo"}


@pytest.mark.parametrize(
    ("prompt", "held"),
    [
        ("how old are the twins?", {"kids"}),
        ("when is my mum's birthday", {"parents"}),
        ("why do twins run in families?", set()),
    ],
)
def test_a_relation_is_someones_in_particular_after_the_or_my(prompt, held):
    assert relations_held(prompt) == held


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("prompt", "needed"),
    [
        ("how old are the twins?", "User's twins Isla and Rory are seven"),
        (
            "do Pepper and Salt need a hutch inside in winter?",
            "User's indoor rabbits Pepper and Salt roam free",
        ),
    ],
)
def test_a_question_about_the_users_own_people_or_animals_is_answered(
    settings, end_user, remember, prompt, needed
):
    settings.MEMORY_EMBEDDER = "local"
    remember(
        end_user,
        "User works as a tram driver in Sheffield",
        "User's twins Isla and Rory are seven",
        "User's indoor rabbits Pepper and Salt roam free",
        "User's dad lives in Rotherham",
        category=Memory.Category.PERSONAL,
    )

    recall = memory_recall_for_end_user(end_user=end_user, prompt=prompt, limit=10)

    assert recall.memories and recall.memories[0].caption == needed
