"""Paths of the recall API, under /memories/ (no trailing slashes)."""

from django.urls import path

from recall.apis import MemoryRelevantApi

urlpatterns = [
    path("relevant", MemoryRelevantApi.as_view(), name="memories-relevant"),
]
