"""`make run` from nothing: install, migrate, bootstrap, serve; and again after the server was
killed."""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import psutil
import pytest
from django_ratelimit.core import _get_window

from memory_platform.embedded import stop_embedded_postgres, stop_embedded_valkey
from tests.processes import (
    READY_SECONDS,
    REQUEST_SECONDS,
    ROOT,
    clean_env,
    eventually,
    free_port,
    gunicorn,
    http_get,
    manage,
    run_local,
)

# A loaded machine (`make test` on two cores) makes everything slower: a new cluster, Django's
# import in each gunicorn worker (a server listens before its workers can answer), a first
# request loading the embedding model. The tests wait for readiness, polled, up to READY_SECONDS;
# one request may take up to REQUEST_SECONDS. These bound a hang, not how fast a step must be.

T = TypeVar("T")


def _eventually(check: Callable[[], T | None], what: str, seconds: float = READY_SECONDS) -> T:
    return eventually(check, what, seconds)


def _healthy(base: str) -> dict:
    """/health's report once the server answers it with 200 (its workers are up)."""

    def answer() -> dict | None:
        try:
            status, body = http_get(f"{base}/health", timeout=REQUEST_SECONDS)
        except OSError:  # refused, reset or timed out while the workers start
            return None
        return json.loads(body) if status == 200 else None

    return _eventually(answer, f"{base}/health answering 200")


def _user_in_a_new_window(tenant_id: int) -> tuple[str, float]:
    """A new end user id whose rate-limit minute began under 5 s ago; and when that minute ends.

    The limit counts in fixed one-minute windows (tenants.throttling, django-ratelimit's, each
    user's shifted by a hash): a burst of a random user's requests could span two windows and
    be counted in two. This one's burst has 55 s before its counter starts again."""
    while True:
        user = str(uuid.uuid4())
        ends = _get_window(f"{tenant_id}:{user}", 60)
        if ends - time.time() > 55:
            return user, ends


def _tenant_id(env: dict[str, str], api_key: str) -> int:
    """The id of the tenant that owns `api_key` in the install of `env`."""
    # The tenant's key model, found by what it is rather than where it lives.
    code = (
        # A shell sees no tenant's rows until it says whose: this one looks a key up.
        "from tenants import rls; _bypass = rls.rls_bypass('a test looks a key up'); "
        "_bypass.__enter__()\n"
        "from django.apps import apps\n"
        "from rest_framework_api_key.models import AbstractAPIKey\n"
        "[keys] = [m for m in apps.get_models() if issubclass(m, AbstractAPIKey) "
        "and hasattr(m, 'tenant')]\n"
        f"print(keys.objects.get_from_key({api_key!r}).tenant_id)\n"
    )
    return int(manage("shell", "-c", code, env=env, timeout=READY_SECONDS).stdout.split()[-1])


@pytest.fixture
def fresh_install(tmp_path: Path):
    """An environment like a new clone's: no variables, an empty data directory."""
    data_dir = tmp_path / "data"
    yield clean_env(MEMORY_DATA_DIR=str(data_dir))
    stop_embedded_postgres(data_dir / "pg")
    stop_embedded_valkey(data_dir / "valkey")


def _bootstrap(env: dict[str, str], port: int) -> tuple[str, str]:
    manage("migrate", "--noinput", env=env, timeout=READY_SECONDS)
    output = manage("bootstrap_local", "--port", str(port), env=env, timeout=READY_SECONDS).stdout
    password = re.search(r"user 'admin'\s+password (\S+)", output).group(1)
    api_key = output.strip().splitlines()[-1].split(": ")[-1]
    return password, api_key


def _admin_login(base: str, password: str) -> str:
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(f"{base}/admin/login/?next=/admin/", timeout=REQUEST_SECONDS).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    form = urllib.parse.urlencode(
        {"username": "admin", "password": password, "csrfmiddlewaretoken": token, "next": "/admin/"}
    ).encode()
    request = urllib.request.Request(f"{base}/admin/login/", data=form)
    request.add_header("Referer", f"{base}/admin/login/")
    return opener.open(request, timeout=REQUEST_SECONDS).read().decode()


def test_run_from_nothing_serves_health_and_admin_and_restarts_on_the_same_data(fresh_install):
    env = fresh_install
    port = free_port()
    base = f"http://127.0.0.1:{port}"

    password, api_key = _bootstrap(env, port)
    with gunicorn(port, env) as server:
        assert _healthy(base)["status"] == "ok"
        status, login_page = http_get(f"{base}/admin/", timeout=REQUEST_SECONDS)
        assert status == 200
        assert 'name="password"' in login_page
        assert "Memory platform" in _admin_login(base, password)
        # Killed, not stopped: the next start must cope with what it left behind.
        os.killpg(server.pid, signal.SIGKILL)

    password_again, api_key_again = _bootstrap(env, port)
    with gunicorn(port, env):
        assert _healthy(base)["status"] == "ok"
    assert (password_again, api_key_again) == (password, api_key)


def _api(base: str, api_key: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(
        f"{base}{path}",
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_SECONDS) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _children(process) -> list[str]:
    """The command lines of what `run_local` started, one string each."""
    return [" ".join(p.cmdline()) for p in psutil.Process(process.pid).children()]


def _all_started(process, parts: tuple[str, ...]) -> list[str] | None:
    """`run_local`'s children's command lines once each of `parts` is in one, else None."""
    try:
        children = _children(process)
    except psutil.Error:  # a child that ended (or is being replaced) while being read
        return None
    return children if all(any(p in c for c in children) for p in parts) else None


@pytest.mark.timeout(4 * READY_SECONDS)
def test_make_run_serves_with_a_celery_worker_and_beat_over_one_embedded_valkey(fresh_install):
    env = {**fresh_install, "MEMORY_EMBEDDED_REDIS": "1", "MEMORY_RATE_LIMIT": "20"}
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    _, api_key = _bootstrap(env, port)
    tenant_id = _tenant_id(env, api_key)

    with run_local(port, env, timeout=READY_SECONDS) as (process, _log):
        parts = ("gunicorn", "memory_platform worker", "memory_platform beat")
        _eventually(lambda: _all_started(process, parts), f"run_local starting {parts}")
        health = _healthy(base)
        assert (health["status"], health["cache"]["backend"]) == ("ok", "RedisCache")

        # ?async=1 is handed to the Celery worker through Valkey, not run in the request.
        user = str(uuid.uuid4())
        conversation = [{"role": "user", "content": "I've been a nurse in Leeds for ten years."}]
        body = {"user_id": user, "conversation": conversation}
        status, queued = _api(base, api_key, "/memories/extract?async=1", body)
        assert status == 202
        deadline = time.monotonic() + READY_SECONDS  # the Celery worker may still be starting
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
        other, window_ends = _user_in_a_new_window(tenant_id)
        with ThreadPoolExecutor(max_workers=6) as pool:
            statuses = list(
                pool.map(
                    lambda _: _api(base, api_key, f"/memories/list?user_id={other}")[0], range(30)
                )
            )
        assert time.time() < window_ends, "the 30 requests took longer than their minute"
        assert (statuses.count(200), statuses.count(429)) == (20, 10)

        # Stopping it stops all three; nothing is left running.
        started = psutil.Process(process.pid).children()
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=READY_SECONDS) == 0
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

    # The entry point that starts the servers says why Valkey is missing (`check` starts none).
    started = manage("embedded", "start", env=env, timeout=READY_SECONDS)
    assert "The embedded Valkey could not start" in started.stderr
    with run_local(port, env, timeout=READY_SECONDS) as (process, log):
        health = _healthy(base)
        assert health["cache"]["backend"] == "LocMemCache"
        # Asked once gunicorn answers: by then `run_local` has started all it was going to.
        assert not any(" worker" in c or " beat" in c for c in _children(process))
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
    tenant_id = _tenant_id(env, api_key)
    base = f"http://127.0.0.1:{port}"

    def status(request: urllib.request.Request) -> int:
        try:
            with urllib.request.urlopen(request, timeout=REQUEST_SECONDS) as response:
                return response.status
        except urllib.error.HTTPError as exc:
            return exc.code

    with gunicorn(port, env, workers=2), ThreadPoolExecutor(max_workers=6) as pool:
        _healthy(base)
        user, window_ends = _user_in_a_new_window(tenant_id)
        url = f"{base}/memories/list?user_id={user}"
        request = urllib.request.Request(url, headers={"Authorization": f"Bearer {api_key}"})
        # Concurrent clients, so that both workers serve (and count) the same user at once.
        statuses = list(pool.map(lambda _: status(request), range(45)))
        assert time.time() < window_ends, "the 45 requests took longer than their minute"

    assert (statuses.count(200), statuses.count(429)) == (30, 15)


# --- what a new user runs: `make install`, `make run` ----------------------------------------


def test_make_install_installs_the_python_client_that_the_readme_imports(tmp_path):
    # The recipe, as make would run it into a new .venv (-B: every step, -n: print, run none).
    recipe = subprocess.run(
        ["make", "-n", "-B", "install", f"VENV={tmp_path / 'venv'}"],
        cwd=ROOT, capture_output=True, text=True, check=True, timeout=60,
    ).stdout  # fmt: skip
    pip_installs = [line for line in recipe.splitlines() if "pip install" in line]
    assert any("./clients/python" in line for line in pip_installs), recipe
    assert all("--quiet" in line for line in pip_installs), recipe
    # And this .venv, made by that recipe, imports it from anywhere (not through a test's path).
    code = "import memory_platform_client; print(memory_platform_client.__file__)"
    imported = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path, env=clean_env(), capture_output=True, text=True, timeout=REQUEST_SECONDS,
    )  # fmt: skip
    assert imported.returncode == 0, imported.stderr
    assert Path(imported.stdout.strip()).is_relative_to(ROOT / "clients" / "python")


_RULE = re.compile(r"^\+-+\+$", re.MULTILINE)


def _through_the_block(log) -> str | None:
    """Everything `make run` printed, once it holds the framed block (both of its rules)."""
    log.seek(0)
    output = log.read()
    return output if len(_RULE.findall(output)) >= 2 else None


@pytest.mark.timeout(4 * READY_SECONDS)
def test_make_run_prints_the_login_and_key_last_in_a_frame_once_all_of_it_answers(fresh_install):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryFile("w+") as log:
        # -o install: this test is about what `run` prints, not about installing again.
        process = subprocess.Popen(
            ["make", "-o", "install", "run", f"PY={sys.executable}", f"PORT={port}"],
            cwd=ROOT, env=fresh_install, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        try:
            output = _eventually(
                lambda: _through_the_block(log), "make run's block", 2 * READY_SECONDS
            )
            assert _healthy(base)["status"] == "ok"
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=READY_SECONDS)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()

    saved = json.loads(
        (Path(fresh_install["MEMORY_DATA_DIR"]) / "local-credentials.json").read_text()
    )
    top, bottom = [match.start() for match in _RULE.finditer(output)][:2]
    before, block = output[:top], output[top:bottom]
    # The login and the key are in the block, and only there.
    for secret in (saved["admin_password"], saved["api_key"]):
        assert output.count(secret) == 1 and secret in block, output[-3000:]
    assert f"Admin:    {base}/admin/  user 'admin'  password {saved['admin_password']}" in block
    assert f"API key (tenant 'local'): {saved['api_key']}" in block
    assert f"Up: web, worker, beat on {base} (health: ok)" in block
    # Printed once everything answered: gunicorn (its access line for /health), the worker and
    # beat (what each logs before it can reply to a ping).
    for started in ('"GET /health 200', " ready.", "beat: Starting..."):
        assert started in before, f"{started!r} not before the block:\n{before[-3000:]}"
    # Before it, no migration list and no Celery banners to bury it in.
    for noise in ("Applying ", "Operations to perform", "[tasks]", "celery beat v"):
        assert noise not in before, f"{noise!r} printed:\n{before[-3000:]}"
