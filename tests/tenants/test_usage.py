"""Per-tenant usage: counters per tenant and day, added to from every process without loss."""

from __future__ import annotations

import json
import threading
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connections
from django.urls import reverse
from django.utils import timezone

from tenants.models import TenantUsage
from tenants.services import tenant_usage_add
from tests.factories import TenantFactory


def _row(tenant, day=None) -> TenantUsage:
    return TenantUsage.objects.get(tenant=tenant, day=day or timezone.now().date())


@pytest.mark.django_db
def test_the_first_count_of_a_day_creates_its_row_and_later_ones_add_to_it(tenant):
    tenant_usage_add(tenant_id=tenant.pk, recalls=1)
    tenant_usage_add(tenant_id=tenant.pk, recalls=1, llm_calls=2, prompt_tokens=300)

    row = _row(tenant)
    assert (row.recalls, row.llm_calls, row.prompt_tokens, row.extractions) == (2, 2, 300, 0)


@pytest.mark.django_db
def test_each_day_and_each_tenant_has_its_own_row(tenant):
    other = TenantFactory()
    yesterday = timezone.now().date() - timedelta(days=1)

    tenant_usage_add(tenant_id=tenant.pk, extractions=1)
    tenant_usage_add(tenant_id=tenant.pk, extractions=4, day=yesterday)
    tenant_usage_add(tenant_id=other.pk, extractions=7)

    assert _row(tenant).extractions == 1
    assert _row(tenant, yesterday).extractions == 4
    assert _row(other).extractions == 7


@pytest.mark.django_db
def test_nothing_is_written_for_zero_counts_and_unknown_counters_are_refused(tenant):
    tenant_usage_add(tenant_id=tenant.pk, recalls=0, llm_calls=0)
    assert not TenantUsage.objects.exists()

    with pytest.raises(ValueError, match="unknown usage counters: tokens"):
        tenant_usage_add(tenant_id=tenant.pk, tokens=5)


@pytest.mark.django_db(transaction=True)
def test_concurrent_adds_from_many_connections_lose_no_count():
    tenant = TenantFactory()
    per_thread, threads = 25, 8
    errors: list[BaseException] = []

    def add() -> None:
        try:
            for _ in range(per_thread):
                tenant_usage_add(tenant_id=tenant.pk, recalls=1, completion_tokens=3)
        except BaseException as exc:  # surfaced below
            errors.append(exc)
        finally:
            connections.close_all()

    workers = [threading.Thread(target=add) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()

    assert errors == []
    row = _row(tenant)
    assert (row.recalls, row.completion_tokens) == (per_thread * threads, 3 * per_thread * threads)


@pytest.mark.django_db
def test_memory_stats_shows_usage_of_the_last_days_per_tenant(tenant):
    other = TenantFactory(name="zeta")
    tenant_usage_add(tenant_id=tenant.pk, extractions=2, llm_calls=3, prompt_tokens=120)
    tenant_usage_add(tenant_id=other.pk, recalls=5)
    long_ago = timezone.now().date() - timedelta(days=40)
    tenant_usage_add(tenant_id=tenant.pk, extractions=100, day=long_ago)

    out = StringIO()
    call_command("memory_stats", "--json", stdout=out)
    rows = {row["tenant"]: row for row in map(json.loads, out.getvalue().splitlines()[:-1])}
    assert rows[tenant.name]["usage_extractions"] == 2  # the day 40 days ago is outside
    assert rows[tenant.name]["usage_prompt_tokens"] == 120
    assert rows["zeta"]["usage_recalls"] == 5
    assert rows["zeta"]["usage_days"] == 30

    out = StringIO()
    call_command("memory_stats", "--days", "60", stdout=out)
    text = out.getvalue()
    assert "Usage over the last 60 day(s)" in text
    assert "in the last 60 day(s) 102 extraction(s), 5 recall(s), 3 LLM call(s)." in text


@pytest.mark.django_db
def test_memory_stats_refuses_a_window_of_no_days():
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="--days must be at least 1"):
        call_command("memory_stats", "--days", "0", stdout=StringIO())


@pytest.mark.django_db
def test_the_tenant_page_in_the_admin_shows_its_usage_per_day(admin_client, tenant):
    yesterday = timezone.now().date() - timedelta(days=1)
    tenant_usage_add(tenant_id=tenant.pk, llm_calls=4, prompt_tokens=1234, day=yesterday)
    tenant_usage_add(tenant_id=tenant.pk, recalls=9)

    page = admin_client.get(reverse("admin:tenants_tenant_change", args=[tenant.pk]))

    html = page.content.decode()
    assert page.status_code == 200
    assert 'class="tenant-usage"' in html
    assert yesterday.isoformat() in html and "<td>1234</td>" in html and "<td>9</td>" in html
