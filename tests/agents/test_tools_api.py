"""GET /tools and POST /tools/call: the memory tools an OpenAI-compatible agent hands its model."""

from __future__ import annotations

import json
import uuid

import jsonschema
import pytest
from rest_framework.test import APIClient

from agents.mcp.server import tool_result
from agents.tools import TOOLS
from memories.models import Memory
from tests.factories import TenantFactory, api_key_for

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def offline(settings):
    settings.MEMORY_EXTRACTOR = "rules"
    settings.MEMORY_EMBEDDER = "local"
    settings.RECALL_ACCESS_FLUSH_SECONDS = 0


def call(api: APIClient, name: str, **arguments):
    return api.post("/tools/call", {"name": name, "arguments": arguments}, format="json")


def test_the_tools_are_listed_as_openai_function_schemas(api):
    response = api.get("/tools")

    assert response.status_code == 200
    tools = response.json()["tools"]
    assert [t["function"]["name"] for t in tools] == ["remember", "recall", "forget", "context"]
    for tool in tools:
        assert tool["type"] == "function"
        assert tool["function"]["description"]
        jsonschema.Draft202012Validator.check_schema(tool["function"]["parameters"])


def test_remember_recall_context_and_forget_work_together(api):
    user = str(uuid.uuid4())

    remembered = call(api, "remember", user_id=user, text="User is allergic to penicillin")
    assert remembered.status_code == 200, remembered.json()
    (memory,) = remembered.json()["memories"]
    assert memory["caption"] == "User is allergic to penicillin"
    assert memory["status"] == "active"

    recalled = call(api, "recall", user_id=user, query="Which antibiotics should I avoid?").json()
    assert [m["id"] for m in recalled["memories"]] == [memory["id"]]

    context = call(
        api,
        "context",
        user_id=user,
        prompt="The doctor offered me amoxicillin, ok?",
        max_tokens=200,
    ).json()
    assert memory["id"] in context["context"] and context["tokens"] <= 200

    forgotten = call(api, "forget", user_id=user, memory_id=memory["id"])
    assert forgotten.json() == {"forgotten": memory["id"]}
    assert not Memory.objects.filter(id=memory["id"]).exists()
    assert call(api, "recall", user_id=user, query="antibiotics").json() == {"memories": []}


def test_remember_goes_through_dedup_like_a_conversation(api):
    user = str(uuid.uuid4())
    first = call(api, "remember", user_id=user, text="I'm vegetarian").json()
    again = call(api, "remember", user_id=user, text="The user is vegetarian.").json()

    assert again["total_user_memories"] == first["total_user_memories"] == 1


def test_the_arguments_schema_and_the_server_agree_on_what_is_valid(api):
    schemas = {
        t["function"]["name"]: t["function"]["parameters"]
        for t in api.get("/tools").json()["tools"]
    }
    bad_calls = [
        ("recall", {"user_id": "", "query": "coffee"}),
        ("recall", {"user_id": "tab\there", "query": "coffee"}),
        ("recall", {"user_id": str(uuid.uuid4())}),
        ("recall", {"user_id": str(uuid.uuid4()), "query": "coffee", "limit": 0}),
        ("forget", {"user_id": str(uuid.uuid4()), "memory_id": "mem_short"}),
        ("context", {"user_id": str(uuid.uuid4()), "prompt": "hi", "max_tokens": 16001}),
        ("remember", {"user_id": str(uuid.uuid4()), "text": "x", "mood": "happy"}),
    ]
    for name, arguments in bad_calls:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(arguments, schemas[name], format_checker=jsonschema.FormatChecker())
        response = api.post("/tools/call", {"name": name, "arguments": arguments}, format="json")
        assert response.status_code == 400, (name, arguments)
        assert response.json()["error"]["code"] == "invalid_request"


# A value of each JSON type, and the schema types each one is not.
_VALUES_BY_TYPE = {
    "string": ["5", "", "true"],
    "integer": [5, -1, 10**40],
    "number": [5.5],
    "boolean": [True, False],
    "null": [None],
    "array": [[], ["5"]],
    "object": [{}, {"value": 5}],
}
_ALSO = {"integer": {"number"}, "number": {"integer"}}


def _valid_arguments(name: str) -> dict:
    return {
        "remember": {"user_id": "u", "text": "I like tea"},
        "recall": {"user_id": "u", "query": "tea", "limit": 5, "as_of": "2025-03-01"},
        "forget": {"user_id": "u", "memory_id": "mem_0123456789abcdef"},
        "context": {"user_id": "u", "prompt": "tea?", "max_tokens": 100},
    }[name]


def _wrong_types() -> list:
    cases = []
    for name, tool in TOOLS.items():
        for field, schema in tool.parameters["properties"].items():
            accepted = {schema["type"], *_ALSO.get(schema["type"], set())}
            for json_type, values in _VALUES_BY_TYPE.items():
                if json_type in accepted:
                    continue
                cases += [pytest.param(name, field, v, id=f"{name}.{field}={v!r}") for v in values]
    return cases


def test_every_argument_of_every_tool_has_a_valid_example():
    for name, tool in TOOLS.items():
        assert set(_valid_arguments(name)) == set(tool.parameters["properties"]), name


@pytest.mark.parametrize(("name", "field", "value"), _wrong_types())
def test_an_argument_of_the_wrong_json_type_is_a_400(api, name, field, value):
    arguments = {**_valid_arguments(name), field: value}

    response = api.post("/tools/call", {"name": name, "arguments": arguments}, format="json")

    assert response.status_code == 400, response.json()
    error = response.json()["error"]
    assert error["code"] == "invalid_request" and field in error["message"]


@pytest.mark.parametrize("limit", ['"5"', "true", "5.5", '"1e1"', "1e400"])
def test_recall_refuses_a_limit_that_is_not_an_integer_through_both_doors(api, tenant, limit):
    body = {"name": "recall", "arguments": {"user_id": "u", "query": "coffee", "limit": "?"}}
    raw = json.dumps(body).replace('"?"', limit)  # as sent: 1e400 is read as infinity

    response = api.post("/tools/call", raw, content_type="application/json")
    arguments = json.loads(raw)["arguments"]
    mcp = tool_result(tenant=tenant, name="recall", arguments=arguments, close_connections=False)

    assert response.status_code == 400
    assert "limit: must be a JSON integer" in response.json()["error"]["message"]
    assert mcp.is_error
    assert "limit: must be a JSON integer" in mcp.structured_content["error"]["message"]


def test_an_integer_written_with_a_zero_fraction_is_an_integer(api):
    arguments = {"user_id": str(uuid.uuid4()), "query": "coffee", "limit": 5.0}

    response = api.post("/tools/call", {"name": "recall", "arguments": arguments}, format="json")

    assert response.status_code == 200


def test_an_unknown_tool_or_a_malformed_call_is_a_400(api):
    assert call(api, "teleport", user_id=str(uuid.uuid4())).status_code == 400
    for body in ({"name": "recall"}, {"name": "recall", "arguments": "{}"}, {"arguments": {}}):
        response = api.post("/tools/call", body, format="json")
        assert response.status_code == 400, body
        assert "error" in response.json()


def test_forgetting_another_tenants_memory_is_a_404_and_deletes_nothing(api):
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key_for(TenantFactory())}")
    user = str(uuid.uuid4())
    (memory,) = call(other, "remember", user_id=user, text="I live in Tromsø").json()["memories"]

    response = call(api, "forget", user_id=user, memory_id=memory["id"])

    assert response.status_code == 404
    assert Memory.objects.filter(id=memory["id"]).exists()


def test_tool_calls_count_against_the_users_rate_limit(api, settings):
    settings.MEMORY_RATE_LIMIT = 3
    user = str(uuid.uuid4())

    statuses = [call(api, "recall", user_id=user, query="coffee").status_code for _ in range(5)]

    assert statuses == [200, 200, 200, 429, 429]
