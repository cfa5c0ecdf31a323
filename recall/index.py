"""The per-user recall index and its cache (placeholder until the recall issue lands)."""

from __future__ import annotations


def user_index_invalidate(*, end_user_id: int) -> None:
    """Forget the cached index of one end user after a write."""
