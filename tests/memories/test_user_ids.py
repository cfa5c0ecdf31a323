"""A `user_id` is any id of 1-128 printable characters, as agent frameworks keep them ("alice",
"tg:12345"), on every endpoint and tool; UUIDs keep working unchanged, and rows stored when the
column was a UUID are the same users after the migration."""

from __future__ import annotations

import uuid
from urllib.parse import quote

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from memories.models import EndUser

pytestmark = pytest.mark.django_db

OPAQUE_IDS = ["alice", "tg:12345", "user@example.com", "team/alice", "Zoë Ångström", "x" * 128]


@pytest.fixture(autouse=True)
def offline(settings):
    settings.MEMORY_EXTRACTOR = "rules"
    settings.MEMORY_EMBEDDER = "local"
    settings.RECALL_ACCESS_FLUSH_SECONDS = 0


def _extract(api, user_id, text, **extra):
    body = {"user_id": user_id, "conversation": [{"role": "user", "content": text}], **extra}
    return api.post("/memories/extract", body, format="json")


@pytest.mark.parametrize("user_id", OPAQUE_IDS)
def test_an_opaque_string_id_works_on_every_endpoint(api, user_id):
    assert _extract(api, user_id, "I live in Lisbon", session_id="s1").status_code == 201

    listed = api.get("/memories/list", {"user_id": user_id})
    assert listed.status_code == 200
    assert [m["caption"] for m in listed.json()["memories"]] == ["User lives in Lisbon"]
    relevant = api.get("/memories/relevant", {"user_id": user_id, "prompt": "where do I live?"})
    assert relevant.status_code == 200 and relevant.json()["memories"]
    context = api.get("/memories/context", {"user_id": user_id, "prompt": "where do I live?"})
    assert "Lisbon" in context.json()["context"]
    session = api.delete(f"/sessions/s1?user_id={quote(user_id, safe='')}")
    assert session.status_code == 200 and session.json()["user_id"] == user_id
    assert _extract(api, user_id, "I live in Porto").status_code == 201
    erased = api.delete(f"/users/{quote(user_id, safe='/')}")
    assert erased.status_code == 200
    assert erased.json()["user_id"] == user_id
    assert not EndUser.objects.filter(external_id=user_id).exists()


def test_an_opaque_string_id_works_in_the_tools(api):
    def call(name, **arguments):
        body = {"name": name, "arguments": {"user_id": "tg:12345", **arguments}}
        return api.post("/tools/call", body, format="json")

    assert call("remember", text="I play the bassoon on Sundays").status_code == 200
    found = call("recall", query="what instrument do I play?").json()["memories"]
    assert any("bassoon" in m["caption"] for m in found)
    assert "bassoon" in call("context", prompt="music plans this weekend").json()["context"]


def test_ids_are_kept_as_given_and_a_uuid_is_one_user_in_any_case(api):
    upper = str(uuid.uuid4()).upper()
    _extract(api, upper, "I live in Lisbon")
    _extract(api, upper.lower(), "I'm vegan")
    _extract(api, "Alice", "I live in Oslo")
    _extract(api, "alice", "I live in Rome")

    assert EndUser.objects.get(external_id=upper.lower()).memories.count() == 2
    assert EndUser.objects.filter(external_id__in=["Alice", "alice"]).count() == 2


@pytest.mark.parametrize("user_id", ["", "x" * 129, "tab\there", "nul\x00", 42, None])
def test_an_id_that_breaks_the_rule_is_a_400_naming_user_id(api, user_id):
    response = _extract(api, user_id, "I live in Lisbon")

    assert response.status_code == 400
    assert "user_id" in response.json()["error"]["message"]
    assert not EndUser.objects.exists()


def test_the_schema_states_the_rule(api):
    schema = api.get("/api/schema/", {"format": "json"}).json()
    extract = schema["components"]["schemas"]["MemoryExtractInputRequest"]["properties"]["user_id"]

    assert extract.get("format") != "uuid"
    assert extract["maxLength"] == 128 and extract["minLength"] == 1
    tools = {t["function"]["name"]: t for t in api.get("/tools").json()["tools"]}
    assert tools["recall"]["function"]["parameters"]["properties"]["user_id"]["maxLength"] == 128


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("as_the_tables_owner")
def test_users_stored_when_the_id_was_a_uuid_are_the_same_users_after_the_migration():
    executor = MigrationExecutor(connection)
    executor.migrate([("memories", "0009_memory_facets")])
    executor.loader.build_graph()
    old = executor.loader.project_state([("memories", "0009_memory_facets")]).apps
    tenant = old.get_model("tenants", "Tenant").objects.create(name="janus")
    stored = uuid.uuid4()
    old.get_model("memories", "EndUser").objects.create(tenant=tenant, external_id=stored)

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    assert EndUser.objects.get(tenant_id=tenant.pk).external_id == str(stored)
