"""What every extractor returns: candidate memories."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from memories.models import Memory, MemoryEvidence


@dataclass(frozen=True)
class Candidate:
    """A fact an extractor proposes to remember about the end user."""

    caption: str
    full_text: str
    category: str = Memory.Category.OTHER
    confidence: float = 0.8
    # Where the fact matters (the LLM's use-when hint); empty from the offline extractor.
    use_when: str = ""
    # The clause of the user's message it was read from (the offline reader's clause, the one
    # that grounds an LLM's candidate): the change cues are read from what the user said.
    said: str = ""
    # When the message that stated it was sent (issue 33); None: the request's time.
    said_at: datetime.datetime | None = None
    # The index of that message in the conversation as sent (`extraction.stated`): a time told
    # beside it counts only within that message; the evidence names it. None: not known (an
    # agent's note is no message).
    said_in: int | None = None
    # The memory's evidence: what the user said (`said`, or the whole message when no clause
    # was found), redacted at screening; an agent's note as the agent wrote it (`said_by`).
    quote: str = ""
    said_by: str = MemoryEvidence.Source.USER
    # When the fact holds, from a time phrase in what the user said; None: open or unknown.
    valid_from: datetime.date | None = None
    valid_to: datetime.date | None = None
    # The message it was read from says the user was wrong before ("i misspoke the other day,
    # ..."): it corrects a fact stored earlier (`extraction.corrections`).
    corrects: bool = False
