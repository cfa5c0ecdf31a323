"""Changes said the way people chat, read by closed classes whatever the topic (issue 31): a
cue verb after "had to", a fact the user says holds alone ("only"), a correction opened with
"wait no", and a change said with no verb ("finally mortgage free")."""

from __future__ import annotations

import uuid

import pytest

from extraction.cued_changes import cued_change
from extraction.cues import cues_of
from extraction.reader import offline_candidates
from extraction.updates import reading
from memories.models import Memory, ReviewItem

pytestmark = pytest.mark.django_db


def _say(tenant, user_id: uuid.UUID, text: str) -> None:
    from extraction.jobs import extraction_perform

    extraction_perform(tenant=tenant, external_id=user_id,
                       messages=[{"role": "user", "content": text}])  # fmt: skip


def test_a_cue_verb_after_had_to_announces_what_its_past_does():
    assert cues_of("had to cancel the headspace subscription") == {"ends"}
    assert "replaces" in cues_of("had to switch to the night bus")
    # A wish or a plan is no frame of something done.
    assert cues_of("I want to cancel the headspace subscription") == set()
    assert cues_of("had to explain it twice") == set()


def test_a_change_to_what_the_user_said_holds_alone_is_held_when_close():
    only = reading("User only rides fixed gear bikes")
    also = reading("User rides fixed gear bikes")
    new = reading("User is on an e-bike these days", "it's an e-bike these days")

    assert cued_change(new, only, 0.6, "") is not None
    # Without "only", a fact may hold several values: a bike more ends none.
    assert cued_change(new, also, 0.6, "") is None
    # Held for review, never superseded at once: the link is a cosine.
    change = cued_change(new, only, 0.6, "")
    assert change is not None and not change.automatic


def test_wait_no_corrects_what_was_said():
    assert cues_of("wait no, my actual locker number is 41") == {"corrects"}


@pytest.mark.parametrize(
    ("said", "caption"),
    [
        ("finally mortgage free!!", "User is finally mortgage free"),
        ("down to 3 shifts a week now", "User is down to 3 shifts a week now"),
    ],
)
def test_a_change_said_without_a_verb_is_the_users(said, caption):
    assert [c.caption for c in offline_candidates([{"role": "user", "content": said}])] == [caption]


@pytest.mark.parametrize(
    "said", ["now what", "ok now the next one", "now explain recursion", "mid-level since march"]
)
def test_a_fragment_that_only_holds_a_cue_states_nothing(said):
    assert offline_candidates([{"role": "user", "content": said}]) == []


def test_paying_off_a_mortgage_said_without_a_verb_holds_the_mortgage(tenant, offline):
    user_id = uuid.uuid4()
    _say(tenant, user_id, "I have a mortgage on the flat")
    _say(tenant, user_id, "finally mortgage free!!")

    item = ReviewItem.objects.get(end_user__external_id=user_id)
    assert item.existing_memories.get().caption == "User has a mortgage on the flat"
    assert item.new_memory.status == Memory.Status.PENDING_REVIEW


def test_a_value_said_first_with_an_adverb_before_the_slot_is_read():
    said = "Catan is hands down my favourite board game, we play it every friday"
    captions = [c.caption for c in offline_candidates([{"role": "user", "content": said}])]

    assert "User's favourite board game is Catan" in captions


def test_another_favourite_of_the_same_slot_is_held(tenant, offline):
    user_id = uuid.uuid4()
    _say(tenant, user_id, "my favourite board game is Catan")
    _say(tenant, user_id, "Wingspan is basically my favourite board game, it's so calm")

    item = ReviewItem.objects.get(end_user__external_id=user_id)
    assert item.existing_memories.get().caption == "User's favourite board game is Catan"


@pytest.mark.parametrize(
    "second",
    [
        "my favourite card game is Uno",  # another slot
        "my favourite board game is Catan with the seafarers expansion",  # the same value
        "I also love Wingspan",  # an addition
    ],
)
def test_a_favourite_that_keeps_the_first_is_not_held(tenant, offline, second):
    user_id = uuid.uuid4()
    _say(tenant, user_id, "my favourite board game is Catan")
    _say(tenant, user_id, second)

    assert not ReviewItem.objects.filter(end_user__external_id=user_id).exists()


def test_leaving_a_job_or_rehoming_a_pet_is_said_to_end_it():
    assert cues_of("handed in my notice at the garden centre today") == {"ends"}
    assert "ends" in cues_of("we rehomed the guinea pigs last week")


def test_an_event_after_so_i_is_kept_and_what_follows_from_a_fact_is_not():
    captions = [c.caption for c in offline_candidates(
        [{"role": "user", "content": "the boiler packed up so I bought a heat pump"}]
    )]  # fmt: skip
    assert "User bought a heat pump" in captions
    captions = [c.caption for c in offline_candidates(
        [{"role": "user", "content": "im a chef so i never cook at home"}]
    )]  # fmt: skip
    assert captions == ["User is a chef"]
