"""The offline judge on facts worded as users and LLMs word them: who, what, which way."""

from __future__ import annotations

import pytest

from extraction.judge import Relation, compare, statements_of


def relation(new: str, old: str) -> Relation | None:
    found = compare(statements_of(new, new), statements_of(old, old))
    return found.relation if found else None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("User lives in Porto", "The user mentioned they relocated to Lisbon in March."),
        ("User is employed at Deloitte", "User said they just started a new role at KPMG"),
        ("User's cat is called Miso", "The user's cat is named Tofu"),
        ("User prefers light mode", "User has switched their editor to dark mode"),
        ("User is single", "User got engaged to Priya over the weekend"),
        ("User smokes", "The user has given up smoking"),
        ("User's favourite film is Alien", "User said Arrival is now their favourite movie"),
        ("User is 29 years old", "User recently turned 30"),
        ("User does not have children", "User mentioned their son Leo started school"),
        ("User is allergic to dogs", "User found out they are not allergic to dogs after all"),
        ("User uses Trello for task management", "User stopped using Trello"),
        ("User lives alone", "User's boyfriend moved in with them"),
        ("User dislikes yoga", "User has come to love yoga"),
        ("User is learning Italian", "User gave up on learning Italian"),
        ("User is vegan", "User mentioned eating chicken again"),
    ],
)
def test_contradictions_in_llm_wording_are_recognised(old, new):
    assert relation(new, old) == Relation.CONTRADICTS


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("User lives in Porto", "User's brother lives in Madrid"),
        ("User works at Deloitte", "The user's wife works at KPMG"),
        ("User grew up in Porto", "User lives in Lisbon"),
        ("User has a dog named Rex", "User also has a cat named Olive"),
        ("User is allergic to peanuts", "User is also allergic to shellfish"),
        ("User likes jazz", "User enjoys hip hop"),
        ("User used to work at IBM", "User works at Red Hat"),
        ("User's mother is vegetarian", "User eats meat"),
        ("User uses macOS at home", "User uses Linux at work"),
        ("User is vegetarian", "User loves aged gouda"),
    ],
)
def test_compatible_facts_are_left_alone(old, new):
    assert relation(new, old) != Relation.CONTRADICTS


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("User lives in Madrid", "User mentioned being based in Madrid, in Lavapiés"),
        ("User is vegetarian", "User does not eat meat"),
        ("User works at Spotify as a product manager", "User is a PM at Spotify"),
        ("User's favourite book is Dune", "User said Dune is their all-time favourite novel"),
        ("User does not drink coffee", "User is not a coffee person"),
    ],
)
def test_restatements_are_the_same_fact(old, new):
    assert relation(new, old) == Relation.SAME


def test_the_reason_names_the_attribute_and_both_values():
    found = compare(
        statements_of("User moved to Munich", "User moved to Munich"),
        statements_of("User lives in Berlin", "User lives in Berlin"),
    )

    assert found.reason == "different where the user lives: 'berlin' before, 'munich' now"
    assert found.explicit_update
