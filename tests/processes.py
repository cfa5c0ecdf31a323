"""Run the project's own commands (manage.py, gunicorn) as real subprocesses in tests."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from bench.loadtest.server import free_port, gunicorn_process

__all__ = ["ROOT", "clean_env", "free_port", "gunicorn", "http_get", "manage"]

ROOT = Path(__file__).resolve().parent.parent


def clean_env(**overrides: str) -> dict[str, str]:
    """Return the environment of a new user's shell: none of the service's variables set."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "MEMORY_"))}
    for name in ("DATABASE_URL", "REDIS_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "RECALL_MODE"):
        env.pop(name, None)
    env.update(overrides)
    return env


def manage(*args: str, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess:
    """Run `python manage.py ...` and return the finished process (raises on failure)."""
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
    )


def http_get(url: str, timeout: float = 5) -> tuple[int, str]:
    """GET a URL and return (status, body), including error statuses."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def gunicorn(
    port: int, env: dict[str, str], workers: int = 2
) -> contextlib.AbstractContextManager[subprocess.Popen]:
    """Serve the project under gunicorn as `make run` does, until the block ends."""
    return gunicorn_process(port=port, workers=workers, env=env, timeout=60)
