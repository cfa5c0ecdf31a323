"""Tenants walled apart by PostgreSQL (row-level security): a query that forgets to filter by
tenant still sees only the tenant its request, job, admin page or command is for."""

from __future__ import annotations

import logging

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import DatabaseError, connection, transaction
from rest_framework.test import APIClient

from extraction.models import ExtractionJob
from extraction.tasks import extraction_job_run_task
from memories.models import EndUser, Memory
from memory_platform.tenant_tables import POLICY, TENANT_TABLES
from tenants import rls
from tenants.models import Tenant
from tests.factories import (
    EndUserFactory,
    ExtractionJobFactory,
    MemoryFactory,
    TenantFactory,
    api_key_for,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_tenants():
    a, b = TenantFactory(name="acme"), TenantFactory(name="globex")
    MemoryFactory(end_user=EndUserFactory(tenant=a), caption="User lives in Porto")
    MemoryFactory(end_user=EndUserFactory(tenant=b), caption="User lives in Lisbon")
    return a, b


def _client(tenant: Tenant) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key_for(tenant)}")
    return client


@pytest.mark.urls("tests.tenants.rls_urls")
def test_an_unscoped_query_inside_a_request_for_tenant_a_returns_only_a_rows(two_tenants):
    a, b = two_tenants

    assert _client(a).get("/probe/unscoped").json() == {"captions": ["User lives in Porto"]}
    assert _client(b).get("/probe/unscoped").json() == {"captions": ["User lives in Lisbon"]}


def test_a_query_with_no_tenant_set_sees_nothing_and_writes_nothing(two_tenants):
    a, _ = two_tenants
    with rls.no_tenant():
        assert Memory.objects.count() == 0
        assert EndUser.objects.count() == 0
        with pytest.raises(DatabaseError, match="row-level security"), transaction.atomic():
            EndUser.objects.create(tenant=a, external_id="intruder")
    assert Memory.objects.count() == 2  # the test itself sees both (its setup's bypass)


def test_a_tenant_cannot_write_a_row_into_another_tenant(two_tenants):
    a, b = two_tenants
    with rls.tenant_scope([a.pk]), pytest.raises(DatabaseError), transaction.atomic():
        EndUser.objects.create(tenant=b, external_id="planted")
    with rls.tenant_scope([a.pk]):
        assert Memory.objects.filter(end_user__tenant=b).update(caption="changed") == 0
        assert Memory.objects.filter(end_user__tenant=b).delete()[0] == 0
    assert Memory.objects.filter(caption="User lives in Lisbon").exists()


def test_the_bypass_is_logged_with_its_reason_and_a_tenant_scope_inside_narrows_again(
    two_tenants, caplog
):
    a, _ = two_tenants
    with caplog.at_level(logging.WARNING, logger="tenants.rls"), rls.no_tenant():
        with rls.rls_bypass("nightly prune", actor="cron"):
            assert Memory.objects.count() == 2
            with rls.tenant_scope([a.pk]):
                assert list(Memory.objects.values_list("caption", flat=True)) == [
                    "User lives in Porto"
                ]
            assert Memory.objects.count() == 2
        assert Memory.objects.count() == 0
    (record,) = [r for r in caplog.records if r.name == "tenants.rls"]
    assert record.rls_bypass == "nightly prune"
    assert record.actor == "cron"


def test_a_celery_job_sees_only_its_tenant(two_tenants, monkeypatch):
    a, b = two_tenants
    job = ExtractionJobFactory(end_user=EndUser.objects.get(tenant=a))
    seen = []
    monkeypatch.setattr(
        "extraction.tasks._job_run",
        lambda task, job_id, request_id: (
            seen.append(sorted(Memory.objects.values_list("caption", flat=True))) or "succeeded"
        ),
    )
    with rls.no_tenant():
        extraction_job_run_task.apply(args=[str(job.pk)], kwargs={"tenant_id": a.pk})
        extraction_job_run_task.apply(args=[str(job.pk)], kwargs={"tenant_id": b.pk})
    assert seen == [["User lives in Porto"], ["User lives in Lisbon"]]


def test_a_job_run_by_a_cross_tenant_sweep_runs_behind_its_own_tenants_walls(two_tenants):
    a, _ = two_tenants
    job = ExtractionJobFactory(
        end_user=EndUser.objects.get(tenant=a),
        conversation=[{"role": "user", "content": "I live in Braga"}],
    )
    seen = []
    with rls.no_tenant(), rls.rls_bypass("test sweep"):
        # extraction_job_run looks the job's tenant up, then runs inside its scope.
        from extraction import jobs

        original = jobs._job_run

        def spy(job_id):
            seen.append(rls.scope_current())
            return original(job_id)

        jobs._job_run = spy
        try:
            jobs.extraction_job_run(job_id=job.pk)
        finally:
            jobs._job_run = original
    assert seen == [rls.Scope(tenant_ids=(a.pk,))]
    assert ExtractionJob.objects.get(pk=job.pk).status == ExtractionJob.Status.SUCCEEDED


@pytest.mark.urls("tests.tenants.rls_urls")
def test_an_admin_operator_sees_only_their_tenants_and_a_superuser_all_through_the_bypass(
    two_tenants, client, caplog
):
    a, _ = two_tenants
    operator = get_user_model().objects.create_user("op", password="pw", is_staff=True)
    a.operators.add(operator)
    client.force_login(operator)
    assert client.get("/admin/probe/unscoped").json() == {"captions": ["User lives in Porto"]}

    boss = get_user_model().objects.create_superuser("boss", password="pw")
    client.force_login(boss)
    with caplog.at_level(logging.WARNING, logger="tenants.rls"):
        captions = client.get("/admin/probe/unscoped").json()["captions"]
    assert captions == ["User lives in Lisbon", "User lives in Porto"]
    assert [r.actor for r in caplog.records if r.name == "tenants.rls"] == ["boss"]


@pytest.mark.urls("tests.tenants.rls_urls")
def test_nothing_leaks_to_the_next_request_or_query_on_a_reused_connection(two_tenants):
    a, b = two_tenants
    _client(a).get("/probe/unscoped")
    # The same connection (this thread's), kept open: the next query outside any request
    # sees nothing, and the next request sees its own tenant.
    with rls.no_tenant():
        assert Memory.objects.count() == 0
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_setting(%s, true)", [rls.TENANT_SETTING])
            assert cursor.fetchone() == ("",)
    assert _client(b).get("/probe/unscoped").json() == {"captions": ["User lives in Lisbon"]}


def test_a_tenant_set_inside_a_rolled_back_savepoint_is_set_again(two_tenants):
    a, b = two_tenants
    with rls.tenant_scope([a.pk]):
        assert Memory.objects.count() == 1  # the connection now holds tenant a
    with rls.tenant_scope([b.pk]):
        with pytest.raises(ZeroDivisionError), transaction.atomic():
            assert Memory.objects.count() == 1  # set to b inside the savepoint...
            1 / 0  # noqa: B018  ...which rolls back, and PostgreSQL with it restores a
        captions = list(Memory.objects.values_list("caption", flat=True))
    assert captions == ["User lives in Lisbon"]


def test_the_application_runs_as_a_role_row_security_applies_to():
    with connection.cursor() as cursor:
        cursor.execute("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user")
        assert cursor.fetchone() == (False, False)


def _tenant_data_tables() -> set[str]:
    """Every table whose rows reach a tenant through foreign keys (auto-created M2M too)."""
    walled: set[str] = set()
    models = [m for m in apps.get_models(include_auto_created=True)]
    changed = True
    while changed:
        changed = False
        for model in models:
            table = model._meta.db_table
            if table in walled or model is Tenant:
                continue
            for field in model._meta.concrete_fields:
                target = getattr(field, "related_model", None)
                if (target is Tenant and field.name == "tenant") or (
                    target is not None and target._meta.db_table in walled
                ):
                    walled.add(table)
                    changed = True
                    break
    return walled


# Which staff user operates which tenant: read by the admin to scope a request before any
# tenant is set; it names tenants, and holds none of their data.
NOT_TENANT_DATA = {"memories_tenant_operators"}


def test_every_table_of_tenant_data_is_listed_and_walled_with_force():
    assert _tenant_data_tables() - NOT_TENANT_DATA == set(TENANT_TABLES)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname FROM pg_class c WHERE c.relrowsecurity AND c.relforcerowsecurity "
            "AND EXISTS (SELECT 1 FROM pg_policies p WHERE p.tablename = c.relname "
            "AND p.policyname = %s)",
            [POLICY],
        )
        walled = {row[0] for row in cursor.fetchall()}
    assert set(TENANT_TABLES) <= walled
