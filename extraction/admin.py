"""Admin for extraction jobs."""

from django.contrib import admin

from extraction.models import ExtractionJob


@admin.register(ExtractionJob)
class ExtractionJobAdmin(admin.ModelAdmin):
    list_display = ["id", "end_user", "status", "extractor", "llm_calls", "created_at"]
    list_filter = ["status", "extractor"]
    list_select_related = ["end_user"]
    raw_id_fields = ["end_user", "session", "memories_saved"]
    readonly_fields = ["conversation_hash", "created_at", "started_at", "finished_at"]
