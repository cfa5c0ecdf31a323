"""A second message that names what a stored fact names and says more about it is that fact
told again (issue 31): one memory, the richer wording kept. Another pet, another verb or
another value is never folded in. Written the way people type; on topics no bench set has."""

from __future__ import annotations

import numpy as np
import pytest

from extraction.cued_changes import modifier_changed
from extraction.decisions import Action, decide
from extraction.reader import offline_candidates
from extraction.restatements import named_again, same_one, slot_restated
from extraction.updates import reading
from tests.extraction.decide_helpers import candidate, known, unit


def _at(similarity: float) -> np.ndarray:
    """A unit vector at `similarity` to unit(1, 0)."""
    return unit(similarity, float(np.sqrt(1 - similarity**2)))


def _read(text: str) -> list[str]:
    return [c.caption for c in offline_candidates([{"role": "user", "content": text}])]


def test_a_pet_named_beside_a_visit_that_passes_is_still_named():
    # The class is tomorrow and passes; who Pickle is holds.
    assert _read("Pickle, my dachshund, has her first puppy class tomorrow, any tips?") == [
        "User's dachshund is called Pickle"
    ]
    assert _read("my dog Pickle is at the groomers today") == ["User's dog is called Pickle"]


def test_a_pet_named_in_lower_case_before_its_breed_is_the_users():
    assert _read("pudding, my tabby, sleeps on the radiator all day") == [
        "User's tabby pudding sleeps on the radiator all day"
    ]


def test_a_breed_named_like_the_stored_pet_is_that_pet_and_merges():
    stored = known("m1", "User has got a dog called Pickle", unit(1, 0))
    said = candidate("User's dachshund is called Pickle")

    [decision] = decide(candidates=[said], vectors=np.array([_at(0.82)]), known=[stored],
                        advice=lambda *a: None)  # fmt: skip

    assert decision.action == Action.MERGE and decision.target == "m1"


def test_another_pet_of_that_breed_is_its_own_memory():
    stored = known("m1", "User has got a dog called Pickle", unit(1, 0))
    said = candidate("User's dachshund is called Pretzel")

    [decision] = decide(candidates=[said], vectors=np.array([_at(0.82)]), known=[stored],
                        advice=lambda *a: None)  # fmt: skip

    assert decision.action == Action.INSERT


def test_two_pets_of_one_kind_with_no_name_said_are_not_one():
    assert not same_one(reading("User's dachshund is old"), reading("User's dog is old"))
    assert not same_one(reading("User's dachshund Max is old"), reading("User's dog Rex is old"))
    assert same_one(reading("User's dachshund Pickle is old"), reading("User's dog is Pickle"))


def test_a_fact_that_says_less_than_one_stored_before_merges_into_it():
    stored = known("m1", "User volunteers as a parkrun marshal most saturdays", unit(1, 0))
    said = candidate("User is a parkrun marshal")

    [decision] = decide(candidates=[said], vectors=np.array([_at(0.75)]), known=[stored],
                        advice=lambda *a: None)  # fmt: skip

    assert decision.action == Action.MERGE and decision.target == "m1"


def test_a_fact_said_apart_in_the_same_message_stays_its_own():
    # "i volunteer as a parkrun marshal most saturdays, im a parkrun marshal" said at once:
    # the user said the second apart; only what was stored before takes it in.
    said = [
        candidate("User volunteers as a parkrun marshal most saturdays"),
        candidate("User is a parkrun marshal"),
    ]

    decisions = decide(candidates=said, vectors=np.array([unit(1, 0), _at(0.75)]), known=[],
                       advice=lambda *a: None)  # fmt: skip

    assert [d.action for d in decisions] == [Action.INSERT, Action.INSERT]


def test_a_value_said_again_as_a_slot_of_the_users_merges():
    stored = known("m1", "User listens to jazz radio in the car", unit(1, 0))
    said = candidate("User's usual car soundtrack is jazz radio")

    [decision] = decide(candidates=[said], vectors=np.array([_at(0.81)]), known=[stored],
                        advice=lambda *a: None)  # fmt: skip

    assert decision.action == Action.MERGE


@pytest.mark.parametrize(
    "slot",
    [
        "User's usual car soundtrack is talk radio",  # another value
        "User's wife's usual car soundtrack is jazz radio",  # another person
        "User's usual car soundtrack is no longer jazz radio",  # a change
    ],
)
def test_a_slot_with_another_value_person_or_a_change_is_no_restatement(slot):
    assert not slot_restated(reading(slot), reading("User listens to jazz radio in the car"), 0.9)


@pytest.mark.parametrize(
    ("stored", "new"),
    [
        ("User's supermarket is Booths", "User does a big Booths shop every friday"),
        ("User's allotment society is Greenfields", "User has a plot with Greenfields for years"),
    ],
)
def test_a_name_said_again_with_more_about_it_is_an_elaboration(stored, new):
    assert named_again(reading(new), reading(stored), 0.8, new_kept=len(new) > len(stored))


@pytest.mark.parametrize(
    ("stored", "new"),
    [
        ("User shops at the co-op in Hebden", "User works at the co-op in Hebden"),  # a verb
        ("User owns a Nissan Leaf", "User rents a Nissan Leaf"),  # another relation
        ("User has a cat called Mochi", "User walks Mochi every morning"),  # what Mochi is
        ("User's climbing wall is The Depot", "User boulders at The Depot 3 nights a week"),
        ("User's fishing club is the Anglers", "User left the Anglers last spring"),  # a cue
        ("User's wedding is in Whitby in May", "User's wedding is in Whitby in June"),
    ],
)
def test_a_name_said_again_in_another_fact_is_never_folded_in(stored, new):
    assert not named_again(reading(new), reading(stored), 0.8, new_kept=len(new) > len(stored))


def test_another_kind_of_the_same_thing_announced_is_held_for_review():
    stored = known("m1", "User cuts the lawn with a petrol mower", unit(1, 0))
    said = candidate("User is on a battery mower these days")

    [decision] = decide(candidates=[said], vectors=np.array([_at(0.6)]), known=[stored],
                        advice=lambda *a: None, supersede=True)  # fmt: skip

    # Most things may be had two at a time: the user says which holds, never superseded.
    assert decision.action == Action.HOLD
    assert [c.ref for c in decision.conflicts] == ["m1"]


@pytest.mark.parametrize(
    "new",
    [
        "User has a battery mower too now",  # one more
        "User's neighbour is on a battery mower these days",  # someone else
        "User is on a battery mower",  # no change announced
    ],
)
def test_another_kind_said_as_one_more_of_someone_else_or_unannounced_changes_nothing(new):
    assert not modifier_changed(reading(new), reading("User cuts the lawn with a petrol mower"))


def test_whom_both_facts_are_about_is_no_thing_both_say():
    assert not modifier_changed(
        reading("User's mum lives with them now"), reading("User's mum has dementia")
    )
