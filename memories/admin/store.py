"""Admin pages of the memory store: tenants and keys, end users, memories and their history.

Changes go through services (`memory_operator_edit`, `memory_delete_many`), reads through
`memories.selectors`; the embedding is never loaded here.
"""

from __future__ import annotations

import contextlib
from typing import Any, cast

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from core.exceptions import NotFound
from memories.admin.timeline import user_timeline
from memories.instructions import REFUSALS, instruction_in
from memories.models import (
    AgentSession,
    DeletionRecord,
    EndUser,
    ErasureRecord,
    Memory,
    MemoryEvidence,
    MemoryVersion,
)
from memories.selectors import memory_admin_list, memory_evidence_list
from memories.services.erasure import end_user_erase
from memories.services.memories import memory_delete_many
from memories.services.reviews import ReviewError, memory_operator_edit
from memories.text import content_hash, text_clean
from tenants.scoping import TenantScopedAdmin, request_operator


@admin.register(EndUser)
class EndUserAdmin(TenantScopedAdmin):
    list_display = ["external_id", "tenant", "created_at"]
    list_filter = [("tenant", admin.RelatedOnlyFieldListFilter)]
    list_select_related = ["tenant"]
    search_fields = ["external_id"]

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> tuple:
        """The erasure deletes what hangs off the user (versions, reviews, audit rows, jobs):
        the operator needs the right to delete end users only."""
        deleted, counts, _perms_needed, protected = super().get_deleted_objects(objs, request)
        return deleted, counts, set(), protected

    def delete_model(self, request: HttpRequest, obj: EndUser) -> None:
        self.delete_queryset(request, EndUser.objects.filter(pk=obj.pk))

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[EndUser]) -> None:
        """Deleting an end user is an erasure: its record stays, recall forgets the user."""
        for end_user in queryset.select_related("tenant"):
            with contextlib.suppress(NotFound):  # erased meanwhile
                end_user_erase(
                    tenant=end_user.tenant,
                    external_id=end_user.external_id,
                    actor_type=MemoryVersion.Actor.OPERATOR,
                    actor=request.user.get_username(),
                )


@admin.register(AgentSession)
class AgentSessionAdmin(TenantScopedAdmin):
    tenant_path = "end_user__tenant"
    list_display = ["external_id", "end_user", "created_at"]
    list_select_related = ["end_user"]
    search_fields = ["external_id"]
    raw_id_fields = ["end_user"]


# --- memories -------------------------------------------------------------------------------


class MemoryVersionInline(admin.TabularInline):
    model = MemoryVersion
    extra = 0
    can_delete = False
    fields = [
        "version",
        "action",
        "status",
        "caption_before",
        "caption",
        "full_text",
        "actor_type",
        "actor",
        "note",
        "stated_at",
        "valid_from",
        "valid_to",
        "created_at",
    ]
    readonly_fields = cast(list[str], fields)  # names only (the stubs allow groups in `fields`)
    ordering = ["version"]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class MemoryEvidenceInline(admin.TabularInline):
    """What the user said that the memory came from, in the order it was said: shown, never
    written by hand."""

    model = MemoryEvidence
    verbose_name = "quote"
    verbose_name_plural = "What the user said"
    extra = 0
    can_delete = False
    fields = ["quote", "source", "session", "position", "said_at"]
    readonly_fields = cast(list[str], fields)

    def get_queryset(self, request: HttpRequest) -> QuerySet[MemoryEvidence]:
        return memory_evidence_list()

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def operator_text(value: str, *, lines: bool) -> str:
    """An operator's memory text as it may be stored: cleaned as every way in cleans it
    (`text_clean`), refused as every way in refuses an instruction or a claim of authority
    (`memories.instructions`), so what reaches an assistant is the same whoever wrote it."""
    text = text_clean(value, lines=lines).strip()
    if not lines:
        text = " ".join(text.split())
    reason = instruction_in(text)
    if reason:
        raise forms.ValidationError(f"Not saved: {REFUSALS[reason]}", code=reason)
    return text


class MemoryAdminForm(forms.ModelForm):
    """Only the text, category and confidence are the operator's to edit, and the text is
    cleaned and checked like any other (`operator_text`)."""

    class Meta:
        model = Memory
        fields = ["caption", "full_text", "category", "confidence"]
        widgets = {"full_text": forms.Textarea(attrs={"rows": 4, "cols": 80})}

    def clean_caption(self) -> str:
        return operator_text(self.cleaned_data["caption"], lines=False)

    def clean_full_text(self) -> str:
        return operator_text(self.cleaned_data["full_text"], lines=True)

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        full_text = cleaned.get("full_text")
        memory = self.instance
        if (
            full_text
            and memory.status == Memory.Status.ACTIVE
            and full_text != memory.full_text
            and Memory.objects.filter(
                end_user_id=memory.end_user_id,
                status=Memory.Status.ACTIVE,
                content_hash=content_hash(full_text),
            )
            .exclude(pk=memory.pk)
            .exists()
        ):
            raise forms.ValidationError("Another active memory of this user already says this.")
        return cleaned


@admin.register(Memory)
class MemoryAdmin(TenantScopedAdmin):
    tenant_path = "end_user__tenant"
    form = MemoryAdminForm
    list_display = [
        "id",
        "caption",
        "category",
        "status",
        "end_user",
        "tenant",
        "confidence",
        "access_count",
        "created_at",
    ]
    list_filter = ["status", "category", ("end_user__tenant", admin.RelatedOnlyFieldListFilter)]
    # `tenant` is the memory's own column (the end user's tenant, copied).
    list_select_related = ["end_user__tenant", "tenant"]
    search_fields = ["=id", "caption", "end_user__external_id"]
    list_per_page = 100
    show_full_result_count = False
    fieldsets = [
        (None, {"fields": ["caption", "full_text", "category", "confidence"]}),
        (
            "Generated",
            {
                "fields": [
                    "id",
                    "status",
                    "end_user",
                    "source_session",
                    "content_hash",
                    "embedding_model",
                    "stated_at",
                    "last_stated_at",
                    "valid_from",
                    "valid_to",
                    "created_at",
                    "updated_at",
                    "last_accessed_at",
                    "access_count",
                ]
            },
        ),
    ]
    # The generated fields' names (the stubs type a fieldset's entry as any field group).
    readonly_fields = [*cast(list[str], fieldsets[1][1]["fields"]), "timeline"]
    fieldsets = [
        *fieldsets,
        ("Timeline of the user's facts", {"fields": ["timeline"], "classes": ["wide"]}),
    ]
    inlines = [MemoryEvidenceInline, MemoryVersionInline]

    @admin.display(description="Timeline")
    def timeline(self, memory: Memory) -> str:
        """Each fact of the user as a bar of when it held; updates and reviews marked."""
        return user_timeline(memory=memory) if memory.pk else ""

    def get_queryset(self, request: HttpRequest) -> QuerySet[Memory]:
        return self.scoped(request, memory_admin_list())

    def has_add_permission(self, request: HttpRequest) -> bool:
        # Memories come from the extraction pipeline, which hashes, embeds and deduplicates.
        return False

    def save_model(self, request: HttpRequest, obj: Memory, form: Any, change: bool) -> None:
        try:
            memory_operator_edit(
                memory_id=obj.pk,
                operator=request_operator(request),
                caption=form.cleaned_data["caption"],
                full_text=form.cleaned_data["full_text"],
                category=form.cleaned_data["category"],
                confidence=form.cleaned_data["confidence"],
            )
        except ReviewError as exc:
            messages.error(request, f"Not saved: {exc}")

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> tuple:
        """A memory's versions and quotes go with it: the operator needs no right to delete
        those."""
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        perms_needed.discard(MemoryVersion._meta.verbose_name)
        perms_needed.discard(MemoryEvidence._meta.verbose_name)
        return deleted, counts, perms_needed, protected

    def delete_model(self, request: HttpRequest, obj: Memory) -> None:
        self.delete_queryset(request, Memory.objects.filter(pk=obj.pk))

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Memory]) -> None:
        memory_delete_many(
            memories=queryset.only("id", "end_user_id"),
            reason=DeletionRecord.Reason.OPERATOR,
            actor_type=MemoryVersion.Actor.OPERATOR,
            actor=request.user.get_username(),
        )


class _ReadOnlyAdmin(TenantScopedAdmin):
    """An audit trail: shown, never written by hand."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(MemoryVersion)
class MemoryVersionAdmin(_ReadOnlyAdmin):
    tenant_path = "memory__end_user__tenant"
    list_display = ["memory", "version", "action", "status", "actor_type", "actor", "created_at"]
    list_filter = ["action", "actor_type"]
    list_select_related = ["memory"]
    search_fields = ["=memory__id", "actor"]


@admin.register(DeletionRecord)
class DeletionRecordAdmin(_ReadOnlyAdmin):
    tenant_path = "end_user__tenant"
    list_display = ["memory_id", "end_user", "reason", "actor_type", "actor", "deleted_at"]
    list_filter = ["reason", "actor_type"]
    list_select_related = ["end_user"]
    search_fields = ["=memory_id", "end_user__external_id"]


@admin.register(ErasureRecord)
class ErasureRecordAdmin(_ReadOnlyAdmin):
    list_display = [
        "external_id",
        "scope",
        "session_external_id",
        "tenant",
        "deleted",
        "actor_type",
        "actor",
        "erased_at",
    ]
    list_filter = ["scope", "actor_type", ("tenant", admin.RelatedOnlyFieldListFilter)]
    list_select_related = ["tenant"]
    search_fields = ["external_id", "session_external_id"]
