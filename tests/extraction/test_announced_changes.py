"""What the offline reader keeps of a change or a restatement said the way people chat, and how
the write path decides on it (issue 31), on topics no lexicon names: a change verb with the
"I" left out, a phrase fronted before the user's clause, a restatement in part other words,
and a change cue that links a close fact."""

from __future__ import annotations

import pytest

from extraction.cued_changes import CUED_LINK_SIMILARITY, cued_change
from extraction.decisions import Action, decide
from extraction.reader import offline_candidates
from extraction.restatements import REWORDED_SIMILARITY, reworded
from extraction.updates import reading
from tests.extraction.decide_helpers import candidate, known, unit


def _captions(text: str) -> list[str]:
    return [c.caption for c in offline_candidates([{"role": "user", "content": text}])]


@pytest.mark.parametrize(
    ("said", "caption"),
    [
        # A change cue in the past tense opens the user's own clause.
        ("ditched the allotment, too much work for one person", "User ditched the allotment"),
        ("swapped the harp for a ukulele", "User swapped the harp for a ukulele"),
        # A past tense before "to" and a verb: what the user had to do.
        ("had to sell the caravan after the move", "User had to sell the caravan after the move"),
        # "not" and an "-ing" form of a listed verb, the "I'm" left out.
        ("not swimming these days, my shoulder is still bad", "User is not swimming these days"),
    ],
)
def test_a_change_said_without_the_i_is_kept(said, caption):
    assert caption in _captions(said)


@pytest.mark.parametrize(
    ("said", "caption"),
    [
        (
            "on the narrowboat we run everything off solar panels",
            "User runs everything off solar panels on the narrowboat",
        ),
        (
            "weekends i go metal detecting on the beach",
            "User goes metal detecting on the beach weekends",
        ),
        ("at the allotment we grow mostly potatoes", "User grows mostly potatoes at the allotment"),
    ],
)
def test_a_scope_said_before_the_user_goes_after_their_clause(said, caption):
    assert _captions(said) == [caption]


def test_a_role_said_before_the_user_is_a_fact_of_its_own():
    captions = _captions("as a beekeeper I get stung more than you'd think")

    assert captions[0] == "User is a beekeeper"
    assert _captions("as someone who's 5 foot nothing, I need a step stool") == [
        "User is 5 foot nothing"
    ]


def test_a_time_of_life_said_before_the_user_is_no_fact_of_now():
    assert not any("kid" in caption for caption in _captions("as a kid I collected stamps"))


KEPT = "User gets the single person discount on their council tax"


def test_a_close_rewording_that_differs_in_a_word_or_two_restates_the_fact():
    new = reading("User gets the single person discount on council tax as a widower")

    assert reworded(new, reading(KEPT), REWORDED_SIMILARITY)
    assert not reworded(new, reading(KEPT), REWORDED_SIMILARITY - 0.01)


@pytest.mark.parametrize(
    ("stored", "new"),
    [
        # Another number, another name, or another value of a kind the other states.
        ("User's allotment is plot 14", "User's allotment is plot 41"),
        ("User sings in the choir with Maureen", "User sings in the choir with Deirdre"),
        ("User is vegan", "User is vegetarian like a vegan"),
        # A word each that the other does not say: two facts.
        ("User collects antique clocks from Oslo", "User repairs antique clocks from Oslo"),
        ("User restores vintage lamps", "User sells vintage lamps"),
        # Another person, another polarity, an announced change.
        ("User keeps bees", "User's neighbour keeps bees"),
        ("User keeps bees", "User doesn't keep bees"),
        ("User keeps bees", "User keeps bees now"),
    ],
)
def test_a_close_rewording_never_merges_another_value_person_or_change(stored, new):
    assert not reworded(reading(new), reading(stored), 0.95)


def test_a_rewording_close_by_the_embedder_merges_in_the_write_path():
    stored = known("m1", KEPT, unit(1.0, 0.0))
    new = candidate("User gets the single person discount on council tax as a widower")

    (decision,) = decide(
        candidates=[new],
        vectors=unit(0.85, 0.5).reshape(1, -1),
        known=[stored],
        advice=lambda *_: None,
    )

    assert decision.action == Action.MERGE
    assert decision.target == "m1"


def test_a_change_cue_links_a_close_fact_that_shares_no_word():
    old = reading("User goes to pottery class every thursday")
    new = reading("User finished with the wheel and clay for good")

    assert cued_change(new, old, CUED_LINK_SIMILARITY, "")
    assert cued_change(new, old, CUED_LINK_SIMILARITY - 0.01, "") is None
    # Without a change cue, closeness is no change.
    assert cued_change(reading("User loves the wheel and clay"), old, 0.9, "") is None


@pytest.mark.parametrize(
    ("stored", "new", "how"),
    [
        # One more member of a kind ends none of the others.
        ("User plays the bassoon", "User started the oboe", "both are about 'instrument'"),
        # Two negatives hold together.
        ("User doesn't gamble", "User doesn't bet anymore", ""),
        # Another place.
        ("User wears a suit at work", "User wears joggers at home now", ""),
        # A cue that brings a value without ending one, on a fact that may hold several.
        ("User's mum has dementia", "User's mum lives with them now", ""),
        # An addition.
        ("User keeps bees", "User also started keeping hens", ""),
    ],
)
def test_a_change_cue_to_a_close_fact_keeps_both_where_structure_says_so(stored, new, how):
    assert cued_change(reading(new), reading(stored), 0.9, how) is None


def test_a_cued_change_to_a_close_fact_is_held_never_superseded_at_once():
    stored = known("m1", "User goes to pottery class every thursday", unit(1.0, 0.0))
    new = candidate("User finished with the wheel and clay for good")

    (decision,) = decide(
        candidates=[new],
        vectors=unit(0.6, 0.8).reshape(1, -1),
        known=[stored],
        advice=lambda *_: None,
        supersede=True,
    )

    assert decision.action == Action.HOLD
    assert [c.ref for c in decision.conflicts] == ["m1"]
