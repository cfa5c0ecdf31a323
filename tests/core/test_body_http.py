"""Request bodies and query strings over real HTTP under gunicorn, as `make run` serves them:
gunicorn decodes a chunked body and ends the stream (`wsgi.input_terminated`), and passes
the query string as sent."""

from __future__ import annotations

import http.client
import json
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from memory_platform.embedded import stop_embedded_postgres
from tests.processes import clean_env, free_port, gunicorn, manage


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, str]]:
    """A fresh install with an API key, served by gunicorn: (port, key)."""
    data_dir: Path = tmp_path_factory.mktemp("body") / "data"
    env = clean_env(MEMORY_DATA_DIR=str(data_dir), MEMORY_EXTRACTOR="rules")
    try:
        manage("migrate", "--noinput", env=env)
        key = manage("create_api_key", "--tenant", "body", env=env).stdout.strip().splitlines()[-1]
        port = free_port()
        with gunicorn(port, env, workers=1):
            yield port, key
    finally:
        stop_embedded_postgres(data_dir / "pg")


def _send(
    served: tuple[int, str], method: str, path: str, body: Iterable[bytes] | None = None
) -> tuple[int, dict]:
    """Send a request (a body of pieces goes chunked, with no Content-Length)."""
    port, key = served
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    try:
        # An iterable body and no Content-Length: http.client sends it chunked.
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def _pieces(data: bytes, size: int = 1000) -> Iterator[bytes]:
    return (data[start : start + size] for start in range(0, len(data), size))


def test_a_chunked_extraction_is_read_and_stored(served):
    talk = [{"role": "user", "content": "I live in Lisbon and my cat is called Miso."}]
    body = json.dumps({"user_id": str(uuid.uuid4()), "conversation": talk}).encode()

    status, answer = _send(served, "POST", "/memories/extract", _pieces(body, 7))

    assert status == 201, answer
    captions = {m["caption"] for m in answer["memories_saved"]}
    assert captions == {"User lives in Lisbon", "User's cat is called Miso"}


def test_a_chunked_tool_call_is_read(served):
    call = {"name": "recall", "arguments": {"user_id": str(uuid.uuid4()), "query": "tea"}}

    status, answer = _send(served, "POST", "/tools/call", _pieces(json.dumps(call).encode()))

    assert (status, answer) == (200, {"memories": []})


def test_a_10_mib_chunked_body_is_a_413(served):
    head = b'{"user_id": "big", "conversation": [{"role": "user", "content": "'
    body = head + b"x" * (10 * 1_048_576) + b'"}]}'

    status, answer = _send(served, "POST", "/memories/extract", _pieces(body, 64 * 1024))

    assert status == 413
    assert answer["error"]["code"] == "payload_too_large"


def test_a_query_string_that_is_not_utf8_is_a_400(served):
    status, answer = _send(served, "GET", "/memories/list?user_id=%ff%fe")

    assert status == 400
    assert answer["error"]["code"] == "malformed_request"
