"""Writes to memories that are not part of the extraction pipeline: deletion."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction

from memories.models import DeletionRecord, Memory


@transaction.atomic
def memory_delete_many(
    *, memories: Iterable[Memory], reason: str, actor_type: str, actor: str = ""
) -> int:
    """Delete memories for real (text, embedding, versions) and leave content-free audit rows."""
    memories = list(memories)
    if not memories:
        return 0
    DeletionRecord.objects.bulk_create(
        DeletionRecord(
            memory_id=memory.id,
            end_user_id=memory.end_user_id,
            reason=reason,
            actor_type=actor_type,
            actor=actor,
        )
        for memory in memories
    )
    end_user_ids = {memory.end_user_id for memory in memories}
    Memory.objects.filter(id__in=[memory.id for memory in memories]).delete()
    transaction.on_commit(lambda: _invalidate_recall(end_user_ids))
    return len(memories)


def _invalidate_recall(end_user_ids: set[int]) -> None:
    """Drop the recall index of each user whose memories changed (best effort)."""
    from recall.index import user_index_invalidate

    for end_user_id in end_user_ids:
        user_index_invalidate(end_user_id=end_user_id)
