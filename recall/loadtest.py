"""The pieces of `bench_latency`: synthetic memories, fast seeding, a gunicorn server, HTTP load.

Seeding a million rows goes server-side: a few thousand distinct facts are embedded once into
a temporary pool table, and one INSERT ... SELECT per chunk of users copies pool rows (vectors
included) into memories, so no vector crosses the wire twice.
"""

from __future__ import annotations

import contextlib
import http.client
import itertools
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlencode

import numpy as np
from django.conf import settings
from django.db import connection, transaction

from extraction.candidates import content_hash, embedding_text
from extraction.rules import extract_candidates
from memories.models import EndUser, Memory, Tenant
from recall.embeddings import current_model_id, embed_texts


def _words(text: str) -> list[str]:
    return text.split()


_ACTIVITIES = _words(
    """
    hiking climbing kayaking sailing cycling running swimming surfing skiing chess baking
    pottery painting knitting gardening birdwatching photography woodworking yoga judo fencing
    rowing archery calligraphy origami juggling snorkelling camping fishing tennis badminton
    squash golf bouldering skating dancing singing drumming cooking
    """
)
_PLACES = _words(
    """
    Lisbon Porto Madrid Seville Paris Lyon Berlin Hamburg Munich Vienna Prague Krakow Warsaw
    Oslo Bergen Stockholm Helsinki Copenhagen Dublin Cork Edinburgh Glasgow Leeds Bristol
    Amsterdam Utrecht Ghent Zurich Geneva Milan Turin Naples Athens Istanbul Tokyo Kyoto Osaka
    Seoul Taipei Hanoi Lima Quito Bogota Montreal Toronto Denver Austin Boston
    """
)
_THINGS = _words(
    """
    Python Rust Go Kotlin Swift Haskell Elixir Java TypeScript Ruby Postgres Redis Django
    Flask React Vue Svelte Kubernetes Terraform Neovim Emacs Linux FreeBSD Docker
    """
)
_PETS = _words("cat dog parrot rabbit hamster tortoise ferret goldfish gecko")
_NAMES = _words(
    """
    Miso Pixel Biscuit Luna Olive Pepper Mango Juniper Nova Ziggy Tofu Clover Rocket Maple
    Pickle
    """
)
_JOBS = _words(
    """
    nurse teacher architect plumber pharmacist pilot chef librarian translator lawyer designer
    electrician carpenter accountant veterinarian
    """
)
_FOODS = _words(
    "ramen tacos paella sushi curry pho risotto falafel dumplings lasagne shakshuka pierogi"
)

_TEMPLATES: list[tuple[str, tuple[list[str], ...]]] = [
    ("User loves {} and goes most weekends near {}", (_ACTIVITIES, _PLACES)),
    ("User works as a {} in {}", (_JOBS, _PLACES)),
    ("User is learning {} for a project about {}", (_THINGS, _ACTIVITIES)),
    ("User has a {} named {} that likes {}", (_PETS, _NAMES, _ACTIVITIES)),
    ("User's favourite dinner is {} from a place in {}", (_FOODS, _PLACES)),
    ("User visited {} last year and wants to try {} there", (_PLACES, _ACTIVITIES)),
    ("User prefers {} over {} at work", (_THINGS, _THINGS)),
]

_PROMPTS = [
    "Any tips for {} when I travel to {}?",
    "Plan a weekend of {} around {} for me",
    "What should I know about {} before my trip to {}?",
    "Suggest a gift related to {} for a friend in {}",
]


def fact_pool(*, size: int, seed: int = 7) -> list[str]:
    """Distinct synthetic facts about users, reproducibly sampled from templates."""
    rng = random.Random(seed)
    facts: dict[str, None] = {}
    while len(facts) < size:
        template, vocabularies = rng.choice(_TEMPLATES)
        words = [rng.choice(vocabulary) for vocabulary in vocabularies]
        if len(set(words)) == len(words):
            facts[template.format(*words)] = None
    return list(facts)


def prompt_stream(*, seed: int = 11) -> Iterator[str]:
    """Endless distinct prompts (so no request hits the embedding cache)."""
    combos = list(itertools.product(_PROMPTS, _ACTIVITIES, _PLACES))
    random.Random(seed).shuffle(combos)
    for round_number in itertools.count():
        for template, activity, place in combos:
            prompt = template.format(activity, place)
            yield prompt if round_number == 0 else f"{prompt} (take {round_number + 1})"


# --- seeding -----------------------------------------------------------------------------------


def end_users_create(*, tenant: Tenant, count: int) -> list[int]:
    """Create `count` end users of the tenant; return their primary keys."""
    users = EndUser.objects.bulk_create(
        [EndUser(tenant=tenant, external_id=uuid.uuid4()) for _ in range(count)], batch_size=2000
    )
    return [user.pk for user in users]


def memories_seed(
    *,
    end_user_ids: list[int],
    per_user: int,
    pool_size: int = 3000,
    chunk_users: int = 250,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Give every user `per_user` distinct active memories drawn from an embedded fact pool."""
    if per_user > pool_size:
        raise ValueError("per_user must not exceed the pool size")
    facts = fact_pool(size=pool_size)
    vectors = embed_texts([embedding_text(fact, fact) for fact in facts])
    table = Memory._meta.db_table
    salt = uuid.uuid4().hex
    inserted = 0
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TEMP TABLE IF NOT EXISTS bench_pool "
            "(n int PRIMARY KEY, caption text, full_text text, content_hash text, embedding vector)"
        )
        cursor.execute("TRUNCATE bench_pool")
        with cursor.copy("COPY bench_pool FROM STDIN") as copy:
            for n, (fact, vector) in enumerate(zip(facts, vectors, strict=True)):
                literal = "[" + ",".join(f"{x:.6g}" for x in vector) + "]"
                copy.write_row((n, fact[:100], fact, content_hash(fact), literal))
        for start in range(0, len(end_user_ids), chunk_users):
            chunk = end_user_ids[start : start + chunk_users]
            with transaction.atomic():
                # Row n of a user is pool fact (offset + 31 n) mod pool_size: distinct for every
                # n below pool_size / gcd(31, pool_size), and users differ by their offset.
                cursor.execute(
                    f"INSERT INTO {table} (id, end_user_id, caption, full_text, category, "
                    "confidence, status, content_hash, embedding, embedding_model, created_at, "
                    "updated_at, access_count) "
                    "SELECT 'mem_' || substr(md5(u.id::text || ':' || g::text || %s), 1, 16), "
                    "u.id, p.caption, p.full_text, 'other', 0.9, 'active', p.content_hash, "
                    "p.embedding, %s, now() - (%s - g) * interval '1 minute', now(), 0 "
                    "FROM unnest(%s::bigint[]) AS u(id) "
                    "CROSS JOIN generate_series(0, %s - 1) AS g "
                    "JOIN bench_pool p ON p.n = (u.id * 7919 + g * 31) %% %s",
                    [salt, current_model_id(), per_user, chunk, per_user, pool_size],
                )
                inserted += cursor.rowcount
            if progress is not None:
                progress(inserted)
        cursor.execute(f"ANALYZE {table}")
    return inserted


def memories_unseed(*, tenant: Tenant) -> None:
    """Delete a bench tenant; its bulk memories go first in plain SQL (the ORM would be slow)."""
    with connection.cursor() as cursor:
        # Seeded memories have no versions or reviews; extract-made ones go with the ORM.
        cursor.execute(
            f"DELETE FROM {Memory._meta.db_table} m USING {EndUser._meta.db_table} u "
            "WHERE m.end_user_id = u.id AND u.tenant_id = %s AND m.source_session_id IS NULL "
            "AND NOT EXISTS (SELECT 1 FROM memories_memoryversion v WHERE v.memory_id = m.id)",
            [tenant.pk],
        )
    tenant.delete()


# --- the server --------------------------------------------------------------------------------


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def gunicorn_process(
    *, port: int, workers: int, env: dict[str, str], timeout: float = 90
) -> Iterator[subprocess.Popen]:
    """Serve the project under gunicorn (as `make run` does) on `port` until the block ends."""
    binary = Path(sys.executable).parent / "gunicorn"
    process = subprocess.Popen(
        [
            str(binary),
            "memory_platform.wsgi",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(workers),
            "--backlog",
            "256",
        ],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"gunicorn exited: {process.stderr.read().decode()[-2000:]}")
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if time.monotonic() > deadline:
                raise TimeoutError(f"gunicorn did not start within {timeout:.0f} s")
            time.sleep(0.1)
        yield process
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@contextlib.contextmanager
def gunicorn_server(*, workers: int, env: dict[str, str]) -> Iterator[str]:
    """Serve the project under gunicorn on a free port until the block ends; yield its address."""
    port = free_port()
    with gunicorn_process(port=port, workers=workers, env=env):
        yield f"127.0.0.1:{port}"


# --- the load ----------------------------------------------------------------------------------


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


def http_load(
    *, address: str, api_key: str, make_request: Callable[[], Request], clients: int, total: int
) -> LoadResult:
    """Send `total` requests from `clients` concurrent connections; time each one."""
    host, port = address.split(":")
    result = LoadResult()
    lock = threading.Lock()
    remaining = [total]
    headers = {"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"}

    def client() -> None:
        while True:
            with lock:
                if remaining[0] <= 0:
                    return
                remaining[0] -= 1
                method, path, body = make_request()
            started = time.perf_counter()
            conn = http.client.HTTPConnection(host, int(port), timeout=60)
            try:
                conn.request(method, path, body=body, headers=headers)
                response = conn.getresponse()
                response.read()
                status = response.status
            except OSError:
                status = 599
            finally:
                conn.close()
            elapsed = (time.perf_counter() - started) * 1000
            with lock:
                result.latencies.append(elapsed)
                result.statuses[status] = result.statuses.get(status, 0) + 1

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    result.seconds = time.perf_counter() - started
    return result


def relevant_request(
    *, user_ids: list[str], prompts: Iterator[str], limit: int = 10
) -> Callable[[], Request]:
    """A request factory for GET /memories/relevant over the given users, round robin."""
    users = itertools.cycle(user_ids)

    def make() -> Request:
        query = urlencode({"user_id": next(users), "prompt": next(prompts), "limit": limit})
        return "GET", f"/memories/relevant?{query}", None

    return make


def extract_request(*, user_ids: list[str], seed: int = 5) -> Callable[[], Request]:
    """A request factory for POST /memories/extract with distinct small conversations."""
    users = itertools.cycle(user_ids)
    rng = random.Random(seed)
    counter = itertools.count()

    def make() -> Request:
        n = next(counter)
        activity, place = rng.choice(_ACTIVITIES), rng.choice(_PLACES)
        job, thing = rng.choice(_JOBS), rng.choice(_THINGS)
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


# --- an OpenAI-protocol stub for the write path ------------------------------------------------


class StubLLM:
    """A local chat-completions server that answers like an extracting LLM, instantly.

    Extraction prompts get the offline extractor's facts as JSON; contradiction prompts get
    "no contradiction". It times its own handling so the bench can report the LLM apart.
    """

    def __init__(self) -> None:
        self.calls = 0
        self.seconds = 0.0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """The OpenAI base URL to configure."""
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> StubLLM:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _reply(self, body: dict) -> str:
        text = str(body.get("messages", [{}])[-1].get("content", ""))
        if "<statements>" in text:
            return json.dumps({"contradiction": False, "reason": "stub"})
        conversation = text.split("<conversation>", 1)[-1].split("</conversation>", 1)[0]
        messages = []
        for line in conversation.strip().splitlines():
            with contextlib.suppress(ValueError):
                messages.append(json.loads(line))
        candidates = extract_candidates([m for m in messages if isinstance(m, dict)])
        return json.dumps(
            [
                {
                    "caption": c.caption,
                    "full_text": c.full_text,
                    "category": c.category,
                    "confidence": c.confidence,
                }
                for c in candidates
            ]
        )

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                started = time.perf_counter()
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                content = stub._reply(body)
                payload = json.dumps(
                    {
                        "id": "chatcmpl-bench",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": body.get("model", "stub"),
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": content},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {
                            "prompt_tokens": 100,
                            "completion_tokens": 50,
                            "total_tokens": 150,
                        },
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                with stub._lock:
                    stub.calls += 1
                    stub.seconds += time.perf_counter() - started

            def log_message(self, format: str, *args: object) -> None:
                pass

        return Handler
