"""Per-tenant usage counters (one row per tenant and day), added to as the service runs."""

from __future__ import annotations

from datetime import date

from django.db import connection
from django.utils import timezone

from memories.models import TenantUsage


def tenant_usage_add(*, tenant_id: int, day: date | None = None, **counts: int) -> None:
    """Add `counts` (names from TenantUsage.COUNTERS) to the tenant's row of `day` (today, UTC).

    One INSERT ... ON CONFLICT statement: concurrent requests and workers add without a read,
    so no count is lost between processes. Inside a transaction it commits with it.
    """
    unknown = set(counts) - set(TenantUsage.COUNTERS)
    if unknown:
        raise ValueError(f"unknown usage counters: {', '.join(sorted(unknown))}")
    counts = {name: value for name, value in counts.items() if value}
    if not counts:
        return
    table = TenantUsage._meta.db_table
    columns = ", ".join(counts)
    placeholders = ", ".join(["%s"] * len(counts))
    updates = ", ".join(f"{name} = {table}.{name} + EXCLUDED.{name}" for name in counts)
    source = f"VALUES (%s, %s, {placeholders})"
    if connection.get_autocommit():
        # Alone in its transaction (a recall): commit without waiting for the WAL flush, half
        # the statement's cost. A crash of PostgreSQL itself may lose the last fraction of a
        # second of counts, never corrupt them. Inside a transaction (a job) the statement
        # commits, durably, with the job's own outcome. The CTE is read so that it runs.
        source = (
            "SELECT %s, %s, " + placeholders + " FROM "
            "(SELECT set_config('synchronous_commit', 'off', true)) AS _async"
        )
    sql = (
        f"INSERT INTO {table} (tenant_id, day, {columns}) {source} "
        f"ON CONFLICT (tenant_id, day) DO UPDATE SET {updates}"
    )
    today = day or timezone.now().date()
    with connection.cursor() as cursor:
        cursor.execute(sql, [tenant_id, today, *counts.values()])
