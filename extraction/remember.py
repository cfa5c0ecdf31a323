"""`remember`: an agent's own note about the user, stored as one candidate.

The agent is the extractor here: its note is not read again by the conversation extractor
(which keeps only what a user says in the first person and would drop "User's sister lives in
Bergen"). It goes through the rest of the write path as a candidate of a conversation does:
the same screening, then the same write step (`extraction.pipeline.candidates_write`: under
the user's lock, dedup, the conflict checks, the per-user cap and the change signal). The
note itself, redacted, is the memory's evidence, marked as the agent's
(`memories.models.MemoryEvidence`).

A note the service will not store is refused with a reason (`NotRemembered`, a 400): empty,
a question or a request, an instruction to the assistant or a claim of authority over it, or
markup of a prompt (`memories.instructions`, the rule of every way in), or too long for one
memory. An agent is never told "stored" when nothing was.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from core.exceptions import InvalidInput
from core.words import words_of
from extraction.candidates import Candidate
from extraction.clauses import statement_of
from extraction.decisions import Action
from extraction.kept import category
from extraction.pipeline import candidates_write
from extraction.screening import candidate_screen
from extraction.wording import third_person
from integrations.embeddings import embed_texts
from memories.instructions import REFUSALS, instruction_in
from memories.models import Memory, MemoryEvidence
from memories.selectors import memory_visible_count
from memories.services.memories import end_user_get_or_create
from memories.text import CAPTION_MAX_LENGTH, FULL_TEXT_MAX_LENGTH, embedding_text, text_clean
from memories.values import lacks_value
from tenants.models import Tenant

logger = logging.getLogger(__name__)

# A note the agent states itself: as sure as a fact a user stated in the first person.
CONFIDENCE = 0.9


class NotRemembered(InvalidInput):
    """The note states nothing the service can store as one memory."""

    code = "not_remembered"


@dataclass(frozen=True)
class Remembered:
    memories: list[Memory]
    total_user_memories: int


def note_candidate(text: str) -> Candidate:
    """The one candidate a note states, in the third person ("I play the bassoon on Sundays"
    is "User plays the bassoon on Sundays"; "User's sister lives in Bergen" stays as it is);
    `NotRemembered` with the reason when there is none. A pure function."""
    note = " ".join(text_clean(text, lines=False).split())
    if not words_of(note):
        raise NotRemembered("Nothing to remember: the text is empty.")
    instructs = instruction_in(note)
    if instructs:
        raise NotRemembered(f"Not remembered: {REFUSALS[instructs]}")
    stated = statement_of(note)
    if not stated:
        raise NotRemembered(
            "Not remembered: the text is a question, a request or a hypothetical, not a fact "
            "about the user."
        )
    caption = _third_person(stated.rstrip(" .!"))
    if lacks_value(caption):
        raise NotRemembered(
            'Not remembered: the note ends before what it states ("User loves"); send the '
            "whole fact."
        )
    if len(caption) > FULL_TEXT_MAX_LENGTH:
        raise NotRemembered(
            f"Not remembered: a note is one fact of at most {FULL_TEXT_MAX_LENGTH} characters; "
            "send a conversation to POST /memories/extract instead."
        )
    full_text = f"{caption}."
    if len(caption) > CAPTION_MAX_LENGTH:
        # The caption is the note's first sentence when it fits, the whole note the full text.
        first = caption.split(". ")[0]
        caption = first if len(first) <= CAPTION_MAX_LENGTH else _clip(first)
    # The note is the memory's evidence, marked as the agent's: what the user said is not
    # known here, only what the agent wrote (redacted at screening, as a caption is).
    return Candidate(
        caption=caption,
        full_text=full_text,
        category=category(caption),
        confidence=CONFIDENCE,
        quote=note,
        said_by=MemoryEvidence.Source.AGENT,
    )


def _third_person(note: str) -> str:
    """A first-person note in the third person; a note already about the user ("The user
    is vegan", "User's sister ...") or someone else ("Tom's daughter ...") as written."""
    words = words_of(note)
    if words[:2] == ["the", "user"] or words[:2] == ["the", "user's"]:
        return "User" + note[len("the user") :]
    if words[0] in {"user", "user's"}:
        return "User" + note[len("user") :]
    return third_person(note)


def _clip(text: str) -> str:
    head = text[: CAPTION_MAX_LENGTH - 1]
    return head[: head.rindex(" ")].rstrip(" ,;:.-") + "…" if " " in head else head + "…"


def memory_remember(*, tenant: Tenant, external_id: str, text: str, actor: str) -> Remembered:
    """Store an agent's note about the user as one candidate (see the module docstring); the
    memory it is stored as, merged into or held with is returned, never nothing."""
    candidate, refused = candidate_screen(note_candidate(text))
    if candidate is None:
        raise NotRemembered(f"Not remembered: {REFUSALS.get(refused, 'nothing to store.')}")
    # Embedded before the transaction, so no writer of this user waits on the embedder.
    vectors = embed_texts([embedding_text(candidate.caption, candidate.full_text, "")])
    with transaction.atomic():
        return _remembered(
            tenant=tenant,
            external_id=external_id,
            candidate=candidate,
            vectors=vectors,
            actor=actor,
        )


def _remembered(
    *, tenant: Tenant, external_id: str, candidate: Candidate, vectors: Any, actor: str
) -> Remembered:
    end_user = end_user_get_or_create(tenant=tenant, external_id=external_id)
    written = candidates_write(
        end_user=end_user, candidates=[candidate], vectors=vectors, session=None, actor=actor
    )
    saved = written.saved
    decision = written.decisions[0]
    if decision.action == Action.SKIP and decision.target in written.rows:
        # Already known word for word, or restating a fact held for review: the memory that
        # holds it is the answer.
        saved = [written.rows[decision.target]]
    # One line per note, with the caller's request id (`core.jsonlog`): what was done with it.
    logger.info("remember: %s %s", decision.action, ",".join(memory.id for memory in saved))
    # The write step capped the user's memories: the note's may be gone already.
    surviving = list(Memory.objects.filter(id__in=[memory.id for memory in saved]))
    return Remembered(surviving, memory_visible_count(end_user=end_user))
