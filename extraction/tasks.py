"""Celery tasks of the write pipeline: they take ids and call one service."""

from __future__ import annotations

import logging
import uuid

from celery import shared_task
from django.conf import settings

from core.requests import TASK_HEADER, request_context
from extraction.jobs import (
    JOB_RUN_TASK,
    ExtractionFailed,
    ExtractionJobGone,
    extraction_job_run,
    extraction_jobs_retry,
)
from tenants import rls

logger = logging.getLogger(__name__)


@shared_task(name=JOB_RUN_TASK, bind=True, max_retries=None, acks_late=True)
def extraction_job_run_task(self, job_id: str, tenant_id: int | None = None) -> str:
    """Run one extraction job; retry with backoff while the LLM is down, then leave it failed.

    It runs under the id of the request that enqueued it (the `TASK_HEADER` message header),
    so its log lines carry that id; a retry passes it on. It sees the rows of its job's
    tenant only (`tenant_id`, from the request that enqueued it; a message queued before
    tenants were walled has none, and the job is found through the logged bypass).
    """
    with request_context(_request_id_of(self.request)) as request_id:
        if tenant_id is None:
            with rls.rls_bypass(f"find the tenant of extraction job {job_id}"):
                return _job_run(self, job_id, request_id)
        with rls.tenant_scope([tenant_id]):
            return _job_run(self, job_id, request_id)


def _request_id_of(request) -> str | None:
    """The request id header: a worker makes custom headers attributes of the task's request,
    an eager run keeps them under `headers`."""
    return getattr(request, TASK_HEADER, None) or (request.headers or {}).get(TASK_HEADER)


def _job_run(self, job_id: str, request_id: str) -> str:
    try:
        job, _ = extraction_job_run(job_id=uuid.UUID(job_id))
    except ExtractionFailed as exc:
        # Inline (eager) runs answer a request: they leave the job failed for a later replay
        # instead of retrying in the caller's thread. A failure that is no dependency's (a
        # fault of the service) would fail again the same way: left failed too.
        if (
            self.request.is_eager
            or not exc.upstream
            or self.request.retries >= settings.MEMORY_TASK_MAX_RETRIES
        ):
            logger.error(
                "job %s failed for good after %s retries",
                job_id,
                self.request.retries,
                extra={"job_id": job_id},
            )
            return "failed"
        countdown = settings.MEMORY_TASK_RETRY_BACKOFF * (2**self.request.retries)
        raise self.retry(exc=exc, countdown=countdown, headers={TASK_HEADER: request_id}) from exc
    except ExtractionJobGone:
        logger.info(
            "job %s was erased with its user before it ran", job_id, extra={"job_id": job_id}
        )
        return "erased"
    logger.info("job %s %s", job_id, job.status, extra={"job_id": job_id})
    return job.status


# Replays per sweep: a backlog drains over several sweeps instead of holding one worker.
STALLED_PER_SWEEP = 100


@shared_task(name="extraction.retry_stalled_jobs")
@rls.bypassed("replay stalled extraction jobs (Celery beat)")
def extraction_stalled_jobs_retry_task() -> dict:
    """Beat: replay jobs whose process died while they were queued or running."""
    return extraction_jobs_retry(failed=False, limit=STALLED_PER_SWEEP)
