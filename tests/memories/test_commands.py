import io

import pytest
from django.core.management import CommandError, call_command

from tenants.models import Tenant, TenantAPIKey


def _run(*args: str) -> list[str]:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue().strip().splitlines()


@pytest.mark.django_db
def test_create_api_key_creates_the_tenant_and_prints_a_working_key_last():
    lines = _run("create_api_key", "--tenant", "acme")

    raw_key = lines[-1]
    assert TenantAPIKey.objects.is_valid(raw_key)
    assert TenantAPIKey.objects.get_from_key(raw_key).tenant.name == "acme"


@pytest.mark.django_db
def test_create_api_key_reuses_an_existing_tenant():
    first = _run("create_api_key", "--tenant", "acme")[-1]
    second = _run("create_api_key", "--tenant", "acme", "--name", "staging")[-1]

    assert first != second
    assert Tenant.objects.filter(name="acme").count() == 1
    assert TenantAPIKey.objects.filter(tenant__name="acme").count() == 2


@pytest.mark.django_db
def test_create_api_key_refuses_an_empty_tenant_name():
    with pytest.raises(CommandError):
        call_command("create_api_key", "--tenant", "  ")


@pytest.mark.django_db
def test_keys_are_stored_hashed():
    raw_key = _run("create_api_key", "--tenant", "acme")[-1]

    stored = TenantAPIKey.objects.get()
    assert raw_key not in (stored.id, stored.hashed_key)
