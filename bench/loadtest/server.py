"""Serve the project under gunicorn, as `make run` does, for benches and tests."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from django.conf import settings


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def gunicorn_process(
    *,
    port: int,
    workers: int,
    env: dict[str, str],
    timeout: float = 90,
    wsgi: str = "memory_platform.wsgi",
) -> Iterator[subprocess.Popen]:
    """Serve the project under gunicorn (as `make run` does) on `port` until the block ends."""
    binary = Path(sys.executable).parent / "gunicorn"
    command = [
        str(binary), wsgi, "--config", "python:memory_platform.gunicorn_conf",
        "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--backlog", "256",
    ]  # fmt: skip
    # Its log goes to a file, never an unread pipe: once a pipe's 64 KiB fill up (a warning per
    # 429 does it), every worker blocks on its next log line and the server hangs.
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            command, cwd=settings.BASE_DIR, env=env, stdout=subprocess.DEVNULL, stderr=log,
            start_new_session=True,
        )  # fmt: skip
        try:
            _wait_until_listening(process, port, timeout, log)
            yield process
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def _wait_until_listening(
    process: subprocess.Popen, port: int, timeout: float, log: IO[bytes]
) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"gunicorn exited: {log.read().decode()[-2000:]}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        if time.monotonic() > deadline:
            raise TimeoutError(f"gunicorn did not start within {timeout:.0f} s")
        time.sleep(0.1)


@contextlib.contextmanager
def gunicorn_server(*, workers: int, env: dict[str, str]) -> Iterator[str]:
    """Serve the project under gunicorn on a free port until the block ends; yield its address."""
    port = free_port()
    with gunicorn_process(port=port, workers=workers, env=env):
        yield f"127.0.0.1:{port}"
