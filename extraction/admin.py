"""Admin for extraction jobs: a read-only record of each extraction, its cost and outcome."""

from __future__ import annotations

from typing import Any, cast

from django.conf import settings
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from extraction.models import ExtractionJob
from extraction.selectors import extraction_jobs_given_up
from tenants.scoping import TenantScopedAdmin


class GivenUpFilter(admin.SimpleListFilter):
    """The failed jobs no longer replayed (`MEMORY_JOB_MAX_ATTEMPTS`), left to an operator."""

    title = "replay"
    parameter_name = "replay"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("given_up", f"given up ({settings.MEMORY_JOB_MAX_ATTEMPTS} attempts)")]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() == "given_up":
            return queryset & extraction_jobs_given_up()
        return queryset


@admin.register(ExtractionJob)
class ExtractionJobAdmin(TenantScopedAdmin):
    tenant_path = "end_user__tenant"
    list_display = [
        "id",
        "end_user",
        "tenant",
        "status",
        "extractor",
        "attempts",
        "llm_calls",
        "prompt_tokens",
        "completion_tokens",
        "created_at",
        "finished_at",
    ]
    list_filter = [
        "status",
        GivenUpFilter,
        "extractor",
        ("end_user__tenant", admin.RelatedOnlyFieldListFilter),
    ]
    list_select_related = ["end_user__tenant"]
    # "=request_id": paste the X-Request-ID a caller reports to find its job.
    search_fields = ["=id", "=request_id", "end_user__external_id", "error"]
    list_per_page = 100
    show_full_result_count = False
    date_hierarchy = "created_at"
    fields = [
        "id",
        "end_user",
        "session",
        "status",
        "extractor",
        "attempts",
        "llm_calls",
        "prompt_tokens",
        "completion_tokens",
        "truncated_messages",
        "candidates_refused",
        "statements_added",
        "clauses_skipped",
        "conversation_hash",
        "conversation",
        "memories_saved",
        "error",
        "request_id",
        "created_at",
        "started_at",
        "finished_at",
    ]
    readonly_fields = cast(list[str], fields)  # names only (the stubs allow groups in `fields`)

    def get_queryset(self, request: HttpRequest) -> QuerySet[ExtractionJob]:
        jobs = super().get_queryset(request)
        url_name = request.resolver_match.url_name if request.resolver_match else None
        if url_name and url_name.endswith("_changelist"):
            return jobs.defer("conversation")  # a list never shows the payload
        return jobs

    @admin.display(ordering="end_user__tenant__name")
    def tenant(self, job: ExtractionJob) -> str:
        return job.end_user.tenant.name

    # Jobs are written by the extraction service only; `retry_failed_jobs` replays failed ones.
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
