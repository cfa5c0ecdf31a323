"""Celery tasks of the memory domain: thin wrappers that call one service."""

from __future__ import annotations

from celery import shared_task

from memories.services.maintenance import memory_prune_scheduled
from tenants import rls


@shared_task(name="memories.prune_memories")
@rls.bypassed("scheduled pruning (Celery beat)")
def prune_memories() -> dict[str, int]:
    """The scheduled pruning (Celery beat, see CELERY_BEAT_SCHEDULE): rules from settings."""
    result = memory_prune_scheduled()
    return {"by_criteria": result.by_criteria, "over_cap": result.over_cap, "users": result.users}
