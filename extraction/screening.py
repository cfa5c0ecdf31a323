"""What every candidate passes before it is stored, whichever extractor proposed it.

A conversation's candidates (the LLM's and the offline reader's) and an agent's `remember`
note go through `candidate_screen`: its text cleaned of control characters and invisible
format characters (`memories.text.text_clean`), refused when it instructs the assistant or
claims authority over it (`memories.instructions`, the rule the admin's forms apply too), and
its personal data redacted (`redaction`). A candidate refused here is counted, never stored.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from core.words import words_of
from extraction.candidates import Candidate
from extraction.redaction import redact_candidate
from memories.instructions import instruction_in
from memories.text import text_clean

# Why a candidate with nothing left to say after cleaning is refused.
EMPTY = "empty"


def candidate_screen(candidate: Candidate) -> tuple[Candidate | None, str]:
    """The candidate as it may be stored, or None and why not (an `instruction_in` reason, or
    `empty`)."""
    caption = " ".join(text_clean(candidate.caption, lines=False).split())
    full_text = text_clean(candidate.full_text).strip()
    if not words_of(caption):
        return None, EMPTY
    reason = instruction_in(caption) or instruction_in(full_text)
    if reason:
        return None, reason
    # The model's hint of where the fact matters is stored too; one that instructs is dropped,
    # not the fact.
    use_when = " ".join(text_clean(candidate.use_when, lines=False).split())
    use_when = "" if instruction_in(use_when) else use_when
    # The words quoted as its evidence, cleaned as the caption is (and redacted below).
    quote = " ".join(text_clean(candidate.quote, lines=False).split())
    cleaned = (caption, full_text or caption, use_when, quote)
    if cleaned != (candidate.caption, candidate.full_text, candidate.use_when, candidate.quote):
        candidate = replace(
            candidate,
            caption=caption,
            full_text=full_text or caption,
            use_when=use_when,
            quote=quote,
        )
    return redact_candidate(candidate), ""


def candidates_screen(candidates: Iterable[Candidate]) -> tuple[list[Candidate], dict[str, int]]:
    """The candidates that may be stored, screened, and the refusals counted by reason."""
    kept: list[Candidate] = []
    refused: dict[str, int] = {}
    for candidate in candidates:
        screened, reason = candidate_screen(candidate)
        if screened is None:
            refused[reason] = refused.get(reason, 0) + 1
        else:
            kept.append(screened)
    return kept, refused
