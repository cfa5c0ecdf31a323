"""bench_extract_http end to end: the LLM path over gunicorn keeps every conversation."""

from __future__ import annotations

import json
from pathlib import Path

from memory_platform.embedded import stop_embedded_postgres
from tests.processes import clean_env, manage


def test_every_conversation_sent_over_http_is_answered_and_kept_as_a_job(tmp_path: Path):
    env = clean_env(MEMORY_DATA_DIR=str(tmp_path / "data"))
    try:
        manage("migrate", "--noinput", env=env)
        run = manage("bench_extract_http", "--settings=bench.settings", "--count", "6",
                     "--concurrency", "3", "--json", env=env, timeout=300)  # fmt: skip
    finally:
        stop_embedded_postgres(tmp_path / "data" / "pg")
    report = json.loads(run.stdout.strip().splitlines()[-1])

    assert report["llm"] == "stub"
    assert report["outcomes"] == {"201": 6}
    assert report["server_errors"] == 0 and report["lost"] == 0
    assert report["jobs"] == {"succeeded": 6} and report["jobs_missing"] == 0
