"""`make run` from nothing: migrate, bootstrap, serve; and again after the server was killed."""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import signal
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
import pytest

from memory_platform.embedded import stop_embedded_postgres, stop_embedded_valkey
from tests.processes import clean_env, free_port, gunicorn, http_get, manage, run_local


@pytest.fixture
def fresh_install(tmp_path: Path):
    """An environment like a new clone's: no variables, an empty data directory."""
    data_dir = tmp_path / "data"
    yield clean_env(MEMORY_DATA_DIR=str(data_dir))
    stop_embedded_postgres(data_dir / "pg")
    stop_embedded_valkey(data_dir / "valkey")


def _bootstrap(env: dict[str, str], port: int) -> tuple[str, str]:
    manage("migrate", "--noinput", env=env)
    output = manage("bootstrap_local", "--port", str(port), env=env).stdout
    password = re.search(r"user 'admin'\s+password (\S+)", output).group(1)
    api_key = output.strip().splitlines()[-1].split(": ")[-1]
    return password, api_key


def _admin_login(base: str, password: str) -> str:
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(f"{base}/admin/login/?next=/admin/", timeout=10).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    form = urllib.parse.urlencode(
        {"username": "admin", "password": password, "csrfmiddlewaretoken": token, "next": "/admin/"}
    ).encode()
    request = urllib.request.Request(f"{base}/admin/login/", data=form)
    request.add_header("Referer", f"{base}/admin/login/")
    return opener.open(request, timeout=10).read().decode()


def test_run_from_nothing_serves_health_and_admin_and_restarts_on_the_same_data(fresh_install):
    env = fresh_install
    port = free_port()
    base = f"http://127.0.0.1:{port}"

    password, api_key = _bootstrap(env, port)
    with gunicorn(port, env) as server:
        assert http_get(f"{base}/health")[0] == 200
        status, login_page = http_get(f"{base}/admin/")
        assert status == 200
        assert 'name="password"' in login_page
        assert "Memory platform" in _admin_login(base, password)
        # Killed, not stopped: the next start must cope with what it left behind.
        os.killpg(server.pid, signal.SIGKILL)

    password_again, api_key_again = _bootstrap(env, port)
    with gunicorn(port, env):
        assert http_get(f"{base}/health")[0] == 200
    assert (password_again, api_key_again) == (password, api_key)


def _api(base: str, api_key: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(
        f"{base}{path}",
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _children(process) -> list[str]:
    """The command lines of what `run_local` started, one string each."""
    return [" ".join(p.cmdline()) for p in psutil.Process(process.pid).children()]


def test_make_run_serves_with_a_celery_worker_and_beat_over_one_embedded_valkey(fresh_install):
    env = {**fresh_install, "MEMORY_EMBEDDED_REDIS": "1", "MEMORY_RATE_LIMIT": "20"}
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    _, api_key = _bootstrap(env, port)

    with run_local(port, env) as (process, _log):
        children = _children(process)
        for part in ("gunicorn", "memory_platform worker", "memory_platform beat"):
            assert any(part in command for command in children), (part, children)
        health = json.loads(http_get(f"{base}/health")[1])
        assert (health["status"], health["cache"]["backend"]) == ("ok", "RedisCache")

        # ?async=1 is handed to the Celery worker through Valkey, not run in the request.
        user = str(uuid.uuid4())
        conversation = [{"role": "user", "content": "I've been a nurse in Leeds for ten years."}]
        body = {"user_id": user, "conversation": conversation}
        status, queued = _api(base, api_key, "/memories/extract?async=1", body)
        assert status == 202
        deadline = time.monotonic() + 90
        while (job := _api(base, api_key, f"/memories/jobs/{queued['job_id']}")[1])["status"] in {
            "queued",
            "running",
        }:
            assert time.monotonic() < deadline, job
            time.sleep(0.5)
        assert job["status"] == "succeeded"
        listed = _api(base, api_key, f"/memories/list?user_id={user}")[1]
        assert any("nurse" in m["caption"].lower() for m in listed["memories"])

        # Both web workers count one user's requests in the same Valkey.
        other = str(uuid.uuid4())
        with ThreadPoolExecutor(max_workers=6) as pool:
            statuses = list(
                pool.map(
                    lambda _: _api(base, api_key, f"/memories/list?user_id={other}")[0], range(30)
                )
            )
        assert (statuses.count(200), statuses.count(429)) == (20, 10)

        # Stopping it stops all three; nothing is left running.
        started = psutil.Process(process.pid).children()
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
        assert not [p for p in started if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]

    # Valkey is a daemon, like the embedded PostgreSQL: `make db-stop` stops it.
    assert stop_embedded_valkey(Path(env["MEMORY_DATA_DIR"]) / "valkey")


def test_make_run_says_why_and_falls_back_when_valkey_cannot_start(fresh_install):
    data_dir = Path(fresh_install["MEMORY_DATA_DIR"])
    data_dir.mkdir(parents=True)
    (data_dir / "valkey").write_text("a file where Valkey's directory should be")
    env = {**fresh_install, "MEMORY_EMBEDDED_REDIS": "1"}
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    _, api_key = _bootstrap(env, port)

    assert "memory_platform.W004" in manage("check", env=env).stderr
    with run_local(port, env) as (process, log):
        assert not any(" worker" in c or " beat" in c for c in _children(process))
        health = json.loads(http_get(f"{base}/health")[1])
        assert health["cache"]["backend"] == "LocMemCache"
        # Without a broker, an asynchronous extraction still completes (in the web process).
        user = str(uuid.uuid4())
        conversation = [{"role": "user", "content": "My daughter Ana starts school in May."}]
        body = {"user_id": user, "conversation": conversation}
        status, queued = _api(base, api_key, "/memories/extract?async=1", body)
        assert status == 202
        assert _api(base, api_key, f"/memories/jobs/{queued['job_id']}")[1]["status"] == "succeeded"
        log.seek(0)
        assert "The embedded Valkey could not start: cannot use" in log.read()


def test_the_rate_limit_is_exact_across_workers_without_redis(fresh_install):
    env = {**fresh_install, "MEMORY_RATE_LIMIT": "30"}
    port = free_port()
    _, api_key = _bootstrap(env, port)
    url = f"http://127.0.0.1:{port}/memories/list?user_id={uuid.uuid4()}"
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {api_key}"})

    def status() -> int:
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status
        except urllib.error.HTTPError as exc:
            return exc.code

    with gunicorn(port, env, workers=2), ThreadPoolExecutor(max_workers=6) as pool:
        # Concurrent clients, so that both workers serve (and count) the same user at once.
        statuses = list(pool.map(lambda _: status(), range(45)))

    assert (statuses.count(200), statuses.count(429)) == (30, 15)
