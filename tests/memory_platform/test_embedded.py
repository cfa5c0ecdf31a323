"""Embedded servers start only where asked, under a lock, and survive starters killed mid-way."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memory_platform.embedded import (
    postgres_running,
    stop_embedded_postgres,
    stop_embedded_valkey,
)
from tests.processes import ROOT, clean_env, free_port, http_get


@pytest.fixture
def data_dir(tmp_path: Path):
    path = tmp_path / "data"
    yield path
    stop_embedded_postgres(path / "pg")
    stop_embedded_valkey(path / "valkey")


def _python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=300, check=True,
    )  # fmt: skip


def test_importing_the_settings_starts_nothing_and_writes_nothing(data_dir):
    env = clean_env(MEMORY_DATA_DIR=str(data_dir), MEMORY_EMBEDDED_REDIS="1")

    out = _python(
        "import os, django; os.environ['DJANGO_SETTINGS_MODULE'] = 'memory_platform.settings'; "
        "django.setup(); from django.conf import settings; "
        "print(settings.DATABASES['default']['HOST'], settings.REDIS_URL)",
        env,
    ).stdout

    host, redis_url = out.split()
    assert host == str(data_dir / "pg")
    assert redis_url == f"unix://{data_dir / 'valkey' / 'valkey.sock'}"
    assert not data_dir.exists()


@pytest.mark.parametrize(
    "command", [["check"], ["makemigrations", "--check", "--dry-run"], ["spectacular"]]
)
def test_commands_that_need_no_database_start_no_server(data_dir, command):
    env = clean_env(MEMORY_DATA_DIR=str(data_dir), MEMORY_EMBEDDED_REDIS="1")

    subprocess.run(
        [sys.executable, "manage.py", *command], cwd=ROOT, env=env, capture_output=True,
        timeout=300, check=True,
    )  # fmt: skip

    assert not (data_dir / "pg").exists()
    assert not (data_dir / "valkey").exists()


def test_a_command_that_uses_the_database_starts_the_server_it_needs(data_dir):
    env = clean_env(MEMORY_DATA_DIR=str(data_dir))

    subprocess.run(
        [sys.executable, "manage.py", "showmigrations", "memories"], cwd=ROOT, env=env,
        capture_output=True, timeout=300, check=True,
    )  # fmt: skip

    assert postgres_running(data_dir / "pg")


def test_an_empty_handle_file_left_by_a_killed_process_heals_by_itself(data_dir):
    env = clean_env(MEMORY_DATA_DIR=str(data_dir))
    prepare = "from memory_platform import local; local.prepare()"
    _python(prepare, env)
    stop_embedded_postgres(data_dir / "pg")
    # What the embedded_postgres package's unlocked rewrite leaves when its writer is killed.
    (data_dir / "pg" / ".handle_pids.json").write_text("")

    _python(prepare, env)

    assert postgres_running(data_dir / "pg")
    assert not (data_dir / "pg" / ".handle_pids.json").exists()


def _kill_starters_in_a_loop(env: dict[str, str], data_dir: Path, rounds: int) -> None:
    """Start four processes that prepare the install and SIGKILL them at a random moment."""
    rng = random.Random(21)
    starter = [sys.executable, "manage.py", "embedded", "start"]
    for round_ in range(rounds):
        if round_ % 3 == 0:  # from a stopped server, so that kills land in initdb and pg_ctl
            stop_embedded_postgres(data_dir / "pg")
        if round_ == 0:
            (data_dir / "pg").mkdir(parents=True, exist_ok=True)
            (data_dir / "pg" / ".handle_pids.json").write_text("")
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        processes = [
            subprocess.Popen(starter, cwd=ROOT, env=env, start_new_session=True, **quiet)
            for _ in range(4)
        ]
        time.sleep(rng.uniform(0.2, 2.5))
        for process in processes:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def test_make_run_serves_after_starters_were_killed_in_a_loop(data_dir):
    env = clean_env(MEMORY_DATA_DIR=str(data_dir), MEMORY_EMBEDDED_REDIS="1")
    _kill_starters_in_a_loop(env, data_dir, rounds=12)
    port = free_port()

    log = (data_dir.parent / "make-run.log").open("w+")
    # Its output goes to a file, never an unread pipe that would fill and block it.
    process = subprocess.Popen(
        ["make", "run", f"PORT={port}", "WORKERS=1"], cwd=ROOT, env=env,
        stdout=log, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 240  # a loaded 2-core machine: wait on readiness
        status = 0
        while time.monotonic() < deadline and process.poll() is None:
            try:
                status, _ = http_get(f"http://127.0.0.1:{port}/health", timeout=30)
            except OSError:
                status = 0
            if status == 200:
                break
            time.sleep(0.5)
        if status != 200:
            log.seek(0)
            pytest.fail(f"make run did not serve: {log.read()[-3000:]}")
    finally:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()
