"""The offline reader on a practice the user ended, said without naming it again ("I used to
smoke but I quit"): the caption names what was quit, never "User quit three years ago"."""

from __future__ import annotations

import pytest

from extraction.reader import read_statements


def _read(user_says: str) -> list[str]:
    return [c.caption for c in read_statements([{"role": "user", "content": user_says}])]


@pytest.mark.parametrize(
    ("user_says", "captions"),
    [
        ("I used to smoke but I quit three years ago",
         ["User used to smoke", "User quit smoking three years ago"]),
        ("used to play rugby, gave up after my knee op",
         ["User used to play rugby", "User gave up playing rugby after their knee op"]),
        ("I bake sourdough every weekend. stopped in the summer tho",
         ["User bakes sourdough every weekend",
          "User stopped baking sourdough every weekend in the summer"]),
    ],
)  # fmt: skip
def test_an_ending_verb_said_alone_ends_the_practice_the_clause_before_stated(user_says, captions):
    assert _read(user_says) == captions


@pytest.mark.parametrize(
    ("user_says", "caption"),
    [
        ("I used to smoke, quit the gym too", "User quit the gym"),
        ("I'm a nurse but I quit last year", "User quit last year"),
    ],
)
def test_an_ending_verb_with_its_own_object_or_no_practice_before_it_is_left_as_said(
    user_says, caption
):
    assert caption in _read(user_says)
