"""The operators' dashboard figures: the last 30 days per day and per tenant, in five queries.

Every figure is an aggregate computed by PostgreSQL, so the number of queries stays the same
whatever the number of memories, conflicts, tenants or days (tests hold it at five). The
hygiene panel lists the store audit's figures (`memories.hygiene.memory_audit`, a fixed number
of queries too) per tenant (`hygiene_rows`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from django.db.models import Count, Min, Q, QuerySet
from django.db.models.functions import TruncDate
from django.utils import timezone

from memories.hygiene import KINDS, TenantAudit
from memories.models import Memory, ReviewItem
from tenants.models import TenantUsage
from tenants.selectors import USAGE_DAYS, usage_window_start

# What the daily series are called (keys of `Dashboard.days` rows) besides the usage counters.
NEW_MEMORIES = "new_memories"
CONFLICTS_FILED = "conflicts_filed"
CONFLICTS_RESOLVED = "conflicts_resolved"


@dataclass(frozen=True)
class TenantTotals:
    """One tenant's usage summed over the window."""

    name: str
    totals: dict[str, int]


@dataclass(frozen=True)
class Dashboard:
    """What the admin front page draws."""

    start: date
    end: date
    # One row per day, oldest first, every day present (zeros where nothing happened).
    days: list[dict[str, int]]
    day_dates: list[date]
    tenants: list[TenantTotals]
    queue_size: int
    queue_oldest: datetime | None
    totals: dict[str, int] = field(default_factory=dict)


def dashboard_get(*, tenant_ids: list[int] | None = None, days: int = USAGE_DAYS) -> Dashboard:
    """The figures of the last `days` days (today included, UTC), of `tenant_ids` or all."""
    end = timezone.now().date()
    start = usage_window_start(days=days)
    since = datetime.combine(start, datetime.min.time(), tzinfo=timezone.get_current_timezone())
    dates = [start + timedelta(days=n) for n in range(days)]
    series: dict[date, dict[str, int]] = {
        d: dict.fromkeys(
            (*TenantUsage.COUNTERS, NEW_MEMORIES, CONFLICTS_FILED, CONFLICTS_RESOLVED), 0
        )
        for d in dates
    }
    per_tenant: dict[str, dict[str, int]] = defaultdict(
        lambda: dict.fromkeys(TenantUsage.COUNTERS, 0)
    )

    # Query 1: usage per tenant and day; summed per day and per tenant here (at most
    # days x tenants rows).
    usage = _scoped(TenantUsage.objects.filter(day__gte=start), tenant_ids, "tenant_id")
    for row in usage.values("day", "tenant__name", *TenantUsage.COUNTERS):
        for name in TenantUsage.COUNTERS:
            if row["day"] in series:
                series[row["day"]][name] += row[name]
            per_tenant[row["tenant__name"]][name] += row[name]

    # Query 2: memories created per day.
    memories = _scoped(
        Memory.objects.filter(created_at__gte=since), tenant_ids, "end_user__tenant_id"
    )
    _add_daily(series, NEW_MEMORIES, memories, "created_at")

    # Queries 3 and 4: conflicts filed, and conflicts resolved (by an operator or the policy).
    reviews = _scoped(ReviewItem.objects.all(), tenant_ids, "end_user__tenant_id")
    _add_daily(series, CONFLICTS_FILED, reviews.filter(created_at__gte=since), "created_at")
    resolved = reviews.filter(status=ReviewItem.Status.RESOLVED, resolved_at__gte=since)
    _add_daily(series, CONFLICTS_RESOLVED, resolved, "resolved_at")

    # Query 5: the review queue now.
    queue = reviews.aggregate(
        size=Count("id", filter=Q(status=ReviewItem.Status.PENDING)),
        oldest=Min("created_at", filter=Q(status=ReviewItem.Status.PENDING)),
    )

    rows = [series[d] for d in dates]
    totals = {name: sum(row[name] for row in rows) for name in rows[0]} if rows else {}
    return Dashboard(
        start=start,
        end=end,
        days=rows,
        day_dates=dates,
        tenants=[
            TenantTotals(name=name, totals=counts)
            for name, counts in sorted(
                per_tenant.items(), key=lambda item: (-item[1]["llm_calls"], item[0])
            )
        ],
        queue_size=queue["size"],
        queue_oldest=queue["oldest"],
        totals=totals,
    )


def _scoped(queryset: QuerySet, tenant_ids: list[int] | None, lookup: str) -> QuerySet:
    return queryset if tenant_ids is None else queryset.filter(**{f"{lookup}__in": tenant_ids})


def _add_daily(
    series: dict[date, dict[str, int]], name: str, queryset: QuerySet, timestamp: str
) -> None:
    """Count `queryset` per UTC day of `timestamp` into `series[day][name]` (one query)."""
    per_day = (
        queryset.annotate(day=TruncDate(timestamp))
        .values("day")
        .annotate(n=Count("pk"))
        .values_list("day", "n")
    )
    for day, n in per_day:
        if day in series:
            series[day][name] = n


@dataclass(frozen=True)
class HygieneCell:
    """One figure of the hygiene panel: a count and its share of the active memories."""

    count: int
    percent: float


@dataclass(frozen=True)
class HygieneRow:
    """One tenant's line of the hygiene panel (`memories.hygiene.memory_audit`)."""

    tenant: str
    active: int
    cells: list[HygieneCell]
    oldest_pending: datetime | None


def hygiene_rows(audits: list[TenantAudit]) -> list[HygieneRow]:
    """The store audit's figures as the dashboard's hygiene panel lists them, a column per
    kind of `memories.hygiene.KINDS`."""
    rows = []
    for audit in audits:
        cells = [HygieneCell(audit.counts[kind], 100 * audit.rate(kind)) for kind in KINDS]
        rows.append(HygieneRow(audit.tenant, audit.active, cells, audit.oldest_pending))
    return rows


HYGIENE_COLUMNS = list(KINDS.values())
