"""Extraction's reactions to the memory domain: an erasure takes the jobs with it."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from extraction.jobs import extraction_jobs_erase
from memories.models import AgentSession, EndUser
from memories.signals import ErasureShare, erasure_started


@receiver(erasure_started, dispatch_uid="extraction.jobs_erase")
def jobs_erase(
    *, end_user: EndUser, session: AgentSession | None, memory_ids: frozenset[str], **kwargs: Any
) -> ErasureShare:
    """Delete the erased user's or session's jobs and their kept conversations."""
    return extraction_jobs_erase(end_user=end_user, session=session, memory_ids=memory_ids)
