"""API keys: a verified key is remembered briefly, and a revoked one is refused in bounded time."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient, APIRequestFactory

from tenants import authentication
from tenants.models import Tenant, TenantAPIKey
from tests.factories import api_key_for

pytestmark = pytest.mark.django_db


class Clock:
    """The key cache's clock, moved by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(authentication, "_clock", clock)
    authentication.verified_keys_forget()
    yield clock
    authentication.verified_keys_forget()


def client_for(raw_key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_key}")
    return client


def status(client: APIClient) -> int:
    return client.get("/memories/list", {"user_id": uuid.uuid4()}).status_code


def key_queries(client: APIClient) -> int:
    """How many times one request reads the keys table (its last-use UPDATE aside)."""
    with CaptureQueriesContext(connection) as queries:
        assert status(client) == 200
    return sum(
        TenantAPIKey._meta.db_table in q["sql"] and q["sql"].startswith("SELECT")
        for q in queries.captured_queries
    )


def test_a_verified_key_is_not_queried_again_within_the_cache_time(tenant, clock):
    client = client_for(api_key_for(tenant))

    assert key_queries(client) == 1
    clock.now += authentication.KEY_CACHE_SECONDS - 0.1
    assert key_queries(client) == 0
    clock.now += 0.2
    assert key_queries(client) == 1  # checked against the database again


def test_a_key_revoked_in_this_process_is_refused_at_once(tenant, clock):
    raw_key = api_key_for(tenant)
    client = client_for(raw_key)
    assert status(client) == 200

    key = TenantAPIKey.objects.get_from_key(raw_key)
    key.revoked = True
    key.save()  # as the admin does

    response = client.get("/memories/list", {"user_id": uuid.uuid4()})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"
    assert response["WWW-Authenticate"] == "Bearer"


def test_a_key_revoked_by_another_process_is_refused_within_the_cache_time(tenant, clock):
    client = client_for(api_key_for(tenant))
    assert status(client) == 200

    # Another process (or a bulk update) sends no signal to this one.
    TenantAPIKey.objects.update(revoked=True)

    assert status(client) == 200  # remembered for at most KEY_CACHE_SECONDS
    clock.now += authentication.KEY_CACHE_SECONDS
    assert status(client) == 401


def test_a_tenant_deactivated_or_deleted_in_this_process_is_refused_at_once(tenant, clock):
    client = client_for(api_key_for(tenant))
    other = Tenant.objects.create(name="other")
    other_client = client_for(api_key_for(other))
    assert status(client) == status(other_client) == 200

    other.delete()  # its keys go with it
    assert status(other_client) == 401
    assert status(client) == 200

    tenant.is_active = False
    tenant.save()
    assert status(client) == 401


def test_a_remembered_key_is_refused_the_moment_it_expires(tenant, clock, monkeypatch):
    raw_key = api_key_for(tenant)
    expiry = timezone.now() + timedelta(minutes=1)
    TenantAPIKey.objects.update(expiry_date=expiry)
    client = client_for(raw_key)
    assert status(client) == 200

    monkeypatch.setattr(timezone, "now", lambda: expiry + timedelta(seconds=1))

    assert status(client) == 401  # within the cache time, yet refused


def test_a_wrong_secret_is_refused_even_when_its_prefix_is_remembered(tenant, clock):
    raw_key = api_key_for(tenant)
    assert status(client_for(raw_key)) == 200
    prefix, _, secret = raw_key.partition(".")

    assert status(client_for(f"{prefix}.{secret[::-1]}")) == 401


def test_each_request_gets_its_own_tenant_and_key(tenant, clock):
    raw_key = api_key_for(tenant)
    request = APIRequestFactory().get("/memories/list", HTTP_AUTHORIZATION=f"Bearer {raw_key}")
    auth = authentication.TenantAPIKeyAuthentication()

    first, first_key = auth.authenticate(request)
    second, second_key = auth.authenticate(request)

    assert first.tenant == second.tenant and first_key == second_key
    assert first.tenant is not second.tenant and first_key is not second_key
    assert second_key.tenant is second.tenant
