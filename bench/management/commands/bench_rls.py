"""The cost of row-level security on GET /memories/relevant, measured A/B in one process.

Seeds a tenant with `--users` end users (one of them with `--memories` memories), then serves
batches of requests through Django's test client, alternating the walls on (the app role,
the tenant set) and off (the login user, a superuser, with the bypass: what every query was
before the walls), so that the load of the machine falls on both alike. Needs a login user
that may run without the walls: the embedded PostgreSQL's `postgres`.
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.test import Client, override_settings

from integrations.embeddings import embed_texts
from memories.models import EndUser, Memory
from tenants.backend.base import DatabaseWrapper
from tenants.models import Tenant, TenantAPIKey
from tenants.rls import bypassed

BENCH_TENANT = "bench-rls"


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000, 2)


class Command(BaseCommand):
    help = "A/B the p50/p95 of GET /memories/relevant with row-level security on and off."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--users", type=int, default=10_000, help="end users of the tenant")
        parser.add_argument("--memories", type=int, default=100, help="of the user recalled")
        parser.add_argument("--rounds", type=int, default=10)
        parser.add_argument("--batch", type=int, default=20, help="requests per mode and round")

    @bypassed("manage.py bench_rls (bench data)")
    def handle(self, *args: Any, **options: Any) -> None:
        Tenant.objects.filter(name=BENCH_TENANT).delete()
        tenant = Tenant.objects.create(name=BENCH_TENANT)
        try:
            report = self._run(tenant, options)
        finally:
            Tenant.objects.filter(pk=tenant.pk).delete()
        self.stdout.write(json.dumps(report))

    def _run(self, tenant: Tenant, options: dict[str, Any]) -> dict[str, Any]:
        user = EndUser.objects.create(tenant=tenant, external_id="u0")
        EndUser.objects.bulk_create(
            [EndUser(tenant=tenant, external_id=f"u{i}") for i in range(1, options["users"])],
            batch_size=5000,
        )
        texts = [f"User likes hobby number {i} in city {i}" for i in range(options["memories"])]
        Memory.objects.bulk_create(
            Memory(
                end_user=user,
                tenant=tenant,
                caption=text,
                full_text=text,
                content_hash=hashlib.sha256(text.encode()).hexdigest(),
                embedding=vector,
            )
            for text, vector in zip(texts, embed_texts(texts), strict=True)
        )
        _, raw_key = TenantAPIKey.objects.create_key(tenant=tenant, name="bench")
        client = Client(HTTP_AUTHORIZATION=f"Bearer {raw_key}")
        walls_on = DatabaseWrapper._rls_wanted
        walls_off = lambda self: ("none", "", "on", "")  # noqa: E731
        times: dict[str, list[float]] = {"on": [], "off": []}
        with override_settings(MEMORY_RATE_LIMIT=10**9):
            for n in range(3):  # warm the index and the connection
                client.get("/memories/relevant", {"user_id": "u0", "prompt": f"warm {n}"})
            try:
                for round_ in range(options["rounds"]):
                    order = ("on", "off") if round_ % 2 == 0 else ("off", "on")
                    for mode in order:
                        DatabaseWrapper._rls_wanted = walls_on if mode == "on" else walls_off  # type: ignore[method-assign]
                        for n in range(options["batch"]):
                            started = time.perf_counter()
                            response = client.get(
                                "/memories/relevant",
                                {"user_id": "u0", "prompt": f"what does the user like {n}"},
                            )
                            times[mode].append(time.perf_counter() - started)
                            assert response.status_code == 200, response.content
            finally:
                DatabaseWrapper._rls_wanted = walls_on  # type: ignore[method-assign]
        return {
            "users": options["users"],
            "memories": options["memories"],
            **{
                f"walls_{mode}": {
                    "requests": len(values),
                    "p50_ms": _quantile(values, 0.5),
                    "p95_ms": _quantile(values, 0.95),
                }
                for mode, values in times.items()
            },
        }
