"""Time phrases in what the user said (issue 33): when a fact holds, resolved against when it was
said, and a caption that does not go stale."""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
import uuid
from dataclasses import replace
from pathlib import Path

import pytest
from django.utils import timezone

from extraction.candidates import Candidate
from extraction.jobs import extraction_perform
from extraction.reader import offline_candidates
from extraction.time_phrases import time_fronted
from extraction.timing import candidate_timed, candidates_timed
from memories.models import Memory
from tests.extraction.extract_helpers import stored_active
from tests.scripted_llm import ScriptedLLM, fact

NOV_10 = datetime.datetime(2026, 11, 10, 18, 30, tzinfo=datetime.UTC)
JUNE_2 = datetime.datetime(2025, 6, 2, 9, 0, tzinfo=datetime.UTC)


def _timed(said: str, caption: str, at: datetime.datetime | None = NOV_10) -> Candidate:
    """The candidate the reader would write for `said`, timed as the pipeline times it."""
    return candidate_timed(
        Candidate(caption=caption, full_text=f"{caption}.", said=said, said_at=at)
    )


def test_a_move_last_month_holds_from_that_month_and_the_caption_drops_the_phrase():
    timed = _timed("we moved to lisbon last month", "User moved to Lisbon last month")

    assert timed.caption == "User moved to Lisbon"
    assert timed.full_text == "User moved to Lisbon."
    assert (timed.valid_from, timed.valid_to) == (datetime.date(2026, 10, 1), None)


def test_since_a_year_holds_from_its_first_day_and_the_full_text_keeps_the_year():
    timed = _timed("been doing pilates since 2019 tbh", "User has been doing pilates since 2019")

    assert timed.caption == "User has been doing pilates"
    assert timed.full_text == "User has been doing pilates since 2019."
    assert timed.valid_from == datetime.date(2019, 1, 1)


def test_a_caption_that_says_little_without_its_time_keeps_it_written_as_a_date():
    timed = _timed("my grandad died last year", "User's grandad died last year")

    assert timed.caption == "User's grandad died in 2025"
    assert timed.full_text == "User's grandad died in 2025."
    assert timed.valid_from == datetime.date(2025, 1, 1)


def test_since_last_year_written_as_a_date_keeps_since():
    timed = _timed("been coeliac since last year", "User has been coeliac since last year")

    assert timed.caption == "User has been coeliac since 2025"
    assert timed.valid_from == datetime.date(2025, 1, 1)


def test_so_many_years_ago_is_that_date_counted_back_from_when_it_was_said():
    timed = _timed(
        "we adopted a greyhound two years ago", "User adopted a greyhound two years ago", JUNE_2
    )

    assert timed.caption == "User adopted a greyhound"
    assert timed.valid_from == datetime.date(2023, 6, 2)


def test_a_couple_of_years_ago_is_read_as_two():
    timed = _timed(
        "i got my motorbike licence a couple of years ago",
        "User got their motorbike licence a couple of years ago",
    )

    assert timed.caption == "User got their motorbike licence"
    assert timed.valid_from == datetime.date(2024, 11, 10)


def test_a_month_said_of_something_done_is_the_last_one_before_the_message():
    timed = _timed("started at the library in march", "User started at the library in March")

    assert timed.caption == "User started at the library"
    assert timed.valid_from == datetime.date(2026, 3, 1)


def test_a_month_said_with_a_present_verb_is_the_next_one_and_a_start_holds_from_it():
    timed = _timed(
        "my son starts secondary school in september",
        "User's son starts secondary school in September",
    )

    assert timed.caption == "User's son starts secondary school"
    assert (timed.valid_from, timed.valid_to) == (datetime.date(2027, 9, 1), None)


def test_a_past_state_in_a_year_held_that_year_only_but_an_event_goes_on():
    lived = _timed("i lived in bordeaux in 2015", "User lived in Bordeaux in 2015")
    adopted = _timed("we adopted a tortoise in 2015", "User adopted a tortoise in 2015")

    assert (lived.caption, lived.valid_from, lived.valid_to) == (
        "User lived in Bordeaux",
        datetime.date(2015, 1, 1),
        datetime.date(2015, 12, 31),
    )
    assert (adopted.caption, adopted.valid_from, adopted.valid_to) == (
        "User adopted a tortoise",
        datetime.date(2015, 1, 1),
        None,
    )


def test_an_expected_baby_in_march_is_next_march_and_holds_only_until_its_end():
    timed = _timed("we're expecting a baby in march!!", "User is expecting a baby in March")

    assert timed.caption == "User is expecting a baby"
    assert (timed.valid_from, timed.valid_to) == (None, datetime.date(2027, 3, 31))


def test_a_plan_for_next_year_is_an_expectation_until_the_end_of_it():
    timed = _timed(
        "we're relocating to halifax next year", "User is relocating to Halifax next year"
    )

    assert timed.caption == "User is relocating to Halifax"
    assert (timed.valid_from, timed.valid_to) == (None, datetime.date(2027, 12, 31))


def test_used_to_is_a_fact_of_the_past_that_ended_by_the_time_it_was_said():
    timed = _timed("i used to play rugby at school", "User used to play rugby at school")

    assert timed.caption == "User used to play rugby at school"
    assert (timed.valid_from, timed.valid_to) == (None, datetime.date(2026, 11, 10))


def test_when_i_was_a_kid_is_past_with_no_known_start():
    timed = _timed(
        "had a pet rabbit when i was a kid", "User had a pet rabbit when they were a kid"
    )

    assert timed.caption == "User had a pet rabbit when they were a kid"
    assert (timed.valid_from, timed.valid_to) == (None, datetime.date(2026, 11, 10))


def test_back_in_a_year_is_a_fact_of_that_year_only():
    timed = _timed(
        "i worked as a lifeguard back in 2015", "User worked as a lifeguard back in 2015"
    )

    assert timed.caption == "User worked as a lifeguard"
    assert timed.full_text == "User worked as a lifeguard back in 2015."
    assert (timed.valid_from, timed.valid_to) == (
        datetime.date(2015, 1, 1),
        datetime.date(2015, 12, 31),
    )


def test_until_a_year_ends_the_fact_then():
    timed = _timed("lived in glasgow until 2020", "User lived in Glasgow until 2020")

    assert timed.caption == "User lived in Glasgow"
    assert timed.valid_to == datetime.date(2020, 1, 1)


def test_a_span_from_one_year_to_another_sets_both_ends():
    timed = _timed("i taught in seoul from 2010 to 2014", "User taught in Seoul from 2010 to 2014")

    assert timed.caption == "User taught in Seoul"
    assert (timed.valid_from, timed.valid_to) == (
        datetime.date(2010, 1, 1),
        datetime.date(2014, 1, 1),
    )


def test_for_so_many_years_with_has_holds_from_that_far_back():
    timed = _timed(
        "i've been at the fire station for 6 years",
        "User has been at the fire station for 6 years",
    )

    assert timed.caption == "User has been at the fire station"
    assert timed.valid_from == datetime.date(2020, 11, 10)


def test_a_season_is_read_as_its_middle_month():
    timed = _timed("took up bouldering last summer", "User took up bouldering last summer")

    assert (timed.caption, timed.valid_from) == (
        "User took up bouldering",
        datetime.date(2026, 7, 1),
    )


def test_last_and_next_before_a_month_pick_the_one_before_or_after():
    wed = _timed("we got hitched last june", "User got hitched last June")
    due = _timed("we're getting hitched next june", "User is getting hitched next June")

    assert (wed.caption, wed.valid_from) == ("User got hitched", datetime.date(2026, 6, 1))
    assert (due.caption, due.valid_to) == ("User is getting hitched", datetime.date(2027, 6, 30))


def test_for_about_so_many_years_is_still_since_then():
    timed = _timed(
        "i've been keeping bees for about 3 years",
        "User has been keeping bees for about 3 years",
    )

    assert (timed.caption, timed.valid_from) == (
        "User has been keeping bees",
        datetime.date(2023, 11, 10),
    )


def test_a_birth_two_years_ago_keeps_its_date_written_out_and_holds_no_period():
    timed = _timed("my nephew was born two years ago", "User's nephew was born two years ago")

    assert timed.caption == "User's nephew was born in November 2024"
    assert (timed.valid_from, timed.valid_to) == (None, None)


def test_a_birthday_month_is_the_fact_itself_and_stays():
    timed = _timed("my birthday's in october", "User's birthday is in October")

    assert timed.caption == "User's birthday is in October"
    assert (timed.valid_from, timed.valid_to) == (None, None)


def test_a_fact_said_to_hold_now_holds_since_the_change_told_beside_it():
    said = "we adopted a third rabbit in august, we have three rabbits now"
    read = offline_candidates([{"role": "user", "content": said}])

    timed = candidates_timed([replace(candidate, said_at=NOV_10) for candidate in read])

    assert [(c.caption, c.valid_from) for c in timed] == [
        ("User adopted a third rabbit", datetime.date(2026, 8, 1)),
        ("User has three rabbits now", datetime.date(2026, 8, 1)),
    ]


def test_now_alone_sets_no_time():
    [timed] = candidates_timed(
        [Candidate("User has three rabbits now", "x", said="we have three rabbits now")]
    )

    assert (timed.valid_from, timed.valid_to) == (None, None)


@pytest.mark.parametrize(
    ("said", "caption"),
    [
        ("my tortoise is called may", "User's tortoise is called May"),
        ("i swim 3 days a week", "User swims 3 days a week"),
        ("i do nights now", "User does nights now"),
        ("i'm a second year medical student", "User is a second year medical student"),
        ("i walk 10000 steps a day", "User walks 10000 steps a day"),
    ],
)
def test_words_that_are_not_a_time_in_the_users_life_change_nothing(said, caption):
    timed = _timed(said, caption)

    assert (timed.caption, timed.valid_from, timed.valid_to) == (caption, None, None)


def test_a_length_in_the_simple_past_keeps_its_caption_and_is_over_when_said():
    timed = _timed("i lived in hanoi for 5 years", "User lived in Hanoi for 5 years")

    assert timed.caption == "User lived in Hanoi for 5 years"
    assert (timed.valid_from, timed.valid_to) == (None, timed.said_at.date())


def test_without_a_said_time_the_phrase_is_resolved_against_now():
    timed = _timed("we got an allotment last year", "User got an allotment last year", at=None)

    assert timed.caption == "User got an allotment"
    assert timed.valid_from == datetime.date(timezone.now().year - 1, 1, 1)


def test_a_leading_phrase_leaves_a_clean_sentence():
    timed = _timed(
        "last month, my brother moved to perth", "Last month, User's brother moved to Perth"
    )

    assert timed.caption == "User's brother moved to Perth"


def test_a_failing_date_parser_keeps_the_fact_as_said(monkeypatch):
    import dateparser.search

    def broken(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(dateparser.search, "search_dates", broken)

    timed = _timed("we moved to lisbon last month", "User moved to Lisbon last month")

    assert (timed.caption, timed.valid_from) == ("User moved to Lisbon last month", None)


def test_a_clause_without_a_time_never_loads_the_date_parser():
    code = (
        "import django, sys; django.setup();"
        "from extraction.candidates import Candidate;"
        "from extraction.timing import candidate_timed;"
        "candidate_timed(Candidate('User plays the oboe', 'User plays the oboe.', said='i play"
        " the oboe'));"
        "print('dateparser' in sys.modules)"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "memory_platform.settings"}
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, check=True
    )

    assert out.stdout.strip().splitlines()[-1] == "False"


@pytest.mark.parametrize(
    ("said", "moved"),
    [
        ("Two years ago we adopted a greyhound", "we adopted a greyhound two years ago"),
        ("In 2019, I moved to Porto.", "I moved to Porto in 2019."),
        ("since march i've been at the bakery", "i've been at the bakery since march"),
        ("In Paris we ate snails", "In Paris we ate snails"),
        ("Lately I have been running", "Lately I have been running"),
        ("second: i live in berlin", "second: i live in berlin"),
    ],
)
def test_a_time_said_before_the_user_goes_after_their_clause(said, moved):
    assert time_fronted(said) == moved


def test_a_fronted_time_is_read_by_the_offline_reader_and_leaves_the_caption():
    [read] = offline_candidates([{"role": "user", "content": "A few years ago I took up judo"}])

    timed = candidate_timed(replace(read, said_at=NOV_10))

    assert (timed.caption, timed.valid_from) == ("User took up judo", datetime.date(2023, 11, 10))


@pytest.mark.django_db
def test_the_offline_path_stores_the_caption_without_the_relative_phrase(tenant, offline):
    assert stored_active(tenant, "We moved to Lisbon last month") == ["User moved to Lisbon"]


@pytest.mark.django_db
def test_the_llm_path_stores_the_caption_without_the_relative_phrase(tenant, llm_settings):
    llm = ScriptedLLM(llm_settings)
    llm.learn("ferret", fact("User got a ferret last month"))
    user = uuid.uuid4()

    extraction_perform(
        tenant=tenant,
        external_id=user,
        messages=[{"role": "user", "content": "we got a ferret last month, total chaos"}],
    )

    stored = Memory.objects.filter(end_user__external_id=user, status="active")
    assert [memory.caption for memory in stored] == ["User got a ferret"]
