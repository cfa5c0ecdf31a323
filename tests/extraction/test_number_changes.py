"""Another number for a close fact, announced, is held for review (issue 31,
`cued_changes.number_changed`): "i play golf off a handicap of 18" then "im off 14 these days!".
The cosine is the only link, so it is never superseded at once; "also", another person or the
same number keeps both. On topics no bench set has."""

from __future__ import annotations

import numpy as np

from extraction.cued_changes import number_changed
from extraction.decisions import Action, decide
from extraction.updates import reading
from tests.extraction.decide_helpers import candidate, known, unit


def test_another_number_said_with_now_is_held_for_review_not_superseded():
    [decision] = decide(
        candidates=[candidate("User is off 14 these days")],
        vectors=np.array([unit(0.6, 0.8)]),
        known=[known("m1", "User plays golf off a handicap of 18", unit(1, 0))],
        advice=lambda *a: None,
        supersede=True,
    )

    assert decision.action == Action.HOLD
    assert [conflict.ref for conflict in decision.conflicts] == ["m1"]


def test_a_number_said_again_another_persons_or_an_addition_changes_nothing():
    stored = reading("User's golf handicap is 18")

    assert number_changed(reading("User's golf handicap is still 18 now"), stored, 0.8) is None
    assert number_changed(reading("User's son's golf handicap is 24 now"), stored, 0.8) is None
    assert number_changed(reading("User also plays 9 holes on tuesdays now"), stored, 0.8) is None
    assert number_changed(reading("User's golf handicap is 14"), stored, 0.8) is None  # no cue


def test_a_number_far_from_the_stored_fact_is_not_linked_by_it():
    stored = reading("User's golf handicap is 18")

    assert number_changed(reading("User's golf handicap is 14 now"), stored, 0.3) is None
