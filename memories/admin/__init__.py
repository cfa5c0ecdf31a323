"""The Django admin of the memory domain: the store's pages and the review console."""

from memories.admin import review, store
from memories.admin.review import review_queue_summary

__all__ = ["review", "review_queue_summary", "store"]
