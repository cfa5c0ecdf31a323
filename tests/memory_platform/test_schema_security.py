"""The OpenAPI schema declares the bearer API key and what a read-only key may call."""

from __future__ import annotations

from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator

from tenants.schema import READ_ONLY_ALLOWED, READ_WRITE_NEEDED, SECURITY_SCHEME_NAME

# Operations answered without a key.
OPEN = {"health"}
WRITES = {"memories_extract", "memories_delete", "users_erase", "sessions_erase"}
READS = {
    "memories_relevant",
    "memories_full",
    "memories_list",
    "memories_context",
    "memories_job",
    "tools_list",
}


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True)


def operations(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        operation["operationId"]: operation
        for path in schema["paths"].values()
        for operation in path.values()
    }


def test_the_schema_declares_the_api_key_as_an_http_bearer_scheme(schema):
    scheme = schema["components"]["securitySchemes"][SECURITY_SCHEME_NAME]

    assert scheme["type"] == "http" and scheme["scheme"] == "bearer"
    assert "Authorization: Bearer <key>" in scheme["description"]
    assert list(schema["components"]["securitySchemes"]) == [SECURITY_SCHEME_NAME]


def test_every_protected_operation_requires_the_key_and_open_ones_none(schema):
    found = operations(schema)
    assert OPEN | WRITES | READS | {"tools_call"} <= set(found)

    for operation_id, operation in found.items():
        if operation_id in OPEN:
            assert not operation.get("security"), operation_id
        else:
            assert operation["security"] == [{SECURITY_SCHEME_NAME: []}], operation_id
            assert "401" in operation["responses"], operation_id


def test_each_operation_says_whether_a_read_only_key_may_call_it(schema):
    found = operations(schema)

    for operation_id in READS:
        assert READ_ONLY_ALLOWED in found[operation_id]["description"], operation_id
        assert "403" not in found[operation_id]["responses"], operation_id
    for operation_id in WRITES:
        assert READ_WRITE_NEEDED in found[operation_id]["description"], operation_id
        assert "403" in found[operation_id]["responses"], operation_id
    tools_call = found["tools_call"]
    assert "Read-only API keys may call recall, context" in tools_call["description"]
    assert "403" in tools_call["responses"]
    assert READ_ONLY_ALLOWED not in found["health"]["description"]
