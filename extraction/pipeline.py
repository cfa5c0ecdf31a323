"""Steps 3-5 of the write path for one conversation: extract, redact, decide, apply.

`conversation_memories_write` runs inside the caller's transaction (the job runner holds the
end user's row lock), so the decisions it applies were taken against a store nobody else can
change meanwhile.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.conf import settings

from extraction.candidates import Candidate
from extraction.conflicts import rules_contradiction
from extraction.decisions import Action, Decision, Judge, KnownMemory, decide, new_ref
from extraction.prompts import extract_with_llm, judge_contradiction
from extraction.redaction import redact_candidate
from extraction.rules import extract_candidates
from integrations.embeddings import current_model_id, embed_texts
from integrations.llm import LLMError
from memories.models import AgentSession, EndUser, Memory, MemoryVersion, ReviewItem
from memories.selectors import VISIBLE_STATUSES
from memories.services.memories import memory_create, memory_merge
from memories.text import embedding_text

logger = logging.getLogger(__name__)


@dataclass
class Usage:
    """What one extraction cost: LLM calls and tokens, and messages dropped for the budget."""

    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    truncated_messages: int = 0

    def add(self, *, llm_calls: int, prompt_tokens: int, completion_tokens: int) -> None:
        """Count one more LLM exchange."""
        self.llm_calls += llm_calls
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens


def candidates_extract(messages: list[dict[str, str]], usage: Usage) -> tuple[list[Candidate], str]:
    """Step 3: candidates from the LLM when configured, else from the offline rules."""
    if settings.MEMORY_EXTRACTOR == "llm":
        result = extract_with_llm(messages)
        usage.add(
            llm_calls=result.llm_calls,
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
        )
        usage.truncated_messages = result.truncated_messages
        return list(result.candidates), "llm"
    return extract_candidates(messages), "rules"


def contradiction_judge(usage: Usage) -> Judge:
    """The judge `decide` asks: the LLM when configured (its cost counted), else the rules."""

    def judge(candidate: Candidate, known: KnownMemory) -> str | None:
        if settings.MEMORY_EXTRACTOR == "llm":
            try:
                verdict = judge_contradiction(candidate.full_text, known.full_text)
            except LLMError:
                logger.warning("contradiction judge unavailable; falling back to rules")
            else:
                usage.add(
                    llm_calls=verdict.llm_calls,
                    prompt_tokens=verdict.prompt_tokens,
                    completion_tokens=verdict.completion_tokens,
                )
                if verdict.contradicts is False:
                    return None
                if verdict.contradicts:
                    return verdict.reason or "contradiction (LLM judge)"
                # An unreadable verdict (None): the rules decide.
        return rules_contradiction(candidate.full_text, known.full_text)

    return judge


def known_memories_load(end_user: EndUser) -> tuple[list[KnownMemory], dict[str, Memory]]:
    """The user's visible memories as decisions see them, and the rows by id."""
    model_id = current_model_id()
    known: list[KnownMemory] = []
    rows: dict[str, Memory] = {}
    for memory in Memory.objects.filter(end_user=end_user, status__in=VISIBLE_STATUSES):
        vector = None
        if memory.embedding is not None and memory.embedding_model == model_id:
            vector = np.asarray(memory.embedding, dtype=np.float32)
        known.append(KnownMemory.of(memory, vector))
        rows[memory.id] = memory
    return known, rows


def decisions_apply(
    *,
    end_user: EndUser,
    decisions: list[Decision],
    rows: dict[str, Memory],
    session: AgentSession | None,
    actor: str,
) -> list[Memory]:
    """Carry out the decisions; return the memories created or merged into, in order."""
    model_id = current_model_id()
    common: dict[str, Any] = {"actor_type": MemoryVersion.Actor.API, "actor": actor}
    saved: dict[str, Memory] = {}
    for position, decision in enumerate(decisions):
        candidate = decision.candidate
        if decision.action == Action.SKIP:
            continue
        if decision.action == Action.MERGE:
            target = rows[decision.target]
            memory_merge(
                memory=target,
                caption=candidate.caption,
                full_text=candidate.full_text,
                confidence=candidate.confidence,
                content_hash=decision.content_hash,
                embedding=decision.vector,
                embedding_model=model_id,
                note=f"near duplicate, cosine {decision.similarity:.3f}",
                **common,
            )
            saved[target.id] = target
            continue
        held = decision.action == Action.HOLD
        memory = memory_create(
            end_user=end_user,
            caption=candidate.caption,
            full_text=candidate.full_text,
            category=candidate.category,
            confidence=candidate.confidence,
            content_hash=decision.content_hash,
            embedding=decision.vector,
            embedding_model=model_id,
            status=Memory.Status.PENDING_REVIEW if held else Memory.Status.ACTIVE,
            source_session=session,
            **common,
        )
        rows[new_ref(position)] = memory
        if held:
            review = ReviewItem.objects.create(
                end_user=end_user,
                new_memory=memory,
                similarity=decision.similarity,
                reason="; ".join(conflict.reason for conflict in decision.conflicts)[:500],
            )
            review.existing_memories.set([rows[c.ref] for c in decision.conflicts])
        saved[memory.id] = memory
    return list(saved.values())


def conversation_memories_write(
    *,
    end_user: EndUser,
    messages: list[dict[str, str]],
    session: AgentSession | None,
    usage: Usage,
    actor: str,
) -> tuple[list[Memory], str]:
    """Steps 3-5: extract, redact, decide and apply; return the memories saved and the extractor.

    Raises LLMError or EmbeddingError when the extractor or the embedder fails.
    """
    candidates, extractor = candidates_extract(messages, usage)
    candidates = [redact_candidate(candidate) for candidate in candidates]
    if not candidates:
        return [], extractor
    known, rows = known_memories_load(end_user)
    vectors = embed_texts([embedding_text(c.caption, c.full_text) for c in candidates])
    decisions = decide(
        candidates=candidates, vectors=vectors, known=known, judge=contradiction_judge(usage)
    )
    saved = decisions_apply(
        end_user=end_user, decisions=decisions, rows=rows, session=session, actor=actor
    )
    return saved, extractor
