"""Faults with real processes: the database going away under a served API and coming back."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

from memory_platform.embedded import ensure_embedded_postgres, stop_embedded_postgres
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
