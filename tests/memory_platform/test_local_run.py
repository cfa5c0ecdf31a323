"""`make run` from nothing: migrate, bootstrap, serve; and again after the server was killed."""

from __future__ import annotations

import http.cookiejar
import os
import re
import signal
import urllib.parse
import urllib.request
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
