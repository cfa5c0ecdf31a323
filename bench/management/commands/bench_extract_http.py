"""Extractions over HTTP through gunicorn with the LLM path: no 5xx, no lost conversation.

The service runs as `make run` runs it (gunicorn with `memory_platform.gunicorn_conf`, whose worker
timeout follows the LLM budget), with `MEMORY_EXTRACTOR=llm` against the server the bench is
given (or its in-process stub). Every conversation must come back 201/200, or 502 with the
`job_id` of the failed job that keeps it; afterwards the bench tenant must hold one job per
conversation. The tenant is deleted when the bench ends.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from bench.llm import llm_arguments_add, llm_server
from bench.loadtest.server import gunicorn_server
from bench.recall import bench_tenant_delete, bench_tenant_reset
from extraction.models import ExtractionJob
from extraction.reader import offline_candidates
from tenants.models import Tenant, TenantAPIKey
from tenants.rls import bypassed
from testing.llm_stub import LLMStub, extracting_chat_reply

DATA = Path(__file__).resolve().parents[2] / "data" / "chat_facts.jsonl"
BENCH_TENANT = "bench-extract-http"
# Outcomes that keep the conversation: extracted now or before, or failed and kept as a job.
KEPT = {"201", "200", "502+job"}


class Command(BaseCommand):
    help = (
        "Send N conversations (bench/data/chat_facts.jsonl, cycled) to POST /memories/extract "
        "of a gunicorn server running the LLM path, each for a new user, C at a time; report "
        "statuses, latency and whether every conversation was kept."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--count", type=int, default=100)
        parser.add_argument("--concurrency", type=int, default=2)
        parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
        parser.add_argument("--json", action="store_true")
        llm_arguments_add(parser)

    @bypassed("manage.py bench_extract_http (bench data)")
    def handle(self, *args: Any, count: int, concurrency: int, **options: Any) -> None:
        if count < 1 or concurrency < 1:
            raise CommandError("--count and --concurrency must be at least 1")
        server = llm_server(options)
        rows = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]
        conversations = [rows[i % len(rows)]["conversation"] for i in range(count)]
        tenant = bench_tenant_reset(name=BENCH_TENANT)
        # Active, unlike the tenants of benches that call services directly: it serves HTTP.
        Tenant.objects.filter(pk=tenant.pk).update(is_active=True)
        _, api_key = TenantAPIKey.objects.create_key(tenant=tenant, name="bench_extract_http")
        with ExitStack() as stack:
            if server is None:
                stub = LLMStub().always(extracting_chat_reply(offline_candidates)).start()
                stack.callback(stub.stop)
                llm = {"OPENAI_BASE_URL": stub.base_url, "OPENAI_API_KEY": "bench-stub"}
            else:
                llm = {
                    "OPENAI_BASE_URL": server.base_url,
                    "OPENAI_API_KEY": server.api_key,
                    "MEMORY_LLM_MODEL": server.model,
                    "MEMORY_LLM_TIMEOUT": str(server.timeout),
                }
            env = {
                **os.environ,
                **llm,
                "MEMORY_EXTRACTOR": "llm",
                "MEMORY_ASYNC_EXTRACTION": "false",
            }
            env.pop("REDIS_URL", None)
            address = stack.enter_context(gunicorn_server(workers=options["workers"], env=env))
            started = time.perf_counter()
            with ThreadPoolExecutor(concurrency) as pool:
                results = list(
                    pool.map(lambda c: _extract(address, api_key, c, server), conversations)
                )
            seconds = time.perf_counter() - started
        jobs = Counter(
            ExtractionJob.objects.filter(end_user__tenant=tenant).values_list("status", flat=True)
        )
        bench_tenant_delete(name=BENCH_TENANT)
        outcomes = Counter(outcome for outcome, _ in results)
        latencies = sorted(ms for _, ms in results)
        report = {
            "llm": server.describe() if server else "stub",
            "conversations": count,
            "outcomes": dict(outcomes),
            "server_errors": sum(n for o, n in outcomes.items() if o.startswith("5")),
            "lost": sum(n for o, n in outcomes.items() if o not in KEPT),
            "jobs": dict(jobs),
            "jobs_missing": count - sum(jobs.values()),
            "p50_ms": round(latencies[len(latencies) // 2], 1),
            "max_ms": round(latencies[-1], 1),
            "seconds": round(seconds, 1),
        }
        if options["json"]:
            self.stdout.write(json.dumps(report))
            return
        for key, value in report.items():
            self.stdout.write(f"{key:<14} {value}")


def _extract(address: str, api_key: str, conversation: list[dict], server) -> tuple[str, float]:
    """One extraction for a new user: its outcome ("201", "502+job", "502", "error") and ms."""
    body = json.dumps({"user_id": str(uuid.uuid4()), "conversation": conversation}).encode()
    request = urllib.request.Request(
        f"http://{address}/memories/extract",
        data=body,
        method="POST",
        headers={"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"},
    )
    # Longer than the server's own budget: the server must answer first, whatever the model.
    timeout = 60 + 4 * (server.timeout if server else 30)
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            outcome = str(response.status)
    except urllib.error.HTTPError as error:
        payload = error.read()
        outcome = str(error.code)
        if error.code == 502 and b'"job_id"' in payload:
            outcome = "502+job"
    except OSError as error:
        outcome = f"error: {type(error).__name__}"
    return outcome, 1000 * (time.perf_counter() - started)
