"""API key scopes: a read-only key reads everything and writes nothing; last use is recorded."""

from __future__ import annotations

import json
import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import IntegrityError, connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from extraction.models import ExtractionJob
from memories.models import (
    AgentSession,
    DeletionRecord,
    EndUser,
    ErasureRecord,
    Memory,
    MemoryVersion,
)
from tenants import authentication
from tenants.models import TenantAPIKey

pytestmark = pytest.mark.django_db

READ = TenantAPIKey.Scope.READ
SESSION = "chat-1"


@pytest.fixture(autouse=True)
def offline(settings):
    settings.MEMORY_EXTRACTOR = "rules"
    settings.MEMORY_EMBEDDER = "hashing"
    settings.RECALL_ACCESS_FLUSH_SECONDS = 0
    authentication.verified_keys_forget()
    yield
    authentication.verified_keys_forget()


def key_for(tenant, scope: str = TenantAPIKey.Scope.READ_WRITE) -> tuple[TenantAPIKey, str]:
    return TenantAPIKey.objects.create_key(tenant=tenant, name=scope, scope=scope)


def client_for(raw_key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_key}")
    return client


@pytest.fixture
def writer(tenant) -> APIClient:
    return client_for(key_for(tenant)[1])


@pytest.fixture
def reader(tenant) -> APIClient:
    return client_for(key_for(tenant, READ)[1])


@pytest.fixture
def stored(writer) -> dict[str, Any]:
    """A user with one memory from a session, written with the read-write key."""
    user_id = str(uuid.uuid4())
    response = writer.post(
        "/memories/extract",
        {
            "user_id": user_id,
            "session_id": SESSION,
            "conversation": [{"role": "user", "content": "I live in Porto"}],
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    (memory,) = response.json()["memories_saved"]
    return {"user_id": user_id, "memory_id": memory["id"], "job_id": ExtractionJob.objects.get().pk}


def mcp_call(client: APIClient, name: str, **arguments: Any) -> dict[str, Any]:
    """One JSON-RPC tools/call at /mcp; returns its result."""
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    response = client.post(
        "/mcp",
        json.dumps(message),
        content_type="application/json",
        HTTP_ACCEPT="application/json, text/event-stream",
        HTTP_MCP_PROTOCOL_VERSION="2025-06-18",
    )
    assert response.status_code == 200
    return response.json()["result"]


def tool_call(client: APIClient, name: str, **arguments: Any):
    return client.post("/tools/call", {"name": name, "arguments": arguments}, format="json")


def rows() -> dict[str, int]:
    """Everything a write could add or remove."""
    models = [
        Memory,
        MemoryVersion,
        EndUser,
        AgentSession,
        ExtractionJob,
        DeletionRecord,
        ErasureRecord,
    ]
    return {model.__name__: model.objects.count() for model in models}


def assert_read_only_refusal(response) -> None:
    assert response.status_code == 403, response.content
    error = response.json()["error"]
    assert error["code"] == "read_only_key"
    assert "read-only" in error["message"] and "read-write key" in error["message"]


def test_a_read_only_key_reads_every_read_endpoint(reader, stored):
    user_id, memory_id = stored["user_id"], stored["memory_id"]
    reads = {
        "relevant": reader.get("/memories/relevant", {"user_id": user_id, "prompt": "Where?"}),
        "full": reader.get("/memories/full", {"user_id": user_id, "ids": memory_id}),
        "list": reader.get("/memories/list", {"user_id": user_id}),
        "context": reader.get("/memories/context", {"user_id": user_id, "prompt": "Where?"}),
        "job": reader.get(f"/memories/jobs/{stored['job_id']}"),
        "tools": reader.get("/tools"),
        "tool recall": tool_call(reader, "recall", user_id=user_id, query="Where do I live?"),
        "tool context": tool_call(reader, "context", user_id=user_id, prompt="Where?"),
    }

    assert {name: r.status_code for name, r in reads.items()} == dict.fromkeys(reads, 200)
    assert reads["list"].json()["total"] == 1
    assert reads["full"].json()["memories"][0]["id"] == memory_id
    recalled = mcp_call(reader, "recall", user_id=user_id, query="Where do I live?")
    assert recalled["isError"] is False
    assert "memories" in recalled["structuredContent"]


def test_a_read_only_key_is_refused_every_write_and_nothing_changes(reader, stored):
    user_id, memory_id = stored["user_id"], stored["memory_id"]
    before = rows()
    conversation = [{"role": "user", "content": "I am allergic to penicillin"}]

    writes = {
        "extract": reader.post(
            "/memories/extract", {"user_id": user_id, "conversation": conversation}, format="json"
        ),
        "extract of a new user": reader.post(
            "/memories/extract",
            {"user_id": str(uuid.uuid4()), "conversation": conversation},
            format="json",
        ),
        "delete memory": reader.delete(f"/memories/{memory_id}?user_id={user_id}"),
        "erase user": reader.delete(f"/users/{user_id}"),
        "erase session": reader.delete(f"/sessions/{SESSION}?user_id={user_id}"),
        "tool remember": tool_call(reader, "remember", user_id=user_id, text="I like tea"),
        "tool forget": tool_call(reader, "forget", user_id=user_id, memory_id=memory_id),
    }

    for name, response in writes.items():
        assert response.status_code == 403, name
        assert_read_only_refusal(response)
    assert rows() == before
    assert Memory.objects.filter(pk=memory_id, status=Memory.Status.ACTIVE).exists()


def test_a_read_only_key_cannot_remember_or_forget_over_mcp(reader, stored):
    user_id, memory_id = stored["user_id"], stored["memory_id"]
    before = rows()

    for name, arguments in [
        ("remember", {"user_id": user_id, "text": "I am allergic to penicillin"}),
        ("forget", {"user_id": user_id, "memory_id": memory_id}),
    ]:
        result = mcp_call(reader, name, **arguments)
        # An MCP tool error, like every other one: the model reads the code and message.
        assert result["isError"] is True, name
        assert result["structuredContent"]["error"]["code"] == "read_only_key"
        assert "read-only" in result["structuredContent"]["error"]["message"]

    assert rows() == before


def test_mcp_marks_the_reading_tools_read_only(reader):
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    response = reader.post(
        "/mcp",
        json.dumps(message),
        content_type="application/json",
        HTTP_ACCEPT="application/json, text/event-stream",
        HTTP_MCP_PROTOCOL_VERSION="2025-06-18",
    )

    listed = response.json()["result"]["tools"]
    tools = {tool["name"]: tool["annotations"]["readOnlyHint"] for tool in listed}
    assert tools == {"remember": False, "recall": True, "forget": False, "context": True}


def test_a_read_write_key_still_writes(writer, stored):
    user_id, memory_id = stored["user_id"], stored["memory_id"]

    assert tool_call(writer, "forget", user_id=user_id, memory_id=memory_id).status_code == 200
    assert writer.delete(f"/users/{user_id}").status_code == 200


def test_a_scope_changed_in_the_admin_applies_from_the_next_request(tenant, stored):
    key, raw_key = key_for(tenant)
    client = client_for(raw_key)
    user_id = stored["user_id"]
    assert client.get("/memories/list", {"user_id": user_id}).status_code == 200  # remembered

    key.scope = READ
    key.save()  # as the admin does: this process forgets its verified keys at once

    assert_read_only_refusal(client.delete(f"/users/{user_id}"))

    key.scope = TenantAPIKey.Scope.READ_WRITE
    key.save()
    assert client.delete(f"/users/{user_id}").status_code == 200


def test_a_scope_changed_by_another_process_applies_within_the_cache_time(
    tenant, stored, monkeypatch
):
    now = [1000.0]
    monkeypatch.setattr(authentication, "_clock", lambda: now[0])
    key, raw_key = key_for(tenant)
    client = client_for(raw_key)
    user_id = stored["user_id"]
    assert client.get("/memories/list", {"user_id": user_id}).status_code == 200

    TenantAPIKey.objects.filter(pk=key.pk).update(scope=READ)  # no signal reaches this process
    now[0] += authentication.KEY_CACHE_SECONDS

    assert_read_only_refusal(client.delete(f"/users/{user_id}"))


def key_updates(client: APIClient, user_id: str) -> int:
    """How many UPDATEs of the keys table one read makes."""
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/memories/list", {"user_id": user_id}).status_code == 200
    table = TenantAPIKey._meta.db_table
    return sum(
        q["sql"].startswith("UPDATE") and table in q["sql"] for q in queries.captured_queries
    )


def test_last_use_is_recorded_at_first_use_and_at_most_once_a_minute(tenant, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(authentication, "_clock", lambda: clock[0])
    key, raw_key = key_for(tenant, READ)
    client = client_for(raw_key)
    user_id = str(uuid.uuid4())
    assert key.last_used_at is None

    assert key_updates(client, user_id) == 1
    key.refresh_from_db()
    first = key.last_used_at
    assert first is not None and timezone.now() - first < timedelta(seconds=5)

    assert key_updates(client, user_id) == 0  # a remembered key: no query at all
    clock[0] += authentication.KEY_CACHE_SECONDS  # checked against the database again
    assert key_updates(client, user_id) == 0  # but used less than a minute ago
    key.refresh_from_db()
    assert key.last_used_at == first

    later = first + authentication.LAST_USED_RESOLUTION + timedelta(seconds=1)
    monkeypatch.setattr(timezone, "now", lambda: later)
    clock[0] += authentication.KEY_CACHE_SECONDS
    assert key_updates(client, user_id) == 1
    key.refresh_from_db()
    assert key.last_used_at == later


def test_recording_last_use_does_not_forget_the_verified_keys(tenant, monkeypatch):
    client = client_for(key_for(tenant)[1])
    forgotten = []
    monkeypatch.setattr(authentication, "verified_keys_forget", lambda: forgotten.append(1))

    assert client.get("/memories/list", {"user_id": str(uuid.uuid4())}).status_code == 200
    assert forgotten == []  # a bulk UPDATE: no post_save


def test_create_api_key_read_only(capsys):
    call_command("create_api_key", "--tenant", "acme", "--name", "dashboards", "--read-only")
    output = capsys.readouterr().out.strip().splitlines()

    key = TenantAPIKey.objects.get_from_key(output[-1])
    assert key.scope == READ and key.name == "dashboards"
    assert "read-only" in output[0]
    call_command("create_api_key", "--tenant", "acme")
    assert TenantAPIKey.objects.latest("created").scope == TenantAPIKey.Scope.READ_WRITE


def test_the_scope_is_one_of_the_choices_in_the_database(tenant):
    key, _ = key_for(tenant)
    with pytest.raises(IntegrityError):
        TenantAPIKey.objects.filter(pk=key.pk).update(scope="admin")


# --- the admin ------------------------------------------------------------------------------


@pytest.fixture
def admin_client_logged_in(client, db):
    client.force_login(get_user_model().objects.create_superuser("olga", password="unused"))
    return client


def test_the_admin_lists_keys_with_scope_creation_and_last_use(admin_client_logged_in, tenant):
    reading, raw_key = key_for(tenant, READ)
    key_for(tenant)
    client_for(raw_key).get("/memories/list", {"user_id": str(uuid.uuid4())})
    changelist = reverse("admin:tenants_tenantapikey_changelist")

    page = admin_client_logged_in.get(changelist)
    html = page.content.decode()
    assert page.status_code == 200
    for heading in ["Scope", "Created", "Last used"]:
        assert heading in html
    assert "Read only: relevant, full, list, context" in html and "Read and write" in html
    filtered = admin_client_logged_in.get(changelist, {"scope__exact": READ})
    assert [k.pk for k in filtered.context["cl"].result_list] == [reading.pk]


def test_the_admin_changes_a_keys_scope_and_the_api_obeys_at_once(admin_client_logged_in, tenant):
    key, raw_key = key_for(tenant)
    api = client_for(raw_key)
    user_id = str(uuid.uuid4())
    assert api.delete(f"/users/{user_id}").status_code == 404  # allowed: an unknown user
    change = reverse("admin:tenants_tenantapikey_change", args=[key.pk])
    form = admin_client_logged_in.get(change)
    assert 'name="scope"' in form.content.decode()
    assert "last_used_at" not in form.context["adminform"].form.fields  # shown, not edited

    response = admin_client_logged_in.post(
        change, {"name": key.name, "scope": READ, "tenant": tenant.pk, "expiry_date": ""}
    )

    assert response.status_code == 302, response.context["adminform"].form.errors
    key.refresh_from_db()
    assert key.scope == READ
    assert_read_only_refusal(api.delete(f"/users/{user_id}"))
