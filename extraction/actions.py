"""What the write step does with one candidate memory (`extraction.decisions.decide`): the
action, and the decision that names it with what it needs."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

import numpy as np

from extraction.candidates import Candidate


class Action(enum.StrEnum):
    SKIP = "skip"
    MERGE = "merge"
    INSERT = "insert"
    HOLD = "hold"  # insert as pending_review, with a review item naming the conflicts
    SUPERSEDE = "supersede"  # insert active, the contradicted memories become superseded


@dataclass(frozen=True)
class Conflict:
    """An active memory the candidate contradicts, and how close they are."""

    ref: str
    similarity: float


@dataclass(frozen=True)
class Decision:
    """What to do with one candidate; `target` is the memory a merge folds it into (or, for a
    skip, the memory that already holds it)."""

    candidate: Candidate
    action: Action
    content_hash: str
    vector: np.ndarray
    target: str | None = None
    similarity: float = 0.0
    conflicts: tuple[Conflict, ...] = field(default_factory=tuple)
    reason: str = ""
    signal: str = ""
