"""Reads of extraction jobs, scoped by tenant."""

from __future__ import annotations

import uuid

from extraction.models import ExtractionJob
from memories.models import Tenant


def extraction_job_get(*, tenant: Tenant, job_id: uuid.UUID) -> ExtractionJob | None:
    """Return the tenant's job with this id, or None (another tenant's job is None too)."""
    return (
        ExtractionJob.objects.select_related("end_user")
        .filter(end_user__tenant=tenant, pk=job_id)
        .first()
    )
