"""Serve a local install as production runs it: gunicorn, a Celery worker and beat (`make run`)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

# How long children get to finish what they are doing after Ctrl-C before they are killed.
STOP_GRACE_SECONDS = 15.0


class Command(BaseCommand):
    help = (
        "Run gunicorn and, when a Redis-protocol broker is configured (the embedded Valkey of "
        "`make run`, or REDIS_URL), one Celery worker and beat; stop them all together."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", default="8000")
        parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
        parser.add_argument(
            "--worker-concurrency", type=int, default=2, help="Celery worker processes"
        )

    def handle(
        self, *args: Any, host: str, port: str, workers: int, worker_concurrency: int, **_: Any
    ) -> None:
        commands = {
            "web": [
                sys.executable, "-m", "gunicorn", "config.wsgi",
                "--config", "python:config.gunicorn_conf",
                "--bind", f"{host}:{port}", "--workers", str(workers),
                # No gunicorn access log: the service logs its own access line per request,
                # with the request id and tenant (core.requests).
                "--graceful-timeout", "10",
            ],
        }  # fmt: skip
        if settings.EMBEDDED_REDIS_ERROR:
            self.stderr.write(
                f"The embedded Valkey could not start: {settings.EMBEDDED_REDIS_ERROR}\n"
                "Running without it: rate limits are counted in files under the data "
                "directory, the recall cache is per process, extractions run in the web "
                "process and no Celery worker or beat runs (no scheduled pruning)."
            )
        if settings.REDIS_URL:
            celery = [sys.executable, "-m", "celery", "-A", "config"]
            commands["worker"] = [
                *celery, "worker", "--loglevel", "INFO",
                "--concurrency", str(worker_concurrency),
            ]  # fmt: skip
            commands["beat"] = [*celery, "beat", "--loglevel", "INFO"]
        broker = "embedded Valkey" if settings.EMBEDDED_REDIS else "REDIS_URL"
        self.stdout.write(
            f"Starting {', '.join(commands)}"
            + (f" (broker: {broker})" if settings.REDIS_URL else "")
        )
        self.stdout.flush()
        metrics_files_clear()
        sys.exit(supervise(commands))


def metrics_files_clear() -> None:
    """Delete the metric sample files that processes of an earlier run left."""
    # Else they would be summed into every scrape forever; counters starting again from zero
    # is what Prometheus expects of a restart.
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if directory:
        for path in Path(directory).glob("*.db"):
            path.unlink(missing_ok=True)


def supervise(commands: dict[str, list[str]]) -> int:
    """Run the commands until one exits or a stop signal arrives; stop the rest; return a code."""
    stopping = False

    def stop(signum: int, frame: Any) -> None:
        nonlocal stopping
        stopping = True

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    children = {name: subprocess.Popen(command) for name, command in commands.items()}
    code = 0
    try:
        while not stopping:
            ended = {name: p.returncode for name, p in children.items() if p.poll() is not None}
            if ended:
                name, code = next(iter(ended.items()))
                print(f"{name} exited with status {code}; stopping the others", file=sys.stderr)
                break
            time.sleep(0.2)
    finally:
        for child in children.values():
            if child.poll() is None:
                child.terminate()
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        for child in children.values():
            try:
                child.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return code
