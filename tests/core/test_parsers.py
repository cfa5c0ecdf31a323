"""The one JSON parser: nesting past the bound and lone surrogates are a 400, never a 500,
whichever code reads the body first (the rate limit reads it before the view)."""

from __future__ import annotations

import io
import json
import uuid

import pytest
from rest_framework.exceptions import ParseError

from core.parsers import JSONParser

pytestmark = pytest.mark.django_db

DEEP = 1_000  # about 2 KB of brackets: Python's parser recursed past its limit on these


def _post(api, path: str, raw: str):
    return api.post(path, data=raw.encode(), content_type="application/json")


def _deep(levels: int, inner: str = "1") -> str:
    return "[" * levels + inner + "]" * levels


def _extract_body(user_id: str, text: str = '"Hi."') -> str:
    return f'{{"user_id": {user_id}, "conversation": [{{"role": "user", "content": {text}}}]}}'


def _tool_body(user_id: str, text: str = '"tea"') -> str:
    return f'{{"name": "recall", "arguments": {{"user_id": {user_id}, "query": {text}}}}}'


BODIES = {
    "extract": ("/memories/extract", _extract_body),
    "tools/call": ("/tools/call", _tool_body),
}


@pytest.mark.parametrize("endpoint", BODIES)
@pytest.mark.parametrize(
    "raw",
    [
        lambda body: _deep(DEEP),
        lambda body: body(_deep(DEEP)),
        lambda body: body('"someone"', _deep(DEEP)),
        lambda body: '{"a":' * DEEP + "1" + "}" * DEEP,
    ],
    ids=["deep array body", "deep user_id", "deep field", "deep object body"],
)
def test_deeply_nested_json_is_a_400_malformed_request(api, endpoint, raw):
    path, body = BODIES[endpoint]

    response = _post(api, path, raw(body))

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "malformed_request"
    assert "nested deeper than" in response.json()["error"]["message"]


@pytest.mark.parametrize("endpoint", BODIES)
@pytest.mark.parametrize("surrogate", ["\\udfff", "\\ud800", "\\udbff"])
def test_a_lone_surrogate_in_the_user_id_is_a_400(api, endpoint, surrogate):
    path, body = BODIES[endpoint]

    response = _post(api, path, body(f'"repro{surrogate}"'))

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "malformed_request"


def test_a_lone_surrogate_in_a_key_or_a_nested_string_is_refused_too(api):
    for raw in [
        '{"user_id": "a", "conversation": [{"role": "user", "content": "x\\udfff"}]}',
        '{"user_id": "a", "conversation": [], "\\udfff": 1}',
    ]:
        response = _post(api, "/memories/extract", raw)
        assert response.status_code == 400, raw
        assert response.json()["error"]["code"] == "malformed_request"


def test_a_surrogate_pair_is_a_character_and_is_kept(api):
    user_id = f"emoji-{uuid.uuid4().hex}-\U0001f600"
    # The JSON escape of U+1F600 is a pair of surrogates: one character, not two lone ones.
    raw = _extract_body(json.dumps(user_id))
    assert "\\ud83d\\ude00" in raw

    response = _post(api, "/memories/extract", raw)

    assert response.status_code == 201, response.json()


def test_the_depth_bound_is_the_setting(settings):
    settings.MEMORY_MAX_JSON_DEPTH = 4
    parser = JSONParser()

    assert parser.parse(io.BytesIO(_deep(4).encode())) == [[[[1]]]]
    assert parser.parse(io.BytesIO(b'{"a": {"b": [{"c": 1}]}}')) == {"a": {"b": [{"c": 1}]}}
    with pytest.raises(ParseError, match="nested deeper than 4 levels"):
        parser.parse(io.BytesIO(_deep(5).encode()))
    with pytest.raises(ParseError, match="nested deeper than 4 levels"):
        parser.parse(io.BytesIO(b'{"a": {"b": [{"c": []}]}}'))
