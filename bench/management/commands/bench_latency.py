"""HTTP latency of /memories/relevant at 1,000 and 1,000,000 rows, and of /memories/extract."""

from __future__ import annotations

import json
import os
import platform
import time
import uuid
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from bench.loadtest.client import extract_request, http_load, relevant_request
from bench.loadtest.seeding import end_users_create, memories_seed, memories_unseed, prompt_stream
from bench.loadtest.server import gunicorn_server
from extraction.reader import offline_candidates
from memories.models import EndUser, Memory
from tenants.models import Tenant, TenantAPIKey
from tenants.rls import bypassed
from testing.llm_stub import LLMStub, extracting_chat_reply

BENCH_TENANT = "bench-latency"


class Command(BaseCommand):
    help = (
        "Seed end users with memories (10,000 x 100 = 1,000,000 rows by default) under a bench "
        "tenant, serve the API with gunicorn, and measure GET /memories/relevant (p50/p95/p99, "
        "requests/s at 1, 8 and 32 clients; at 1,000 rows and at the full size; with --as-of "
        "each warm phase again with that as_of) and POST "
        "/memories/extract (offline extractor and stub LLM). The tenant is deleted afterwards."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--users", type=int, default=10_000)
        parser.add_argument("--per-user", type=int, default=100)
        parser.add_argument(
            "--small-users", type=int, default=10, help="users of the small run (x per-user)"
        )
        parser.add_argument("--clients", default="1,8,32")
        parser.add_argument(
            "--requests", type=int, default=400, help="requests per phase at one client"
        )
        parser.add_argument(
            "--hot-users", type=int, default=10, help="users whose index is warm in the phases"
        )
        parser.add_argument("--workers", type=int, default=2)
        parser.add_argument("--extract-requests", type=int, default=200)
        parser.add_argument("--skip-extract", action="store_true")
        parser.add_argument("--keep", action="store_true", help="keep the seeded data")
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.add_argument(
            "--as-of",
            help="also time each warm phase with this as_of (YYYY-MM-DD): the timeline read",
        )

    @bypassed("manage.py bench_latency (bench data)")
    def handle(self, *args: Any, **options: Any) -> None:
        self.options = options
        clients = [int(c) for c in options["clients"].split(",") if c.strip()]
        self.prompts = prompt_stream()
        report: dict[str, Any] = {"machine": _machine(), "workers": options["workers"]}

        tenant, api_key = self._tenant()
        try:
            small = options["small_users"] * options["per_user"]
            users = self._seed(tenant, options["small_users"])
            report["relevant"] = {str(small): self._relevant(api_key, users, [], clients)}
            total = options["users"] * options["per_user"]
            if total > small:
                started = time.perf_counter()
                others = self._seed(tenant, options["users"] - options["small_users"])
                self._log(f"seeded {total} rows in {time.perf_counter() - started:.0f} s")
                rows = Memory.objects.filter(end_user__tenant=tenant).count()
                report["relevant"][str(rows)] = self._relevant(api_key, users, others, clients)
            if not options["skip_extract"]:
                report["extract"] = self._extract(api_key)
        finally:
            if not options["keep"]:
                memories_unseed(tenant=tenant)

        if options["json"]:
            self.stdout.write(json.dumps(report))
        else:
            self._print(report)

    # --- steps -----------------------------------------------------------------------------

    def _log(self, message: str) -> None:
        self.stderr.write(message)

    def _tenant(self) -> tuple[Tenant, str]:
        old = Tenant.objects.filter(name=BENCH_TENANT).first()
        if old is not None:
            self._log("removing the data of an earlier run")
            memories_unseed(tenant=old)
        tenant = Tenant.objects.create(name=BENCH_TENANT)
        _, api_key = TenantAPIKey.objects.create_key(tenant=tenant, name="bench_latency")
        return tenant, api_key

    def _seed(self, tenant: Tenant, count: int) -> list[str]:
        ids = end_users_create(tenant=tenant, count=count)
        memories_seed(
            end_user_ids=ids,
            per_user=self.options["per_user"],
            progress=lambda n: self._log(f"  {n} rows") if n % 100_000 == 0 else None,
        )
        external = EndUser.objects.filter(pk__in=ids).values_list("external_id", flat=True)
        return [str(e) for e in external]

    def _env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        # The server runs the production settings (without the bench app); the per-user rate
        # limit would turn a load test into a 429 test.
        env.update(
            {
                "DJANGO_SETTINGS_MODULE": "memory_platform.settings",
                "MEMORY_RATE_LIMIT": "1000000000",
                "LOG_LEVEL": "WARNING",
            },
            **extra,
        )
        return env

    def _relevant(
        self, api_key: str, users: list[str], cold: list[str], clients: list[int]
    ) -> dict:
        """Warm phases on the first `hot_users` users, then a cold one over `cold` users."""
        hot = users[: self.options["hot_users"]]
        results: dict[str, Any] = {}
        with gunicorn_server(workers=self.options["workers"], env=self._env()) as address:
            # Warm-up: both workers load the model and build the hot users' indexes.
            warm = relevant_request(user_ids=hot, prompts=self.prompts)
            http_load(
                address=address, api_key=api_key, make_request=warm, clients=2,
                total=max(40, 8 * len(hot)),
            )  # fmt: skip
            if self.options["as_of"]:
                # And their timeline indexes, which an as_of read ranks.
                warm = relevant_request(
                    user_ids=hot, prompts=self.prompts, as_of=self.options["as_of"]
                )
                http_load(
                    address=address, api_key=api_key, make_request=warm, clients=2,
                    total=max(40, 8 * len(hot)),
                )  # fmt: skip
            for n in clients:
                total = self.options["requests"] * (1 if n == 1 else 2)
                make = relevant_request(user_ids=hot, prompts=self.prompts)
                result = http_load(
                    address=address, api_key=api_key, make_request=make, clients=n, total=total
                )
                results[f"{n}_clients"] = result.summary()
                self._log(f"  relevant, {n} clients: {results[f'{n}_clients']}")
                if self.options["as_of"]:
                    make = relevant_request(
                        user_ids=hot, prompts=self.prompts, as_of=self.options["as_of"]
                    )
                    result = http_load(
                        address=address, api_key=api_key, make_request=make, clients=n,
                        total=total,
                    )  # fmt: skip
                    results[f"{n}_clients_as_of"] = result.summary()
                    self._log(f"  relevant as_of, {n} clients: {results[f'{n}_clients_as_of']}")
            # Cold: every request for a user no worker has indexed yet (rebuilt from the rows).
            cold_users = cold[: self.options["requests"]]
            if cold_users:
                make = relevant_request(user_ids=cold_users, prompts=self.prompts)
                result = http_load(
                    address=address, api_key=api_key, make_request=make, clients=1,
                    total=len(cold_users),
                )  # fmt: skip
                results["cold_1_client"] = result.summary()
            # The same prompt again: a hit in the per-process embedding cache.
            repeat = iter(["Any tips for hiking when I travel to Lisbon?"] * 10_000)
            make = relevant_request(user_ids=hot, prompts=repeat)
            http_load(address=address, api_key=api_key, make_request=make, clients=1, total=20)
            result = http_load(
                address=address, api_key=api_key, make_request=make, clients=1,
                total=self.options["requests"],
            )  # fmt: skip
            results["cached_prompt_1_client"] = result.summary()
        return results

    def _extract(self, api_key: str) -> dict:
        results: dict[str, Any] = {}
        count = self.options["extract_requests"]
        # Extract creates an end user on first use: fresh ids keep the seeded users untouched.
        users = [str(uuid.uuid4()) for _ in range(20)]
        with gunicorn_server(
            workers=self.options["workers"], env=self._env(MEMORY_EXTRACTOR="rules")
        ) as address:
            make = extract_request(user_ids=users, seed=1)
            http_load(address=address, api_key=api_key, make_request=make, clients=1, total=10)
            result = http_load(
                address=address, api_key=api_key, make_request=make, clients=1, total=count
            )
            results["offline_extractor"] = result.summary()
        stub = LLMStub().always(extracting_chat_reply(offline_candidates)).start()
        try:
            env = self._env(
                MEMORY_EXTRACTOR="llm", OPENAI_API_KEY="bench-stub", OPENAI_BASE_URL=stub.base_url
            )
            with gunicorn_server(workers=self.options["workers"], env=env) as address:
                make = extract_request(user_ids=users, seed=2)
                http_load(address=address, api_key=api_key, make_request=make, clients=1, total=10)
                calls, seconds = len(stub.calls), stub.handling_seconds
                result = http_load(
                    address=address, api_key=api_key, make_request=make, clients=1, total=count
                )
                summary = result.summary()
                made = len(stub.calls) - calls
                summary["llm_calls_per_request"] = round(made / max(len(result.latencies), 1), 2)
                summary["llm_ms_per_request"] = round(
                    1000 * (stub.handling_seconds - seconds) / max(len(result.latencies), 1), 2
                )
                results["stub_llm"] = summary
        finally:
            stub.stop()
        return results

    def _print(self, report: dict) -> None:
        machine = report["machine"]
        self.stdout.write(
            f"{machine['cpus']} CPUs ({machine['processor']}), Python {machine['python']}, "
            f"gunicorn with {report['workers']} workers, loopback HTTP"
        )
        self.stdout.write("| rows | phase | requests | p50 ms | p95 ms | p99 ms | req/s | errors |")
        self.stdout.write("| --- | --- | --- | --- | --- | --- | --- | --- |")
        for rows, phases in report["relevant"].items():
            for phase, r in phases.items():
                self.stdout.write(
                    f"| {int(rows):,} | {phase} | {r['requests']} | {r['p50_ms']} | "
                    f"{r['p95_ms']} | {r['p99_ms']} | {r['rps']} | {r['errors']} |"
                )
        if "extract" in report:
            self.stdout.write("")
            self.stdout.write("| /memories/extract | requests | p50 ms | p95 ms | LLM ms/request |")
            self.stdout.write("| --- | --- | --- | --- | --- |")
            for name, r in report["extract"].items():
                llm = r.get("llm_ms_per_request", "-")
                self.stdout.write(
                    f"| {name} | {r['requests']} | {r['p50_ms']} | {r['p95_ms']} | {llm} |"
                )


def _machine() -> dict[str, Any]:
    return {
        "cpus": os.cpu_count(),
        "processor": platform.processor() or platform.machine(),
        "python": platform.python_version(),
    }
