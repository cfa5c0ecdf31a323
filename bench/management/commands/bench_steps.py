"""Where the time of a warm GET /memories/relevant goes, step by step, under gunicorn."""

from __future__ import annotations

import http.client
import json
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from bench.loadtest.client import http_load, relevant_request
from bench.loadtest.seeding import end_users_create, memories_seed, memories_unseed, prompt_stream
from bench.loadtest.server import free_port, gunicorn_process
from bench.loadtest.steps import (
    DUMP_HEADER,
    WSGI_STEP,
    steps_dumps,
    steps_merged,
    steps_reset,
    steps_summary,
)
from memories.models import EndUser
from tenants.models import Tenant, TenantAPIKey
from tenants.rls import bypassed

BENCH_TENANT = "bench-steps"

# The read path, outermost first. Nested steps count inside their callers: the first database
# query of a request includes the connection's health check (is_usable).
READ_PATH_STEPS = [
    "rest_framework.views:APIView.dispatch",
    "rest_framework.views:APIView.initial",
    "tenants.authentication:TenantAPIKeyAuthentication.authenticate",
    "tenants.throttling:EndUserRateThrottle.allow_request",
    "rest_framework.views:APIView.perform_content_negotiation",
    "recall.apis:MemoryRelevantApi.get",
    "recall.apis:validated",
    "recall.services:user_index_find",
    "recall.index:_end_user_and_stamp",
    "recall.index:_end_user_id",
    "recall.index:_shared_stamp",
    "django.db.backends.postgresql.base:DatabaseWrapper.is_usable",
    "recall.selectors:embed_query",
    "recall.selectors:reading",
    "recall.selectors:needs",
    "recall.selectors:tokenize",
    "recall.selectors:rank",
    "recall.services:access_record",
]


class Command(BaseCommand):
    help = (
        "Seed end users with memories under a bench tenant, serve the API with gunicorn (with "
        "timers around each step of the read path) and send warm GET /memories/relevant "
        "requests with distinct prompts from one client; print each step's p50 and mean in "
        "microseconds next to the client's latency. The tenant is deleted afterwards."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--users", type=int, default=10)
        parser.add_argument("--per-user", type=int, default=100)
        parser.add_argument("--requests", type=int, default=300)
        parser.add_argument("--workers", type=int, default=2)
        parser.add_argument(
            "--step", action="append", default=[], help="another module:function to time"
        )
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    @bypassed("manage.py bench_steps (bench data)")
    def handle(self, *args: Any, **options: Any) -> None:
        old = Tenant.objects.filter(name=BENCH_TENANT).first()
        if old is not None:
            memories_unseed(tenant=old)
        tenant = Tenant.objects.create(name=BENCH_TENANT)
        try:
            _, api_key = TenantAPIKey.objects.create_key(tenant=tenant, name="bench_steps")
            ids = end_users_create(tenant=tenant, count=options["users"])
            memories_seed(end_user_ids=ids, per_user=options["per_user"])
            external = EndUser.objects.filter(pk__in=ids).values_list("external_id", flat=True)
            users = [str(e) for e in external]
            with tempfile.TemporaryDirectory() as directory:
                report = self._measure(Path(directory), api_key, users, options)
        finally:
            memories_unseed(tenant=tenant)
        if options["json"]:
            self.stdout.write(json.dumps(report))
        else:
            self._print(report)

    def _measure(
        self, directory: Path, api_key: str, users: list[str], options: dict[str, Any]
    ) -> dict[str, Any]:
        env = dict(os.environ)
        # The server runs the production settings; the rate limit would turn this into a 429
        # test.
        env.update(
            DJANGO_SETTINGS_MODULE="memory_platform.settings",
            MEMORY_RATE_LIMIT="1000000000",
            LOG_LEVEL="WARNING",
            BENCH_STEPS=",".join([*READ_PATH_STEPS, *options["step"]]),
            BENCH_STEPS_DIR=str(directory),
        )
        port, workers = free_port(), options["workers"]
        prompts = prompt_stream()
        with gunicorn_process(
            port=port, workers=workers, env=env, wsgi="bench.loadtest.steps_wsgi:application"
        ):
            address = f"127.0.0.1:{port}"
            # Warm-up: every worker loads the model and builds the users' indexes.
            warm = relevant_request(user_ids=users, prompts=prompts)
            http_load(
                address=address, api_key=api_key, make_request=warm, clients=2,
                total=max(40, 8 * len(users)),
            )  # fmt: skip
            steps_reset(directory)
            make = relevant_request(user_ids=users, prompts=prompts)
            result = http_load(
                address=address, api_key=api_key, make_request=make, clients=1,
                total=options["requests"],
            )  # fmt: skip
            _dump_every_worker(port, directory, workers)
        timed = steps_merged(directory)
        # Every request the client sent reached a worker (gunicorn queues what it cannot serve
        # yet): fewer timed means timings were lost, and the report would not be what it says.
        if len(timed.get(WSGI_STEP, [])) != options["requests"]:
            raise CommandError(
                f"the workers timed {len(timed.get(WSGI_STEP, []))} of the "
                f"{options['requests']} requests sent ({result.summary()})"
            )
        order = [WSGI_STEP, *READ_PATH_STEPS, *options["step"]]
        return {
            "client": result.summary(),
            # Outermost first.
            "steps": steps_summary({step: timed[step] for step in order if step in timed}),
            "workers": workers,
            "users": len(users),
            "per_user": options["per_user"],
        }

    def _print(self, report: dict[str, Any]) -> None:
        client = report["client"]
        self.stdout.write(
            f"{client['requests']} warm requests from 1 client over loopback HTTP, gunicorn with "
            f"{report['workers']} workers: p50 {client['p50_ms']} ms, p95 {client['p95_ms']} ms "
            f"({client['errors']} errors)"
        )
        self.stdout.write("| step (nested: counted in its caller) | calls | p50 µs | mean µs |")
        self.stdout.write("| --- | ---: | ---: | ---: |")
        for step, s in report["steps"].items():
            name = "Django (WSGI call to response closed)" if step == WSGI_STEP else step
            self.stdout.write(f"| {name} | {s['calls']} | {s['p50_us']} | {s['mean_us']} |")


def _dump_every_worker(port: int, directory: Path, workers: int) -> None:
    """Have every worker write its timings: one dump request per worker, all at once.

    A worker holds its dump request until every worker has written (see `steps_dump_and_wait`),
    so each request reaches a different worker; asked one at a time, the kernel may hand them
    all to the worker that served last."""

    def dump(_: int) -> int:
        # Longer than a worker waits for the others (DUMP_WAIT_SECONDS), so the answer comes.
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        try:
            connection.request("GET", "/health", headers={DUMP_HEADER: str(workers)})
            response = connection.getresponse()
            response.read()
            return response.status
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=workers) as pool:
        statuses = list(pool.map(dump, range(workers)))
    dumped = len(steps_dumps(directory))
    if dumped != workers:
        raise CommandError(
            f"{dumped} of the {workers} gunicorn workers wrote their timings "
            f"(dump answers: {statuses})"
        )
