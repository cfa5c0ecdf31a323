"""Changes the user dates (issue 33): a fact said to begin after the one it meets was last said
replaces it instead of folding into it, and an ending told as an event closes the fact it ends
instead of standing beside it as a current fact."""

from __future__ import annotations

import datetime
import uuid
from dataclasses import replace

import pytest
from django.contrib.auth import get_user_model

from extraction.candidates import Candidate
from extraction.jobs import extraction_perform
from extraction.reader import offline_candidates
from extraction.timing import candidate_timed, candidates_timed, ended_event
from memories.models import Memory, ReviewItem
from memories.selectors import memory_as_of_list
from memories.services.reviews import review_item_resolve

FEB = datetime.datetime(2025, 2, 10, 10, 0, tzinfo=datetime.UTC)
SEPT = datetime.datetime(2025, 9, 15, 10, 0, tzinfo=datetime.UTC)


def _say(tenant, user_id: uuid.UUID, text: str, at: datetime.datetime) -> None:
    extraction_perform(
        tenant=tenant,
        external_id=user_id,
        messages=[{"role": "user", "content": text}, {"role": "assistant", "content": "Noted."}],
        timestamp=at,
    )


def _memories(user_id: uuid.UUID) -> dict[str, Memory]:
    return {m.caption: m for m in Memory.objects.filter(end_user__external_id=user_id)}


@pytest.mark.django_db
def test_a_count_that_began_after_the_old_one_was_said_replaces_it_with_its_history(
    tenant, offline, settings
):
    settings.MEMORY_CONFLICT_POLICY = "supersede"
    user_id = uuid.uuid4()
    _say(tenant, user_id, "I own two bikes.", FEB)
    _say(tenant, user_id, "I own three bikes now, I bought a gravel bike in June.", SEPT)

    memories = _memories(user_id)
    two = memories["User owns two bikes"]
    assert (two.status, two.valid_to) == (Memory.Status.SUPERSEDED, datetime.date(2025, 6, 1))
    end_user = two.end_user
    held = [m.caption for m in memory_as_of_list(end_user=end_user, day=datetime.date(2025, 4, 1))]
    assert held == ["User owns two bikes"]


@pytest.mark.django_db
def test_under_review_a_dated_change_is_held_never_merged_into_the_old_fact(tenant, offline):
    user_id = uuid.uuid4()
    _say(tenant, user_id, "I own two bikes.", FEB)
    _say(tenant, user_id, "I own three bikes now, I bought a gravel bike in June.", SEPT)

    memories = _memories(user_id)
    two = memories["User owns two bikes"]
    assert two.status == Memory.Status.ACTIVE and two.valid_from is None  # untouched
    assert any(
        "three bikes" in caption and m.status == Memory.Status.PENDING_REVIEW
        for caption, m in memories.items()
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("before", "ending", "closed", "ended"),
    [
        (
            "I have a camper van.",
            "I sold the camper van in August.",
            "User has a camper van",
            "User sold the camper van",
        ),
        (
            "I have a gym membership at PureGym.",
            "I cancelled my gym membership last month.",
            "User has a gym membership at PureGym",
            "User cancelled their gym membership",
        ),
    ],
)
def test_an_ending_closes_the_fact_it_ends_and_is_an_event_of_its_day_not_a_current_fact(
    tenant, offline, settings, before, ending, closed, ended
):
    settings.MEMORY_CONFLICT_POLICY = "supersede"
    user_id = uuid.uuid4()
    _say(tenant, user_id, before, FEB)
    _say(tenant, user_id, ending, SEPT)

    memories = _memories(user_id)
    august = datetime.date(2025, 8, 1)
    assert (memories[closed].status, memories[closed].valid_to) == ("superseded", august)
    assert (memories[ended].valid_from, memories[ended].valid_to) == (august, august)
    end_user = memories[closed].end_user
    assert not memory_as_of_list(end_user=end_user, day=datetime.date(2025, 9, 1)).exists()


def _candidate(caption: str, said: str) -> Candidate:
    return Candidate(caption=caption, full_text=f"{caption}.", said=said, said_at=SEPT)


@pytest.mark.parametrize(
    ("caption", "said"),
    [
        ("User no longer eats meat", "i no longer eat meat"),  # a state, true now
        ("User is retired", "i'm retired"),
        ("User has been sober", "i've been sober"),
        ("User left teaching and now works in sales", "i left teaching and now work in sales"),
        ("User drives a van", "i drive a van"),  # no ending at all
    ],
)
def test_an_ending_that_states_a_state_or_brings_a_new_value_stays_as_it_is(caption, said):
    candidate = _candidate(caption, said)

    assert ended_event(candidate) == candidate


def test_an_ending_told_as_an_event_without_a_time_is_an_event_of_the_day_it_was_said():
    ended = ended_event(_candidate("User quit the choir", "i quit the choir"))

    assert (ended.valid_from, ended.valid_to) == (SEPT.date(), SEPT.date())


@pytest.mark.parametrize(
    ("said", "first", "second"),
    [
        (
            "I quit the bakery in March and now I work at a bike shop.",
            "User quit the bakery",
            "User works at a bike shop",
        ),
        (
            "we sold the flat in march and then we rented a barge",
            "User sold the flat",
            "User rented a barge",
        ),
    ],
)
def test_now_after_and_opens_the_next_clause_which_holds_since_the_change(said, first, second):
    read = offline_candidates([{"role": "user", "content": said}])
    timed = candidates_timed([replace(candidate, said_at=SEPT) for candidate in read])

    assert [candidate.caption for candidate in timed] == [first, second]
    assert timed[0].valid_from == datetime.date(2025, 3, 1)
    assert timed[1].valid_from == (datetime.date(2025, 3, 1) if "now" in said else None)


def test_an_ending_whose_clause_goes_on_to_a_new_value_is_still_an_event():
    ended = ended_event(_candidate("User cancelled Tidal", "i cancelled tidal and moved to deezer"))

    assert (ended.valid_from, ended.valid_to) == (SEPT.date(), SEPT.date())


@pytest.mark.parametrize(
    ("said", "read", "caption", "month"),
    [
        (
            "i switched to a galaxy s24 last month",
            "User switched to a galaxy s24 last month",
            "User switched to a galaxy s24",
            8,
        ),
        (
            "we bought a peugeot 208 two months ago",
            "User bought a peugeot 208 two months ago",
            "User bought a peugeot 208",
            7,
        ),
    ],
)
def test_a_number_of_the_thing_before_a_relative_time_is_not_part_of_the_time(
    said, read, caption, month
):
    timed = candidate_timed(_candidate(read, said))

    assert timed.caption == caption
    assert timed.valid_from is not None and timed.valid_from.month == month


@pytest.mark.django_db
def test_recovering_from_a_condition_ends_it_on_the_day_it_names(tenant, offline, settings):
    settings.MEMORY_CONFLICT_POLICY = "supersede"
    user_id = uuid.uuid4()
    _say(tenant, user_id, "I have tonsillitis.", FEB)
    _say(tenant, user_id, "I recovered from tonsillitis in March.", SEPT)

    had = _memories(user_id)["User has tonsillitis"]
    assert (had.status, had.valid_to) == (Memory.Status.SUPERSEDED, datetime.date(2025, 3, 1))


@pytest.mark.django_db
def test_a_held_ending_kept_by_an_operator_closes_the_fact_and_stays_an_event(tenant, offline):
    user_id = uuid.uuid4()
    _say(tenant, user_id, "I have an allotment by the canal.", FEB)
    _say(tenant, user_id, "I gave up the allotment in August.", SEPT)
    item = ReviewItem.objects.get(end_user__external_id=user_id)
    operator = get_user_model().objects.create_superuser("ines", password="not-used-here")

    review_item_resolve(review_item_id=item.pk, resolution="keep_new", operator=operator)

    memories = _memories(user_id)
    august = datetime.date(2025, 8, 1)
    assert memories["User has an allotment by the canal"].valid_to == august
    ended = memories["User gave up the allotment"]
    assert (ended.status, ended.valid_from, ended.valid_to) == ("active", august, august)


@pytest.mark.django_db
def test_an_ending_without_a_time_ends_when_the_clause_beside_it_says(tenant, offline, settings):
    settings.MEMORY_CONFLICT_POLICY = "supersede"
    user_id = uuid.uuid4()
    _say(tenant, user_id, "I'm in a book club.", FEB)
    _say(tenant, user_id, "I'm not in the book club anymore, I left in April.", SEPT)

    club = _memories(user_id)["User is in a book club"]
    assert (club.status, club.valid_to) == (Memory.Status.SUPERSEDED, datetime.date(2025, 4, 1))
