"""Times told beside a fact (issue 33): a start or a change said next to a fact without a time
of its own dates it, within the same message only; a start ahead holds from then; the phrases
dateparser leaves unread ("the start of the month") and a role before "last" ("since last
summer") are read."""

from __future__ import annotations

import datetime
from dataclasses import replace

from extraction.candidates import Candidate
from extraction.clauses import clauses_read
from extraction.reader import offline_candidates
from extraction.stated import candidates_dated
from extraction.time_phrases import time_fronted, time_phrases
from extraction.timing import candidate_timed, candidates_timed

NOV_10 = datetime.datetime(2026, 11, 10, 18, 30, tzinfo=datetime.UTC)


def _read_and_timed(content: str) -> list[tuple[str, datetime.date | None, datetime.date | None]]:
    """What the offline reader reads in one message said on 10 November 2026, as timed."""
    messages = [{"role": "user", "content": content}]
    read = candidates_dated(offline_candidates(messages), messages, default=NOV_10)
    return [(c.caption, c.valid_from, c.valid_to) for c in candidates_timed(read)]


def test_since_last_summer_is_a_start_not_a_time_in_the_caption():
    timed = candidate_timed(
        Candidate(
            caption="User has kept bees since last summer",
            full_text="User has kept bees since last summer.",
            said="i've kept bees since last summer",
            said_at=NOV_10,
        )
    )

    assert (timed.caption, timed.valid_from, timed.valid_to) == (
        "User has kept bees",
        datetime.date(2026, 7, 1),
        None,
    )


def test_the_start_of_the_month_is_read_as_this_month_and_leaves_the_caption():
    [phrase] = time_phrases("i joined a chess club at the start of the month", NOV_10)

    assert (phrase.start, phrase.role) == (datetime.date(2026, 11, 1), "at")
    assert phrase.words == ("at", "the", "start", "of", "the", "month")


def test_a_fact_dated_by_the_bare_start_told_right_after_it():
    assert _read_and_timed("I'm learning the tango, I started it in March 2024.")[0] == (
        "User is learning the tango",
        datetime.date(2024, 3, 1),
        None,
    )


def test_a_fact_said_to_hold_now_holds_since_the_change_in_its_clause_read_as_past():
    timed = candidate_timed(
        Candidate(
            caption="User is now a qualified skipper",
            full_text="User is now a qualified skipper.",
            said="i passed the sailing exam in may and i'm now a qualified skipper",
            said_at=NOV_10,
        )
    )

    assert (timed.valid_from, timed.valid_to) == (datetime.date(2026, 5, 1), None)


def test_a_start_ahead_holds_from_then_but_an_expectation_ends_with_its_time():
    start = candidate_timed(
        Candidate(
            caption="User is starting pottery classes in January",
            full_text="User is starting pottery classes in January.",
            said="i'm starting pottery classes in january",
            said_at=NOV_10,
        )
    )
    expected = candidate_timed(
        Candidate(
            caption="User is expecting twins in February",
            full_text="User is expecting twins in February.",
            said="we're expecting twins in february",
            said_at=NOV_10,
        )
    )

    assert (start.valid_from, start.valid_to) == (datetime.date(2027, 1, 1), None)
    assert (expected.valid_from, expected.valid_to) == (None, datetime.date(2027, 2, 28))


def test_a_change_in_another_message_of_the_conversation_dates_nothing():
    messages = [
        {"role": "user", "content": "I took up archery in April."},
        {"role": "user", "content": "I mostly knit in the evenings now."},
    ]
    read = candidates_dated(offline_candidates(messages), messages, default=NOV_10)

    timed = {c.caption: c.valid_from for c in candidates_timed(read)}

    assert timed == {
        "User took up archery": datetime.date(2026, 4, 1),
        "User mostly knits in the evenings now": None,
    }


def test_the_same_change_in_one_message_dates_the_fact_held_now():
    messages = [
        {"role": "user", "content": "I took up archery in April, I shoot twice a week now."}
    ]
    read = [replace(c, said_at=NOV_10, said_in=0) for c in offline_candidates(messages)]

    timed = {c.caption: c.valid_from for c in candidates_timed(read)}

    assert timed["User shoots twice a week now"] == datetime.date(2026, 4, 1)


def test_a_thousands_comma_and_a_time_colon_end_no_clause_but_a_label_colon_does():
    content = "Big news: we're saving £12,500 for a narrowboat. The lock opens at 10:30."
    read, _ = clauses_read([{"role": "user", "content": content}])
    clauses = [clause for clause, _ in read]

    assert any("£12,500 for a narrowboat" in clause for clause in clauses)
    assert any("10:30" in clause for clause in clauses)
    assert not any("big news" in clause.lower() and "saving" in clause for clause in clauses)


def test_a_time_before_a_possessive_subject_goes_after_its_clause():
    assert time_fronted("Since March my knitting group meets on Thursdays.") == (
        "my knitting group meets on Thursdays since March."
    )


def test_the_part_of_a_year_a_modifier_names_is_its_month():
    [end] = time_phrases("i gave up fencing at the end of last year", NOV_10)
    [mid] = time_phrases("we moved to the coast in mid 2021", NOV_10)

    assert (end.start, end.end, end.period) == (
        datetime.date(2025, 12, 1),
        datetime.date(2025, 12, 31),
        "month",
    )
    assert mid.start == datetime.date(2021, 7, 1)


def test_a_week_kept_in_a_caption_is_written_as_that_week_not_one_day():
    timed = candidate_timed(
        Candidate(
            caption="User got a telescope for their birthday last week",
            full_text="User got a telescope for their birthday last week.",
            said="i got a telescope for my birthday last week",
            said_at=NOV_10,
        )
    )

    assert timed.caption == "User got a telescope for their birthday in the week of 2 November 2026"


def test_a_length_told_in_the_simple_past_is_over_by_the_time_it_was_said():
    timed = _read_and_timed("I lived in Lyon for six years and I played water polo for ten years.")

    assert timed == [
        ("User lived in Lyon for six years", None, NOV_10.date()),
        ("User played water polo for ten years", None, NOV_10.date()),
    ]


def test_a_length_said_with_a_perfect_or_as_the_term_of_what_was_got_still_holds():
    timed = _read_and_timed("I signed up to the climbing wall for a year.")
    perfect = _read_and_timed("I've kept an aquarium for six years.")

    assert timed == [("User signed up to the climbing wall for a year", None, None)]
    assert perfect[0][1:] == (datetime.date(2020, 11, 10), None)


def test_did_is_a_past_so_a_month_told_with_it_is_the_last_one():
    timed = candidate_timed(
        Candidate(
            caption="User did the Great North Run in September",
            full_text="User did the Great North Run in September.",
            said="i did the great north run in september",
            said_at=NOV_10,
        )
    )

    assert timed.valid_from == datetime.date(2026, 9, 1)


def test_a_past_event_right_after_a_dated_one_in_the_same_sentence_happened_then():
    timed = _read_and_timed("Got my driving test result last week, I passed first time!")

    assert ("User passed first time", datetime.date(2026, 11, 2), None) in timed


def test_a_past_event_in_a_sentence_of_its_own_or_a_past_state_keeps_no_borrowed_time():
    apart = _read_and_timed("I sold the kayak last month. I bought a paddleboard.")
    state = _read_and_timed("I moved to Galway last year, I lived in Cork.")

    assert ("User bought a paddleboard", None, None) in apart
    assert not any(start for caption, start, _ in state if caption.startswith("User lived in Cork"))
