"""The review console: the operators' queue of conflicts, and one page per conflict.

Every resolution goes through `memories.services.reviews`; the queue reads through
`memories.selectors`. The admin index shows the queue's size
(`memories.context_processors.review_queue_summary`).
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any, cast

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.text import Truncator
from django.utils.timesince import timesince

from memories.admin.losses import STOPWORDS, memory_text, words_lost
from memories.admin.store import operator_text
from memories.models import (
    EndUser,
    Memory,
    ReviewItem,
)
from memories.selectors import (
    review_item_conflict,
    review_item_queue,
)
from memories.services.reviews import (
    ReviewAlreadyResolved,
    ReviewError,
    review_item_reopen,
    review_item_resolve,
    review_item_resolve_many,
)
from memories.text import CAPTION_MAX_LENGTH, FULL_TEXT_MAX_LENGTH
from memories.validity import change_date
from tenants.scoping import TenantScopedAdmin, request_operator, scoped

if TYPE_CHECKING:
    # The stubs' name for what get_list_display returns (a list or tuple of names and callables).
    from django.contrib.admin.options import _ListDisplayT

Resolution = ReviewItem.Resolution

# By the resolution's value (a Resolution is its value too).
RESOLUTION_DONE: dict[str, str] = {
    Resolution.KEEP_NEW: "kept the new memory; the existing one is superseded",
    Resolution.KEEP_EXISTING: "kept the existing memory; the new one is discarded",
    Resolution.KEEP_BOTH: "kept both memories",
    Resolution.MERGE: "merged into the existing memory",
}


def _caption(caption: str) -> str:
    """A caption cut for the queue's narrow cells; the whole of it shows on hover."""
    return format_html(
        '<span class="queue-caption" title="{}">{}</span>', caption, Truncator(caption).chars(60)
    )


def _losses(new: Memory | None, existing: list[Memory], form: ReviewResolveForm) -> dict:
    """What *Keep new* and *Merge* (with the box's text as it stands) would drop, and the
    texts the page's script recounts the merge's loss from as the operator edits."""
    texts = {m.id: memory_text(m.caption, m.full_text) for m in existing}
    new_text = memory_text(new.caption, new.full_text) if new else ""
    # Keep new supersedes the existing memories that are not superseded already.
    to_supersede = [texts[m.id] for m in existing if m.status != Memory.Status.SUPERSEDED]
    target = str(form["merge_into"].value() or "")
    merged = memory_text(str(form["caption"].value() or ""), str(form["full_text"].value() or ""))
    return {
        "keep_new_loses": words_lost(new_text, to_supersede) if new else [],
        "merge_loses": words_lost(merged, [texts.get(target, ""), new_text]),
        "loss_texts": {"new": new_text, "existing": texts, "stopwords": sorted(STOPWORDS)},
    }


class ReviewStatusFilter(admin.SimpleListFilter):
    """Pending items unless asked otherwise: the queue is what is left to do."""

    title = "status"
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("pending", "Pending"), ("resolved", "Resolved"), ("all", "All")]

    def choices(self, changelist: Any):
        current = self.value() or "pending"
        for value, label in self.lookup_choices:
            yield {
                "selected": current == value,
                "query_string": changelist.get_query_string({self.parameter_name: value}),
                "display": label,
            }

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        value = self.value() or "pending"
        return queryset if value == "all" else queryset.filter(status=value)


class ReviewAgeFilter(admin.SimpleListFilter):
    title = "waiting for"
    parameter_name = "age"
    _DAYS = {"1d": 1, "7d": 7, "30d": 30}

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [
            ("today", "Less than a day"),
            ("1d", "More than a day"),
            ("7d", "More than a week"),
            ("30d", "More than a month"),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() == "today":
            return queryset.filter(created_at__gte=timezone.now() - timedelta(days=1))
        if (value := self.value()) in self._DAYS:
            since = timezone.now() - timedelta(days=self._DAYS[value])
            return queryset.filter(created_at__lt=since)
        return queryset


class ReviewUserFilter(admin.SimpleListFilter):
    """The end users with the most pending conflicts (any user through the row's user link)."""

    title = "end user"
    parameter_name = "end_user"
    shown = 20

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        users = (
            scoped(request, EndUser.objects.all(), "tenant")
            .filter(review_items__status=ReviewItem.Status.PENDING)
            .annotate(pending=Count("review_items"))
            .order_by("-pending", "pk")
            .select_related("tenant")[: self.shown]
        )
        chosen = self.value()
        lookups = [(str(user.pk), f"{user.external_id} ({user.tenant.name})") for user in users]
        if chosen and chosen.isdigit() and chosen not in {pk for pk, _ in lookups}:
            user = (
                scoped(request, EndUser.objects.filter(pk=chosen), "tenant")
                .select_related("tenant")
                .first()
            )
            if user is not None:
                lookups.append((chosen, f"{user.external_id} ({user.tenant.name})"))
        return lookups

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        value = self.value()
        if value and value.isdigit():
            return queryset.filter(end_user_id=int(value))
        return queryset


class ReviewResolveForm(forms.Form):
    """One conflict's resolution: which way, and for merge the edited text and its target."""

    resolution = forms.ChoiceField(choices=Resolution.choices)
    caption = forms.CharField(max_length=CAPTION_MAX_LENGTH, required=False, strip=True)
    full_text = forms.CharField(
        max_length=FULL_TEXT_MAX_LENGTH,
        required=False,
        strip=True,
        widget=forms.Textarea(attrs={"rows": 4}),
    )
    merge_into = forms.ChoiceField(required=False, choices=())
    # Keep new: the day the change happened, pre-filled from the new memory's message; the
    # existing memories held until then (`memories.validity`).
    changed_on = forms.DateField(
        required=False, widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")
    )

    def __init__(self, *args: Any, existing: list[Memory], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["merge_into"]).choices = [
            (m.id, f"{m.id}: {m.caption}") for m in existing
        ]

    def clean_caption(self) -> str:
        return operator_text(self.cleaned_data["caption"], lines=False)

    def clean_full_text(self) -> str:
        return operator_text(self.cleaned_data["full_text"], lines=True)

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        if cleaned.get("resolution") == Resolution.MERGE:
            for name in ("caption", "full_text"):
                if not cleaned.get(name) and name not in self.errors:
                    self.add_error(name, "Merging needs the text to keep.")
        return cleaned


@admin.register(ReviewItem)
class ReviewItemAdmin(TenantScopedAdmin):
    """The review queue: pending conflicts, oldest first; each row opens the conflict page."""

    tenant_path = "end_user__tenant"
    # The queue's one name, in the sidebar (`MemoryAdminSite.get_app_list`), breadcrumbs and
    # titles: the model's plural ("review items") is left as it is, so renaming costs no
    # migration and the permissions keep their names.
    list_label = "Review queue"
    list_display = [
        "conflict",
        "new_caption",
        "existing_captions",
        "category",
        "similarity_shown",
        "user",
        "signal",
        "waiting",
        "resolution_shown",
    ]
    list_display_links = ["conflict"]
    list_filter = [
        ReviewStatusFilter,
        ("end_user__tenant", admin.RelatedOnlyFieldListFilter),
        ReviewUserFilter,
        ("new_memory__category", admin.ChoicesFieldListFilter),
        ReviewAgeFilter,
        "signal",
        "resolution",
        "auto_resolved",
    ]
    search_fields = ["new_memory__caption", "existing_memories__caption", "end_user__external_id"]
    search_help_text = "Search by a memory's caption or the end user's id."
    list_per_page = 50
    show_full_result_count = False
    actions = ["resolve_keep_new", "resolve_keep_existing", "resolve_keep_both"]
    conflict_template = "admin/memories/reviewitem/conflict.html"

    def get_queryset(self, request: HttpRequest) -> QuerySet[ReviewItem]:
        return self.scoped(request, review_item_queue())

    def get_list_display(self, request: HttpRequest) -> _ListDisplayT[ReviewItem]:
        """The resolution column only where resolved items are listed."""
        if request.GET.get(ReviewStatusFilter.parameter_name) in ("resolved", "all"):
            return self.list_display
        return [name for name in self.list_display if name != "resolution_shown"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # the write pipeline files conflicts

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # a conflict is resolved, never deleted: its new memory would be stranded

    # --- the queue's columns

    @admin.display(description="conflict", ordering="pk")
    def conflict(self, item: ReviewItem) -> str:
        return f"#{item.pk}"

    @admin.display(description="new memory")
    def new_caption(self, item: ReviewItem) -> str:
        if item.new_memory is None:
            return "(discarded)"
        return _caption(item.new_memory.caption)

    @admin.display(description="existing memories")
    def existing_captions(self, item: ReviewItem) -> str:
        existing = list(item.existing_memories.all())
        if not existing:
            return "(none left)"
        return format_html_join("", "<div>{}</div>", ((_caption(m.caption),) for m in existing))

    @admin.display(description="category", ordering="new_memory__category")
    def category(self, item: ReviewItem) -> str:
        return item.new_memory.get_category_display() if item.new_memory else "-"

    @admin.display(description="similarity", ordering="similarity")
    def similarity_shown(self, item: ReviewItem) -> str:
        return f"{item.similarity:.2f}"

    @admin.display(description="end user", ordering="end_user__external_id")
    def user(self, item: ReviewItem) -> str:
        # The tenant under its user rather than a column of its own: the queue has to fit
        # beside the admin's two sidebars at 1440 px, and a user belongs to one tenant.
        external_id = str(item.end_user.external_id)
        return format_html(
            '<a href="?end_user={}" title="{} (all conflicts of this user)">{}</a>'
            '<div class="queue-tenant">{}</div>',
            item.end_user_id,
            external_id,
            Truncator(external_id).chars(9),
            item.end_user.tenant.name,
        )

    @admin.display(description="waiting", ordering="created_at")
    def waiting(self, item: ReviewItem) -> str:
        end = item.resolved_at or timezone.now()
        return timesince(item.created_at, end, depth=1)

    @admin.display(description="resolution", ordering="resolution")
    def resolution_shown(self, item: ReviewItem) -> str:
        return item.get_resolution_display() if item.resolution else "pending"

    # --- the queue's page and bulk actions

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        extra_context = {
            "title": f"{self.list_label}: conflicts to resolve",
            **(extra_context or {}),
        }
        return super().changelist_view(request, extra_context)

    def history_view(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        extra_context = {"module_name": self.list_label, **(extra_context or {})}
        return super().history_view(request, object_id, extra_context)

    def _resolve_selected(self, request: HttpRequest, queryset: QuerySet, resolution: str) -> None:
        if not self.has_change_permission(request):
            raise PermissionDenied
        ids = list(queryset.values_list("pk", flat=True))
        result = review_item_resolve_many(
            review_item_ids=ids, resolution=resolution, operator=request_operator(request)
        )
        if result.resolved:
            self.message_user(
                request,
                f"Resolved {result.resolved} conflict(s): {RESOLUTION_DONE[resolution]}.",
                messages.SUCCESS,
            )
        if result.skipped:
            self.message_user(
                request,
                f"Skipped {result.skipped}: " + "; ".join(result.errors[:5]),
                messages.WARNING,
            )

    @admin.action(description="Keep the new memories (supersede the existing ones)")
    def resolve_keep_new(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._resolve_selected(request, queryset, Resolution.KEEP_NEW)

    @admin.action(description="Keep the existing memories (discard the new ones)")
    def resolve_keep_existing(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._resolve_selected(request, queryset, Resolution.KEEP_EXISTING)

    @admin.action(description="Keep both")
    def resolve_keep_both(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._resolve_selected(request, queryset, Resolution.KEEP_BOTH)

    # --- the conflict page (replaces the change form)

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        if not object_id.isdigit():
            raise Http404("No such conflict.")
        item = self.scoped(request, review_item_conflict(review_item_id=int(object_id))).first()
        if item is None:
            raise Http404("No such conflict.")
        if not self.has_view_or_change_permission(request, item):
            raise PermissionDenied
        existing = list(item.existing_memories.all())
        can_resolve = item.status == ReviewItem.Status.PENDING and self.has_change_permission(
            request, item
        )
        can_reopen = item.auto_resolved and self.has_change_permission(request, item)

        if request.method == "POST" and request.POST.get("resolution") == "reopen":
            if not can_reopen:
                raise PermissionDenied
            try:
                review_item_reopen(review_item_id=item.pk, operator=request_operator(request))
            except ReviewError as exc:
                self.message_user(request, f"Not reopened: {exc}", messages.ERROR)
            else:
                self.log_change(request, item, "Reopened for review")
                self.message_user(
                    request, f"Conflict #{item.pk} is waiting for review again.", messages.SUCCESS
                )
            return HttpResponseRedirect(request.path)
        if request.method == "POST":
            if not can_resolve:
                raise PermissionDenied
            form = ReviewResolveForm(request.POST, existing=existing)
            if form.is_valid():
                response = self._resolve(request, item, form)
                if response is not None:
                    return response
        else:
            proposal = item.new_memory or (existing[0] if existing else None)
            form = ReviewResolveForm(
                existing=existing,
                initial={
                    "caption": proposal.caption if proposal else "",
                    "full_text": proposal.full_text if proposal else "",
                    "merge_into": existing[0].id if existing else "",
                    "changed_on": change_date(item.new_memory) if item.new_memory else None,
                },
            )

        context = {
            **self.admin_site.each_context(request),
            "title": f"Conflict #{item.pk}",
            "subtitle": None,
            "opts": self.opts,
            "app_label": self.opts.app_label,
            "list_label": self.list_label,
            "item": item,
            "new": item.new_memory,
            "existing": existing,
            "form": form,
            "can_resolve": can_resolve,
            "can_reopen": can_reopen,
            "has_view_permission": self.has_view_permission(request),
            "resolutions": RESOLUTION_DONE,
            **(_losses(item.new_memory, existing, form) if can_resolve else {}),
            **(extra_context or {}),
        }
        return TemplateResponse(request, self.conflict_template, context)

    def _resolve(
        self, request: HttpRequest, item: ReviewItem, form: ReviewResolveForm
    ) -> HttpResponse | None:
        resolution = form.cleaned_data["resolution"]
        try:
            review_item_resolve(
                review_item_id=item.pk,
                resolution=resolution,
                operator=request_operator(request),
                caption=form.cleaned_data["caption"],
                full_text=form.cleaned_data["full_text"],
                merge_into_id=form.cleaned_data["merge_into"] or None,
                changed_on=form.cleaned_data["changed_on"],
            )
        except ReviewAlreadyResolved:
            self.message_user(
                request, f"Conflict #{item.pk} was already resolved by someone else.", messages.INFO
            )
            return HttpResponseRedirect(request.path)
        except ReviewError as exc:
            form.add_error(None, str(exc))
            return None
        self.log_change(request, item, f"Resolved: {resolution}")
        self.message_user(
            request,
            f"Conflict #{item.pk} resolved: {RESOLUTION_DONE[resolution]}.",
            messages.SUCCESS,
        )
        return HttpResponseRedirect(reverse("admin:memories_reviewitem_changelist"))
