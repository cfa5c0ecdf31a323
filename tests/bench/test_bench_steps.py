"""bench_steps end to end: the read path timed step by step inside real gunicorn workers."""

from __future__ import annotations

import json
from pathlib import Path

from memory_platform.embedded import stop_embedded_postgres
from tests.processes import clean_env, manage


def test_bench_steps_times_every_step_of_each_warm_request(tmp_path: Path):
    env = clean_env(MEMORY_DATA_DIR=str(tmp_path / "data"), MEMORY_EMBEDDER="hashing")
    try:
        manage("migrate", "--noinput", env=env)
        run = manage("bench_steps", "--settings=bench.settings", "--users", "2",
                     "--per-user", "5", "--requests", "20", "--json", env=env)  # fmt: skip
    finally:
        stop_embedded_postgres(tmp_path / "data" / "pg")
    report = json.loads(run.stdout.strip().splitlines()[-1])

    assert report["client"]["requests"] == 20 and report["client"]["errors"] == 0
    steps = report["steps"]
    assert next(iter(steps)) == "wsgi"  # outermost first
    for step in (
        "wsgi",
        "memories.authentication:TenantAPIKeyAuthentication.authenticate",
        "recall.index:_end_user_and_stamp",
        "recall.selectors:embed_query",
        "recall.selectors:rank",
    ):
        assert steps[step]["calls"] == 20
        assert steps[step]["p50_us"] > 0
