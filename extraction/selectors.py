"""Reads of extraction jobs, scoped by tenant, and the store's statistics including them."""

from __future__ import annotations

import uuid
from datetime import timedelta

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
