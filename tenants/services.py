"""Writes of tenancy: tenants and their API keys (revoked in the admin), and usage counters."""

from __future__ import annotations

from datetime import date
from typing import cast

from django.db import connection, transaction
from django.utils import timezone

from tenants.models import Tenant, TenantAPIKey, TenantUsage


@transaction.atomic
def tenant_api_key_create(
    *, tenant_name: str, key_name: str, scope: str = TenantAPIKey.Scope.READ_WRITE
) -> tuple[TenantAPIKey, str]:
    """Create an API key for the named tenant (created if new); return it and the raw key."""
    tenant, _ = Tenant.objects.get_or_create(name=tenant_name.strip())
    key, raw_key = TenantAPIKey.objects.create_key(tenant=tenant, name=key_name, scope=scope)
    # The package types its manager for AbstractAPIKey; it creates this model's instances.
    return cast(TenantAPIKey, key), raw_key


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
