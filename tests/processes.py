"""Run the project's own commands (manage.py, gunicorn) as real subprocesses in tests."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TypeVar

from bench.loadtest.server import free_port, gunicorn_process

__all__ = [
    "READY_SECONDS",
    "REQUEST_SECONDS",
    "ROOT",
    "clean_env",
    "eventually",
    "free_port",
    "gunicorn",
    "http_get",
    "manage",
    "run_local",
]

ROOT = Path(__file__).resolve().parent.parent

# How long a live test waits for a server to come up, and for one request: generous, because
# the suite must pass on a loaded 2-core machine, where a first request that loads the
# embedding model can take a minute. A test about speed measures it; it never times out on it.
READY_SECONDS = 300
REQUEST_SECONDS = 120

T = TypeVar("T")


def eventually(check: Callable[[], T | None], what: str, seconds: float) -> T:
    """Poll `check` until it returns something other than None; fail after `seconds`."""
    deadline = time.monotonic() + seconds
    while (result := check()) is None:
        assert time.monotonic() < deadline, f"{what}: not within {seconds} s"
        time.sleep(0.5)
    return result


def clean_env(**overrides: str) -> dict[str, str]:
    """Return the environment of a new user's shell: none of the service's variables set."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "MEMORY_"))}
    # PROMETHEUS_MULTIPROC_DIR: the settings set it for this process; a new one derives its own.
    names = ("DATABASE_URL", "REDIS_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "RECALL_MODE")
    for name in (*names, "PROMETHEUS_MULTIPROC_DIR"):
        env.pop(name, None)
    env.update(overrides)
    return env


class ManageFailed(subprocess.CalledProcessError):
    """A manage.py command that failed, saying why: its output's end is in the message (a
    failure on a loaded machine is otherwise a bare exit status)."""

    def __str__(self) -> str:
        return f"{super().__str__()}\n{(self.stdout or '')[-2000:]}\n{(self.stderr or '')[-4000:]}"


def manage(*args: str, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess:
    """Run `python manage.py ...` and return the finished process (raises `ManageFailed`)."""
    command = [sys.executable, "manage.py", *args]
    finished = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )
    if finished.returncode:
        raise ManageFailed(finished.returncode, command, finished.stdout, finished.stderr)
    return finished


def http_get(url: str, timeout: float = REQUEST_SECONDS) -> tuple[int, str]:
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


@contextlib.contextmanager
def run_local(
    port: int, env: dict[str, str], timeout: float = 90
) -> Iterator[tuple[subprocess.Popen, IO[str]]]:
    """Run `manage.py run_local` (what `make run` execs) until the block ends; yield it, its log."""
    with tempfile.TemporaryFile("w+") as log:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "run_local", "--port", str(port)],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + timeout
            while not _listening(port):
                if process.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    raise RuntimeError(f"run_local did not serve: {log.read()[-3000:]}")
                time.sleep(0.1)
            yield process, log
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0
