"""Run the project's own commands (manage.py, gunicorn) as real subprocesses in tests."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


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


@contextlib.contextmanager
def gunicorn(port: int, env: dict[str, str], workers: int = 2) -> Iterator[subprocess.Popen]:
    """Serve the project under gunicorn as `make run` does, until the block ends."""
    process = subprocess.Popen(
        [
            str(BIN / "gunicorn"),
            "memory_platform.wsgi",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(workers),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        wait_for_port(port, process)
        yield process
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def wait_for_port(port: int, process: subprocess.Popen, timeout: float = 60) -> None:
    """Wait until something accepts connections on `port`, or fail with the server's log."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited: {process.stderr.read().decode()[-2000:]}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listened on port {port} within {timeout}s")
