"""Reads of the memory domain. Each returns a QuerySet (or one object) scoped by tenant."""

from __future__ import annotations

from datetime import date

from django.db import models
from django.db.models.functions import Coalesce
from django.utils import timezone

from memories.models import EndUser, Memory, MemoryEvidence, MemoryVersion, ReviewItem
from tenants.models import Tenant, TenantUsage
from tenants.selectors import USAGE_DAYS, usage_window_start

# What the API shows of a user's store: accepted memories and those awaiting review.
VISIBLE_STATUSES = (Memory.Status.ACTIVE, Memory.Status.PENDING_REVIEW)


def end_user_get(*, tenant: Tenant, external_id: str) -> EndUser | None:
    """Return the tenant's end user with this id, or None (another tenant's user is None too)."""
    return EndUser.objects.filter(tenant=tenant, external_id=external_id).first()


def memory_visible_list(*, end_user: EndUser) -> models.QuerySet[Memory]:
    """The user's visible memories, newest first."""
    return Memory.objects.filter(end_user=end_user, status__in=VISIBLE_STATUSES).order_by(
        "-created_at", "id"
    )


def memory_full_list(*, end_user: EndUser, ids: list[str]) -> models.QuerySet[Memory]:
    """The user's visible memories among `ids`, each with its evidence (GET /memories/full):
    two queries whatever the number of memories."""
    return (
        memory_visible_list(end_user=end_user)
        .filter(id__in=ids)
        .defer("embedding")
        .prefetch_related(models.Prefetch("evidence", queryset=memory_evidence_list()))
    )


def memory_visible_count(*, end_user: EndUser) -> int:
    """How many memories count against the user's cap (the API's total_user_memories)."""
    return Memory.objects.filter(end_user=end_user, status__in=VISIBLE_STATUSES).count()


# --- time (issue 33) ---------------------------------------------------------------------------

# What an `as_of` read sees: the visible memories and the facts an update closed since.
TIMELINE = models.Q(status__in=VISIBLE_STATUSES) | models.Q(
    status=Memory.Status.SUPERSEDED, valid_to__isnull=False
)


def holds_on(day: date) -> models.Q:
    """Memories that held on `day`: begun by then (`valid_from`, else the day it was said)
    and not ended (`valid_to` is exclusive: the day the next fact took over)."""
    began = models.Q(valid_from__lte=day) | models.Q(
        valid_from__isnull=True, stated_at__date__lte=day
    )
    return began & (models.Q(valid_to__isnull=True) | models.Q(valid_to__gt=day))


def not_ended(day: date) -> models.Q:
    """Memories whose end, if any, has not passed on `day`: a fact "used to" hold is not a
    current one."""
    return models.Q(valid_to__isnull=True) | models.Q(valid_to__gt=day)


def memory_as_of_list(*, end_user: EndUser, day: date) -> models.QuerySet[Memory]:
    """The user's memories that held on `day`, those an update replaced since included, newest
    first (GET /memories/list with as_of)."""
    return (
        Memory.objects.filter(end_user=end_user)
        .filter(TIMELINE & holds_on(day))
        .order_by("-created_at", "id")
    )


def _in_time(as_of: date | None) -> models.Q:
    """Active memories that hold today, or with `as_of` those of the timeline held then."""
    if as_of is not None:
        closed = models.Q(status=Memory.Status.SUPERSEDED, valid_to__isnull=False)
        return (models.Q(status=Memory.Status.ACTIVE) | closed) & holds_on(as_of)
    return models.Q(status=Memory.Status.ACTIVE) & not_ended(timezone.now().date())


def memory_profile_list(*, end_user_id: int, as_of: date | None = None) -> models.QuerySet[Memory]:
    """The user's stable profile: active personal facts that hold (on `as_of`, else today),
    the surest and most used first."""
    return (
        Memory.objects.filter(end_user_id=end_user_id, category=Memory.Category.PERSONAL)
        .filter(_in_time(as_of))
        .order_by("-confidence", "-access_count", "-created_at", "id")
    )


def memory_unconfirmed_map(*, end_user_id: int) -> dict[str, list[Memory]]:
    """The user's facts held for review, by the id of each active fact they would replace: a
    context shows them beside it as unconfirmed, never as what holds."""
    items = (
        ReviewItem.objects.filter(
            end_user_id=end_user_id,
            status=ReviewItem.Status.PENDING,
            new_memory__status=Memory.Status.PENDING_REVIEW,
        )
        .select_related("new_memory")
        .prefetch_related(models.Prefetch("existing_memories", queryset=Memory.objects.only("id")))
        .order_by("created_at", "pk")
    )
    found: dict[str, list[Memory]] = {}
    for item in items:
        assert item.new_memory is not None  # the filter above: a held new memory
        for existing in item.existing_memories.all():
            found.setdefault(existing.id, []).append(item.new_memory)
    return found


def memory_session_list(
    *, end_user_id: int, session_id: str, as_of: date | None = None
) -> models.QuerySet[Memory]:
    """The user's active memories that came from one of its sessions and hold (on `as_of`,
    else today), newest first."""
    return (
        Memory.objects.filter(end_user_id=end_user_id, source_session__external_id=session_id)
        .filter(_in_time(as_of))
        .order_by("-created_at", "id")
    )


# --- evidence (issue 34) ---------------------------------------------------------------------


def memory_evidence_list() -> models.QuerySet[MemoryEvidence]:
    """Quotes in the order they were said, each with its session's id (no query per row)."""
    return MemoryEvidence.objects.select_related("session").order_by("said_at", "id")


def memory_evidence_map(
    *, end_user_id: int, memory_ids: list[str]
) -> dict[str, list[MemoryEvidence]]:
    """What the user said for each of their memories `memory_ids`, by memory id, in the order
    it was said (a memory without any is absent). One query."""
    found: dict[str, list[MemoryEvidence]] = {}
    rows = memory_evidence_list().filter(memory_id__in=memory_ids, memory__end_user_id=end_user_id)
    for row in rows:
        found.setdefault(row.memory_id, []).append(row)
    return found


# --- operators: the admin's review queue and the store's statistics ------------------------


def review_item_queue() -> models.QuerySet[ReviewItem]:
    """Review items for the admin's queue: pending first, oldest first, with what a row shows."""
    return (
        ReviewItem.objects.select_related("end_user__tenant", "new_memory")
        .defer("new_memory__embedding")
        .prefetch_related(
            models.Prefetch(
                "existing_memories",
                queryset=Memory.objects.only("id", "caption", "status").order_by("created_at"),
            )
        )
        .order_by("status", "created_at", "pk")
    )


def review_item_pending_list() -> models.QuerySet[ReviewItem]:
    """Pending review items, oldest first."""
    return ReviewItem.objects.filter(status=ReviewItem.Status.PENDING).order_by("created_at", "pk")


def review_item_conflict(*, review_item_id: int) -> models.QuerySet[ReviewItem]:
    """One review item with both sides of its conflict, their version histories and what the
    user said for each (their evidence)."""
    memories = (
        Memory.objects.defer("embedding")
        .select_related("source_session")
        .prefetch_related(
            models.Prefetch("versions", queryset=MemoryVersion.objects.order_by("version")),
            models.Prefetch("evidence", queryset=memory_evidence_list()),
        )
    )
    return (
        ReviewItem.objects.filter(pk=review_item_id)
        .select_related("end_user__tenant", "resolved_by")
        .prefetch_related(
            models.Prefetch("new_memory", queryset=memories),
            models.Prefetch("existing_memories", queryset=memories.order_by("created_at", "id")),
        )
    )


def memory_admin_list() -> models.QuerySet[Memory]:
    """Memories for the admin's list: with user and tenant, never loading the embedding."""
    return Memory.objects.defer("embedding").select_related("end_user__tenant", "tenant")


def count_per_tenant(queryset: models.QuerySet, tenant_path: str) -> Coalesce:
    """A subquery counting `queryset`'s rows of the outer tenant (0 when it has none)."""
    counted = (
        queryset.filter(**{tenant_path: models.OuterRef("pk")})
        .order_by()
        .values(tenant_path)
        .annotate(n=models.Count("*"))
        .values("n")
    )
    return Coalesce(models.Subquery(counted, output_field=models.IntegerField()), 0)


def _usage_sum(counter: str, since: date) -> Coalesce:
    """A subquery summing one usage counter of the outer tenant since `since` (0 when none)."""
    summed = (
        TenantUsage.objects.filter(tenant=models.OuterRef("pk"), day__gte=since)
        .order_by()
        .values("tenant")
        .annotate(n=models.Sum(counter))
        .values("n")
    )
    return Coalesce(models.Subquery(summed, output_field=models.BigIntegerField()), 0)


def tenant_stats_list(*, usage_days: int = USAGE_DAYS) -> models.QuerySet[Tenant]:
    """Every tenant with its users, memories by status, pending reviews and, as
    `usage_<counter>`, its usage summed over the last `usage_days` days.

    One query whatever the number of tenants: each figure is a correlated subquery.
    """
    since = usage_window_start(days=usage_days)
    usage = {f"usage_{name}": _usage_sum(name, since) for name in TenantUsage.COUNTERS}
    memories = {
        f"memories_{status}": count_per_tenant(
            Memory.objects.filter(status=status), "end_user__tenant"
        )
        for status in Memory.Status.values
    }
    return Tenant.objects.annotate(
        users=count_per_tenant(EndUser.objects.all(), "tenant"),
        **memories,
        reviews_pending=count_per_tenant(
            ReviewItem.objects.filter(status=ReviewItem.Status.PENDING), "end_user__tenant"
        ),
        **usage,
    ).order_by("name")
