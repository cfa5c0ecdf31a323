"""Times said loosely (issue 33, session 41): a feast with "just before" or "right after", a
count said with "back" or as a fortnight, "this time last year", "the week before last", "the
other week", a modifier joined to its month by a hyphen, a time named by a phrase of its own
("since lockdown"), and a role said before a modifier ("since early last year"). Each is read
to its month and taken out of the caption."""

from __future__ import annotations

import datetime

import pytest

from extraction.reader import offline_candidates
from extraction.stated import candidates_dated
from extraction.time_phrases import time_phrases
from extraction.timing import candidates_timed

NOV_10 = datetime.datetime(2026, 11, 10, 18, 30, tzinfo=datetime.UTC)


def _timed(content: str) -> list[tuple[str, datetime.date | None, datetime.date | None]]:
    """What the offline reader reads in one user message said on 10 November 2026, timed as
    the pipeline times it."""
    messages = [{"role": "user", "content": content}]
    read = candidates_dated(offline_candidates(messages), messages, default=NOV_10)
    return [(c.caption, c.valid_from, c.valid_to) for c in candidates_timed(read, messages)]


@pytest.mark.parametrize(
    ("said", "caption", "month"),
    [
        ("I joined a community choir right after christmas", "User joined a community choir",
         (2025, 12)),
        ("I started pilates just after easter", "User started pilates", (2026, 4)),
        ("I took up the harp in mid-january", "User took up the harp", (2026, 1)),
        ("I started the crochet club a fortnight ago", "User started the crochet club",
         (2026, 10)),
        ("I started learning calligraphy this time last year",
         "User started learning calligraphy", (2025, 11)),
        ("I joined the pub quiz team earlier this year", "User joined the pub quiz team",
         (2026, 1)),
        ("I started volunteering at the repair café a few months back",
         "User started volunteering at the repair café", (2026, 8)),
        ("I joined the ukulele group at the start of the year", "User joined the ukulele group",
         (2026, 1)),
        ("I started archery half a year ago", "User started archery", (2026, 5)),
        ("I joined a rambling group the other week", "User joined a rambling group", (2026, 11)),
        ("I bought a kiln a couple of weekends ago", "User bought a kiln", (2026, 10)),
        ("I've been doing parkrun since lockdown", "User has been doing parkrun", (2020, 3)),
        ("I started knitting during the pandemic", "User started knitting", (2020, 3)),
        ("I stopped buying vinyl a good few years ago", "User stopped buying vinyl", (2023, 11)),
        ("I've been on the allotment waiting list for the last few months",
         "User has been on the allotment waiting list", (2026, 8)),
    ],
)  # fmt: skip
def test_a_loose_time_is_read_to_its_month_and_left_out_of_the_caption(said, caption, month):
    [(found, valid_from, valid_to)] = _timed(said)

    assert found == caption
    assert valid_from is not None and (valid_from.year, valid_from.month) == month
    assert valid_to is None


def test_the_week_before_last_is_two_weeks_back():
    [(caption, valid_from, _)] = _timed("I joined the book club the week before last")

    assert caption == "User joined the book club"
    assert valid_from == datetime.date(2026, 10, 27)


def test_a_role_said_before_a_modifier_is_the_phrase_s_role():
    """Said "since early last year": from January 2025, not an event then, and the caption keeps no
    half of the phrase ("since in January 2025")."""
    assert _timed("I've been doing escape rooms since early last year") == [
        ("User has been doing escape rooms", datetime.date(2025, 1, 1), None)
    ]


def test_a_count_written_with_and_does_not_run_the_time_on():
    """A time phrase ends on its last word of time: "since 2021 and never won" keeps its "and"."""
    [phrase] = time_phrases("I've had a library card since 2021 and never used it", NOV_10)

    assert phrase.words == ("since", "2021")


def test_a_month_or_season_before_last_is_a_year_before_the_last_one():
    assert _timed("I've worked nights since the summer before last") == [
        ("User has worked nights", datetime.date(2025, 7, 1), None)
    ]


def test_new_years_day_is_the_first_of_january():
    [(caption, valid_from, _)] = _timed("I've been off the booze since new year's day")

    assert (caption, valid_from) == ("User has been off the booze", datetime.date(2026, 1, 1))


def test_from_a_month_with_a_future_verb_is_the_next_one():
    """Said with "since", a time looks back whatever the verb (`time_since.txt`); "from
    january" said with "will" in November is the coming January."""
    [(caption, valid_from, _)] = _timed("I'll be on maternity leave from january")

    assert (caption, valid_from) == ("User will be on maternity leave", datetime.date(2027, 1, 1))


def test_a_feast_said_with_at_and_the_end_of_the_year_are_times():
    assert _timed("We're getting a puppy at christmas") == [
        ("User is getting a puppy", None, datetime.date(2026, 12, 31))
    ]
    [(caption, _, valid_to)] = _timed("I'm retiring at the end of the year")
    assert (caption, valid_to) == ("User is retiring in December 2026", datetime.date(2026, 12, 31))
