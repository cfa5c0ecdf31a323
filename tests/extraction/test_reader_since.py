"""The offline reader on a sentence that opens with what happened before the user's clause
("Since moving to Denver, I've taken up skiing"): both facts are kept, with or without the
comma, an opening that states nothing ("since you asked") leaves the clause as it was, and a
time alone ("Since March I've been ...") dates the clause it opens."""

from __future__ import annotations

import datetime
from dataclasses import replace

import pytest

from extraction.reader import read_statements
from extraction.timing import candidates_timed


def _read(user_says: str) -> list[str]:
    return [c.caption for c in read_statements([{"role": "user", "content": user_says}])]


@pytest.mark.parametrize(
    ("user_says", "captions"),
    [
        ("Since moving to Galway, I've joined a rowing club",
         ["User moved to Galway", "User has joined a rowing club"]),
        ("After selling the bakery I started teaching pastry classes",
         ["User sold the bakery", "User started teaching pastry classes"]),
        ("ever since I switched to night shifts I sleep till noon",
         ["User switched to night shifts", "User sleeps till noon"]),
        ("Since my hip replacement in March, I walk with a stick",
         ["User's hip replacement was in March", "User walks with a stick"]),
    ],
)  # fmt: skip
def test_what_happened_before_the_users_clause_is_a_fact_of_its_own(user_says, captions):
    assert _read(user_says) == captions


@pytest.mark.parametrize(
    ("user_says", "captions"),
    [
        ("since you asked, I'm a vegan", ["User is a vegan"]),
        ("after all, I love my job", ["User loves their job"]),
    ],
)
def test_an_opening_that_states_nothing_leaves_the_clause_as_it_was(user_says, captions):
    assert _read(user_says) == captions


SAID_AT = datetime.datetime(2026, 8, 17, 12, tzinfo=datetime.UTC)


@pytest.mark.parametrize(
    ("user_says", "caption", "since"),
    [
        ("Since March I've been learning the harp, my teacher is great.",
         "User has been learning the harp", datetime.date(2026, 3, 1)),
        ("Lessons. Since last year I've been fostering rescue greyhounds.",
         "User has been fostering rescue greyhounds", datetime.date(2025, 1, 1)),
        ("Since January my commute is by canal boat, the trains were awful.",
         "User's commute is by canal boat", datetime.date(2026, 1, 1)),
    ],
)  # fmt: skip
def test_a_time_opening_the_sentence_dates_the_clause_it_opens(user_says, caption, since):
    read = read_statements([{"role": "user", "content": user_says}])
    said = [replace(candidate, said_at=SAID_AT) for candidate in read]
    timed = {c.caption: c.valid_from for c in candidates_timed(said)}

    assert timed[caption] == since
