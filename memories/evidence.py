"""What a memory's evidence is: one quote per statement, and how many a memory keeps.

A quote is handed to the write services (`memories.services.evidence`) as a `Quote`; which of
a memory's quotes stay under the bound is `evidence_kept`, a pure function.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass

from memories.models import MemoryEvidence

# The quotes one memory keeps: the first statement and the latest ones, so a fact restated a
# thousand times stays ten rows, and what first said it and what said it lately both show.
EVIDENCE_PER_MEMORY = 10


@dataclass(frozen=True)
class Quote:
    """One statement of a memory: the words (already redacted), whose they are, where and when.

    `position` is the message's index in the conversation as sent; None for an agent's note."""

    text: str
    said_at: datetime.datetime
    session_id: int | None = None
    position: int | None = None
    source: str = MemoryEvidence.Source.USER

    @property
    def key(self) -> tuple:
        """What makes two quotes one statement: the same words of the same message, said at
        the same time (one message that states a fact twice is quoted once)."""
        return (self.session_id, self.position, self.source, self.text, self.said_at)

    @classmethod
    def of(cls, row: MemoryEvidence) -> Quote:
        return cls(
            text=row.quote,
            said_at=row.said_at,
            session_id=row.session_id,
            position=row.position,
            source=row.source,
        )


def evidence_kept(said: Sequence[datetime.datetime], limit: int = EVIDENCE_PER_MEMORY) -> set[int]:
    """Which of a memory's quotes stay, by their index in `said` (each quote's time, in the
    order the quotes were stored): the first said and the `limit - 1` latest. A pure function."""
    order = sorted(range(len(said)), key=lambda at: (said[at], at))
    if len(order) <= limit:
        return set(order)
    return {order[0], *order[len(order) - (limit - 1) :]}
