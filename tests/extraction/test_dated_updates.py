"""A new value said with the day it began closes the old one it meets (issue 33, session 40):
a thing of the user's that moved, a fact said to hold now since a change, never a start that
only adds one more."""

from __future__ import annotations

import datetime
import uuid

import pytest

from extraction.dated_updates import dated_refs
from extraction.jobs import extraction_perform
from extraction.updates import reading
from memories.models import Memory

FEB = datetime.datetime(2025, 2, 10, 10, 0, tzinfo=datetime.UTC)
SEPT = datetime.datetime(2025, 9, 15, 10, 0, tzinfo=datetime.UTC)

pytestmark = pytest.mark.django_db


def _said(tenant, *said: tuple[str, datetime.datetime]) -> dict[str, Memory]:
    """The memories of a fresh user who said each text at its time, by caption."""
    user_id = uuid.uuid4()
    for text, at in said:
        extraction_perform(
            tenant=tenant,
            external_id=user_id,
            messages=[{"role": "user", "content": text}, {"role": "assistant", "content": "Ok."}],
            timestamp=at,
        )
    return {m.caption: m for m in Memory.objects.filter(end_user__external_id=user_id)}


@pytest.fixture(autouse=True)
def _supersede(settings):
    settings.MEMORY_CONFLICT_POLICY = "supersede"


def test_a_thing_of_the_users_that_moved_closes_what_it_was_when_it_moved(tenant, offline):
    memories = _said(
        tenant,
        ("I host a pub quiz at the Red Lion every Sunday evening.", FEB),
        ("My pub quiz moved to Wednesday nights in June.", SEPT),
    )

    old = memories["User hosts a pub quiz at the Red Lion every Sunday evening"]
    assert (old.status, old.valid_to) == (Memory.Status.SUPERSEDED, datetime.date(2025, 6, 1))


def test_a_fact_of_now_dated_by_the_change_beside_it_closes_the_one_it_meets(tenant, offline):
    memories = _said(
        tenant,
        ("I park in the Smith Street multi-storey car park.", FEB),
        ("the council shut it in May, I park in the station car park now", SEPT),
    )

    old = memories["User parks in the Smith Street multi-storey car park"]
    assert (old.status, old.valid_to) == (Memory.Status.SUPERSEDED, datetime.date(2025, 5, 1))


def test_a_start_that_adds_one_more_closes_nothing(tenant, offline):
    memories = _said(
        tenant,
        ("I sing with the Hallé Choir.", FEB),
        ("I joined the Leeds Chamber Choir in May.", SEPT),
    )

    old = memories["User sings with the Hallé Choir"]
    assert (old.status, old.valid_to) == (Memory.Status.ACTIVE, None)


def test_a_dated_change_closes_at_once_only_the_facts_it_is_linked_to():
    ending = reading("User paid off and closed the Argos store card")
    met = [
        ("card", reading("User has an Argos store card"), 0.55),
        # Close by cosine only (what `cued_changes` holds for review): no word, kind or person.
        ("pension", reading("User moved their pension pot to PensionBee"), 0.55),
    ]

    assert dated_refs(ending, met) == ("card",)


def test_a_fact_said_to_have_held_since_a_time_closes_the_one_it_meets(tenant, offline):
    """The perfect with a start ("I've been ... since March") says the fact holds now, as "now"
    does: it closes the fact it meets from that time (session 41)."""
    memories = _said(
        tenant,
        ("I do the Guardian crossword on the train every morning.", FEB),
        ("Since June I've been doing the Times crossword on the train.", SEPT),
    )

    old = memories["User does the Guardian crossword on the train every morning"]
    assert (old.status, old.valid_to) == (Memory.Status.SUPERSEDED, datetime.date(2025, 6, 1))


def test_a_start_said_without_the_perfect_closes_nothing(tenant, offline):
    memories = _said(
        tenant,
        ("I do the Guardian crossword on the train every morning.", FEB),
        ("I started the Times crossword on the train in June.", SEPT),
    )

    old = memories["User does the Guardian crossword on the train every morning"]
    assert (old.status, old.valid_to) == (Memory.Status.ACTIVE, None)
