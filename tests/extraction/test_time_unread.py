"""Times said loosely (issue 33, session 40): a season or a feast said first, "back in" an event
that goes on, a time in a clause the reader leaves unread, a time said alone after the fact, a
long clause that ends on its time, and a fact given as the reason of a question."""

from __future__ import annotations

import datetime

from extraction.reader import offline_candidates
from extraction.stated import candidates_dated
from extraction.time_phrases import time_phrases
from extraction.timing import candidates_timed

NOV_10 = datetime.datetime(2026, 11, 10, 18, 30, tzinfo=datetime.UTC)
Timed = tuple[str, datetime.date | None, datetime.date | None]


def _timed(*contents: str) -> list[Timed]:
    """What the offline reader reads in the user's messages, said on 10 November 2026, timed
    as the pipeline times them (with the messages, for the times no candidate read)."""
    messages = [{"role": "user", "content": content} for content in contents]
    read = candidates_dated(offline_candidates(messages), messages, default=NOV_10)
    return [(c.caption, c.valid_from, c.valid_to) for c in candidates_timed(read, messages)]


def test_a_season_said_first_dates_the_clause_it_opens():
    said = "Since the autumn I've been the treasurer of our residents' association"

    assert _timed(said) == [
        (
            "User has been the treasurer of their residents' association",
            datetime.date(2026, 10, 1),
            None,
        )
    ]


def test_last_christmas_is_the_december_before():
    assert _timed("we got an upright piano last christmas") == [
        ("User got an upright piano", datetime.date(2025, 12, 1), None)
    ]


def test_back_in_a_month_dates_an_event_that_goes_on_and_a_state_only_then():
    assert _timed("I switched to a standing desk back in february") == [
        ("User switched to a standing desk", datetime.date(2026, 2, 1), None)
    ]
    assert _timed("I sang in a church choir back in 2010") == [
        ("User sang in a church choir", datetime.date(2010, 1, 1), datetime.date(2010, 12, 31))
    ]


def test_a_time_in_a_clause_about_others_dates_the_fact_of_now_beside_it():
    said = "the council changed our bin day in march, our bins go out on Thursdays now"

    assert _timed(said) == [
        ("User's bins go out on Thursdays now", datetime.date(2026, 3, 1), None)
    ]


def test_a_time_beside_a_fact_not_said_to_hold_now_dates_nothing():
    said = "the council changed our bin day in march, our bins go out on Thursdays"

    assert all(start is None for _, start, _ in _timed(said))


def test_a_time_said_alone_dates_the_fact_of_the_message_before():
    assert _timed("I sing bass in a barbershop quartet.", "Since 2018. Any warm-up tips?") == [
        ("User sings bass in a barbershop quartet", datetime.date(2018, 1, 1), None)
    ]


def test_a_time_said_alone_does_not_date_a_fact_told_in_the_past():
    timed = _timed("I sang bass in a barbershop quartet.", "Since 2018. Any warm-up tips?")

    assert all(start is None for _, start, _ in timed)


def test_a_long_clause_is_kept_when_it_fits_once_its_time_is_out():
    said = (
        "I've been doing my weekly shop on the Ocado app and getting it delivered on Sunday "
        "mornings since March"
    )

    assert _timed(said) == [
        (
            "User has been doing their weekly shop on the Ocado app and getting it delivered on "
            "Sunday mornings",
            datetime.date(2026, 3, 1),
            None,
        )
    ]


def test_a_reason_given_in_a_question_is_stated_and_a_condition_is_not():
    assert _timed("what can I batch cook on Sundays now that we're with Ocado?") == [
        ("User is with Ocado now", None, None)
    ]
    assert _timed("what should I do if I switch to Ocado?") == []
    assert _timed("can you explain it again as I'm confused?") == []  # how they feel


def test_a_change_told_after_a_reason_of_now_dates_it():
    said = "can you help me with the new router now that we're on Zen Internet? we switched in June"

    assert ("User is on Zen Internet now", datetime.date(2026, 6, 1), None) in _timed(said)


def test_the_first_time_of_a_habit_told_after_it_dates_the_habit():
    said = (
        "I get acupuncture every fortnight at a clinic in Hove, I had the first session three "
        "weeks ago"
    )

    assert _timed(said)[0] == (
        "User gets acupuncture every fortnight at a clinic in Hove",
        datetime.date(2026, 10, 20),
        None,
    )


def test_a_time_ends_on_its_last_word_of_time_not_on_the_next_clauses_article():
    [phrase] = time_phrases("I joined the parish council in May and the meetings are long", NOV_10)

    assert phrase.words == ("in", "may")


def test_a_fact_told_of_the_users_student_years_is_over_when_said():
    assert _timed("I worked in a bar when I was a student") == [
        ("User worked in a bar when they were a student", None, datetime.date(2026, 11, 10))
    ]


def test_back_in_a_year_keeps_a_trip_and_an_ending_apart():
    assert _timed("I went to Japan back in 2019") == [
        ("User went to Japan", datetime.date(2019, 1, 1), datetime.date(2019, 12, 31))
    ]
    assert _timed("I quit smoking back in 2019") == [
        ("User quit smoking", datetime.date(2019, 1, 1), None)
    ]


def test_a_month_said_alone_after_a_plan_dates_nothing():
    assert _timed("I'm moving to Leeds.", "In March. Any tips?") == [
        ("User is moving to Leeds", None, None)
    ]


def test_over_a_season_or_a_feast_dates_what_happened_then_and_over_a_count_is_no_time():
    assert _timed("we put the kids in a new nursery over christmas") == [
        ("User put the kids in a new nursery", datetime.date(2025, 12, 1), None)
    ]
    assert _timed("I lost over 5 kilos") == [("User lost over 5 kilos", None, None)]
