"""Filing a contradiction: a review item for an operator, or, under the supersede policy, an
update applied at once and filed as resolved so that an operator can audit and reopen it."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.utils import timezone

from memories.models import Memory, MemoryVersion, ReviewItem
from memories.services.memories import memory_version_record
from memories.validity import change_date, closing_date


@transaction.atomic
def review_item_file(
    *,
    new_memory: Memory,
    existing: Sequence[Memory],
    similarity: float,
    reason: str,
    signal: str,
    supersede: bool = False,
    actor: str = "",
) -> ReviewItem:
    """Record that `new_memory` contradicts `existing`.

    `supersede=False`: the item waits for an operator (the new memory should be pending_review).
    `supersede=True`: the existing memories become superseded now (a version each), closed on
    the day the new one starts (`valid_to`), and the item is filed resolved as keep-new, marked
    automatic.
    """
    item = ReviewItem.objects.create(
        end_user_id=new_memory.end_user_id,
        new_memory=new_memory,
        similarity=similarity,
        reason=reason[:500],
        signal=signal,
    )
    item.existing_memories.set(existing)
    if supersede:
        on = change_date(new_memory)
        for memory in existing:
            memory.status = Memory.Status.SUPERSEDED
            # It held until the new fact took over: a past fact now, not a deleted one.
            memory.valid_to = closing_date(memory, on)
            memory.save(update_fields=["status", "valid_to", "updated_at"])
            memory_version_record(
                memory=memory,
                action=MemoryVersion.Action.SUPERSEDED,
                actor_type=MemoryVersion.Actor.SYSTEM,
                actor=actor,
                note=f"review {item.pk}: superseded by {new_memory.id} (supersede policy)",
            )
        item.status = ReviewItem.Status.RESOLVED
        item.resolution = ReviewItem.Resolution.KEEP_NEW
        item.auto_resolved = True
        item.resolved_at = timezone.now()
        item.save(update_fields=["status", "resolution", "auto_resolved", "resolved_at"])
    return item
