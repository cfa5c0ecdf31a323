"""The service's WSGI application with the step timers of `bench.loadtest.steps` (bench only)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_platform.settings")

from django.core.wsgi import get_wsgi_application

from bench.loadtest.steps import (
    DUMP_HEADER,
    WSGI_STEP,
    steps_dump_and_wait,
    steps_install,
    steps_record,
    steps_reset_if_asked,
)

_django = get_wsgi_application()
steps_install(filter(None, os.environ.get("BENCH_STEPS", "").split(",")))
_DUMP_KEY = "HTTP_" + DUMP_HEADER.upper().replace("-", "_")
# How long a dump request waits for the other workers' dumps: under gunicorn's worker timeout
# (30 s), past which the master would kill the waiting worker.
DUMP_WAIT_SECONDS = 20.0


def application(environ: dict, start_response: Callable) -> list[bytes]:
    """The service, timed; a dump request writes this worker's timings instead."""
    # First: a worker that served none of the measured requests must not dump the warm-up's.
    steps_reset_if_asked()
    if environ.get(_DUMP_KEY):
        workers = int(environ[_DUMP_KEY]) if environ[_DUMP_KEY].isdigit() else 1
        everyone = steps_dump_and_wait(workers, DUMP_WAIT_SECONDS)
        start_response("204 No Content" if everyone else "504 Gateway Timeout", [])
        return []
    started = time.perf_counter()
    try:
        result = _django(environ, start_response)
        body = b"".join(result)
        if hasattr(result, "close"):
            result.close()  # request_finished runs here: part of the request's cost
        return [body]
    finally:
        steps_record(WSGI_STEP, (time.perf_counter() - started) * 1e6)
        # A warm-up request its client gave up on may end after the reset: not a measured one.
        steps_reset_if_asked()
