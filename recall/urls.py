"""Paths of the recall API, under /memories/ (no trailing slashes)."""

from django.urls import path

from recall.apis import MemoryContextApi, MemoryRelevantApi

urlpatterns = [
    path("relevant", MemoryRelevantApi.as_view(), name="memories-relevant"),
    path("context", MemoryContextApi.as_view(), name="memories-context"),
]
