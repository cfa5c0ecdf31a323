"""Steps 3-5 of the write path for one conversation: extract, redact, decide, apply.

`conversation_memories_write` runs inside the caller's transaction. Its last step,
`candidates_write`, is the one write step of every way in (an extraction, `remember`): under
the user's lock it loads their memories, decides, applies, enforces the cap and signals the
change, so the decisions it applies were taken against a store nobody else can change
meanwhile, and a note is stored exactly as a conversation's candidate would be.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from django.conf import settings
from django.utils import timezone

from core.metrics import CANDIDATES_REFUSED
from extraction.candidates import Candidate
from extraction.decisions import (
    Action,
    Advice,
    Decision,
    KnownMemory,
    decide,
    neighbours_find,
    new_ref,
)
from extraction.grounding import candidates_ground
from extraction.llm_decisions import decisions_ask
from extraction.prompts import extract_with_llm
from extraction.reader import offline_candidates, read_statements
from extraction.redaction import caption_fitted
from extraction.safety_net import statements_missed
from extraction.screening import candidates_screen
from extraction.stated import candidates_dated
from extraction.timing import candidates_timed, ended_event
from integrations.embeddings import current_model_id, embed_texts
from integrations.llm import LLMUsage
from memories.evidence import Quote
from memories.facets import category_of
from memories.models import AgentSession, EndUser, Memory, MemoryEvidence, MemoryVersion
from memories.selectors import VISIBLE_STATUSES
from memories.services.conflicts import review_item_file
from memories.services.evidence import memory_evidence_add
from memories.services.memories import (
    end_user_lock,
    memory_cap_enforce,
    memory_create,
    memory_merge,
    memory_restate,
    memory_sources_add,
)
from memories.signals import memories_changed_on_commit
from memories.text import embedding_text
from memories.values import lacks_value
from tenants.models import ConflictPolicy

logger = logging.getLogger(__name__)

# Earlier messages shown to the LLM as context for the new ones (read once already).
CONTEXT_MESSAGES = 4


@dataclass
class Usage(LLMUsage):
    """What one extraction cost: LLM calls and tokens, and messages dropped for the budget."""

    truncated_messages: int = 0
    candidates_refused: int = 0
    # Candidates from the user's own statements that the LLM left out (`reader`).
    statements_added: int = 0
    # Clauses the offline reader could not read and left out, the rest read (`reader`).
    clauses_skipped: int = 0


def candidates_extract(
    messages: list[dict[str, str]], usage: Usage, *, read_before: int = 0
) -> tuple[list[Candidate], str]:
    """Step 3: candidates from the LLM when configured, else from the offline reader.

    Only the messages after the first `read_before` are read: those were read by earlier
    extractions, and the LLM sees the last of them as context only.
    """
    new, earlier = messages[read_before:], messages[:read_before]
    if not new:
        return [], settings.MEMORY_EXTRACTOR
    if settings.MEMORY_EXTRACTOR == "llm":
        result = extract_with_llm(new, context=earlier[-CONTEXT_MESSAGES:])
        usage.add(
            llm_calls=result.llm_calls,
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
        )
        usage.truncated_messages = result.truncated_messages
        # The user's own statements, read once: whom each clause is about grounds the model's
        # candidates, and what they left out is added below.
        skipped: list[str] = []
        read: list[tuple[str, list[str]]] = []
        statements = read_statements(new, skipped=skipped, readings=read)
        # The model's candidates are advice: only what the user's own words ground is kept.
        candidates, refused = candidates_ground(result.candidates, new, read=read)
        for reason, count in refused.items():
            CANDIDATES_REFUSED.labels(reason=reason).inc(count)
            usage.candidates_refused += count
        if refused:
            logger.info("grounding refused %s", refused)
        # The registry's category where it reads the fact ("quit their job" is personal,
        # whatever the model said); the model's own elsewhere.
        candidates = [
            replace(candidate, category=category_of(candidate.caption) or candidate.category)
            for candidate in candidates
        ]
        # The user's own first-person statements that the model left out are kept too.
        missed = statements_missed(candidates, statements)
        usage.statements_added += len(missed)
        usage.clauses_skipped += len(skipped)
        return candidates + missed, "llm"
    skipped = []
    candidates = offline_candidates(new, skipped=skipped)
    usage.clauses_skipped += len(skipped)
    return candidates, "rules"


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


def candidate_evidence(candidate: Candidate, session: AgentSession | None) -> list[Quote]:
    """The words `candidate` was said in, as its memory's evidence: the user's clause with its
    session, message and time, or an agent's note as the agent's (none without words)."""
    agent = candidate.said_by == MemoryEvidence.Source.AGENT
    if not candidate.quote or (not agent and candidate.said_in is None):
        return []  # not read from a message (`extraction.stated` places every one that is)
    return [
        Quote(
            text=candidate.quote,
            said_at=candidate.said_at or timezone.now(),
            session_id=None if agent or session is None else session.pk,
            position=None if agent else candidate.said_in,
            source=candidate.said_by,
        )
    ]


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
        evidence = candidate_evidence(candidate, session)
        if decision.action == Action.SKIP:
            # Said again word for word: one more source of the memory that holds it.
            kept = rows.get(decision.target or "")
            if kept is not None and kept.pk is not None:
                memory_sources_add(memory=kept, sessions=[session] if session else [],
                                   outside=session is None)  # fmt: skip
                memory_restate(memory=kept, stated_at=candidate.said_at)
                memory_evidence_add(memory=kept, quotes=evidence)
            continue
        if decision.action == Action.MERGE:
            assert decision.target is not None  # a merge names the memory it merges into
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
                session=session,
                stated_at=candidate.said_at,
                valid_from=candidate.valid_from,
                valid_to=candidate.valid_to,
                evidence=evidence,
                **common,
            )
            saved[target.id] = target
            continue
        held = decision.action == Action.HOLD
        if decision.conflicts:
            # An ending that closes what it ends (at once, or when an operator keeps it) is an
            # event of its day, not a current fact.
            candidate = ended_event(candidate)
        memory = memory_create(
            end_user=end_user,
            caption=candidate.caption,
            full_text=candidate.full_text,
            category=candidate.category,
            confidence=candidate.confidence,
            use_when=candidate.use_when,
            content_hash=decision.content_hash,
            embedding=decision.vector,
            embedding_model=model_id,
            status=Memory.Status.PENDING_REVIEW if held else Memory.Status.ACTIVE,
            source_session=session,
            stated_at=candidate.said_at,
            valid_from=candidate.valid_from,
            valid_to=candidate.valid_to,
            evidence=evidence,
            **common,
        )
        rows[new_ref(position)] = memory
        if decision.conflicts:
            review_item_file(
                new_memory=memory,
                existing=[rows[conflict.ref] for conflict in decision.conflicts],
                similarity=decision.similarity,
                reason=decision.reason,
                signal=decision.signal,
                supersede=decision.action == Action.SUPERSEDE,
                actor=actor,
            )
        saved[memory.id] = memory
    return list(saved.values())


def llm_advice(
    candidates: list[Candidate], vectors: np.ndarray, known: list[KnownMemory], usage: Usage
) -> Advice:
    """The LLM's advice: one decision call for the whole conversation, answered from its
    reply."""
    neighbours = {
        position: neighbours_find(candidate, vector, known)
        for position, (candidate, vector) in enumerate(zip(candidates, vectors, strict=True))
    }
    call = decisions_ask(candidates, neighbours)
    usage.add(
        llm_calls=call.llm_calls,
        prompt_tokens=call.prompt_tokens,
        completion_tokens=call.completion_tokens,
    )
    if call.error:
        logger.warning("decision call failed (%s); the rules decide", call.error)
    elif len(call.judgements) < len(call.asked):
        logger.info(
            "decision call: %d of %d answers usable; the rules decide the rest",
            len(call.judgements),
            len(call.asked),
        )
    return lambda position, candidate, neighbours: call.judgements.get(position)


def no_advice(position: int, candidate: Candidate, neighbours: list) -> None:
    """No advice: every decision is the rules' (the offline path, `remember`)."""
    return None


def _screened(candidates: list[Candidate], usage: Usage) -> list[Candidate]:
    """The candidates that may be stored (`screening`), the refusals counted."""
    kept, refused = candidates_screen(candidates)
    for reason, count in refused.items():
        CANDIDATES_REFUSED.labels(reason=reason).inc(count)
        usage.candidates_refused += count
    if refused:
        logger.info("screening refused %s", refused)
    return kept


def conversation_memories_write(
    *,
    end_user: EndUser,
    messages: list[dict[str, str]],
    session: AgentSession | None,
    usage: Usage,
    actor: str,
    read_before: int = 0,
    said_at: datetime.datetime | None = None,
) -> tuple[list[Memory], str]:
    """Steps 3-5: extract, redact, decide and apply; return the memories saved and the extractor.

    `said_at` is when the conversation was sent (the request's time): a candidate whose message
    has no timestamp of its own was said then.

    Raises LLMError or EmbeddingError when the extractor or the embedder fails; a failed
    decision call only leaves the decisions to the rules.
    """
    candidates, extractor = candidates_extract(messages, usage, read_before=read_before)
    # When and where each was said, and its words, before anything reads its time phrases.
    candidates = candidates_dated(
        candidates,
        messages[read_before:],
        default=said_at or timezone.now(),
        offset=read_before,
    )
    candidates = _screened(candidates, usage)
    # When each fact holds, from the time phrases of what the user said, and captions without
    # the relative ones ("moved to Lisbon last month"), both paths alike. After screening, which
    # reads the passing times ("sore since tuesday") the caption still says.
    candidates = candidates_timed(candidates, messages)
    candidates = [replace(c, caption=caption_fitted(c.caption)) for c in candidates]
    # The last gate of both paths: a caption that ends before its value ("User loves") says
    # nothing, so it is never stored.
    candidates = [candidate for candidate in candidates if not lacks_value(candidate.caption)]
    texts = [embedding_text(c.caption, c.full_text, c.use_when) for c in candidates]
    vectors = embed_texts(texts) if texts else np.zeros((0, 0), dtype=np.float32)

    def advise(known: list[KnownMemory]) -> Advice:
        return llm_advice(candidates, vectors, known, usage) if extractor == "llm" else no_advice

    written = candidates_write(
        end_user=end_user,
        candidates=candidates,
        vectors=vectors,
        advise=advise,
        session=session,
        actor=actor,
    )
    return written.saved, extractor


@dataclass(frozen=True)
class Written:
    """What the write step did: the memories created or merged into (in order), each
    candidate's decision, and the user's memories by id (and new ones by `new_ref`)."""

    saved: list[Memory]
    decisions: list[Decision]
    rows: dict[str, Memory]


def candidates_write(
    *,
    end_user: EndUser,
    candidates: list[Candidate],
    vectors: np.ndarray,
    session: AgentSession | None,
    actor: str,
    advise: Callable[[list[KnownMemory]], Advice] = lambda known: no_advice,
) -> Written:
    """The write step of every way in: lock, load, decide, apply, cap, signal.

    Runs in the caller's transaction. Takes the user's write lock (again, if the caller holds
    it already: a no-op), loads their visible memories, decides each candidate against them
    (`advise` gives the LLM's advice once the memories are known; the rules' alone by
    default), applies the decisions, evicts past MEMORY_USER_CAP and signals the change once
    the transaction commits. `vectors` are the candidates' embeddings, made by the caller
    (outside the transaction where it can: nobody waits on the embedder then). With no
    candidate, nothing is decided, and the cap and the signal still run.
    """
    end_user_lock(end_user_id=end_user.pk)
    decisions: list[Decision] = []
    saved: list[Memory] = []
    rows: dict[str, Memory] = {}
    if candidates:
        known, rows = known_memories_load(end_user)
        decisions = decide(
            candidates=candidates,
            vectors=vectors,
            known=known,
            advice=advise(known),
            supersede=end_user.tenant.effective_conflict_policy == ConflictPolicy.SUPERSEDE,
        )
        saved = decisions_apply(
            end_user=end_user, decisions=decisions, rows=rows, session=session, actor=actor
        )
    memory_cap_enforce(end_user=end_user, cap=settings.MEMORY_USER_CAP)
    memories_changed_on_commit(end_user_ids=[end_user.pk])
    return Written(saved=saved, decisions=decisions, rows=rows)
