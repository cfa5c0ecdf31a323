"""A user who corrects what they said before ("i misspoke", "turns out", "I'm actually", "not
X") changes the linked fact nearest in wording, on topics no rule was written for (issue 31)."""

from __future__ import annotations

import uuid

import numpy as np
import pytest

from extraction.candidates import Candidate
from extraction.cues import cues_of
from extraction.decisions import KnownMemory, Neighbour, changes_found
from extraction.jobs import extraction_perform
from extraction.updates import reading, update
from memories.comparison import Verdict
from memories.models import Memory, ReviewItem


def _say(tenant, user_id: uuid.UUID, text: str) -> None:
    extraction_perform(
        tenant=tenant,
        external_id=user_id,
        messages=[{"role": "user", "content": text}, {"role": "assistant", "content": "Noted."}],
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I'm a size M in shirts", "sorry, I'm actually a size L, the M ones pull at the back"),
        ("I cycle 20km to the office", "I cycle 12km not 20, I always round it up in my head"),
        ("I have a library card", "we let the library card lapse, never used it"),
        ("I wear a retainer at night", "took my retainer out for good last month"),
        ("I have a mole on my cheek", "had the mole on my cheek removed, all healed now"),
    ],
)
def test_a_correction_or_an_ended_thing_is_held_against_what_was_said(
    tenant, offline, first, second
):
    user_id = uuid.uuid4()
    _say(tenant, user_id, first)
    _say(tenant, user_id, second)

    item = ReviewItem.objects.get(end_user__external_id=user_id)
    assert item.new_memory.status == Memory.Status.PENDING_REVIEW


def test_a_correction_needs_another_value_a_repeat_restates():
    medium = reading("User is a size M in shirts")

    changed = update(reading("User is actually a size L", "I'm actually a size L"), medium, 0.5)
    assert changed is not None and changed.correction and "'l'" in changed.reason
    assert (
        update(reading("User is actually a size M", "I'm actually a size M"), medium, 0.5) is None
    )


def test_saying_what_one_is_not_corrects_the_fact_that_said_it():
    twenty = reading("User cycles 20km to the office")

    corrected = update(reading("User cycles 12km not 20", "I cycle 12km not 20"), twenty, 0.3)
    assert corrected is not None and corrected.automatic  # the old value is named and denied
    assert update(reading("User cycles 12km to the gym"), twenty, 0.3) is None
    # Denying a thing is no correction of another slot that names it.
    dog = reading("User has a dog called Rex")
    assert update(reading("User likes cats not dogs", "I like cats not dogs"), dog, 0.3) is None


def test_a_correction_changes_only_the_linked_fact_nearest_in_wording():
    def known(ref: str, caption: str) -> KnownMemory:
        return KnownMemory(ref, caption, f"{caption}.", "personal", Memory.Status.ACTIVE, ref,
                           np.zeros(4))  # fmt: skip

    shirts, shoes = (
        known("a", "User is a size M in shirts"),
        known("b", "User is a size 9 in shoes"),
    )
    candidate = Candidate("User is actually a size L", "User is actually a size L.",
                          said="I'm actually a size L")  # fmt: skip

    found = changes_found(candidate, [Neighbour(shoes, 0.41), Neighbour(shirts, 0.66)])

    assert found is not None and found.verdict == Verdict.CONTRADICTS and found.refs == ("a",)


def test_left_handed_is_no_change_and_a_mistake_is_a_correction():
    assert cues_of("I'm left-handed, always have been") == set()
    assert cues_of("ok i misspoke the other day") == {"corrects"}
    assert cues_of("I'm actually a night-shift worker") == {"corrects"}
    assert cues_of("been with them since they were 16") == set()
    assert cues_of("User has banked with them since age 16") == set()
    assert cues_of("i mean, I'm a nurse so I know the shifts") == set()  # a filler, no mistake


@pytest.mark.django_db
def test_a_message_that_opens_by_owning_a_mistake_corrects_what_it_goes_on_to_say(tenant, offline):
    user_id = uuid.uuid4()
    _say(tenant, user_id, "I'm a morning person, up at 5 most days")
    _say(tenant, user_id, "ok I got that wrong last time. honestly I'm a night person")

    item = ReviewItem.objects.get(end_user__external_id=user_id)
    assert item.existing_memories.get().caption == "User is a morning person"
    # The clause that only owns the mistake is no fact of its own.
    assert not Memory.objects.filter(caption__icontains="wrong").exists()


@pytest.mark.django_db
def test_switching_to_another_replaces_a_linked_habit_but_is_held_not_superseded(
    tenant, offline, settings
):
    settings.MEMORY_CONFLICT_POLICY = "supersede"
    user_id = uuid.uuid4()
    _say(tenant, user_id, "I swim at the leisure centre pool")
    _say(tenant, user_id, "switched to swimming at the lido, outdoors all year round")

    item = ReviewItem.objects.get(end_user__external_id=user_id)
    assert not item.auto_resolved  # a habit may hold several values: an operator decides
    assert item.existing_memories.get().caption == "User swims at the leisure centre pool"


def test_a_replacement_needs_a_link_and_no_addition():
    swims = reading("User swims at the leisure centre pool")

    assert update(reading("User switched to the lido for swims"), swims, 0.3) is not None
    assert update(reading("User also switched to the lido for swims"), swims, 0.3) is None
    assert update(reading("User switched to a standing desk"), swims, 0.3) is None
