"""One outage, one answer: every 503 of a database outage says the same thing, wherever the
outage is met (the key's lookup, a view's query, an MCP tool call)."""

from __future__ import annotations

import uuid

import pytest
from django.db import DatabaseError
from rest_framework.test import APIClient

import memories.apis
from agents.mcp import server
from core.exceptions import ServiceUnavailable
from tenants.models import TenantAPIKey
from tests.factories import api_key_for

pytestmark = pytest.mark.django_db

OUTAGE = {"code": "service_unavailable", "message": ServiceUnavailable.default_message}


def _down(*args, **kwargs):
    raise DatabaseError("connection refused")


def test_an_outage_met_while_checking_the_key_is_the_one_503(tenant, monkeypatch):
    client = APIClient()
    # A key never used, so its lookup goes to the database.
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key_for(tenant, name='fresh')}")
    monkeypatch.setattr(TenantAPIKey.objects, "get_usable_keys", _down)

    response = client.get("/memories/list", {"user_id": str(uuid.uuid4())})

    assert response.status_code == 503
    assert response.json() == {"error": OUTAGE}


def test_an_outage_met_in_a_view_is_the_same_503(api, end_user, monkeypatch):
    monkeypatch.setattr(memories.apis, "memory_visible_list", _down)

    response = api.get("/memories/list", {"user_id": end_user.external_id})

    assert response.status_code == 503
    assert response.json() == {"error": OUTAGE}


def test_an_outage_met_by_an_mcp_tool_is_the_same_error(tenant, monkeypatch):
    monkeypatch.setattr(server, "tool_call", _down)

    result = server.tool_result(tenant=tenant, name="recall", arguments={}, close_connections=False)

    assert result.is_error and result.structured_content == {"error": OUTAGE}


def test_the_outage_message_says_to_retry():
    assert "retry" in ServiceUnavailable.default_message


def test_the_key_lookup_the_view_and_the_tool_give_one_message(tenant, end_user, monkeypatch):
    fresh = APIClient()
    fresh.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key_for(tenant, name='fresh')}")
    used = APIClient()
    used.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key_for(tenant, name='used')}")
    used.get("/memories/list", {"user_id": end_user.external_id})  # the key is remembered
    monkeypatch.setattr(TenantAPIKey.objects, "get_usable_keys", _down)
    monkeypatch.setattr(memories.apis, "memory_visible_list", _down)
    monkeypatch.setattr(server, "tool_call", _down)

    messages = {
        fresh.get("/memories/list", {"user_id": "a"}).json()["error"]["message"],
        used.get("/memories/list", {"user_id": end_user.external_id}).json()["error"]["message"],
        server.tool_result(
            tenant=tenant, name="recall", arguments={}, close_connections=False
        ).structured_content["error"]["message"],
    }

    assert len(messages) == 1


@pytest.mark.parametrize("host", ["", "bad host!", "exa mple.com"])
def test_a_host_header_django_refuses_gets_the_json_error_shape(api, host):
    response = api.delete(f"/memories/mem_{'0' * 16}", {"user_id": "u1"}, HTTP_HOST=host)

    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"]["code"] == "malformed_request"
