"""Reads of extraction jobs, scoped by tenant, and the store's statistics including them."""

from __future__ import annotations

import hashlib
import uuid
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone

from extraction.models import ExtractionJob
from memories.selectors import count_per_tenant, tenant_stats_list
from tenants.models import Tenant
from tenants.selectors import USAGE_DAYS


def extraction_job_get(*, tenant: Tenant, job_id: uuid.UUID) -> ExtractionJob | None:
    """Return the tenant's job with this id, or None (another tenant's job is None too)."""
    return (
        ExtractionJob.objects.select_related("end_user")
        .filter(end_user__tenant=tenant, pk=job_id)
        .first()
    )


def extraction_jobs_stalled(*, older_than: timedelta) -> models.QuerySet[ExtractionJob]:
    """Jobs queued or running for longer than `older_than`, oldest first: the process that ran
    them died (a killed web worker) or their queued message was lost, so nothing else will."""
    cutoff = timezone.now() - older_than
    running = models.Q(status=ExtractionJob.Status.RUNNING) & (
        models.Q(started_at__lt=cutoff) | models.Q(started_at__isnull=True, created_at__lt=cutoff)
    )
    queued = models.Q(status=ExtractionJob.Status.QUEUED, created_at__lt=cutoff)
    return ExtractionJob.objects.filter(running | queued).order_by("created_at")


def extraction_jobs_given_up() -> models.QuerySet[ExtractionJob]:
    """Failed jobs tried MEMORY_JOB_MAX_ATTEMPTS times: no longer replayed, left to an operator
    (their conversations are kept; `retry_failed_jobs --given-up` tries them again)."""
    return ExtractionJob.objects.filter(
        status=ExtractionJob.Status.FAILED, attempts__gte=settings.MEMORY_JOB_MAX_ATTEMPTS
    )


def tenant_stats_with_jobs_list(*, usage_days: int = USAGE_DAYS) -> models.QuerySet[Tenant]:
    """`tenant_stats_list` plus each tenant's extraction jobs by status, still one query."""
    return tenant_stats_list(usage_days=usage_days).annotate(
        **{
            f"jobs_{status}": count_per_tenant(
                ExtractionJob.objects.filter(status=status), "end_user__tenant"
            )
            for status in ExtractionJob.Status.values
        }
    )


# How many of a user's latest extractions remember which messages they read: enough for a chat
# loop that resends its last messages after every reply (a window slides by one turn a call).
READ_MEMORY_JOBS = 50


def message_hash(message: dict) -> str:
    """A short hash of one message (role and text, and its timestamp when it has one): what
    `message_hashes` keeps. The same words sent at another time are said again, not resent."""
    canonical = f"{message.get('role', '')}\x00{message.get('content', '')}"
    if message.get("timestamp"):
        canonical += f"\x00{message['timestamp']}"
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def messages_read_count(*, end_user_id: int, messages: list[dict]) -> int:
    """How many leading messages of `messages` the user's earlier extractions already read.

    A caller that sends the whole chat (or its last N messages) after every reply resends what
    was read: those messages are context for the new ones, not read again. Matching each
    message (not one prefix) also recognises a window that slid past the chat's first turns.
    """
    done = (
        ExtractionJob.objects.filter(end_user_id=end_user_id, status=ExtractionJob.Status.SUCCEEDED)
        .order_by("-finished_at")
        .values_list("message_hashes", flat=True)[:READ_MEMORY_JOBS]
    )
    read = {digest for hashes in done for digest in hashes or ()}
    count = 0
    for message in messages:
        if message_hash(message) not in read:
            break
        count += 1
    return count
