"""Paths of the memory API's reads and deletion, under /memories/ (no trailing slashes)."""

from django.urls import path

from memories.apis import MemoryDeleteApi, MemoryFullApi, MemoryListApi

urlpatterns = [
    path("full", MemoryFullApi.as_view(), name="memories-full"),
    path("list", MemoryListApi.as_view(), name="memories-list"),
    # Last: a memory id matches any other path segment.
    path("<str:memory_id>", MemoryDeleteApi.as_view(), name="memories-delete"),
]
