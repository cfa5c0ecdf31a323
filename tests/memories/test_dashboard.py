"""The operators' dashboard on the admin's front page: figures, charts, branding, query count."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from memories.charts import Series, _nice_ceiling, daily_bars
from memories.dashboard import dashboard_get
from memories.hygiene import DUPLICATE, GARBLED, KINDS, memories_without_evidence
from memories.models import Memory, ReviewItem
from tenants.services import tenant_usage_add
from tests.factories import (
    EndUserFactory,
    MemoryFactory,
    TenantFactory,
    conflict_make,
    dashboard_populate,
    memory_make,
)

INDEX = reverse("admin:index")


@pytest.fixture(autouse=True)
def _hashing_embedder(settings):
    settings.MEMORY_EMBEDDER = "hashing"


def _bars(html: str, series: str) -> list[int]:
    """The values of one series' bars, oldest day first, read from the inline SVG."""
    return [int(v) for v in re.findall(rf'data-series="{series}" data-value="(\d+)"', html)]


@pytest.mark.django_db
def test_the_front_page_says_memory_platform_and_lists_one_api_keys_entry(admin_client):
    html = admin_client.get(INDEX).content.decode()

    assert "Memory platform" in html
    assert "Django administration" not in html
    assert len(re.findall(r">\s*API keys\s*<", html)) == 1
    assert "API Key Permissions" not in html


@pytest.mark.django_db
def test_the_dashboard_draws_today_s_figures_in_its_charts(admin_client):
    tenant = TenantFactory(name="acme")
    end_user = EndUserFactory(tenant=tenant)
    tenant_usage_add(tenant_id=tenant.pk, extractions=3, recalls=7, llm_calls=4)
    tenant_usage_add(tenant_id=tenant.pk, failed_extractions=1)
    yesterday = timezone.now().date() - timedelta(days=1)
    tenant_usage_add(tenant_id=tenant.pk, extractions=2, day=yesterday)
    MemoryFactory.create_batch(2, end_user=end_user)
    pending = conflict_make(end_user, "User is 31", ("User is 30",))
    resolved = conflict_make(end_user, "User lives in Porto", ("User lives in Lisbon",))
    ReviewItem.objects.filter(pk=resolved.pk).update(
        status=ReviewItem.Status.RESOLVED, resolution="keep_new", resolved_at=timezone.now()
    )

    html = admin_client.get(INDEX).content.decode()

    extractions = _bars(html, "Extractions")
    assert len(extractions) == 30
    assert extractions[-2:] == [2, 3]
    assert _bars(html, "Recalls")[-1] == 7
    assert _bars(html, "Failed extractions")[-1] == 1
    # Two factory memories and the memories of both conflicts (new and existing).
    assert _bars(html, "New memories")[-1] == Memory.objects.count()
    assert _bars(html, "Filed")[-1] == 2
    assert _bars(html, "Resolved")[-1] == 1
    assert 'id="dashboard-queue-size">1<' in html
    assert f"the oldest since {pending.created_at:%-d %b %Y}" in html
    assert "<script" not in html.split('id="dashboard"')[1].split("</table>")[0]


@pytest.mark.django_db
def test_the_tenant_table_sums_llm_use_over_the_window(admin_client):
    tenant = TenantFactory(name="<b>acme</b>")
    tenant_usage_add(tenant_id=tenant.pk, llm_calls=2, prompt_tokens=250, completion_tokens=40)
    tenant_usage_add(
        tenant_id=tenant.pk, llm_calls=1, prompt_tokens=50, day=timezone.now().date() - timedelta(1)
    )
    tenant_usage_add(
        tenant_id=tenant.pk, llm_calls=99, day=timezone.now().date() - timedelta(days=45)
    )

    html = admin_client.get(INDEX).content.decode()
    table = html.split('id="dashboard-tenants"')[1].split("</table>")[0]

    assert "&lt;b&gt;acme&lt;/b&gt;" in table  # escaped, not markup
    cells = re.findall(r'<td class="number">(\d+)</td>', table)
    assert cells == ["0", "0", "0", "3", "300", "40"]


@pytest.mark.django_db
def test_the_dashboard_costs_the_same_queries_whatever_the_data(admin_client):
    dashboard_populate(tenants=1, per_tenant=1)
    with CaptureQueriesContext(connection) as small:
        assert admin_client.get(INDEX).status_code == 200
    dashboard_populate(tenants=6, per_tenant=25)
    with CaptureQueriesContext(connection) as large:
        assert admin_client.get(INDEX).status_code == 200

    # Session, user, the dashboard's five, the store audit's four (tenants, active memories,
    # nearest older memory, oldest pending review; a fifth, the memories without evidence,
    # once memories keep it), the review queue box, the recent actions.
    evidence = memories_without_evidence(Memory.objects.none()) is not None
    assert len(large) == len(small) == 13 + evidence
    dashboard = [q for q in large.captured_queries if "memories_tenantusage" in q["sql"]]
    assert len(dashboard) == 1


@pytest.mark.django_db
def test_the_dashboard_figures_take_five_queries():
    dashboard_populate(tenants=3, per_tenant=4)
    with CaptureQueriesContext(connection) as queries:
        dashboard = dashboard_get()

    assert len(queries) == 5
    assert dashboard.totals["extractions"] == 3 * 4 * 2
    assert [t.totals["llm_calls"] for t in dashboard.tenants] == [12, 12, 12]
    assert dashboard.queue_size == 3


@pytest.mark.django_db
def test_a_staff_user_without_the_usage_permission_sees_no_dashboard(client):
    staff = get_user_model().objects.create_user("sam", password="x", is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="view_memory"))
    client.force_login(staff)

    html = client.get(INDEX).content.decode()

    assert 'id="dashboard"' not in html
    assert "Memories" in html


def test_chart_axes_end_on_round_numbers():
    assert [_nice_ceiling(v) for v in (0, 1, 3, 7, 10, 11, 180, 2_001)] == [
        1, 1, 5, 10, 10, 20, 200, 5_000
    ]  # fmt: skip


def test_a_chart_escapes_its_labels_and_gives_every_bar_its_figure():
    today = timezone.now().date()
    dates = [today - timedelta(days=1), today]

    svg = str(daily_bars(title="<x>", dates=dates, series=[Series("a&b", [0, 12], "#000")]))

    assert "<x>" not in svg and "&lt;x&gt;" in svg
    assert svg.count("<rect") == 2
    assert f"a&amp;b, {today:%d %b}: 12</title>" in svg


def test_chart_axis_labels_stay_short_and_exact():
    from memories.charts import _short

    assert [_short(v) for v in (0, 0.5, 2.5, 12, 12_500, 3_000_000)] == [
        "0", "0.5", "2.5", "12", "12.5k", "3M"
    ]  # fmt: skip


@pytest.mark.django_db
def test_the_hygiene_panel_shows_each_tenant_s_audit(admin_client):
    acme = EndUserFactory(tenant=TenantFactory(name="acme"))
    memory_make(acme, "User is vegan")
    memory_make(acme, "User smokes tho")
    memory_make(EndUserFactory(tenant=TenantFactory(name="beta")), "User is a nurse")

    html = admin_client.get(INDEX).content.decode()

    panel = html[html.index('id="hygiene"') :]
    row = re.search(r'<th scope="row">acme</th>(.*?)</tr>', panel, re.S).group(1)
    cells = re.findall(r'<td class="number">([^<]*)</td>', row)
    assert cells[0] == "2"  # active
    assert cells[list(KINDS).index(GARBLED) + 1] == "1 (50.0%)"
    assert cells[list(KINDS).index(DUPLICATE) + 1] == "0 (0.0%)"
    assert '<th scope="row">beta</th>' in panel
    assert "?signal__exact=audit" in panel


@pytest.mark.django_db
def test_a_scoped_operator_s_hygiene_panel_lists_their_tenants_only(client):
    acme, beta = TenantFactory(name="acme"), TenantFactory(name="beta")
    memory_make(EndUserFactory(tenant=beta), "User smokes tho")
    sam = get_user_model().objects.create_user("sam", password="x", is_staff=True)
    sam.user_permissions.add(Permission.objects.get(codename="view_tenantusage"))
    acme.operators.add(sam)
    client.force_login(sam)

    html = client.get(INDEX).content.decode()

    panel = html[html.index('id="hygiene"') :]
    assert '<th scope="row">acme</th>' in panel
    assert "beta" not in panel
