"""A mixed load: concurrent clients extracting, recalling, listing and deleting for many users."""

from __future__ import annotations

import json
import random
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from urllib.parse import urlencode

import numpy as np

from bench.loadtest.client import run_clients, timed_call
from bench.loadtest.seeding import ACTIVITIES, JOBS, PLACES, THINGS

# Share of each operation in the mix (extract includes its ?async=1 share).
MIX = (("extract", 0.25), ("relevant", 0.40), ("list", 0.25), ("delete", 0.10))


@dataclass
class MixedResult:
    """What the clients saw: per operation statuses and latencies, per user accepted calls."""

    seconds: float = 0.0
    statuses: dict[str, dict[int, int]] = field(default_factory=lambda: defaultdict(dict))
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    # Requests of each user that were not refused with 429.
    accepted: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    extractions_accepted: int = 0

    def record(self, op: str, user_id: str, status: int, ms: float) -> None:
        self.statuses[op][status] = self.statuses[op].get(status, 0) + 1
        self.latencies[op].append(ms)
        if status != 429:
            self.accepted[user_id] += 1
        if op.startswith("extract") and status in (200, 201, 202):
            self.extractions_accepted += 1

    def summary(self) -> dict[str, dict]:
        """Per operation: requests, p50/p95 ms and the statuses seen."""
        out = {}
        for op, values in sorted(self.latencies.items()):
            array = np.array(values)
            out[op] = {
                "requests": len(values),
                "p50_ms": round(float(np.percentile(array, 50)), 1),
                "p95_ms": round(float(np.percentile(array, 95)), 1),
                "statuses": {str(k): v for k, v in sorted(self.statuses[op].items())},
            }
        return out


def _conversation(rng: random.Random, n: int) -> list[dict[str, str]]:
    return [
        {
            "role": "user",
            "content": f"I love {rng.choice(ACTIVITIES)} near {rng.choice(PLACES)}. I work as a "
            f"{rng.choice(JOBS)}. My favourite language is {rng.choice(THINGS)}. (note {n})",
        },
        {"role": "assistant", "content": "Noted!"},
    ]


def mixed_load(
    *,
    address: str,
    api_key: str,
    user_ids: list[str],
    clients: int,
    seconds: float,
    async_share: float = 0.5,
    seed: int = 3,
) -> MixedResult:
    """Run `clients` threads for `seconds`, each picking operations by MIX at random."""
    host, port = address.split(":")
    headers = {"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"}
    result = MixedResult()
    lock = threading.Lock()
    known: dict[str, list[str]] = defaultdict(list)  # memory ids seen per user, to delete
    counter = iter(range(10**9))
    deadline = time.monotonic() + seconds
    ops, weights = zip(*MIX, strict=True)

    def one(rng: random.Random) -> None:
        op = rng.choices(ops, weights)[0]
        user = rng.choice(user_ids)
        body = None
        if op == "extract":
            with lock:
                n = next(counter)
            run_async = rng.random() < async_share
            op = "extract_async" if run_async else "extract"
            path = "/memories/extract" + ("?async=1" if run_async else "")
            body = json.dumps({"user_id": user, "conversation": _conversation(rng, n)}).encode()
            method = "POST"
        elif op == "relevant":
            prompt = f"what do I do near {rng.choice(PLACES)}?"
            method, path = (
                "GET",
                "/memories/relevant?" + urlencode({"user_id": user, "prompt": prompt}),
            )
        elif op == "list":
            method, path = "GET", "/memories/list?" + urlencode({"user_id": user})
        else:
            with lock:
                ids = known[user]
                memory_id = ids.pop(rng.randrange(len(ids))) if ids else "mem_0000000000000000"
            method, path = "DELETE", f"/memories/{memory_id}?user_id={user}"
        status, raw, ms = timed_call(host, int(port), headers, (method, path, body))
        with lock:
            result.record(op, user, status, ms)
            if op == "list" and status == 200:
                known[user] = [m["id"] for m in json.loads(raw)["memories"]]

    def client(index: int) -> None:
        rng = random.Random(seed * 1000 + index)
        while time.monotonic() < deadline:
            one(rng)

    result.seconds = run_clients(clients, client)
    return result
