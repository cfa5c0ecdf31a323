"""A fact said again in other words that the embedder puts close is one memory (issue 31,
`restatements.restated_close`): learned similarity, not a rule for each phrasing. What says it
is another fact keeps both: another person, polarity, verb, number or name, a change cue, or a
cosine below the floor. Written the way people type; on topics no bench set has."""

from __future__ import annotations

import numpy as np

from extraction.decisions import Action, decide
from extraction.restatements import RESTATED_SIMILARITY, restated_close
from extraction.updates import reading
from tests.extraction.decide_helpers import candidate, known, unit


def _at(similarity: float) -> np.ndarray:
    """A unit vector at `similarity` to unit(1, 0)."""
    return unit(similarity, float(np.sqrt(1 - similarity**2)))


def _decided(stored: str, said: str, similarity: float) -> Action:
    [decision] = decide(
        candidates=[candidate(said)],
        vectors=np.array([_at(similarity)]),
        known=[known("m1", stored, unit(1, 0))],
        advice=lambda *a: None,
    )
    return decision.action


def test_a_rewording_the_embedder_puts_close_merges_into_the_stored_fact():
    # "i do a sudoku every morning with my tea" then "im a daily sudoku person, any apps?"
    assert (
        _decided("User does sudoku every morning", "User is a daily sudoku person", 0.78)
        == Action.MERGE
    )


def test_the_same_rewording_below_the_floor_is_its_own_memory():
    below = RESTATED_SIMILARITY - 0.05

    assert (
        _decided("User does sudoku every morning", "User is a daily sudoku person", below)
        == Action.INSERT
    )


def test_another_verb_for_the_same_thing_is_another_fact():
    # "i teach tai chi in the park on sundays" then "i practise tai chi in the park on sundays"
    new = reading("User practises tai chi in the park on sundays")
    old = reading("User teaches tai chi in the park on sundays")

    assert not restated_close(new, old, 0.9, new_kept=True)


def test_another_name_or_number_is_never_folded_away():
    # "i skate for the bristol bombers" then "i skate for the cardiff furies now"
    skates = reading("User skates roller derby for the Bristol Bombers")
    other_team = reading("User skates roller derby for the Cardiff Furies")
    watts = reading("User's ham radio rig runs at 100 watts")
    fewer = reading("User's ham radio rig runs at 50 watts")

    assert not restated_close(other_team, skates, 0.9, new_kept=True)
    assert not restated_close(fewer, watts, 0.9, new_kept=False)


def test_another_persons_fact_or_the_opposite_stays_apart():
    mine = reading("User keeps bonsai trees on the balcony")
    sisters = reading("User's sister keeps bonsai trees on the balcony")
    given_up = reading("User doesn't keep bonsai trees anymore")

    assert not restated_close(sisters, mine, 0.9, new_kept=True)
    assert not restated_close(given_up, mine, 0.9, new_kept=True)


def test_two_facts_of_a_person_of_the_users_are_never_merged_by_closeness():
    # "my grandad has glaucoma" then "grandad uses a white cane now": whom both are about
    # brings the wordings close, and they are two facts.
    cane = reading("User's grandad uses a white cane")
    glaucoma = reading("User's grandad has glaucoma")

    assert not restated_close(cane, glaucoma, 0.9, new_kept=True)


def test_a_word_one_wording_negates_is_no_restatement():
    # "i grow tomatoes every summer" then "running out of salads that aren't tomatoes"
    grows = reading("User grows tomatoes every summer")
    others = reading("User is running out of salads that aren't tomatoes")

    assert not restated_close(others, grows, 0.9, new_kept=True)
