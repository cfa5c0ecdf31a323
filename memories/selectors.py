"""Reads of the memory domain. Each returns a QuerySet (or one object) scoped by tenant."""

from __future__ import annotations

import uuid
from datetime import date, timedelta
from typing import Any

from django.db import models
from django.db.models.functions import Coalesce
from django.utils import timezone

from memories.models import EndUser, Memory, MemoryVersion, ReviewItem, Tenant, TenantUsage

# The window of usage the dashboard, the tenant page and memory_stats show: the last 30 days.
USAGE_DAYS = 30

# What the API shows of a user's store: accepted memories and those awaiting review.
VISIBLE_STATUSES = (Memory.Status.ACTIVE, Memory.Status.PENDING_REVIEW)


def end_user_get(*, tenant: Tenant, external_id: uuid.UUID) -> EndUser | None:
    """Return the tenant's end user with this id, or None (another tenant's user is None too)."""
    return EndUser.objects.filter(tenant=tenant, external_id=external_id).first()


def memory_visible_list(*, end_user: EndUser) -> models.QuerySet[Memory]:
    """The user's visible memories, newest first."""
    return Memory.objects.filter(end_user=end_user, status__in=VISIBLE_STATUSES).order_by(
        "-created_at", "id"
    )


def memory_visible_count(*, end_user: EndUser) -> int:
    """How many memories count against the user's cap (the API's total_user_memories)."""
    return Memory.objects.filter(end_user=end_user, status__in=VISIBLE_STATUSES).count()


def memory_profile_list(*, end_user_id: int) -> models.QuerySet[Memory]:
    """The user's stable profile: active personal facts, the surest and most used first."""
    return Memory.objects.filter(
        end_user_id=end_user_id, status=Memory.Status.ACTIVE, category=Memory.Category.PERSONAL
    ).order_by("-confidence", "-access_count", "-created_at", "id")


def memory_session_list(*, end_user_id: int, session_id: str) -> models.QuerySet[Memory]:
    """The user's active memories that came from one of its sessions, newest first."""
    return Memory.objects.filter(
        end_user_id=end_user_id,
        status=Memory.Status.ACTIVE,
        source_session__external_id=session_id,
    ).order_by("-created_at", "id")


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
    """One review item with both sides of its conflict and their version histories."""
    memories = (
        Memory.objects.defer("embedding")
        .select_related("source_session")
        .prefetch_related(
            models.Prefetch("versions", queryset=MemoryVersion.objects.order_by("version"))
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


def tenant_ids_operated_by(*, user: Any) -> list[int] | None:
    """The tenants a staff user may see in the admin: None for all.

    A superuser sees all; so does a staff user given no tenant, as every staff user did before
    tenants had operators (scoping is switched on for a user by giving them a tenant)."""
    if user.is_superuser:
        return None
    operated = list(Tenant.objects.filter(operators=user).values_list("pk", flat=True))
    return operated or None


def scoped_to_tenants(
    queryset: models.QuerySet, *, tenant_ids: list[int] | None, tenant_path: str
) -> models.QuerySet:
    """`queryset` narrowed to rows whose `tenant_path` is one of `tenant_ids` (None: all)."""
    if tenant_ids is None:
        return queryset
    return queryset.filter(**{f"{tenant_path}__in": tenant_ids})


def memory_admin_list() -> models.QuerySet[Memory]:
    """Memories for the admin's list: with user and tenant, never loading the embedding."""
    return Memory.objects.defer("embedding").select_related("end_user__tenant")


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


def usage_window_start(*, days: int = USAGE_DAYS) -> date:
    """The first day (UTC) of a window of `days` days ending today."""
    return timezone.now().date() - timedelta(days=days - 1)


def tenant_usage_days(*, tenant: Tenant, days: int = USAGE_DAYS) -> models.QuerySet[TenantUsage]:
    """The tenant's usage rows of the last `days` days, newest first."""
    since = usage_window_start(days=days)
    return TenantUsage.objects.filter(tenant=tenant, day__gte=since).order_by("-day")


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
