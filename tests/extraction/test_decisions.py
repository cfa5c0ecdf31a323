"""The decide step alone: a pure function of candidates, vectors, known memories and a judge."""

from __future__ import annotations

import numpy as np
import pytest

from extraction.candidates import Candidate
from extraction.decisions import (
    NEIGHBOUR_LIMIT,
    Action,
    Judgement,
    Neighbour,
    Verdict,
    decide,
    neighbours_find,
    new_ref,
)
from memories.models import ReviewItem
from tests.extraction.decide_helpers import candidate, known, unit


def rules(position: int, candidate: Candidate, neighbours: list[Neighbour]) -> None:
    return None  # no LLM: the offline judge decides


def test_the_same_text_in_other_case_and_spacing_is_skipped():
    berlin = known("mem_a", "User lives in Berlin", unit(1, 0, 0))

    [decision] = decide(
        candidates=[candidate("user  lives in BERLIN.")],
        vectors=np.stack([unit(0, 1, 0)]),
        known=[berlin],
        advice=rules,
    )

    assert decision.action == Action.SKIP


def test_a_near_duplicate_of_an_active_memory_merges_into_it():
    tea = known("mem_a", "User likes tea", unit(1, 0, 0))

    [decision] = decide(
        candidates=[candidate("User likes green tea")],
        vectors=np.stack([unit(1, 0.05, 0)]),
        known=[tea],
        advice=rules,
    )

    assert (decision.action, decision.target) == (Action.MERGE, "mem_a")


def test_a_near_duplicate_about_another_person_is_not_merged():
    mine = known("mem_a", "User lives in Oslo", unit(1, 0, 0))

    [decision] = decide(
        candidates=[candidate("User's sister lives in Oslo")],
        vectors=np.stack([unit(1, 0.05, 0)]),
        known=[mine],
        advice=rules,
    )

    assert decision.action == Action.INSERT


def test_a_restatement_in_other_words_merges_even_when_the_vectors_are_far_apart():
    vegetarian = known("mem_a", "User is vegetarian", unit(1, 0, 0))

    [decision] = decide(
        candidates=[candidate("User mentioned they don't eat meat")],
        vectors=np.stack([unit(0, 1, 0)]),
        known=[vegetarian],
        advice=rules,
    )

    assert (decision.action, decision.target) == (Action.MERGE, "mem_a")


def test_restating_a_memory_pending_review_adds_nothing():
    pending = known("mem_p", "User lives in Oslo", unit(1, 0, 0), status="pending_review")

    [decision] = decide(
        candidates=[candidate("User lives in Oslo, Norway")],
        vectors=np.stack([unit(1, 0.01, 0)]),
        known=[pending],
        advice=rules,
    )

    assert decision.action == Action.SKIP


def test_the_rules_hold_a_contradiction_in_other_words_and_name_the_attribute():
    berlin = known("mem_a", "User lives in Berlin", unit(1, 0, 0))

    [decision] = decide(
        candidates=[candidate("User said they recently relocated to Munich")],
        vectors=np.stack([unit(0, 1, 0)]),  # far apart: the shared attribute finds it
        known=[berlin],
        advice=rules,
    )

    assert decision.action == Action.HOLD
    assert [c.ref for c in decision.conflicts] == ["mem_a"]
    assert decision.signal == ReviewItem.Signal.RULES
    assert "where the user lives" in decision.reason and "munich" in decision.reason


def test_an_announced_change_supersedes_under_the_supersede_policy_and_waits_otherwise():
    smoker = known("mem_a", "User smokes half a pack a day", unit(1, 0, 0))
    quit_ = [candidate("User quit smoking three weeks ago")]
    vectors = np.stack([unit(0.6, 0.8, 0)])

    [held] = decide(candidates=quit_, vectors=vectors, known=[smoker], advice=rules)
    [applied] = decide(
        candidates=quit_, vectors=vectors, known=[smoker], advice=rules, supersede=True
    )

    assert held.action == Action.HOLD
    assert applied.action == Action.SUPERSEDE


def test_facts_about_different_people_never_conflict():
    mine = known("mem_a", "User lives in Berlin", unit(1, 0, 0))

    [decision] = decide(
        candidates=[candidate("User's sister Ingrid lives in Oslo")],
        vectors=np.stack([unit(0.8, 0.6, 0)]),
        known=[mine],
        advice=rules,
    )

    assert decision.action == Action.INSERT


def test_the_llm_advicement_decides_and_its_unusable_answer_falls_back_to_the_rules():
    berlin = known("mem_a", "User lives in Berlin", unit(1, 0, 0))
    answers = {
        0: Judgement(Verdict.CONTRADICTS, ("mem_a",), "moved", ReviewItem.Signal.LLM),
        1: Judgement(Verdict.CONTRADICTS, ("mem_a",), "chess", ReviewItem.Signal.LLM),
    }

    def llm(position, candidate, neighbours):
        return answers.get(position)

    decisions = decide(
        candidates=[
            candidate("User is based in Hamburg these days"),
            candidate("User plays chess"),
            candidate("User lives in Munich now"),
        ],
        vectors=np.stack([unit(0, 1, 0), unit(0, -1, 0), unit(0, 0, 1)]),
        known=[berlin],
        advice=llm,
    )

    assert decisions[0].action == Action.HOLD and decisions[0].signal == ReviewItem.Signal.LLM
    # An update the model names for a pair the linker does not link is not taken.
    assert decisions[1].action == Action.INSERT
    assert decisions[2].action == Action.HOLD and decisions[2].signal == ReviewItem.Signal.RULES


def test_a_later_candidate_is_decided_against_the_earlier_ones_of_the_same_conversation():
    decisions = decide(
        candidates=[candidate("User has a dog"), candidate("User has a dog called Rex")],
        vectors=np.stack([unit(1, 0, 0), unit(1, 0.02, 0)]),
        known=[],
        advice=rules,
    )

    assert [d.action for d in decisions] == [Action.INSERT, Action.MERGE]
    assert decisions[1].target == new_ref(0)


def test_a_merge_keeps_the_longer_wording_for_the_candidates_that_follow():
    dog = known("mem_a", "User has a dog", unit(1, 0, 0))

    decisions = decide(
        candidates=[candidate("User has a dog called Rex"), candidate("User has a dog called Rex")],
        vectors=np.stack([unit(1, 0.02, 0), unit(0, 1, 0)]),
        known=[dog],
        advice=rules,
    )

    # The second is now the memory's exact text: skipped although its vector is far away.
    assert [d.action for d in decisions] == [Action.MERGE, Action.SKIP]


def test_neighbours_are_the_closest_above_the_floor_plus_every_memory_of_the_same_attribute():
    many = [known(f"mem_{i}", f"User enjoys hobby {i}", unit(1, 0.01 * i, 0)) for i in range(20)]
    berlin = known("mem_b", "User lives in Berlin", unit(0, 0, 1))
    far = known("mem_f", "User plays the cello", unit(-1, 0, 0))

    found = neighbours_find(candidate("User moved to Munich"), unit(1, 0, 0), [*many, berlin, far])

    refs = [n.memory.ref for n in found]
    assert len(refs) == NEIGHBOUR_LIMIT + 1 and refs[-1] == "mem_b"
    assert "mem_f" not in refs


def toward(cosine: float) -> np.ndarray:
    """A unit vector at `cosine` from unit(1, 0, 0)."""
    return unit(cosine, float(np.sqrt(1 - cosine**2)), 0)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("User's daughter plays the violin", "User's daughter is 7"),
        ("User's landlord is called Marek", "User's landlord lives downstairs"),
        ("User's grandad has Parkinson's", "User's grandad lives with them"),
        ("User's cat is 16", "User's cat is diabetic"),
        ("User is vegan", "User lives in Leeds"),
    ],
)
@pytest.mark.parametrize("cosine", [0.35, 0.6, 0.9])
def test_two_facts_about_one_person_in_one_conversation_are_two_memories(first, second, cosine):
    decisions = decide(
        candidates=[candidate(first), candidate(second)],
        vectors=np.stack([unit(1, 0, 0), toward(cosine)]),
        known=[],
        advice=rules,
    )

    assert [d.action for d in decisions] == [Action.INSERT, Action.INSERT]


def test_a_merge_never_keeps_a_wording_that_leaves_out_the_other_fact():
    # The stored wording is the longer, so a merge would keep it, and Leeds would be lost.
    nurse = known(
        "mem_a", "User's brother works as a nurse at the children's hospital in town", unit(1, 0, 0)
    )

    [decision] = decide(
        candidates=[candidate("User's brother is a nurse and lives in Leeds")],
        vectors=np.stack([toward(0.8)]),
        known=[nurse],
        advice=rules,
    )

    assert decision.action == Action.INSERT


def test_a_restatement_merges_into_the_wording_that_already_holds_it():
    both = known("mem_a", "User's brother is a nurse and lives in Leeds", unit(1, 0, 0))

    [decision] = decide(
        candidates=[candidate("User's brother works as a nurse")],
        vectors=np.stack([toward(0.6)]),
        known=[both],
        advice=rules,
    )

    assert (decision.action, decision.target) == (Action.MERGE, "mem_a")


@pytest.mark.parametrize(
    ("stored", "new"),
    [("User is vegan", "User is a vegan"), ("User's cat is diabetic", "User's cat has diabetes")],
)
def test_the_same_person_attribute_and_value_in_other_words_merge_at_any_cosine(stored, new):
    [decision] = decide(
        candidates=[candidate(new)],
        vectors=np.stack([toward(0.3)]),
        known=[known("mem_a", stored, unit(1, 0, 0))],
        advice=rules,
    )

    assert (decision.action, decision.target) == (Action.MERGE, "mem_a")


@pytest.mark.parametrize(
    ("new", "cosine", "action"),
    [
        ("User's daughter is now nine", 0.6, Action.INSERT),
        ("User's daughter is now nine", 0.9, Action.INSERT),
        ("User's daughter is seven now", 0.95, Action.MERGE),
    ],
)
def test_facts_the_facets_cannot_read_merge_only_at_the_cosine_floor(new, cosine, action):
    # The reader takes "is now seven" for a practice of "now" with no value: no reading of it.
    seven = known("mem_a", "User's daughter is now seven", unit(1, 0, 0))

    [decision] = decide(
        candidates=[candidate(new)], vectors=np.stack([toward(cosine)]), known=[seven], advice=rules
    )

    assert decision.action == action
