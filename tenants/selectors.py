"""Reads of tenancy: which tenants an operator sees, and a tenant's usage."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from django.db import models
from django.utils import timezone

from tenants.models import Tenant, TenantUsage

# The window of usage the dashboard, the tenant page and memory_stats show: the last 30 days.
USAGE_DAYS = 30


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


def usage_window_start(*, days: int = USAGE_DAYS) -> date:
    """The first day (UTC) of a window of `days` days ending today."""
    return timezone.now().date() - timedelta(days=days - 1)


def tenant_usage_days(*, tenant: Tenant, days: int = USAGE_DAYS) -> models.QuerySet[TenantUsage]:
    """The tenant's usage rows of the last `days` days, newest first."""
    since = usage_window_start(days=days)
    return TenantUsage.objects.filter(tenant=tenant, day__gte=since).order_by("-day")
