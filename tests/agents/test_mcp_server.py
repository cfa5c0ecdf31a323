"""The MCP server definition and its HTTP view, in process: results, tool errors, the key."""

from __future__ import annotations

import json
import uuid

import pytest
from django.db import DatabaseError
from rest_framework.test import APIClient

from agents.mcp import server
from agents.mcp.server import memory_server, tool_result
from core.exceptions import UpstreamUnavailable
from memories.models import Memory
from tenants.models import TenantAPIKey
from tests.factories import api_key_for

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def offline(settings):
    settings.MEMORY_EXTRACTOR = "rules"
    settings.MEMORY_EMBEDDER = "local"
    settings.RECALL_ACCESS_FLUSH_SECONDS = 0


def result_of(tenant, name: str, arguments: dict | None):
    return tool_result(tenant=tenant, name=name, arguments=arguments, close_connections=False)


def test_a_result_is_json_text_and_the_same_structured_content(tenant):
    result = result_of(tenant, "remember", {"user_id": str(uuid.uuid4()), "text": "I'm vegan"})

    assert not result.is_error
    assert result.structured_content["total_user_memories"] == 1
    assert json.loads(result.content[0].text) == result.structured_content


@pytest.mark.parametrize(
    ("name", "arguments", "code", "message"),
    [
        ("teleport", {}, "invalid_request", "Unknown tool 'teleport'"),
        ("recall", None, "invalid_request", "user_id: This field is required."),
        ("recall", {"user_id": "", "query": "x"}, "invalid_request", "user_id:"),
        (
            "forget",
            {"user_id": str(uuid.uuid4()), "memory_id": "mem_0123456789abcdef"},
            "not_found",
            "Unknown user_id",
        ),
    ],
    ids=["unknown tool", "no arguments", "bad argument", "unknown user"],
)
def test_an_application_error_is_a_tool_error_with_its_code(tenant, name, arguments, code, message):
    result = result_of(tenant, name, arguments)

    assert result.is_error
    error = result.structured_content["error"]
    assert error["code"] == code and message in error["message"]
    assert json.loads(result.content[0].text) == result.structured_content


def test_an_error_keeps_its_extra_fields_and_a_database_outage_is_a_tool_error(tenant, monkeypatch):
    def upstream_down(**kwargs):
        raise UpstreamUnavailable(extra={"job_id": "job-1"})

    monkeypatch.setattr(server, "tool_call", upstream_down)
    error = result_of(tenant, "remember", {}).structured_content["error"]
    assert (error["code"], error["job_id"]) == ("upstream_unavailable", "job-1")

    def database_down(**kwargs):
        raise DatabaseError("connection refused")

    monkeypatch.setattr(server, "tool_call", database_down)
    result = result_of(tenant, "recall", {})
    assert result.is_error
    assert result.structured_content["error"]["code"] == "service_unavailable"


def test_the_server_is_named_and_versioned_for_the_host(tenant):
    mcp = memory_server(tenant)

    assert (mcp.name, mcp.version) == ("memory-platform", server.VERSION)
    assert mcp.get_tool_input_schema("recall")["required"] == ["user_id", "query"]
    assert mcp.get_tool_input_schema("teleport") is None


def rpc(api: APIClient, method: str, params: dict | None = None):
    body = {"jsonrpc": "2.0", "id": 1, "method": method}
    if params is not None:
        body["params"] = params
    return api.post("/mcp", body, format="json", HTTP_ACCEPT="application/json, text/event-stream")


def test_a_call_over_http_runs_in_the_request_and_its_transaction(tenant):
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key_for(tenant)}")
    user = str(uuid.uuid4())

    response = rpc(
        api, "tools/call", {"name": "remember", "arguments": {"user_id": user, "text": "I'm 40"}}
    )

    assert response.status_code == 200, response.content
    result = response.json()["result"]
    (memory,) = result["structuredContent"]["memories"]
    # The test's own transaction sees the write: the ORM ran on the request's connection.
    assert Memory.objects.get(id=memory["id"]).end_user.tenant == tenant


def test_a_revoked_key_is_refused_with_401(tenant):
    raw_key = api_key_for(tenant)
    key = TenantAPIKey.objects.get_from_key(raw_key)
    key.revoked = True
    key.save()
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_key}")

    response = rpc(api, "tools/list")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"
    assert response["WWW-Authenticate"] == "Bearer"


def test_mcp_calls_count_against_the_users_rate_limit_like_api_requests(tenant, settings):
    settings.MEMORY_RATE_LIMIT = 2
    user_id = str(uuid.uuid4())
    arguments = {"user_id": user_id, "query": "coffee"}

    results = [result_of(tenant, "recall", arguments) for _ in range(3)]

    assert [r.is_error for r in results] == [False, False, True]
    error = results[-1].structured_content["error"]
    assert error["code"] == "rate_limited" and 1 <= error["retry_after"] <= 60
