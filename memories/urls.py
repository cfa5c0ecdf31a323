"""Paths of the memory API's reads and deletion, under /memories/ (no trailing slashes)."""

from django.urls import path, register_converter

from memories.apis import MemoryDeleteApi, MemoryFullApi, MemoryListApi
from memories.converters import MemoryIdConverter

register_converter(MemoryIdConverter, "memory_id")

urlpatterns = [
    path("full", MemoryFullApi.as_view(), name="memories-full"),
    path("list", MemoryListApi.as_view(), name="memories-list"),
    path("<memory_id:memory_id>", MemoryDeleteApi.as_view(), name="memories-delete"),
]
