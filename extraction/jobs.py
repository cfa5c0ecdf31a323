"""The life of an extraction job: submit a conversation, run it (now or in a worker), replay it.

One job per (end user, conversation): the same conversation again finds the first job, so it
is extracted once. The job keeps the conversation until it succeeds, so a failing LLM never
loses it. Running a job is steps 3-6 of the write path in one transaction under a row lock on
the end user, so concurrent extractions for one user cannot break the cap or duplicate a memory.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import json
import logging
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta

from celery import current_app as celery_app
from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from core.exceptions import ApplicationError, NotFound, UpstreamUnavailable
from core.metrics import EXTRACTION_DURATION, EXTRACTION_JOBS
from core.requests import (
    TASK_HEADER,
    request_id_get,
    request_tenant_get,
    tenant_context,
)
from extraction.models import ExtractionJob
from extraction.pipeline import Usage, conversation_memories_write
from extraction.selectors import (
    extraction_jobs_given_up,
    extraction_jobs_stalled,
    message_hash,
    messages_read_count,
)
from extraction.stated import messages_timed
from integrations.embeddings import EmbeddingError
from integrations.llm import LLMError
from memories.models import AgentSession, EndUser, Memory
from memories.selectors import memory_visible_count
from memories.services.memories import (
    agent_session_get_or_create,
    end_user_get_or_create,
    end_user_lock,
)
from memories.signals import ErasureShare
from tenants import rls
from tenants.models import Tenant
from tenants.services import tenant_usage_add

logger = logging.getLogger(__name__)

# The Celery task that runs a job (extraction/tasks.py registers it under this name, the one
# Celery gave it by default before, so messages queued by an older release still run).
JOB_RUN_TASK = "extraction.tasks.extraction_job_run_task"


class ExtractionJobGone(NotFound):
    """The job's user was erased while it waited: there is nothing left to extract for."""

    default_message = (
        "This user's data was erased while the conversation waited to be extracted; "
        "nothing was kept."
    )


class ExtractionFailed(Exception):
    """The extraction failed (the LLM, the embedder, or anything else); the job is marked
    `failed` with the reason and keeps its conversation for a replay."""

    def __init__(self, job: ExtractionJob, cause: Exception):
        super().__init__(str(cause))
        self.job = job
        self.cause = cause

    @property
    def upstream(self) -> bool:
        """Whether the LLM or the embedder failed: the same run may succeed later (a 502 to a
        waiting caller, a task retry). Any other failure would fail the same way again."""
        return isinstance(self.cause, LLMError | EmbeddingError)


# The database errors of an outage (a lost connection, a deadlock), not of the data.
_DATABASE_DOWN = (OperationalError, InterfaceError)


class ExtractionError(ApplicationError):
    """An extraction failed for a reason other than the LLM: the job keeps the conversation."""

    status_code = 500
    code = "extraction_failed"
    default_message = (
        "Extraction failed on an unexpected error. The conversation is kept on the job, marked "
        "failed with the reason, and will be replayed (python manage.py retry_failed_jobs)."
    )


def conversation_hash(*, external_id: str, messages: list[dict[str, str]]) -> str:
    """SHA-256 of the canonical conversation and the user it belongs to."""
    canonical = json.dumps(
        {
            "user": str(external_id),
            # A message's timestamp counts only when given, so a caller that sends none keeps
            # the hashes (and the idempotency) of before issue 33.
            "conversation": [_canonical(m) for m in messages],
        },
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _canonical(message: dict) -> dict[str, str]:
    canonical = {"role": message["role"], "content": message["content"]}
    if message.get("timestamp"):
        canonical["timestamp"] = message["timestamp"]
    return canonical


@transaction.atomic
def extraction_job_submit(
    *,
    tenant: Tenant,
    external_id: str,
    messages: list[dict[str, str]],
    session_id: str | None = None,
    timestamp: datetime.datetime | None = None,
) -> tuple[ExtractionJob, bool]:
    """Record the conversation as a job (or find the job of the same conversation); the
    conversation's `timestamp` dates each message that has none of its own."""
    end_user = end_user_get_or_create(tenant=tenant, external_id=external_id)
    session = (
        agent_session_get_or_create(end_user=end_user, external_id=session_id)
        if session_id
        else None
    )
    messages = messages_timed(messages, timestamp)
    job, created = ExtractionJob.objects.get_or_create(
        end_user=end_user,
        conversation_hash=conversation_hash(external_id=external_id, messages=messages),
        defaults={
            "conversation": messages,
            "session": session,
            "request_id": request_id_get() or "",
        },
    )
    return job, created


def extraction_job_run(*, job_id: uuid.UUID) -> tuple[ExtractionJob, bool]:
    """Run one job to the end; return it and whether it ran now (False: it had succeeded).

    Raises ExtractionFailed after recording the failure on the job, conversation kept, and
    ExtractionJobGone when the user was erased meanwhile. Counted in the metrics by outcome,
    its LLM calls labelled with the job's tenant.
    """
    tenant, tenant_ids = request_tenant_get(), rls.scope_tenant_ids()
    if tenant is None or len(tenant_ids) != 1:
        # In a worker or a command no request names the tenant (inline, the request does):
        # the job's, as far as the caller's scope shows the job.
        jobs = ExtractionJob.objects.filter(pk=job_id)
        found = jobs.values_list("end_user__tenant_id", "end_user__tenant__name").first()
        if found is not None:
            tenant_ids, tenant = (found[0],), found[1]
    started, outcome = time.perf_counter(), "failed"
    try:
        # The run sees its tenant's rows only, even when the caller (a sweep) sees them all.
        with tenant_context(tenant), rls.tenant_scope(tenant_ids):
            job, ran = _job_run(job_id)
        outcome = "succeeded" if ran else "replayed"
        return job, ran
    except ExtractionJobGone:
        outcome = "erased"
        raise
    finally:
        EXTRACTION_JOBS.labels(outcome).inc()
        EXTRACTION_DURATION.labels(outcome).observe(time.perf_counter() - started)


def _job_run(job_id: uuid.UUID) -> tuple[ExtractionJob, bool]:
    # Each try is counted as it starts, outside the run's transaction, so that a run that
    # kills its process still counts towards MEMORY_JOB_MAX_ATTEMPTS.
    ExtractionJob.objects.filter(pk=job_id).exclude(status=ExtractionJob.Status.SUCCEEDED).update(
        status=ExtractionJob.Status.RUNNING, started_at=timezone.now(), attempts=F("attempts") + 1
    )
    usage = Usage()
    try:
        with transaction.atomic():
            job = ExtractionJob.objects.select_related("end_user__tenant", "session").get(pk=job_id)
            # The per-user lock: every write for this user waits here for the one before it.
            end_user_lock(end_user_id=job.end_user_id)
            job = ExtractionJob.objects.select_for_update().get(pk=job_id)
            if job.status == ExtractionJob.Status.SUCCEEDED:
                return job, False
            read_before = messages_read_count(
                end_user_id=job.end_user_id, messages=job.conversation
            )
            saved, extractor = conversation_memories_write(
                end_user=job.end_user,
                messages=job.conversation,
                read_before=read_before,
                session=job.session,
                # Messages without a timestamp were said when the request came.
                said_at=job.created_at,
                usage=usage,
                actor=f"extraction job {job.id}",
            )
            # The write step capped the user's memories: some just saved may be gone already.
            surviving = Memory.objects.filter(id__in=[m.id for m in saved])
            job.memories_saved.set(surviving)
            job.status = ExtractionJob.Status.SUCCEEDED
            job.extractor = extractor
            job.error = ""
            # The conversation was kept only for a retry; once done, the hash alone answers
            # repeats, and a later deletion of the memories leaves no copy of their text here.
            job.message_hashes = [message_hash(message) for message in job.conversation]
            job.messages_read_before = read_before
            job.conversation = []
            job.finished_at = timezone.now()
            _add_usage(job, usage)
            job.save()
            tenant_usage_add(tenant_id=job.end_user.tenant_id, extractions=1, **usage.counts())
            return job, True
    except ExtractionJob.DoesNotExist:
        # An erasure of the user (DELETE /users, /sessions) took the job while it waited.
        raise ExtractionJobGone() from None
    except _DATABASE_DOWN as exc:
        # The database cut the run short: the job waits again, never left running; the
        # stalled-job sweep (or the caller sending it again) replays it once the database is
        # back. The error itself answers the caller (503).
        _job_requeue(job_id=job_id, error=exc)
        raise
    except Exception as exc:
        if isinstance(exc, LLMError):
            usage.add_error(exc)  # the failed exchange cost requests (and tokens) too
        elif not isinstance(exc, EmbeddingError):
            # Not a dependency: a fault of the service itself. The job is failed with the
            # reason all the same, never left running, and keeps the conversation.
            logger.exception("extraction job %s failed", job_id, extra={"job_id": str(job_id)})
        try:
            job = _job_record_failure(job_id=job_id, error=exc, usage=usage)
        except ExtractionJob.DoesNotExist:
            raise ExtractionJobGone() from None
        raise ExtractionFailed(job, exc) from exc


def _add_usage(job: ExtractionJob, usage: Usage) -> None:
    job.llm_calls += usage.llm_calls
    job.prompt_tokens += usage.prompt_tokens
    job.completion_tokens += usage.completion_tokens
    job.truncated_messages = max(job.truncated_messages, usage.truncated_messages)
    job.candidates_refused += usage.candidates_refused
    job.statements_added += usage.statements_added
    job.clauses_skipped += usage.clauses_skipped


def _job_requeue(*, job_id: uuid.UUID, error: Exception) -> None:
    """Put a run the database cut short back in the queue with the reason, if the database
    answers; else the job stays `running` and the stalled-job sweep finds it all the same."""
    with contextlib.suppress(DatabaseError):
        ExtractionJob.objects.filter(pk=job_id, status=ExtractionJob.Status.RUNNING).update(
            status=ExtractionJob.Status.QUEUED, error=f"{type(error).__name__}: {error}"[:2000]
        )


@transaction.atomic
def _job_record_failure(*, job_id: uuid.UUID, error: Exception, usage: Usage) -> ExtractionJob:
    jobs = ExtractionJob.objects.select_related("end_user").select_for_update(of=("self",))
    job = jobs.get(pk=job_id)
    job.status = ExtractionJob.Status.FAILED
    job.error = f"{type(error).__name__}: {error}"[:2000]
    job.finished_at = timezone.now()
    _add_usage(job, usage)
    job.save()
    tenant_usage_add(tenant_id=job.end_user.tenant_id, failed_extractions=1, **usage.counts())
    return job


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
    external_id: str,
    messages: list[dict[str, str]],
    session_id: str | None = None,
    run_async: bool = False,
    timestamp: datetime.datetime | None = None,
) -> ExtractionOutcome:
    """Extract memories from one conversation, once: a repeat returns the first result.

    `timestamp` is when the conversation took place (each message may carry its own)."""
    job, _ = extraction_job_submit(
        tenant=tenant,
        external_id=external_id,
        messages=messages,
        session_id=session_id,
        timestamp=timestamp,
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
            if not failure.upstream:
                raise ExtractionError(extra={"job_id": str(failure.job.id)}) from failure
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


def extraction_jobs_erase(
    *, end_user: EndUser, session: AgentSession | None, memory_ids: frozenset[str]
) -> ErasureShare:
    """Delete the jobs of an erased user (`session` None) or session, conversations and all.

    Runs inside the erasure's transaction (`memories.services.erasure`). For a session, also
    answer which of its `memory_ids` a job of another session, or of no session, saved too:
    those were stated elsewhere and stay.
    """
    jobs = ExtractionJob.objects.filter(end_user=end_user)
    stated_elsewhere: frozenset[str] = frozenset()
    if session is not None:
        saved = ExtractionJob.memories_saved.through.objects.filter(
            extractionjob__end_user=end_user, memory_id__in=memory_ids
        )
        # exclude() on a nullable key keeps the jobs sent without a session: another source.
        elsewhere = saved.exclude(extractionjob__session=session)
        stated_elsewhere = frozenset(elsewhere.values_list("memory_id", flat=True))
        jobs = jobs.filter(session=session)
    _, per_model = jobs.delete()
    return ErasureShare(
        deleted={"jobs": per_model.get(ExtractionJob._meta.label, 0)},
        stated_elsewhere=stated_elsewhere,
    )


def extraction_job_enqueue(*, job_id: uuid.UUID) -> None:
    """Hand the job to a Celery worker after commit; run it inline if the broker is down."""
    request_id = request_id_get()
    # The task's walls: the tenant the request (or job) is for.
    tenant_ids = rls.scope_tenant_ids()

    def send() -> None:
        try:
            # By name: the task module imports this one, never the other way round.
            # The request id travels as a message header: the task's arguments stay ids only.
            celery_app.tasks[JOB_RUN_TASK].apply_async(
                args=[str(job_id)],
                kwargs={"tenant_id": tenant_ids[0]} if len(tenant_ids) == 1 else {},
                headers={TASK_HEADER: request_id},
            )
        except ExtractionFailed:
            pass  # an inline (eager) run failed: the job records it for a replay
        except Exception:
            # The broker is unreachable: degrade to running it here rather than lose it.
            logger.exception("could not enqueue extraction job %s; running it inline", job_id)
            with contextlib.suppress(ExtractionFailed, ExtractionJobGone):
                extraction_job_run(job_id=job_id)

    transaction.on_commit(send)


def extraction_jobs_retry(
    *,
    failed: bool = True,
    dry_run: bool = False,
    limit: int | None = None,
    given_up: bool = False,
) -> dict:
    """Replay stalled jobs (queued or running past MEMORY_JOB_STALE_MINUTES) and, with
    `failed`, failed ones, from their kept conversations; return counts.

    Each job is replayed on its own: one that fails, for whatever reason, never stops the
    others. The jobs tried fewest times go first, then the oldest, so a job that keeps failing
    never holds back the rest. A job tried MEMORY_JOB_MAX_ATTEMPTS times is given up: no longer
    replayed (unless `given_up`), a stalled one marked failed, each logged at error level and
    counted in `given_up`. A job that is in fact still running elsewhere is safe to replay: the
    run waits for the user's row lock and finds it succeeded.
    """
    bound = settings.MEMORY_JOB_MAX_ATTEMPTS
    stale = timedelta(minutes=settings.MEMORY_JOB_STALE_MINUTES)
    stalled_jobs = extraction_jobs_stalled(older_than=stale)
    if not dry_run:
        _stalled_jobs_give_up(stalled_jobs.filter(attempts__gte=bound))
    if not given_up:
        stalled_jobs = stalled_jobs.filter(attempts__lt=bound)
    stalled = list(
        stalled_jobs.order_by("attempts", "created_at").values_list("id", flat=True)[:limit]
    )
    failed_ids: list[uuid.UUID] = []
    if failed:
        jobs = ExtractionJob.objects.filter(status=ExtractionJob.Status.FAILED)
        jobs = jobs if given_up else jobs.filter(attempts__lt=bound)
        jobs = jobs.order_by("attempts", "created_at")
        failed_ids = list(jobs.values_list("id", flat=True)[:limit])
    ids = (stalled + failed_ids)[:limit]
    summary = {
        "found": len(ids),
        "stalled": len(set(ids) & set(stalled)),
        "succeeded": 0,
        "failed": 0,
        "erased": 0,
        "given_up": 0,
    }
    if not dry_run:
        for job_id in ids:
            summary[_job_replay(job_id, bound)] += 1
        if summary["stalled"]:
            logger.warning("replayed %s stalled extraction jobs", summary["stalled"])
    summary["given_up"] = extraction_jobs_given_up().count()
    return summary


def _job_replay(job_id: uuid.UUID, bound: int) -> str:
    """Replay one job; its outcome ("succeeded", "failed", "erased"), whatever it raised."""
    try:
        extraction_job_run(job_id=job_id)
    except ExtractionJobGone:
        return "erased"  # with its user, since it was listed: nothing left to do
    except ExtractionFailed as failure:
        if failure.job.attempts >= bound:
            logger.error(
                "extraction job %s failed %s times and is no longer replayed: %s",
                job_id,
                failure.job.attempts,
                failure.job.error,
                extra={"job_id": str(job_id)},
            )
        return "failed"
    except Exception:
        # Even recording the failure failed (the database went away): the job stays as it
        # was and the next sweep finds it again. The other jobs are still replayed.
        logger.exception("extraction job %s could not be replayed", job_id)
        return "failed"
    return "succeeded"


_UNFINISHED = (ExtractionJob.Status.QUEUED, ExtractionJob.Status.RUNNING)


def _stalled_jobs_give_up(jobs: QuerySet[ExtractionJob]) -> None:
    """Mark failed the stalled jobs already tried MEMORY_JOB_MAX_ATTEMPTS times (each run died
    with its process), so that none stays `running` for ever, and log each."""
    for job in jobs.only("id", "attempts"):
        error = f"Given up after {job.attempts} attempts: each run ended with its process."
        changed = (
            ExtractionJob.objects.filter(pk=job.pk, status__in=_UNFINISHED)
            .filter(attempts=job.attempts)
            .update(status=ExtractionJob.Status.FAILED, error=error, finished_at=timezone.now())
        )
        if changed:
            logger.error("extraction job %s: %s", job.pk, error, extra={"job_id": str(job.pk)})
