"""Tenancy moved from `memories` to `tenants` without touching a row: an existing install keeps
its tenants, keys, usage and operators' permissions."""

from __future__ import annotations

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("memories", "0006_api_key_scope"), ("tenants", None)]

# Migrations alter tables: as `manage.py migrate` does, as their owner.
pytestmark = pytest.mark.usefixtures("as_the_tables_owner")


def _migrate(targets):
    """Migrate the test database to `targets`; return the models as they are there."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    nodes = [target for target in targets if target[1] is not None]
    return executor.loader.project_state(nodes).apps


@pytest.mark.django_db(transaction=True)
def test_an_install_from_before_the_move_keeps_its_tenants_keys_and_usage():
    old = _migrate(BEFORE)
    # An install from before: its content types are labelled `memories`, none `tenants`.
    ContentType.objects.filter(app_label="tenants").delete()
    tenant_type, _ = ContentType.objects.get_or_create(app_label="memories", model="tenant")
    tenant = old.get_model("memories", "Tenant").objects.create(name="acme")
    old.get_model("memories", "TenantUsage").objects.create(
        tenant=tenant, day="2026-11-01", extractions=3
    )
    old.get_model("memories", "EndUser").objects.create(
        tenant=tenant, external_id="6f1c2d4e-0000-4000-8000-000000000001"
    )

    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    new = _migrate(latest)

    moved = new.get_model("tenants", "Tenant").objects.get(name="acme")
    assert new.get_model("tenants", "TenantUsage").objects.get(tenant=moved).extractions == 3
    assert new.get_model("memories", "EndUser").objects.get().tenant_id == moved.pk
    assert ContentType.objects.get(pk=tenant_type.pk).app_label == "tenants"
    ContentType.objects.clear_cache()
