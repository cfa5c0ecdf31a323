"""Serve a local install as production runs it: gunicorn, a Celery worker and beat (`make run`).

Once all of them answer, it prints one framed block saying so, with the admin login and API key
under `--bootstrap`: the last thing of the start, not a line among the servers' own output.
`memory_platform.supervisor` keeps them running: a worker or beat that exits is started again.
"""

from __future__ import annotations

import io
import json
import os
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

from memory_platform.supervisor import supervise

# Readiness is asked again and again, each ask allowed this long: a loaded machine (a first
# run importing everything on two cores) answers late, and asking once more costs nothing.
POLL_SECONDS = 1.0
ASK_SECONDS = 10.0
# A ping waits this long for replies; a node that replies later answers the next one.
PING_SECONDS = 3.0
# A Celery process that has not answered this long after gunicorn did (a broker refusing it)
# does not hold the login back for good: the block is printed, saying who is missing.
CELERY_GRACE_SECONDS = 180.0


class Command(BaseCommand):
    help = (
        "Run gunicorn and, when a Redis-protocol broker is configured (the embedded Valkey of "
        "`make run`, or REDIS_URL), one Celery worker and beat, started again if they exit; "
        "stop them all together."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", default="8000")
        parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
        parser.add_argument(
            "--worker-concurrency", type=int, default=2, help="Celery worker processes"
        )
        parser.add_argument(
            "--bootstrap",
            action="store_true",
            help="Ensure the local admin login and API key (bootstrap_local) and print them "
            "once everything answers.",
        )

    def handle(
        self,
        *args: Any,
        host: str,
        port: str,
        workers: int,
        worker_concurrency: int,
        bootstrap: bool,
        **_: Any,
    ) -> None:
        # Made before anything starts, printed after: bootstrap_local's own lines, captured.
        credentials: list[str] = []
        if bootstrap:
            output = io.StringIO()
            call_command("bootstrap_local", host=host, port=port, stdout=output)
            credentials = output.getvalue().splitlines()
        commands = {
            "web": [
                sys.executable, "-m", "gunicorn", "memory_platform.wsgi",
                "--config", "python:memory_platform.gunicorn_conf",
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
        # Celery node names of this run, so that a ping asks these processes and no others
        # (another `make worker` on the same broker answers to its own name).
        nodes: dict[str, str] = {}
        if settings.REDIS_URL:
            nodes = {
                name: f"{name}-{os.getpid()}@{socket.gethostname()}" for name in ("worker", "beat")
            }
            # --quiet: no start banners; "Starting ..." below and the block say what runs.
            celery = [sys.executable, "-m", "celery", "--quiet", "-A", "memory_platform"]
            commands["worker"] = [
                *celery, "worker", "--loglevel", "INFO",
                "--concurrency", str(worker_concurrency), "--hostname", nodes["worker"],
            ]  # fmt: skip
            # Remote control lets beat answer a ping: how the block knows beat is up.
            commands["beat"] = [
                *celery, "beat", "--loglevel", "INFO",
                "--enable-remote-control", "--hostname", nodes["beat"],
            ]  # fmt: skip
        broker = "embedded Valkey" if settings.EMBEDDED_REDIS else "REDIS_URL"
        self.stdout.write(
            f"Starting {', '.join(commands)}"
            + (f" (broker: {broker})" if settings.REDIS_URL else "")
        )
        self.stdout.flush()
        metrics_files_clear()
        stopped = threading.Event()
        announcer = threading.Thread(
            target=self._announce_when_up,
            args=(host, port, list(commands), nodes, credentials, stopped),
            daemon=True,
        )
        announcer.start()
        try:
            code = supervise(commands)
        finally:
            stopped.set()
        sys.exit(code)

    def _announce_when_up(
        self,
        host: str,
        port: str,
        names: list[str],
        nodes: dict[str, str],
        credentials: list[str],
        stopped: threading.Event,
    ) -> None:
        """Print the block once gunicorn answers and the Celery processes reply to a ping."""
        base = f"http://{host}:{port}"
        health = web_answer(f"http://{local_address(host)}:{port}/health", stopped)
        if health is None:  # stopped before it answered
            return
        missing = celery_wait(nodes, stopped)
        if stopped.is_set():
            return
        self.stdout.write(ready_block(names, base, health, missing, credentials))
        self.stdout.flush()


def ready_block(
    names: list[str], base: str, health: str, missing: list[str], credentials: list[str]
) -> str:
    """The block printed once everything answers (the README shows it, checked by a test)."""
    lines = [f"Up: {', '.join(names)} on {base} (health: {health})"]
    if missing:
        lines.append(f"Not answering yet: {', '.join(missing)} (see the log above)")
    if credentials:
        lines += ["", *credentials]
    lines += ["", "Ctrl-C stops them all."]
    return framed(lines)


def local_address(host: str) -> str:
    """The address this machine reaches a server bound to `host` at (a wildcard: loopback)."""
    if host in {"", "0.0.0.0"}:
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def web_answer(url: str, stopped: threading.Event) -> str | None:
    """Poll the health URL until the server answers; its status ("ok", "down", ...).

    Any HTTP answer counts (a 503 with the database down, a 400 for a host outside
    DJANGO_ALLOWED_HOSTS): the server is up and the block says how it is. None if stopped."""
    while not stopped.is_set():
        try:
            with urllib.request.urlopen(url, timeout=ASK_SECONDS) as response:
                return str(json.loads(response.read()).get("status", response.status))
        except urllib.error.HTTPError as exc:
            return f"HTTP {exc.code}"
        except (OSError, ValueError):  # not listening yet, reset, timed out, not JSON
            stopped.wait(POLL_SECONDS)
    return None


def celery_wait(nodes: dict[str, str], stopped: threading.Event) -> list[str]:
    """Ping the Celery nodes until each has replied once; the names of those that did not
    within CELERY_GRACE_SECONDS."""
    if not nodes:
        return []
    from memory_platform.celery import app

    waiting = dict(nodes)
    deadline = time.monotonic() + CELERY_GRACE_SECONDS
    while waiting and not stopped.is_set() and time.monotonic() < deadline:
        try:
            # `limit`: return as soon as each has replied, not after the whole timeout.
            replies = app.control.ping(
                destination=list(waiting.values()), timeout=PING_SECONDS, limit=len(waiting)
            )
        except Exception:  # the broker refusing or resetting: ask again, as for gunicorn
            replies = []
        answered = {node for reply in replies for node in reply}
        waiting = {name: node for name, node in waiting.items() if node not in answered}
        if waiting:
            stopped.wait(POLL_SECONDS)
    return list(waiting)


def framed(lines: list[str]) -> str:
    """The lines in an ASCII box, so that they stand out among the servers' log lines."""
    width = max(len(line) for line in lines)
    rule = "+" + "-" * (width + 4) + "+"
    body = [f"|  {line.ljust(width)}  |" for line in ["", *lines, ""]]
    return "\n".join(["", rule, *body, rule])


def metrics_files_clear() -> None:
    """Delete the metric sample files that processes of an earlier run left."""
    # Else they would be summed into every scrape forever; counters starting again from zero
    # is what Prometheus expects of a restart.
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if directory:
        for path in Path(directory).glob("*.db"):
            path.unlink(missing_ok=True)
