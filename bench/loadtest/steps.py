"""Where a request's time goes inside the gunicorn workers, timed step by step over real HTTP.

`bench.loadtest.steps_wsgi:application` is the service with a timer around each function named
in BENCH_STEPS (comma-separated `module:function` or `module:Class.method`). A worker forgets
its timings when the `reset` file of BENCH_STEPS_DIR changes, and writes them to
BENCH_STEPS_DIR/<pid>.json when a request carries DUMP_HEADER (that request is not served).
The header's value is the number of workers: a worker that has written its timings holds the
request until that many have, so that each of the bench's concurrent dump requests reaches a
different worker (a sync worker serves one request at a time).
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

DUMP_HEADER = "X-Bench-Steps-Dump"
# The whole of Django's work on a request, from the WSGI call to the response closed.
WSGI_STEP = "wsgi"

_times: defaultdict[str, list[float]] = defaultdict(list)
_reset_seen = [0]


def steps_install(steps: Iterable[str]) -> None:
    """Put a timer around each named function (one that does not exist is skipped)."""
    for step in steps:
        module_name, _, attribute = step.partition(":")
        owner: Any = importlib.import_module(module_name)
        *owners, name = attribute.split(".")
        for part in owners:
            owner = getattr(owner, part)
        original = getattr(owner, name, None)
        if original is not None:
            setattr(owner, name, _timed(step, original))


def _timed(step: str, function: Callable) -> Callable:
    @functools.wraps(function)
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            _times[step].append((time.perf_counter() - started) * 1e6)

    return timed


def steps_directory() -> Path:
    """Where the workers find the reset file and write their timings."""
    return Path(os.environ["BENCH_STEPS_DIR"])


def steps_reset_if_asked() -> None:
    """Forget this worker's timings if the reset file changed since the last request."""
    try:
        changed = (steps_directory() / "reset").stat().st_mtime_ns
    except FileNotFoundError:
        changed = 0
    if changed != _reset_seen[0]:
        _reset_seen[0] = changed
        _times.clear()


def steps_dump() -> None:
    """Write this worker's timings for the bench to merge (whole or not at all)."""
    _write_atomically(steps_directory() / f"{os.getpid()}.json", json.dumps(_times))


def steps_dump_and_wait(workers: int, timeout: float) -> bool:
    """Write this worker's timings, then wait until `workers` workers have written theirs.

    Waiting keeps this worker from taking another of the bench's dump requests: whichever
    worker accepts first, the rest can only go to the workers that have not written yet. (Which
    idle sync worker accepts a connection is up to the kernel, and it favours the one that
    served last: asking one request at a time may reach the same worker hundreds of times.)
    False when `timeout` seconds pass first (a worker is gone or stuck)."""
    steps_dump()
    deadline = time.monotonic() + timeout
    while len(steps_dumps(steps_directory())) < workers:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def steps_dumps(directory: Path) -> list[Path]:
    """The timing files the workers have written into `directory`."""
    return sorted(directory.glob("*.json"))


def steps_record(step: str, microseconds: float) -> None:
    _times[step].append(microseconds)


def steps_reset(directory: Path) -> None:
    """Make every worker forget its timings before its next request."""
    # Renamed into place: a worker sees one modification time, never the creation's then the
    # write's (which would count as a second reset).
    _write_atomically(directory / "reset", str(time.time_ns()))


def _write_atomically(path: Path, text: str) -> None:
    scratch = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    scratch.write_text(text)
    os.replace(scratch, path)


def steps_merged(directory: Path) -> dict[str, list[float]]:
    """Every worker's dumped timings (µs) by step."""
    merged: defaultdict[str, list[float]] = defaultdict(list)
    for path in steps_dumps(directory):
        for step, values in json.loads(path.read_text()).items():
            merged[step].extend(values)
    return dict(merged)


def steps_summary(times: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    """Calls, p50 and mean (µs) of each step."""
    return {
        step: {
            "calls": len(values),
            "p50_us": round(statistics.median(values)),
            "mean_us": round(statistics.fmean(values)),
        }
        for step, values in times.items()
        if values
    }
