"""Recall's reactions to the memory domain: a user's memories changed, so drop their index."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from memories.signals import memories_changed
from recall.index import user_index_invalidate


@receiver(memories_changed, dispatch_uid="recall.index_invalidate")
def index_invalidate(*, end_user_ids: frozenset[int], **kwargs: Any) -> None:
    """Invalidate the cached index of every user in the committed write (never raises)."""
    for end_user_id in end_user_ids:
        user_index_invalidate(end_user_id=end_user_id)
