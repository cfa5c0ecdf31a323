"""`make run` from nothing: migrate, bootstrap, serve; and again after the server was killed."""

from __future__ import annotations

import http.cookiejar
import os
import re
import signal
import urllib.error
import urllib.parse
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from memory_platform.embedded import stop_embedded_postgres
from tests.processes import clean_env, free_port, gunicorn, http_get, manage


@pytest.fixture
def fresh_install(tmp_path: Path):
    """An environment like a new clone's: no variables, an empty data directory."""
    data_dir = tmp_path / "data"
    yield clean_env(MEMORY_DATA_DIR=str(data_dir))
    stop_embedded_postgres(data_dir / "pg")


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
        assert "Site administration" in _admin_login(base, password)
        # Killed, not stopped: the next start must cope with what it left behind.
        os.killpg(server.pid, signal.SIGKILL)

    password_again, api_key_again = _bootstrap(env, port)
    with gunicorn(port, env):
        assert http_get(f"{base}/health")[0] == 200
    assert (password_again, api_key_again) == (password, api_key)


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
