"""Endings that close what the user had (issue 33): "gave away my telescope", "the drone was
stolen", "Kenji died" close the fact that said the user had it, on the day the ending names,
and the ending itself is an event of that day, never a new open fact."""

from __future__ import annotations

import datetime
import uuid

import pytest

from extraction.jobs import extraction_perform
from extraction.named import ended_by_name, stolen_by_someone
from extraction.reader import offline_candidates
from memories.models import Memory
from memories.selectors import memory_as_of_list

MARCH = datetime.datetime(2025, 3, 4, 9, 0, tzinfo=datetime.UTC)
OCTOBER = datetime.datetime(2025, 10, 20, 18, 0, tzinfo=datetime.UTC)
AUGUST = datetime.date(2025, 8, 1)


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
@pytest.mark.parametrize(
    ("before", "ending", "closed", "ended"),
    [
        (  # an ending the registry knows, though no change cue says it
            "I have a Celestron telescope.",
            "I gave away my telescope in August.",
            "User has a Celestron telescope",
            "User gave away their telescope",
        ),
        (  # a verb the closed verb list does not know, read in the cue's past
            "I own a Leica camera.",
            "I traded in the Leica in August.",
            "User owns a Leica camera",
            "User traded in the Leica",
        ),
        (  # a passive of an irregular participle is an event, not a past state
            "I have a DJI drone.",
            "My drone was stolen in August.",
            "User has a DJI drone",
            "User's drone was stolen in August 2025",  # its time kept, written as a date
        ),
        (  # "moved" announces no start when it moves out
            "I rent an art studio in Deptford.",
            "I moved out of the Deptford studio in August.",
            "User rents an art studio in Deptford",
            "User moved out of the Deptford studio",
        ),
        (  # a sentence opening with "And" is read like any other
            "I have a National Trust membership.",
            "And I let the National Trust membership lapse in August.",
            "User has a National Trust membership",
            "User let the National Trust membership lapse",
        ),
        (  # "paid" states a fact; "paid off" ends a debt
            "I have a car loan with Zopa.",
            "I paid off the car loan in August!",
            "User has a car loan with Zopa",
            "User paid off the car loan",
        ),
        (  # a thing someone unnamed took is the user's, stolen
            "I have an inflatable paddleboard.",
            "Someone pinched the paddleboard from the beach in August.",
            "User has an inflatable paddleboard",
            "User's paddleboard got stolen from the beach",
        ),
        (  # a pet or thing named alone: the user's own
            "I have a bonsai tree called Kenji.",
            "Kenji died in August, I overwatered him.",
            "User has a bonsai tree called Kenji",
            "User's Kenji died in August 2025",
        ),
    ],
)
def test_an_ending_closes_what_the_user_had_and_is_an_event_of_its_day(
    tenant, offline, settings, before, ending, closed, ended
):
    settings.MEMORY_CONFLICT_POLICY = "supersede"
    user_id = uuid.uuid4()
    _say(tenant, user_id, before, MARCH)
    _say(tenant, user_id, ending, OCTOBER)

    memories = _memories(user_id)
    assert (memories[closed].status, memories[closed].valid_to) == ("superseded", AUGUST)
    assert (memories[ended].valid_from, memories[ended].valid_to) == (AUGUST, AUGUST)
    end_user = memories[closed].end_user
    in_june = [
        m.caption for m in memory_as_of_list(end_user=end_user, day=datetime.date(2025, 6, 1))
    ]
    in_september = memory_as_of_list(end_user=end_user, day=datetime.date(2025, 9, 1))
    assert closed in in_june
    assert not in_september.filter(caption__in=[closed, ended]).exists()


@pytest.mark.parametrize(
    "said",
    [
        "Everything died in the heatwave.",  # no name: a word of a closed class
        "It died last week.",
        "Margot moved to Leeds in August.",  # a name, but nothing ends
        "Someone said hi to me at the gym.",  # someone, but nothing taken
    ],
)
def test_a_clause_that_names_nothing_ended_is_left_as_it_is(said):
    assert ended_by_name(stolen_by_someone(said)) == said


def test_a_name_alone_with_an_ending_verb_is_read_as_the_users_own():
    read = offline_candidates([{"role": "user", "content": "Pickles passed away on Sunday."}])

    assert [candidate.caption for candidate in read] == ["User's Pickles passed away on Sunday"]
