"""A list of objects after one verb (`extraction.lists`): each item a fact of the same subject
and verb, whatever the topic; a shape it cannot read is left as it was."""

from __future__ import annotations

import pytest

from extraction.reader import read_statements


def _read(*user_says: str) -> list[str]:
    messages = [{"role": "user", "content": text} for text in user_says]
    return [candidate.caption for candidate in read_statements(messages)]


@pytest.mark.parametrize(
    ("typed", "facts"),
    [
        (
            "we have a cat, two guinea pigs and a very old goldfish",
            ["User has a cat", "User has two guinea pigs", "User has a very old goldfish"],
        ),
        (
            "I'm Dutch and I speak English, German and a little Italian.",
            [
                "User is Dutch",
                "User speaks English",
                "User speaks German",
                "User speaks a little Italian",
            ],
        ),
        (
            "im allergic to nuts, shellfish and kiwi",
            [
                "User is allergic to nuts",
                "User is allergic to shellfish",
                "User is allergic to kiwi",
            ],
        ),
        (
            "my son plays football, cricket and rugby",
            ["User's son plays football", "User's son plays cricket", "User's son plays rugby"],
        ),
    ],
)
def test_each_item_of_a_list_is_a_fact_of_the_same_subject_and_verb(
    typed: str, facts: list[str]
) -> None:
    assert _read(typed) == facts


def test_a_list_is_never_an_apposition_of_its_first_item() -> None:
    captions = _read("we have a cat, a dog and a rabbit")

    assert captions == ["User has a cat", "User has a dog", "User has a rabbit"]
    assert not any("cat is a dog" in caption for caption in captions)


def test_names_after_a_count_still_name_the_group() -> None:
    assert _read("we have 2 rabbits, biscuit and fudge") == [
        "User has 2 rabbits",
        "User's rabbits are called biscuit and fudge",
    ]


@pytest.mark.parametrize(
    "typed",
    [
        "i teach maths at a secondary school, year 9 and 10",  # its object ends no clause
        "im a nurse, 34 and married",  # "married": a state of its own
        "i got a dog, a rescue greyhound called pepper",  # an apposition: no "and"
    ],
)
def test_a_shape_that_is_no_list_of_objects_is_left_as_it_was(typed: str) -> None:
    captions = _read(typed)

    assert not any(
        caption.startswith(("User teaches maths at year", "User is 34 and", "User got a rescue"))
        for caption in captions
    ), captions


def test_a_list_ending_on_a_dangling_and_loses_nothing() -> None:
    assert _read("I like tea, and \nmy sister is a nurse and I live in Porto") == [
        "User likes tea",
        "User's sister is a nurse",
        "User lives in Porto",
    ]


def test_a_list_that_cannot_be_read_leaves_the_clauses_as_they_came(monkeypatch) -> None:
    from extraction import lists

    def broken(clauses):
        raise ValueError("unreadable")

    monkeypatch.setattr(lists, "_distributed", broken)

    assert _read("we have a cat, a dog and a rabbit")[:1] == ["User has a cat"]
