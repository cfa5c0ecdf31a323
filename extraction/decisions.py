"""Step 5 of the write path as a pure function: what to do with each candidate memory.

`decide` compares candidates with the user's known memories and returns one Decision per
candidate: skip it (the same text is known), merge it into a memory (it restates one), insert
it held for review (it contradicts active memories), or insert it active. It reads nothing and
writes nothing: the contradiction judge is passed in, and `pipeline.decisions_apply` carries
out the decisions in the caller's transaction.

Candidates are decided in order, each against the known memories *and* the earlier candidates
of the same conversation, exactly as if each had been stored before the next was looked at.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from extraction.candidates import Candidate
from extraction.conflicts import shares_single_valued_attribute
from memories.models import Memory
from memories.text import content_hash

# Cosine similarity at or above which a candidate restates an existing memory.
NEAR_DUPLICATE_SIMILARITY = 0.92
# Cosine similarity at or above which a same-category memory may be contradicted.
CONFLICT_SIMILARITY = 0.85

# Answers whether `candidate` contradicts `known`: the reason if it does, else None.
Judge = Callable[[Candidate, "KnownMemory"], str | None]


class Action(enum.StrEnum):
    SKIP = "skip"
    MERGE = "merge"
    INSERT = "insert"
    HOLD = "hold"  # insert as pending_review, with a review item naming the conflicts


@dataclass
class KnownMemory:
    """What a decision needs of a memory: a stored one (`ref` is its id) or an earlier candidate.

    An earlier candidate's `ref` is `new:<position>`: its row does not exist yet.
    """

    ref: str
    full_text: str
    category: str
    status: str
    content_hash: str
    vector: np.ndarray | None

    @classmethod
    def of(cls, memory: Memory, vector: np.ndarray | None) -> KnownMemory:
        """A stored memory, with its vector when that came from the current model."""
        return cls(
            ref=memory.id,
            full_text=memory.full_text,
            category=memory.category,
            status=memory.status,
            content_hash=memory.content_hash,
            vector=vector,
        )


@dataclass(frozen=True)
class Conflict:
    """An active memory the candidate contradicts, how close they are, and why."""

    ref: str
    similarity: float
    reason: str


@dataclass(frozen=True)
class Decision:
    """What to do with one candidate; `target` is the memory a merge folds it into."""

    candidate: Candidate
    action: Action
    content_hash: str
    vector: np.ndarray
    target: str | None = None
    similarity: float = 0.0
    conflicts: tuple[Conflict, ...] = field(default_factory=tuple)


def new_ref(position: int) -> str:
    """The reference of the memory inserted for the candidate at `position`."""
    return f"new:{position}"


def decide(
    *,
    candidates: Sequence[Candidate],
    vectors: np.ndarray,
    known: list[KnownMemory],
    judge: Judge,
) -> list[Decision]:
    """One decision per candidate, in order (see the module docstring)."""
    known = list(known)
    decisions: list[Decision] = []
    for position, (candidate, vector) in enumerate(zip(candidates, vectors, strict=True)):
        decision = _decide_one(candidate, vector, known, judge)
        decisions.append(decision)
        _learn(known, decision, position)
    return decisions


def _similarities(vector: np.ndarray, known: list[KnownMemory]) -> list[float]:
    return [
        float(np.dot(vector, memory.vector))
        if memory.vector is not None and memory.vector.shape == vector.shape
        else 0.0
        for memory in known
    ]


def _decide_one(
    candidate: Candidate, vector: np.ndarray, known: list[KnownMemory], judge: Judge
) -> Decision:
    digest = content_hash(candidate.full_text)
    if any(memory.content_hash == digest for memory in known):
        return Decision(candidate, Action.SKIP, digest, vector)  # an exact duplicate
    similarities = _similarities(vector, known)
    best = int(np.argmax(similarities)) if similarities else -1
    if best >= 0 and similarities[best] >= NEAR_DUPLICATE_SIMILARITY:
        target = known[best]
        if target.status != Memory.Status.ACTIVE:
            # Restating a pending conflict adds nothing until it is reviewed.
            return Decision(candidate, Action.SKIP, digest, vector, similarity=similarities[best])
        return Decision(
            candidate,
            Action.MERGE,
            digest,
            vector,
            target=target.ref,
            similarity=similarities[best],
        )

    conflicts: list[Conflict] = []
    for memory, similarity in zip(known, similarities, strict=True):
        if memory.status != Memory.Status.ACTIVE or memory.category != candidate.category:
            continue
        if similarity < CONFLICT_SIMILARITY and not shares_single_valued_attribute(
            candidate.full_text, memory.full_text
        ):
            continue
        reason = judge(candidate, memory)
        if reason:
            conflicts.append(Conflict(memory.ref, similarity, reason))
    if conflicts:
        return Decision(
            candidate,
            Action.HOLD,
            digest,
            vector,
            similarity=max(conflict.similarity for conflict in conflicts),
            conflicts=tuple(conflicts),
        )
    return Decision(candidate, Action.INSERT, digest, vector)


def _learn(known: list[KnownMemory], decision: Decision, position: int) -> None:
    """Update `known` as if the decision had been applied (see `memory_merge`)."""
    candidate = decision.candidate
    if decision.action == Action.MERGE:
        target = next(memory for memory in known if memory.ref == decision.target)
        # A merge keeps the more detailed wording, and with it that wording's hash and vector.
        if len(candidate.full_text) > len(target.full_text):
            target.full_text = candidate.full_text
            target.content_hash = decision.content_hash
            target.vector = decision.vector
    elif decision.action in (Action.INSERT, Action.HOLD):
        known.append(
            KnownMemory(
                ref=new_ref(position),
                full_text=candidate.full_text,
                category=candidate.category,
                status=Memory.Status.PENDING_REVIEW
                if decision.action == Action.HOLD
                else Memory.Status.ACTIVE,
                content_hash=decision.content_hash,
                vector=decision.vector,
            )
        )
