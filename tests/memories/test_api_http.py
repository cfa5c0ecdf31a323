"""The API over real HTTP under gunicorn, as `make run` serves it."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

from memory_platform.embedded import stop_embedded_postgres
from tests.processes import REQUEST_SECONDS, clean_env, free_port, gunicorn, manage


@pytest.fixture
def served(tmp_path: Path, redis_url: str):
    """A fresh install on Redis, migrated, with an API key, served by two gunicorn workers."""
    data_dir = tmp_path / "data"
    env = clean_env(MEMORY_DATA_DIR=str(data_dir), REDIS_URL=redis_url, MEMORY_RATE_LIMIT="30")
    manage("migrate", "--noinput", env=env)
    key = manage("create_api_key", "--tenant", "http", env=env).stdout.strip().splitlines()[-1]
    port = free_port()
    try:
        with gunicorn(port, env, workers=2):
            yield f"http://127.0.0.1:{port}", key
    finally:
        stop_embedded_postgres(data_dir / "pg")


def call(base: str, key: str, method: str, path: str, body: dict | None = None):
    request = urllib.request.Request(
        base + path,
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_SECONDS) as response:
            raw = response.read()
            return response.status, dict(response.headers), json.loads(raw) if raw else None
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), json.loads(exc.read() or b"null")


def test_extract_then_recall_over_http_with_the_offline_extractor(served):
    base, key = served
    user_id = uuid.uuid4()
    conversation = [
        {"role": "user", "content": "I live in Lisbon and my cat is called Miso."},
        {"role": "assistant", "content": "Lovely!"},
    ]

    status, _, saved = call(
        base,
        key,
        "POST",
        "/memories/extract",
        {"user_id": str(user_id), "conversation": conversation},
    )
    again, _, replay = call(
        base,
        key,
        "POST",
        "/memories/extract",
        {"user_id": str(user_id), "conversation": conversation},
    )
    _, _, relevant = call(
        base,
        key,
        "GET",
        f"/memories/relevant?user_id={user_id}&prompt=what%20is%20my%20cat%20called",
    )

    assert (status, again) == (201, 200)
    assert replay == saved
    captions = {item["caption"] for item in saved["memories_saved"]}
    assert captions == {"User lives in Lisbon", "User's cat is called Miso"}
    assert relevant["memories"][0]["caption"] == "User's cat is called Miso"


def test_the_rate_limit_holds_across_gunicorn_workers_through_redis(served):
    base, key = served
    user_id = uuid.uuid4()

    statuses = [call(base, key, "GET", f"/memories/list?user_id={user_id}")[0] for _ in range(31)]

    assert statuses[:30] == [200] * 30  # a user never seen reads as empty; every call counts
    assert statuses[30] == 429
    status, headers, body = call(base, key, "GET", f"/memories/list?user_id={user_id}")
    assert status == 429 and body["error"]["code"] == "rate_limited"
    assert int(headers["Retry-After"]) >= 1


def test_a_body_over_the_limit_is_a_413_that_a_python_client_can_read(served):
    base, key = served
    messages = [{"role": "user", "content": "x" * 1000}] * 6000  # about 6 MB

    status, _, body = call(base, key, "POST", "/memories/extract",
                           {"user_id": str(uuid.uuid4()), "messages": messages})  # fmt: skip

    assert status == 413
    assert body["error"]["code"] == "payload_too_large"


def test_a_url_too_long_for_the_server_is_refused_in_the_json_shape(served):
    base, key = served

    status, headers, body = call(
        base, key, "GET", f"/memories/relevant?user_id={uuid.uuid4()}&prompt={'a' * 10_000}"
    )

    assert status == 414 and headers["Content-Type"] == "application/json"
    assert body["error"]["code"] == "uri_too_long"


def test_erasing_a_session_then_the_user_over_http_forgets_them_in_every_worker(served):
    base, key = served
    user_id = uuid.uuid4()
    for session_id, text in [("chat/1", "I live in Lisbon."), (None, "My cat is called Miso.")]:
        body = {"user_id": str(user_id), "conversation": [{"role": "user", "content": text}]}
        if session_id:
            body["session_id"] = session_id
        assert call(base, key, "POST", "/memories/extract", body)[0] == 201

    def recalled(prompt: str) -> list[list[str]]:
        path = f"/memories/relevant?user_id={user_id}&prompt={prompt.replace(' ', '%20')}"
        # Several calls: both gunicorn workers answer, each from its own or the shared index.
        return [[m["caption"] for m in call(base, key, "GET", path)[2]["memories"]]
                for _ in range(4)]  # fmt: skip

    assert recalled("where do I live") == [["User lives in Lisbon"]] * 4
    status, _, session_receipt = call(base, key, "DELETE", f"/sessions/chat%2F1?user_id={user_id}")
    assert status == 200
    assert session_receipt["deleted"] == {
        "memories": 1, "versions": 1, "jobs": 1, "sessions": 1, "reviews": 0,
    }  # fmt: skip
    assert recalled("where do I live") == [[]] * 4
    assert recalled("what is my cat called") == [["User's cat is called Miso"]] * 4

    status, _, receipt = call(base, key, "DELETE", f"/users/{user_id}")

    assert status == 200
    assert receipt == {
        "user_id": str(user_id),
        "deleted": {"memories": 1, "versions": 1, "jobs": 1, "sessions": 0, "reviews": 0},
    }
    assert recalled("what is my cat called") == [[]] * 4
    assert call(base, key, "DELETE", f"/users/{user_id}")[0] == 404
