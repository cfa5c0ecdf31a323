"""An HTTP load client: concurrent connections, each request timed, and request factories."""

from __future__ import annotations

import http.client
import itertools
import json
import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from urllib.parse import urlencode

import numpy as np

from bench.loadtest.seeding import ACTIVITIES, JOBS, PLACES, THINGS


@dataclass
class LoadResult:
    """Latencies (ms) of one load phase, its wall time and the statuses seen."""

    latencies: list[float] = field(default_factory=list)
    seconds: float = 0.0
    statuses: dict[int, int] = field(default_factory=dict)

    def summary(self) -> dict[str, float]:
        """p50/p95/p99 in ms, requests per second and non-2xx count."""
        values = np.array(self.latencies or [0.0])
        errors = sum(n for status, n in self.statuses.items() if not 200 <= status < 300)
        return {
            "requests": len(self.latencies),
            "p50_ms": round(float(np.percentile(values, 50)), 2),
            "p95_ms": round(float(np.percentile(values, 95)), 2),
            "p99_ms": round(float(np.percentile(values, 99)), 2),
            "rps": round(len(self.latencies) / self.seconds, 1) if self.seconds else 0.0,
            "errors": errors,
        }


Request = tuple[str, str, bytes | None]  # method, path with query, body


def timed_call(
    host: str, port: int, headers: dict[str, str], request: Request
) -> tuple[int, bytes, float]:
    """Send one request on a new connection: (status, body, ms); 599 when the connection fails."""
    method, path, body = request
    started = time.perf_counter()
    conn = http.client.HTTPConnection(host, port, timeout=60)
    try:
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        raw, status = response.read(), response.status
    except OSError:
        raw, status = b"", 599
    finally:
        conn.close()
    return status, raw, (time.perf_counter() - started) * 1000


def run_clients(clients: int, target: Callable[[int], None]) -> float:
    """Run `target(index)` in `clients` threads to the end; return the wall time in seconds."""
    threads = [threading.Thread(target=target, args=(i,)) for i in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - started


def http_load(
    *, address: str, api_key: str, make_request: Callable[[], Request], clients: int, total: int
) -> LoadResult:
    """Send `total` requests from `clients` concurrent connections; time each one."""
    host, port = address.split(":")
    result = LoadResult()
    lock = threading.Lock()
    remaining = [total]
    headers = {"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"}

    def client(_: int) -> None:
        while True:
            with lock:
                if remaining[0] <= 0:
                    return
                remaining[0] -= 1
                request = make_request()
            status, _, elapsed = timed_call(host, int(port), headers, request)
            with lock:
                result.latencies.append(elapsed)
                result.statuses[status] = result.statuses.get(status, 0) + 1

    result.seconds = run_clients(clients, client)
    return result


def relevant_request(
    *, user_ids: list[str], prompts: Iterator[str], limit: int = 10, as_of: str | None = None
) -> Callable[[], Request]:
    """A request factory for GET /memories/relevant over the given users, round robin (with
    `as_of`: the read of what held on that day)."""
    users = itertools.cycle(user_ids)

    def make() -> Request:
        params: dict[str, str | int] = {
            "user_id": next(users),
            "prompt": next(prompts),
            "limit": limit,
        }
        if as_of:
            params["as_of"] = as_of
        return "GET", f"/memories/relevant?{urlencode(params)}", None

    return make


def extract_request(*, user_ids: list[str], seed: int = 5) -> Callable[[], Request]:
    """A request factory for POST /memories/extract with distinct small conversations."""
    users = itertools.cycle(user_ids)
    rng = random.Random(seed)
    counter = itertools.count()

    def make() -> Request:
        n = next(counter)
        activity, place = rng.choice(ACTIVITIES), rng.choice(PLACES)
        job, thing = rng.choice(JOBS), rng.choice(THINGS)
        conversation = [
            {
                "role": "user",
                "content": f"I love {activity} near {place}. I work as a {job}. "
                f"My favourite language is {thing}. (note {n})",
            },
            {"role": "assistant", "content": "Thanks, noted!"},
            {"role": "user", "content": "Can you plan something for this weekend?"},
        ]
        body = json.dumps({"user_id": next(users), "conversation": conversation}).encode()
        return "POST", "/memories/extract", body

    return make
