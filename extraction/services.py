"""The write pipeline: a finished conversation in; deduplicated, conflict-aware memories out.

Steps 3-6 of DESIGN.md section 3 run for one end user in one transaction, serialised by a row
lock on the end user, so concurrent extractions cannot break the cap or duplicate a memory.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import uuid
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from extraction.candidates import Candidate, content_hash, embedding_text
from extraction.conflicts import rules_contradiction, shares_single_valued_attribute
from extraction.llm import LLMError
from extraction.models import ExtractionJob
from extraction.prompts import extract_with_llm, judge_contradiction
from extraction.redaction import redact_candidate
from extraction.rules import extract_candidates
from memories.models import AgentSession, EndUser, Memory, MemoryVersion, ReviewItem, Tenant
from memories.selectors import VISIBLE_STATUSES, memory_visible_count
from memories.services.memories import (
    agent_session_get_or_create,
    end_user_get_or_create,
    memory_cap_enforce,
    memory_create,
    memory_merge,
    recall_invalidate,
)
from memory_platform.exceptions import UpstreamUnavailable
from recall.embeddings import EmbeddingError, current_model_id, embed_texts

logger = logging.getLogger(__name__)

# Cosine similarity at or above which a candidate restates an existing memory.
NEAR_DUPLICATE_SIMILARITY = 0.92
# Cosine similarity at or above which a same-category memory may be contradicted.
CONFLICT_SIMILARITY = 0.85


class ExtractionFailed(Exception):
    """The extractor (LLM or embedder) failed; the job and its conversation are kept."""

    def __init__(self, job: ExtractionJob, cause: Exception):
        super().__init__(str(cause))
        self.job = job
        self.cause = cause


@dataclass
class _Usage:
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    truncated_messages: int = 0


@dataclass
class _Known:
    """The user's visible memories and their vectors, grown as candidates are stored."""

    memories: list[Memory] = field(default_factory=list)
    vectors: list[np.ndarray | None] = field(default_factory=list)

    def add(self, memory: Memory, vector: np.ndarray | None) -> None:
        self.memories.append(memory)
        self.vectors.append(vector)

    def similarities(self, vector: np.ndarray) -> list[float]:
        return [
            float(np.dot(vector, other))
            if other is not None and other.shape == vector.shape
            else 0.0
            for other in self.vectors
        ]


def conversation_hash(*, external_id: uuid.UUID, messages: list[dict[str, str]]) -> str:
    """SHA-256 of the canonical conversation and the user it belongs to."""
    canonical = json.dumps(
        {
            "user": str(external_id),
            "conversation": [{"role": m["role"], "content": m["content"]} for m in messages],
        },
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@transaction.atomic
def extraction_job_submit(
    *,
    tenant: Tenant,
    external_id: uuid.UUID,
    messages: list[dict[str, str]],
    session_id: str | None = None,
) -> tuple[ExtractionJob, bool]:
    """Record the conversation as a job (or find the job of the same conversation)."""
    end_user = end_user_get_or_create(tenant=tenant, external_id=external_id)
    session = (
        agent_session_get_or_create(end_user=end_user, external_id=session_id)
        if session_id
        else None
    )
    messages = [{"role": m["role"], "content": m["content"]} for m in messages]
    job, created = ExtractionJob.objects.get_or_create(
        end_user=end_user,
        conversation_hash=conversation_hash(external_id=external_id, messages=messages),
        defaults={"conversation": messages, "session": session},
    )
    return job, created


def extraction_job_run(*, job_id: uuid.UUID) -> tuple[ExtractionJob, bool]:
    """Run one job to the end; return it and whether it ran now (False: it had succeeded).

    Raises ExtractionFailed after recording the failure on the job, conversation kept.
    """
    ExtractionJob.objects.filter(pk=job_id).exclude(status=ExtractionJob.Status.SUCCEEDED).update(
        status=ExtractionJob.Status.RUNNING, started_at=timezone.now()
    )
    usage = _Usage()
    try:
        with transaction.atomic():
            job = ExtractionJob.objects.select_related("end_user", "session").get(pk=job_id)
            # The per-user lock: every write for this user waits here for the one before it.
            EndUser.objects.select_for_update().get(pk=job.end_user_id)
            job = ExtractionJob.objects.select_for_update().get(pk=job_id)
            if job.status == ExtractionJob.Status.SUCCEEDED:
                return job, False
            candidates, extractor = _extract(job.conversation, usage)
            saved = _store_candidates(
                end_user=job.end_user,
                candidates=candidates,
                session=job.session,
                usage=usage,
                actor=f"extraction job {job.id}",
            )
            memory_cap_enforce(end_user=job.end_user, cap=settings.MEMORY_USER_CAP)
            surviving = Memory.objects.filter(id__in=[m.id for m in saved])
            job.memories_saved.set(surviving)
            job.status = ExtractionJob.Status.SUCCEEDED
            job.extractor = extractor
            job.error = ""
            # The conversation was kept only for a retry; once done, the hash alone answers
            # repeats, and a later deletion of the memories leaves no copy of their text here.
            job.conversation = []
            job.finished_at = timezone.now()
            job.attempts += 1
            _add_usage(job, usage)
            job.save()
            end_user_id = job.end_user_id
            transaction.on_commit(lambda: recall_invalidate([end_user_id]))
            return job, True
    except (LLMError, EmbeddingError) as exc:
        job = _job_record_failure(job_id=job_id, error=exc, usage=usage)
        raise ExtractionFailed(job, exc) from exc


def _add_usage(job: ExtractionJob, usage: _Usage) -> None:
    job.llm_calls += usage.llm_calls
    job.prompt_tokens += usage.prompt_tokens
    job.completion_tokens += usage.completion_tokens
    job.truncated_messages = max(job.truncated_messages, usage.truncated_messages)


@transaction.atomic
def _job_record_failure(*, job_id: uuid.UUID, error: Exception, usage: _Usage) -> ExtractionJob:
    job = ExtractionJob.objects.select_for_update().get(pk=job_id)
    job.status = ExtractionJob.Status.FAILED
    job.error = f"{type(error).__name__}: {error}"[:2000]
    job.attempts += 1
    job.finished_at = timezone.now()
    _add_usage(job, usage)
    job.save()
    return job


def _extract(messages: list[dict[str, str]], usage: _Usage) -> tuple[list[Candidate], str]:
    """Step 3: candidates from the LLM when configured, else from the offline rules."""
    if settings.MEMORY_EXTRACTOR == "llm":
        result = extract_with_llm(messages)
        usage.llm_calls += result.llm_calls
        usage.prompt_tokens += result.prompt_tokens
        usage.completion_tokens += result.completion_tokens
        usage.truncated_messages = result.truncated_messages
        return list(result.candidates), "llm"
    return extract_candidates(messages), "rules"


def _judge(new: Candidate, existing: Memory, usage: _Usage) -> str | None:
    """Whether the candidate contradicts the memory: the LLM when configured, else rules."""
    if settings.MEMORY_EXTRACTOR == "llm":
        try:
            verdict = judge_contradiction(new.full_text, existing.full_text)
        except LLMError:
            logger.warning("contradiction judge unavailable; falling back to rules")
        else:
            usage.llm_calls += verdict.llm_calls
            usage.prompt_tokens += verdict.prompt_tokens
            usage.completion_tokens += verdict.completion_tokens
            if verdict.contradicts is False:
                return None
            if verdict.contradicts:
                return verdict.reason or "contradiction (LLM judge)"
            # An unreadable verdict (None): the rules decide.
    return rules_contradiction(new.full_text, existing.full_text)


def _load_known(end_user: EndUser) -> _Known:
    known = _Known()
    model_id = current_model_id()
    for memory in Memory.objects.filter(end_user=end_user, status__in=VISIBLE_STATUSES):
        vector = None
        if memory.embedding is not None and memory.embedding_model == model_id:
            vector = np.asarray(memory.embedding, dtype=np.float32)
        known.add(memory, vector)
    return known


def _store_candidates(
    *,
    end_user: EndUser,
    candidates: list[Candidate],
    session: AgentSession | None,
    usage: _Usage,
    actor: str,
) -> list[Memory]:
    """Steps 4-5: redact, then per candidate skip, merge, flag a conflict or insert."""
    candidates = [redact_candidate(candidate) for candidate in candidates]
    if not candidates:
        return []
    known = _load_known(end_user)
    model_id = current_model_id()
    vectors = embed_texts([embedding_text(c.caption, c.full_text) for c in candidates])
    saved: dict[str, Memory] = {}
    common: dict[str, Any] = {"actor_type": MemoryVersion.Actor.API, "actor": actor}

    for candidate, vector in zip(candidates, vectors, strict=True):
        digest = content_hash(candidate.full_text)
        if any(memory.content_hash == digest for memory in known.memories):
            continue  # an exact duplicate: nothing new to store
        similarities = known.similarities(vector)
        best = int(np.argmax(similarities)) if similarities else -1
        if best >= 0 and similarities[best] >= NEAR_DUPLICATE_SIMILARITY:
            target = known.memories[best]
            if target.status == Memory.Status.ACTIVE:
                memory_merge(
                    memory=target,
                    caption=candidate.caption,
                    full_text=candidate.full_text,
                    confidence=candidate.confidence,
                    content_hash=digest,
                    embedding=vector,
                    embedding_model=model_id,
                    note=f"near duplicate, cosine {similarities[best]:.3f}",
                    **common,
                )
                known.vectors[best] = np.asarray(target.embedding, dtype=np.float32)
                saved[target.id] = target
            continue  # restating a pending conflict adds nothing until it is reviewed

        conflicts: list[tuple[Memory, float, str]] = []
        for memory, similarity in zip(known.memories, similarities, strict=True):
            if memory.status != Memory.Status.ACTIVE or memory.category != candidate.category:
                continue
            if similarity < CONFLICT_SIMILARITY and not shares_single_valued_attribute(
                candidate.full_text, memory.full_text
            ):
                continue
            reason = _judge(candidate, memory, usage)
            if reason:
                conflicts.append((memory, similarity, reason))

        memory = memory_create(
            end_user=end_user,
            caption=candidate.caption,
            full_text=candidate.full_text,
            category=candidate.category,
            confidence=candidate.confidence,
            content_hash=digest,
            embedding=vector,
            embedding_model=model_id,
            status=Memory.Status.PENDING_REVIEW if conflicts else Memory.Status.ACTIVE,
            source_session=session,
            **common,
        )
        if conflicts:
            review = ReviewItem.objects.create(
                end_user=end_user,
                new_memory=memory,
                similarity=max(similarity for _, similarity, _ in conflicts),
                reason="; ".join(reason for _, _, reason in conflicts)[:500],
            )
            review.existing_memories.set([existing for existing, _, _ in conflicts])
        known.add(memory, vector)
        saved[memory.id] = memory
    return list(saved.values())


@dataclass
class ExtractionOutcome:
    """What POST /memories/extract answers: the job, its memories, and how it was served."""

    job: ExtractionJob
    state: str  # "extracted" (ran now), "replayed" (an earlier result) or "queued"
    memories: list[Memory]
    total_user_memories: int


def extraction_job_memories(*, job: ExtractionJob) -> list[Memory]:
    """The job's saved memories that still exist, oldest first."""
    return list(job.memories_saved.order_by("created_at", "id"))


def extraction_perform(
    *,
    tenant: Tenant,
    external_id: uuid.UUID,
    messages: list[dict[str, str]],
    session_id: str | None = None,
    run_async: bool = False,
) -> ExtractionOutcome:
    """Extract memories from one conversation, once: a repeat returns the first result."""
    job, _ = extraction_job_submit(
        tenant=tenant, external_id=external_id, messages=messages, session_id=session_id
    )
    if job.status == ExtractionJob.Status.SUCCEEDED:
        state = "replayed"
    elif run_async:
        # Answered as queued even when the task ran inline (no broker): the caller polls the job.
        extraction_job_enqueue(job_id=job.id)
        return ExtractionOutcome(job=job, state="queued", memories=[], total_user_memories=0)
    else:
        try:
            job, ran = extraction_job_run(job_id=job.id)
        except ExtractionFailed as failure:
            raise UpstreamUnavailable(
                "Extraction failed: the language model is unavailable. The conversation is kept "
                "and will be retried (python manage.py retry_failed_jobs).",
                extra={"job_id": str(failure.job.id)},
            ) from failure
        state = "extracted" if ran else "replayed"
    return ExtractionOutcome(
        job=job,
        state=state,
        memories=extraction_job_memories(job=job),
        total_user_memories=memory_visible_count(end_user=job.end_user),
    )


def extraction_job_enqueue(*, job_id: uuid.UUID) -> None:
    """Hand the job to a Celery worker after commit; run it inline if the broker is down."""
    from extraction.tasks import extraction_job_run_task

    def send() -> None:
        try:
            extraction_job_run_task.delay(str(job_id))
        except ExtractionFailed:
            pass  # an inline (eager) run failed: the job records it for a replay
        except Exception:
            # The broker is unreachable: degrade to running it here rather than lose it.
            logger.exception("could not enqueue extraction job %s; running it inline", job_id)
            with contextlib.suppress(ExtractionFailed):
                extraction_job_run(job_id=job_id)

    transaction.on_commit(send)


def extraction_jobs_retry_failed(*, dry_run: bool = False, limit: int | None = None) -> dict:
    """Replay failed jobs (oldest first) with their kept conversations; return counts."""
    jobs = ExtractionJob.objects.filter(status=ExtractionJob.Status.FAILED).order_by("created_at")
    ids = list(
        jobs.values_list("id", flat=True)[:limit] if limit else jobs.values_list("id", flat=True)
    )
    summary = {"found": len(ids), "succeeded": 0, "failed": 0}
    if dry_run:
        return summary
    for job_id in ids:
        try:
            extraction_job_run(job_id=job_id)
        except ExtractionFailed:
            summary["failed"] += 1
        else:
            summary["succeeded"] += 1
    return summary
