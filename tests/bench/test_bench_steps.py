"""bench_steps end to end: the read path timed step by step inside real gunicorn workers."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from memory_platform.embedded import stop_embedded_postgres
from tests.processes import clean_env, manage

# A loaded machine makes every phase slower (a new cluster, gunicorn's workers booting, the
# warm-up): the deadlines are for a hung command, not a slow one.
SLOW_COMMAND_SECONDS = 600


@pytest.mark.timeout(3 * SLOW_COMMAND_SECONDS)
def test_bench_steps_times_every_step_of_each_warm_request(tmp_path: Path):
    env = clean_env(MEMORY_DATA_DIR=str(tmp_path / "data"), MEMORY_EMBEDDER="hashing")
    try:
        manage("migrate", "--noinput", env=env, timeout=SLOW_COMMAND_SECONDS)
        # Each of the 20 requests is timed in whichever gunicorn worker served it; the bench
        # collects every worker's timings (or fails), so each step counts exactly 20 calls.
        run = manage("bench_steps", "--settings=bench.settings", "--users", "2",
                     "--per-user", "5", "--requests", "20", "--json", env=env,
                     timeout=SLOW_COMMAND_SECONDS)  # fmt: skip
    except subprocess.CalledProcessError as exc:
        pytest.fail(f"{' '.join(exc.cmd[2:4])} failed:\n{exc.stderr[-3000:]}")
    finally:
        stop_embedded_postgres(tmp_path / "data" / "pg")
    report = json.loads(run.stdout.strip().splitlines()[-1])

    assert report["client"]["requests"] == 20 and report["client"]["errors"] == 0
    steps = report["steps"]
    assert next(iter(steps)) == "wsgi"  # outermost first
    for step in (
        "wsgi",
        "tenants.authentication:TenantAPIKeyAuthentication.authenticate",
        "recall.index:_end_user_and_stamp",
        "recall.selectors:embed_query",
        "recall.selectors:rank",
    ):
        assert steps[step]["calls"] == 20, (step, steps[step])
        assert steps[step]["p50_us"] > 0
