"""Paths of the extraction API, under /memories/ (no trailing slashes)."""

from django.urls import path

from extraction.apis import ExtractionJobApi, MemoryExtractApi

urlpatterns = [
    path("extract", MemoryExtractApi.as_view(), name="memories-extract"),
    path("jobs/<uuid:job_id>", ExtractionJobApi.as_view(), name="memories-job"),
]
