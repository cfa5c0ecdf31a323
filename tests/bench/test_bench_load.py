"""bench_load end to end, as a new user runs it: web workers, a Celery worker, Valkey."""

from __future__ import annotations

import json
from pathlib import Path

from memory_platform.embedded import stop_embedded_postgres
from tests.processes import clean_env, manage


def test_bench_load_runs_the_whole_stack_and_its_checks_hold(tmp_path: Path):
    env = clean_env(MEMORY_DATA_DIR=str(tmp_path / "data"))
    try:
        manage("migrate", "--noinput", env=env)
        run = manage("bench_load", "--settings=bench.settings", "--seconds", "3",
                     "--clients", "4", "--users", "10", "--json", env=env)  # fmt: skip
    finally:
        stop_embedded_postgres(tmp_path / "data" / "pg")
    report = json.loads(run.stdout.strip().splitlines()[-1])

    assert report["requests"] > 0 and report["server_errors"] == 0
    assert report["extractions_accepted"] == sum(report["jobs"].values())
    assert report["checks"]["all_hold"] is True
