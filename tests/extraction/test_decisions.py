"""The decide step alone: a pure function of candidates, vectors, known memories and a judge."""

from __future__ import annotations

import numpy as np

from extraction.candidates import Candidate
from extraction.decisions import Action, KnownMemory, decide, new_ref
from memories.text import content_hash


def unit(*values: float) -> np.ndarray:
    vector = np.array(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def known(ref: str, text: str, vector: np.ndarray, *, status: str = "active") -> KnownMemory:
    return KnownMemory(
        ref=ref,
        full_text=text,
        category="personal",
        status=status,
        content_hash=content_hash(text),
        vector=vector,
    )


def candidate(text: str) -> Candidate:
    return Candidate(caption=text, full_text=text, category="personal")


def never(candidate: Candidate, memory: KnownMemory) -> str | None:
    return None


def test_the_same_text_in_other_case_and_spacing_is_skipped():
    berlin = known("mem_a", "User lives in Berlin", unit(1, 0, 0))

    [decision] = decide(
        candidates=[candidate("user  lives in BERLIN.")],
        vectors=np.stack([unit(0, 1, 0)]),
        known=[berlin],
        judge=never,
    )

    assert decision.action == Action.SKIP


def test_a_near_duplicate_of_an_active_memory_merges_into_it():
    tea = known("mem_a", "User likes tea", unit(1, 0, 0))

    [decision] = decide(
        candidates=[candidate("User likes green tea")],
        vectors=np.stack([unit(1, 0.05, 0)]),
        known=[tea],
        judge=never,
    )

    assert (decision.action, decision.target) == (Action.MERGE, "mem_a")
    assert decision.similarity > 0.99


def test_restating_a_memory_pending_review_adds_nothing():
    pending = known("mem_p", "User lives in Oslo", unit(1, 0, 0), status="pending_review")

    [decision] = decide(
        candidates=[candidate("User lives in Oslo, Norway")],
        vectors=np.stack([unit(1, 0.01, 0)]),
        known=[pending],
        judge=never,
    )

    assert decision.action == Action.SKIP


def test_a_contradiction_is_held_with_the_judges_reason_and_the_memory_it_contradicts():
    berlin = known("mem_a", "User lives in Berlin", unit(1, 0, 0))
    asked = []

    def judge(new: Candidate, memory: KnownMemory) -> str | None:
        asked.append((new.full_text, memory.ref))
        return "moved"

    [decision] = decide(
        candidates=[candidate("User lives in Munich")],
        vectors=np.stack([unit(0, 1, 0)]),  # far apart: the shared attribute brings the judge
        known=[berlin],
        judge=judge,
    )

    assert decision.action == Action.HOLD
    assert [(c.ref, c.reason) for c in decision.conflicts] == [("mem_a", "moved")]
    assert asked == [("User lives in Munich", "mem_a")]


def test_unrelated_memories_never_reach_the_judge():
    def judge(new: Candidate, memory: KnownMemory) -> str | None:
        raise AssertionError("the judge was asked about an unrelated memory")

    [decision] = decide(
        candidates=[candidate("User plays the cello")],
        vectors=np.stack([unit(0, 1, 0)]),
        known=[known("mem_a", "User lives in Berlin", unit(1, 0, 0))],
        judge=judge,
    )

    assert decision.action == Action.INSERT


def test_a_later_candidate_is_decided_against_the_earlier_ones_of_the_same_conversation():
    decisions = decide(
        candidates=[candidate("User has a dog"), candidate("User has a dog called Rex")],
        vectors=np.stack([unit(1, 0, 0), unit(1, 0.02, 0)]),
        known=[],
        judge=never,
    )

    assert [d.action for d in decisions] == [Action.INSERT, Action.MERGE]
    assert decisions[1].target == new_ref(0)


def test_a_merge_keeps_the_longer_wording_for_the_candidates_that_follow():
    dog = known("mem_a", "User has a dog", unit(1, 0, 0))

    decisions = decide(
        candidates=[candidate("User has a dog called Rex"), candidate("User has a dog called Rex")],
        vectors=np.stack([unit(1, 0.02, 0), unit(0, 1, 0)]),
        known=[dog],
        judge=never,
    )

    # The second is now the memory's exact text: skipped although its vector is far away.
    assert [d.action for d in decisions] == [Action.MERGE, Action.SKIP]
