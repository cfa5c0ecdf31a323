"""The Django admin of the memory domain: the store's pages and the review console."""

from memories.admin import review, store

__all__ = ["review", "store"]
