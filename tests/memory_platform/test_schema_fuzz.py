"""Hostile input at every endpoint of the schema: each query, path and body value replaced by
values of the kinds that once gave 500s or silent wrong answers (deep nesting, lone
surrogates, wrong JSON types, huge numbers, bytes that are not UTF-8) and every body sent
chunked. No answer is a 5xx, every refusal is in the JSON error shape, and what the schema
forbids is refused.

Schemathesis (test_schema_contract.py) explores the schema at random; these cases are fixed,
so they run in the same few seconds every time."""

from __future__ import annotations

import io
import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from tests.factories import TenantFactory, api_key_for

pytestmark = pytest.mark.django_db

USER = "fuzz-user"
MEMORY_ID = "mem_0123456789abcdef"


@dataclass(frozen=True)
class Call:
    """A valid request of one operation, the one every case alters."""

    method: str
    path: str  # with its path parameters in {braces}
    path_values: dict[str, str] = field(default_factory=dict)
    query: dict[str, str] = field(default_factory=dict)
    body: Any = None


VALID = {
    "health": Call("GET", "/health"),
    "tools_list": Call("GET", "/tools"),
    "memories_list": Call("GET", "/memories/list", query={"user_id": USER, "limit": "5"}),
    "memories_full": Call("GET", "/memories/full", query={"user_id": USER, "ids": MEMORY_ID}),
    "memories_relevant": Call(
        "GET", "/memories/relevant", query={"user_id": USER, "prompt": "tea", "limit": "3"}
    ),
    "memories_context": Call(
        "GET", "/memories/context", query={"user_id": USER, "prompt": "tea", "max_tokens": "50"}
    ),
    "memories_delete": Call(
        "DELETE", "/memories/{memory_id}", {"memory_id": MEMORY_ID}, {"user_id": USER}
    ),
    "memories_job": Call("GET", "/memories/jobs/{job_id}", {"job_id": str(uuid.UUID(int=1))}),
    "sessions_erase": Call(
        "DELETE", "/sessions/{session_id}", {"session_id": "chat-1"}, {"user_id": USER}
    ),
    "users_erase": Call("DELETE", "/users/{user_id}", {"user_id": USER}),
    "memories_extract": Call(
        "POST",
        "/memories/extract",
        body={
            "user_id": USER,
            "conversation": [{"role": "user", "content": "I like green tea."}],
            "session_id": "chat-1",
        },
    ),
    "tools_call": Call(
        "POST",
        "/tools/call",
        body={"name": "recall", "arguments": {"user_id": USER, "query": "tea", "limit": 3}},
    ),
}
# Body fields the schema lets be null.
NULLABLE = {("memories_extract", ("session_id",))}

DEEP = "[" * 1_000 + "]" * 1_000
# Raw JSON values of the wrong kind for any field (none of them is a string).
WRONG_TYPES = [
    "5",
    "-1",
    "5.5",
    "true",
    "null",
    "[]",
    "{}",
    '["x"]',
    "1e400",  # read as infinity
    "1" + "0" * 400,  # a 401-digit integer
    "9" * 5_000,  # more digits than Python converts to an int
]
# Raw JSON strings: a lone surrogate in three spellings.
SURROGATES = ['"x\\udfff"', '"\\ud800"', '"\\udbffx"']
# Percent-encoded query or path values: not UTF-8, an encoded surrogate, odd but valid.
BAD_QUERY_VALUES = ["%ff%fe", "%ED%BF%BF", "caf%E9"]
ODD_QUERY_VALUES = ["1" + "0" * 400, "-1e400", "true", "[]", "%00", "x" * 5_000, "%F0%9F%98%80"]


def _operations() -> set[str]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return {op["operationId"] for ops in schema["paths"].values() for op in ops.values()}


@pytest.fixture(scope="module")
def operations() -> set[str]:
    return _operations()


@pytest.fixture
def api(settings) -> APIClient:
    settings.MEMORY_RATE_LIMIT = 1_000_000
    settings.MEMORY_EXTRACTOR = "rules"
    settings.MEMORY_EMBEDDER = "local"
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key_for(TenantFactory())}")
    return client


def _send(api: APIClient, call: Call, *, raw_query: str | None = None,
          path_values: dict[str, str] | None = None, raw_body: str | None = None,
          chunked: bool = False):  # fmt: skip
    path = call.path.format(
        **{k: quote(v, safe="%") for k, v in (path_values or call.path_values).items()}
    )
    query = raw_query if raw_query is not None else urlencode(call.query)
    url = f"{path}?{query}" if query else path
    if call.body is None:
        return api.generic(call.method, url)
    body = (raw_body if raw_body is not None else json.dumps(call.body)).encode()
    extra: dict[str, Any] = {}
    if chunked:  # as gunicorn hands a chunked body to Django
        extra = {"CONTENT_LENGTH": "", "HTTP_TRANSFER_ENCODING": "chunked",
                 "wsgi.input": io.BytesIO(body), "wsgi.input_terminated": True}  # fmt: skip
    return api.generic(call.method, url, body, content_type="application/json", **extra)


def _assert_answered(response, case: str) -> None:
    """Not a server error, and a refusal in the JSON error shape."""
    assert response.status_code < 500, (case, response.status_code, response.content[:300])
    if response.status_code >= 400:
        error = response.json()["error"]
        assert isinstance(error["code"], str) and isinstance(error["message"], str), case


def _leaves(value: Any, path: tuple = ()) -> Iterator[tuple]:
    """The path of every value in a JSON document, containers included (not the root)."""
    if path:
        yield path
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _leaves(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _leaves(child, (*path, index))


def _replaced(body: Any, path: tuple, raw: str) -> str:
    """The body as JSON text with the value at `path` replaced by the raw JSON `raw`."""
    marker = f"__fuzz_{uuid.uuid4().hex}__"
    copy = json.loads(json.dumps(body))
    target = copy
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = marker
    return json.dumps(copy).replace(json.dumps(marker), raw)


def _at(body: Any, path: tuple) -> Any:
    for step in path:
        body = body[step]
    return body


def _json_type(value: Any) -> str:
    """The JSON type of a parsed value."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        return "integer"
    return type(value).__name__


def _raw_type(raw: str) -> str:
    """The JSON type of raw JSON text (a number too long for Python to read is an integer)."""
    if raw.startswith("["):
        return "list"  # without reading it: Python's parser cannot read DEEP
    try:
        return _json_type(json.loads(raw))
    except ValueError:
        return "integer"


def test_every_operation_of_the_schema_is_fuzzed(operations):
    assert operations == set(VALID)


@pytest.mark.parametrize("operation", sorted(VALID))
def test_the_valid_requests_are_valid(api, operation):
    response = _send(api, VALID[operation])

    assert response.status_code in {200, 201, 404}, response.content[:300]


@pytest.mark.parametrize("operation", sorted(op for op, call in VALID.items() if call.query))
def test_hostile_query_values_are_answered_and_bad_text_refused(api, operation):
    call = VALID[operation]
    for name in call.query:
        others = {k: v for k, v in call.query.items() if k != name}
        prefix = urlencode(others) + "&" if others else ""
        for value in BAD_QUERY_VALUES:
            response = _send(api, call, raw_query=f"{prefix}{name}={value}")
            _assert_answered(response, f"{name}={value}")
            assert response.status_code == 400, (name, value)
        for value in ODD_QUERY_VALUES:
            _assert_answered(_send(api, call, raw_query=f"{prefix}{name}={value}"), name)


@pytest.mark.parametrize("operation", sorted(op for op, call in VALID.items() if call.path_values))
def test_hostile_path_values_are_answered(api, operation):
    call = VALID[operation]
    for name in call.path_values:
        for value in [*BAD_QUERY_VALUES, *ODD_QUERY_VALUES, "..", "%2F"]:
            response = _send(api, call, path_values={**call.path_values, name: value})
            _assert_answered(response, f"{name}={value}")


@pytest.mark.parametrize("operation", sorted(op for op, call in VALID.items() if call.body))
def test_hostile_body_values_are_refused(api, operation):
    call = VALID[operation]
    for path in _leaves(call.body):
        for raw in [*WRONG_TYPES, *SURROGATES, DEEP]:
            response = _send(api, call, raw_body=_replaced(call.body, path, raw))
            case = f"{path}={raw[:20]}"
            _assert_answered(response, case)
            if _raw_type(raw) != _json_type(_at(call.body, path)) and not (
                raw == "null" and (operation, path) in NULLABLE
            ):
                assert response.status_code == 400, case


@pytest.mark.parametrize("operation", sorted(op for op, call in VALID.items() if call.body))
def test_hostile_whole_bodies_are_refused(api, operation):
    call = VALID[operation]
    for raw in [*WRONG_TYPES, *SURROGATES, DEEP, '{"a":' * 1_000 + "1" + "}" * 1_000, "", "{"]:
        response = _send(api, call, raw_body=raw)
        _assert_answered(response, raw[:20])
        assert response.status_code == 400, raw[:20]


@pytest.mark.parametrize("operation", sorted(op for op, call in VALID.items() if call.body))
def test_a_chunked_body_is_answered_as_the_same_body_with_its_length(api, operation):
    call = VALID[operation]
    chunked = _send(api, call, chunked=True)
    with_length = _send(api, call)  # the same request again (an extraction: its replay)
    invalid = _send(api, call, raw_body=_replaced(call.body, next(_leaves(call.body)), "5"),
                    chunked=True)  # fmt: skip

    assert chunked.status_code in {200, 201}, chunked.content[:300]
    assert chunked.json() == with_length.json()
    assert invalid.status_code == 400
