"""An LLM's verdict is advice: no merge without independent agreement, and no fact lost."""

from __future__ import annotations

import numpy as np
import pytest

from extraction.decisions import Action, Judgement, Verdict, decide
from memories.facets import subject_of
from memories.models import ReviewItem
from tests.extraction.decide_helpers import candidate, known, unit


def llm_says(verdict: Verdict, *refs: str, update: bool = False):
    """A judge that answers every candidate as a (small, careless) model did."""

    def judge(position, candidate, neighbours):
        return Judgement(
            verdict, refs=refs, reason="model", signal=ReviewItem.Signal.LLM, explicit_update=update
        )

    return judge


def decide_one(stored, new_text, cosine, judge, *, supersede=False):
    vector = unit(cosine, float(np.sqrt(max(0.0, 1 - cosine**2))), 0)
    [decision] = decide(
        candidates=[candidate(new_text)],
        vectors=np.stack([vector]),
        known=[stored],
        advice=judge,
        supersede=supersede,
    )
    return decision


@pytest.mark.parametrize(
    ("stored", "new"),
    [
        ("User lives in Berlin", "User's brother lives in Munich"),
        ("User is vegetarian", "User's husband eats meat every day"),
        ("User works as a teacher", "User's wife works as a nurse"),
        ("User has a dog called Rex", "User's sister has a dog called Bella"),
    ],
)
def test_a_same_verdict_about_another_person_inserts_a_new_fact(stored, new):
    decision = decide_one(
        known("mem_a", stored, unit(1, 0, 0)), new, 0.6, llm_says(Verdict.SAME, "mem_a")
    )

    assert decision.action == Action.INSERT


@pytest.mark.parametrize(
    ("stored", "new"),
    [
        ("User likes jazz", "User likes heavy metal"),
        ("User uses an iPhone", "User switched to an Android phone"),
        ("User's first language is Spanish", "User's first language is Catalan"),
    ],
)
def test_a_same_verdict_at_middling_similarity_never_replaces_the_stored_value(stored, new):
    decision = decide_one(
        known("mem_a", stored, unit(1, 0, 0)), new, 0.55, llm_says(Verdict.SAME, "mem_a")
    )

    assert decision.action in {Action.INSERT, Action.HOLD}
    assert decision.target is None


def test_a_same_verdict_with_high_similarity_merges():
    stored = known("mem_a", "User likes green tea", unit(1, 0, 0))

    decision = decide_one(
        stored, "User really likes green tea", 0.95, llm_says(Verdict.SAME, "mem_a")
    )

    assert (decision.action, decision.target) == (Action.MERGE, "mem_a")


def test_a_same_verdict_that_the_reading_confirms_merges_at_lower_similarity():
    stored = known("mem_a", "User lives in Berlin", unit(1, 0, 0))

    decision = decide_one(
        stored, "User lives in Berlin with two cats", 0.7, llm_says(Verdict.SAME, "mem_a")
    )

    assert (decision.action, decision.target) == (Action.MERGE, "mem_a")


def test_a_contradiction_about_another_person_is_not_held_against_the_user():
    stored = known("mem_a", "User lives in Berlin", unit(1, 0, 0))

    decision = decide_one(
        stored, "User's brother lives in Munich", 0.6, llm_says(Verdict.CONTRADICTS, "mem_a")
    )

    assert decision.action == Action.INSERT
    assert decision.conflicts == ()


def test_new_with_an_update_flag_is_honoured_as_a_change_under_review():
    stored = known("mem_a", "User lives in Porto", unit(1, 0, 0))

    decision = decide_one(
        stored, "User moved to Lisbon", 0.5, llm_says(Verdict.NEW, "mem_a", update=True)
    )

    assert decision.action == Action.HOLD
    assert [c.ref for c in decision.conflicts] == ["mem_a"]


def test_a_contradiction_the_model_missed_but_the_reading_sees_is_held():
    stored = known("mem_a", "User lives in Porto", unit(1, 0, 0))

    decision = decide_one(stored, "User lives in Lisbon", 0.6, llm_says(Verdict.NEW))

    assert decision.action == Action.HOLD


def test_under_review_a_contradiction_is_held_never_applied():
    stored = known("mem_a", "User is allergic to penicillin", unit(1, 0, 0))

    decision = decide_one(
        stored,
        "User is not allergic to penicillin",
        0.8,
        llm_says(Verdict.CONTRADICTS, "mem_a", update=True),
        supersede=False,
    )

    assert decision.action == Action.HOLD


@pytest.mark.parametrize(
    ("caption", "subject"),
    [
        ("User lives in Berlin", "user"),
        ("User's job is nursing", "user"),
        ("User's brother lives in Munich", "brother"),
        ("User's best friend is called Sam", "best friend"),
        ("User\u2019s mum is a teacher", "mum"),
    ],
)
def test_the_subject_of_a_caption_is_read_from_the_people_lexicon(caption, subject):
    assert subject_of(caption) == subject


@pytest.mark.parametrize(
    ("stored", "new"),
    [
        ("User's grandad has Parkinson's", "User's grandad lives with them"),
        ("User's daughter plays the violin", "User's daughter is 7"),
        ("User's cat is 16", "User's cat is diabetic"),
        ("User is vegan", "User lives in Leeds"),
    ],
)
@pytest.mark.parametrize("cosine", [0.4, 0.7, 0.9])
def test_a_same_verdict_for_another_fact_about_the_same_person_keeps_both(stored, new, cosine):
    decision = decide_one(
        known("mem_a", stored, unit(1, 0, 0)), new, cosine, llm_says(Verdict.SAME, "mem_a")
    )

    assert decision.action == Action.INSERT


def test_a_same_verdict_never_keeps_a_wording_that_leaves_out_the_other_fact():
    # The stored wording is the longer: a merge would keep it and lose Leeds.
    stored = known(
        "mem_a", "User's brother works as a nurse at the children's hospital in town", unit(1, 0, 0)
    )

    decision = decide_one(
        stored, "User's brother is a nurse and lives in Leeds", 0.8, llm_says(Verdict.SAME, "mem_a")
    )

    assert decision.action == Action.INSERT


def test_a_same_verdict_on_a_restatement_the_reading_confirms_merges_at_low_similarity():
    stored = known("mem_a", "User is vegan", unit(1, 0, 0))

    decision = decide_one(stored, "User is a vegan", 0.4, llm_says(Verdict.SAME, "mem_a"))

    assert (decision.action, decision.target) == (Action.MERGE, "mem_a")


def test_a_same_verdict_naming_the_wrong_memory_leaves_the_restatement_the_reading_found():
    berlin = known("mem_a", "User lives in Berlin", unit(1, 0, 0))
    vegan = known("mem_b", "User is vegan", unit(0, 1, 0))

    [decision] = decide(
        candidates=[candidate("User is a vegan")],
        vectors=np.stack([unit(0.6, 0.3, 0.74)]),
        known=[berlin, vegan],
        advice=llm_says(Verdict.SAME, "mem_a"),
    )

    assert (decision.action, decision.target) == (Action.MERGE, "mem_b")


@pytest.mark.parametrize(
    ("stored", "new"),
    [
        ("User is gluten intolerant", "User said bread upsets them due to gluten intolerance"),
        ("User uses Ubuntu on their laptop", "User mentioned their laptop runs Ubuntu"),
    ],
)
def test_a_same_verdict_on_a_rewording_merges_at_middling_similarity(stored, new):
    # Neither the cosine nor the facets make these one fact; the model's "same" does, with
    # the words bearing it out: the wording the merge keeps says every word of the other.
    decision = decide_one(
        known("mem_a", stored, unit(1, 0, 0)), new, 0.7, llm_says(Verdict.SAME, "mem_a")
    )

    assert (decision.action, decision.target) == (Action.MERGE, "mem_a")


@pytest.mark.parametrize(
    ("stored", "new"),
    [
        ("User drinks black coffee every morning", "User drinks peppermint tea in the evening"),
        ("User's cat is called Miso", "User's cat is called Tofu"),
        ("User runs 5k every Saturday", "User runs 10k every Saturday"),
        ("User has a full beard", "User shaved off their beard"),
        ("User is always clean-shaven", "User trims their beard every Sunday"),
        ("User swims on Mondays", "User swims on Thursdays"),
        ("User's husband is vegan", "User's husband is allergic to nuts"),
        ("User's husband is allergic to nuts", "User's husband is vegan and allergic to cats"),
    ],
)
def test_a_same_verdict_for_two_values_of_one_thing_never_merges(stored, new):
    decision = decide_one(
        known("mem_a", stored, unit(1, 0, 0)), new, 0.8, llm_says(Verdict.SAME, "mem_a")
    )

    assert decision.action in {Action.INSERT, Action.HOLD}
    assert decision.target is None


def test_an_update_verdict_for_a_fact_that_says_less_than_the_stored_one_is_not_held():
    # A small model's "update" for a vaguer wording of the stored fact: the user announced no
    # change, and the stored wording says everything the new one does.
    stored = known("mem_a", "User is on the Netflix plan with ads", unit(1, 0, 0))

    decision = decide_one(
        stored, "User is on Netflix", 0.7, llm_says(Verdict.CONTRADICTS, "mem_a"), supersede=True
    )

    assert decision.action != Action.HOLD and decision.conflicts == ()
