"""The offline reader on the styles of chat a dense message comes in: a run-on without
punctuation, emoji between facts, states joined by "and", names listed after a count, and what
someone else said."""

from __future__ import annotations

import pytest

from extraction.reader import read_statements


def _read(*user_says: str) -> list[str]:
    messages = [{"role": "user", "content": text} for text in user_says]
    return [candidate.caption for candidate in read_statements(messages)]


_FIRST_PERSON = {"i", "im", "i'm", "me", "my", "we", "our", "us", "ive", "i've"}


def _no_first_person(captions: list[str]) -> None:
    for caption in captions:
        words = {w.strip(".,!").lower() for w in caption.split()}
        assert not words & _FIRST_PERSON, caption


@pytest.mark.parametrize(
    ("typed", "facts"),
    [
        (
            "im 29 i work in sales my husband is a teacher we have a cat",
            ["User is 29", "User works in sales", "User's husband is a teacher", "User has a cat"],
        ),
        (
            "ok so im a nurse my son is 7 he loves lego",
            ["User is a nurse", "User's son is 7", "User's son loves lego"],
        ),
        (
            "hi i live in leeds with my wife my wife is a vet she works weekends",
            ["User lives in Leeds", "User's wife is a vet", "User's wife works weekends"],
        ),
    ],
)
def test_a_run_on_without_punctuation_is_read_as_its_clauses(typed, facts):
    captions = _read(typed)
    for fact in facts:
        assert fact in captions
    _no_first_person(captions)


@pytest.mark.parametrize(
    "typed",
    [
        "i think my sister is pregnant",  # a thought, not her fact
        "i hope my son gets the job",
        "a photo of my dog is on my desk",
    ],
)
def test_a_subject_a_clause_holds_open_is_not_a_new_statement(typed):
    captions = _read(typed)
    assert not any(
        c.startswith("User's sister is") or c.startswith("User's son gets") for c in captions
    )
    _no_first_person(captions)


def test_emoji_between_facts_end_each_clause():
    captions = _read("im 29 🙂 work in sales 💼 my husband is a teacher 🍎 we have a cat 🐱")
    assert captions == [
        "User is 29",
        "User works in sales",
        "User's husband is a teacher",
        "User has a cat",
    ]
