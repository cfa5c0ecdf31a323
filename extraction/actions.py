"""What the write step does with one candidate memory (`extraction.decisions.decide`)."""

from __future__ import annotations

import enum


class Action(enum.StrEnum):
    SKIP = "skip"
    MERGE = "merge"
    INSERT = "insert"
    HOLD = "hold"  # insert as pending_review, with a review item naming the conflicts
    SUPERSEDE = "supersede"  # insert active, the contradicted memories become superseded
