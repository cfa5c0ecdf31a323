"""Celery tasks of the memory domain: thin wrappers that call one service."""

from __future__ import annotations

from celery import shared_task

from memories.services.audit import audit_proposals_file
from memories.services.maintenance import memory_prune_scheduled
from tenants import rls


@shared_task(name="memories.prune_memories")
@rls.bypassed("scheduled pruning (Celery beat)")
def prune_memories() -> dict[str, int]:
    """The scheduled pruning (Celery beat, see CELERY_BEAT_SCHEDULE): rules from settings."""
    result = memory_prune_scheduled()
    return {"by_criteria": result.by_criteria, "over_cap": result.over_cap, "users": result.users}


@shared_task(name="memories.audit_proposals")
@rls.bypassed("scheduled consolidation (Celery beat)")
def audit_proposals() -> dict[str, int]:
    """The scheduled consolidation (Celery beat, see CELERY_BEAT_SCHEDULE): what the store's
    audit finds, filed for review as proposals; it merges and deletes nothing."""
    result = audit_proposals_file()
    return {
        "filed": result.filed,
        "proposed_before": result.proposed_before,
        "in_review": result.in_review,
    }
