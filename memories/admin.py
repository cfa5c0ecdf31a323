"""Admin for the memory domain; the embedding is never rendered."""

from django.contrib import admin
from rest_framework_api_key.admin import APIKeyModelAdmin

from memories.models import (
    AgentSession,
    DeletionRecord,
    EndUser,
    Memory,
    MemoryVersion,
    ReviewItem,
    Tenant,
    TenantAPIKey,
)


@admin.register(Tenant)
class TenantAdmin(admin.ModelAdmin):
    list_display = ["name", "is_active", "created_at"]
    search_fields = ["name"]


@admin.register(TenantAPIKey)
class TenantAPIKeyAdmin(APIKeyModelAdmin):
    list_display = [*APIKeyModelAdmin.list_display, "tenant"]
    list_filter = [*APIKeyModelAdmin.list_filter, "tenant"]
    list_select_related = ["tenant"]


@admin.register(EndUser)
class EndUserAdmin(admin.ModelAdmin):
    list_display = ["external_id", "tenant", "created_at"]
    list_filter = ["tenant"]
    list_select_related = ["tenant"]
    search_fields = ["external_id"]


@admin.register(AgentSession)
class AgentSessionAdmin(admin.ModelAdmin):
    list_display = ["external_id", "end_user", "created_at"]
    list_select_related = ["end_user"]
    search_fields = ["external_id"]
    raw_id_fields = ["end_user"]


class MemoryVersionInline(admin.TabularInline):
    model = MemoryVersion
    extra = 0
    can_delete = False
    fields = ["version", "action", "status", "caption", "full_text", "actor_type", "actor"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Memory)
class MemoryAdmin(admin.ModelAdmin):
    list_display = ["id", "caption", "category", "status", "end_user", "created_at"]
    list_filter = ["status", "category", "end_user__tenant"]
    list_select_related = ["end_user", "end_user__tenant"]
    search_fields = ["id", "caption", "end_user__external_id"]
    exclude = ["embedding"]
    readonly_fields = [
        "id",
        "content_hash",
        "embedding_model",
        "created_at",
        "updated_at",
        "last_accessed_at",
        "access_count",
    ]
    raw_id_fields = ["end_user", "source_session"]
    inlines = [MemoryVersionInline]


@admin.register(MemoryVersion)
class MemoryVersionAdmin(admin.ModelAdmin):
    list_display = ["memory", "version", "action", "actor_type", "actor", "created_at"]
    list_filter = ["action", "actor_type"]
    list_select_related = ["memory"]
    raw_id_fields = ["memory"]


@admin.register(ReviewItem)
class ReviewItemAdmin(admin.ModelAdmin):
    list_display = ["id", "end_user", "new_memory", "similarity", "status", "created_at"]
    list_filter = ["status", "resolution"]
    list_select_related = ["end_user", "new_memory"]
    raw_id_fields = ["end_user", "new_memory", "existing_memories"]
    ordering = ["-status", "created_at"]


@admin.register(DeletionRecord)
class DeletionRecordAdmin(admin.ModelAdmin):
    list_display = ["memory_id", "end_user", "reason", "actor_type", "actor", "deleted_at"]
    list_filter = ["reason", "actor_type"]
    list_select_related = ["end_user"]
    search_fields = ["memory_id"]
