"""The memory API's contract paths (DESIGN.md section 5), without trailing slashes."""

from django.urls import path

from memories.apis import (
    ExtractionJobApi,
    MemoryDeleteApi,
    MemoryExtractApi,
    MemoryFullApi,
    MemoryListApi,
    MemoryRelevantApi,
)

urlpatterns = [
    path("extract", MemoryExtractApi.as_view(), name="memories-extract"),
    path("relevant", MemoryRelevantApi.as_view(), name="memories-relevant"),
    path("full", MemoryFullApi.as_view(), name="memories-full"),
    path("list", MemoryListApi.as_view(), name="memories-list"),
    path("jobs/<uuid:job_id>", ExtractionJobApi.as_view(), name="memories-job"),
    path("<str:memory_id>", MemoryDeleteApi.as_view(), name="memories-delete"),
]
