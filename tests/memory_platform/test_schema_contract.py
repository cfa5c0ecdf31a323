"""The OpenAPI schema against the service: schemathesis generates requests from the schema
(valid and invalid ones) and checks every answer against what the schema promises."""

from __future__ import annotations

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, settings
from schemathesis import checks

from memory_platform.wsgi import application
from tests.factories import TenantFactory, api_key_for

schema = schemathesis.openapi.from_dict(SchemaGenerator().get_schema(request=None, public=True))
schema.app = application

CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_schema_conformance,
    checks.negative_data_rejection,
    checks.positive_data_acceptance,
]


@pytest.fixture
def api_key(db, settings):
    """A tenant's key, with the per-user limit out of the way of generated requests."""
    settings.MEMORY_RATE_LIMIT = 1_000_000
    # The app is called in process, inside the test's transaction: keep its connection open.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield api_key_for(TenantFactory())
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@schema.parametrize()
@settings(
    max_examples=30,
    # The same examples on every run: `make test` is reproducible (raise max_examples and
    # drop this to hunt).
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_the_service_answers_as_its_schema_says(case, api_key):
    case.call_and_validate(headers={"Authorization": f"Bearer {api_key}"}, checks=CHECKS)
