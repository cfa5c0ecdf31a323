"""Issue 33: how a fact's time reads. A period label is a pure function of its bounds; a kind
of fact that moves with time (the registry's `ages`) is shown as today's value with the day it
was said."""

from __future__ import annotations

import datetime

import pytest

from memories.attributes import registry
from memories.periods import caption_today, date_text, period_label, years_between

D = datetime.date


@pytest.mark.parametrize(
    ("valid_from", "valid_to", "label"),
    [
        (D(2026, 10, 1), None, "since October 2026"),
        (None, D(2019, 1, 1), "until 2019"),
        (D(2021, 3, 1), D(2024, 6, 1), "from March 2021 to June 2024"),
        (D(2019, 1, 1), D(2021, 1, 1), "from 2019 to 2021"),
        (D(2024, 5, 1), D(2024, 5, 20), "in May 2024"),
        (None, None, ""),
    ],
)
def test_a_period_reads_as_people_say_it(valid_from, valid_to, label):
    assert period_label(valid_from, valid_to) == label


def test_a_bound_on_the_first_of_january_is_a_year():
    assert date_text(D(2019, 1, 1)) == "2019"
    assert date_text(D(2019, 1, 2)) == "January 2019"


def test_only_the_registry_kinds_that_move_with_time_age():
    assert [name for name, entry in registry().items() if entry.ages] == ["age"]


@pytest.mark.parametrize(
    ("caption", "said", "today", "shown"),
    [
        ("User is 34", D(2024, 11, 2), D(2026, 11, 26), "User is about 36 (said 34 on 2024-11-02)"),
        (
            "User's daughter is 7 years old",
            D(2023, 1, 10),
            D(2026, 3, 1),
            "User's daughter is about 10 years old (said 7 on 2023-01-10)",
        ),
        ("User is 34", D(2026, 3, 1), D(2026, 11, 26), "User is 34"),  # under a year
        ("User lives at 34 Elm Street", D(2020, 1, 1), D(2026, 1, 1), None),  # not an age
        ("User has 3 cats", D(2020, 1, 1), D(2026, 1, 1), None),  # a count, not an age
    ],
)
def test_an_age_is_shown_as_todays(caption, said, today, shown):
    assert caption_today(caption, said, today) == (shown or caption)


def test_years_between_counts_whole_years_never_negative():
    assert years_between(D(2024, 11, 2), D(2026, 11, 1)) == 1
    assert years_between(D(2024, 11, 2), D(2026, 11, 3)) == 2
    assert years_between(D(2026, 1, 1), D(2025, 1, 1)) == 0
