"""Keep the processes of `make run` running (`run_local`): one supervisor, no daemon manager.

gunicorn is the API and supervises its own workers (a killed web worker is replaced by its
master), so the master exiting is fatal: it cannot serve (the port is taken, the settings are
broken) or was stopped on purpose, and a restart would hide that. Everything stops and
`make run` exits with its status. The Celery worker and beat are helpers: one that exits (a
broker outage it did not survive, `kill -9`, out of memory) is started again after a delay
that doubles with each quick failure up to RESTART_MAX_SECONDS, and starts again from
RESTART_FIRST_SECONDS once a run lasted HEALTHY_SECONDS. Each exit and restart is logged.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

# How long children get to finish what they are doing after Ctrl-C before they are killed.
STOP_GRACE_SECONDS = 15.0
# The delay before a helper that exited is started again: the first, doubled for each exit
# that follows a short run, up to the longest. A helper that ran HEALTHY_SECONDS was healthy:
# its next exit is a new failure, not one more in a crash loop.
RESTART_FIRST_SECONDS = 1.0
RESTART_MAX_SECONDS = 60.0
HEALTHY_SECONDS = 60.0
POLL_SECONDS = 0.2


def restart_delay(failures: int) -> float:
    """Seconds to wait before the restart that follows `failures` quick exits in a row (>= 1)."""
    return min(RESTART_MAX_SECONDS, RESTART_FIRST_SECONDS * 2 ** max(0, failures - 1))


@dataclass
class Child:
    """One supervised command: its process while it runs, and its record of quick exits."""

    name: str
    command: list[str]
    process: subprocess.Popen | None = None
    started: float = 0.0
    failures: int = 0  # exits in a row after runs shorter than HEALTHY_SECONDS
    due: float | None = None  # when it starts again, while it waits for a restart
    restarts: int = 0

    def start(self, now: float) -> int:
        """Start its command; return the new process's id."""
        self.process = subprocess.Popen(self.command)
        self.started, self.due = now, None
        return self.process.pid

    def status(self) -> int | None:
        """The exit status of its process once that has exited; None while it runs or waits."""
        return None if self.process is None else self.process.poll()

    def exited(self, now: float) -> float:
        """Record the exit of its process; schedule the restart; return the delay."""
        if now - self.started >= HEALTHY_SECONDS:
            self.failures = 0
        self.failures += 1
        self.restarts += 1
        delay = restart_delay(self.failures)
        self.process, self.due = None, now + delay
        return delay


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def supervise(
    commands: dict[str, list[str]],
    *,
    essential: Collection[str] = ("web",),
) -> int:
    """Run the commands until an essential one exits or a stop signal arrives; restart the
    others when they exit (with backoff); then stop them all and return an exit code."""
    stopping = False

    def stop(signum: int, frame: Any) -> None:
        nonlocal stopping
        stopping = True

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    children = [Child(name, command) for name, command in commands.items()]
    code = 0
    try:
        for child in children:
            child.start(time.monotonic())
        while not stopping:
            now = time.monotonic()
            ended = {c.name: (c, status) for c in children if (status := c.status()) is not None}
            fatal = next((name for name in ended if name in essential), None)
            if fatal is not None:
                code = ended[fatal][1]
                _say(f"{fatal} exited with status {code}; stopping the others")
                break
            for child, status in ended.values():
                ran = now - child.started
                delay = child.exited(now)
                _say(
                    f"{child.name} exited with status {status} after {ran:.0f} s; "
                    f"starting it again in {delay:g} s (restart {child.restarts})"
                )
            for child in children:
                if child.due is not None and child.due <= now:
                    _say(f"{child.name} started again (pid {child.start(now)})")
            time.sleep(POLL_SECONDS)
    finally:
        running = [c.process for c in children if c.process is not None]
        for process in running:
            if process.poll() is None:
                process.terminate()
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        for process in running:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return code
