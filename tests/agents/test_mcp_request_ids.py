"""The request id reaches inside an MCP tool call at /mcp: the remember it runs logs it."""

from __future__ import annotations

import json
import uuid

import pytest
from rest_framework.test import APIClient

from tests.factories import api_key_for
from tests.logcapture import json_lines


@pytest.mark.django_db(transaction=True)
def test_a_remember_over_mcp_logs_the_callers_request_id(tenant, settings):
    settings.MEMORY_EMBEDDER = "hashing"
    settings.MEMORY_EXTRACTOR = "rules"
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "remember",
            "arguments": {"user_id": str(uuid.uuid4()), "text": "I moved to Porto in May"},
        },
    }

    with json_lines("extraction.remember") as lines:
        response = APIClient().post(
            "/mcp",
            json.dumps(call),
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {api_key_for(tenant)}",
            HTTP_ACCEPT="application/json, text/event-stream",
            HTTP_MCP_PROTOCOL_VERSION="2025-06-18",
            HTTP_X_REQUEST_ID="mcp-caller-1",
        )

    assert response.status_code == 200
    assert response.json()["result"]["isError"] is False
    assert response["X-Request-ID"] == "mcp-caller-1"
    assert [line["request_id"] for line in lines] == ["mcp-caller-1"]
