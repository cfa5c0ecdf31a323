"""Per tenant: end users, memories by status, pending reviews, extraction jobs by status, and
usage over the last days (extractions, recalls, LLM calls and tokens)."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from extraction.selectors import tenant_stats_with_jobs_list
from tenants.commands import command_tenant
from tenants.models import TenantUsage
from tenants.rls import command_scope
from tenants.selectors import USAGE_DAYS

COLUMNS = [
    ("users", "users"),
    ("memories_active", "active"),
    ("memories_pending_review", "pending"),
    ("memories_superseded", "superseded"),
    ("reviews_pending", "reviews"),
    ("jobs_queued", "queued"),
    ("jobs_running", "running"),
    ("jobs_succeeded", "succeeded"),
    ("jobs_failed", "failed"),
]
USAGE_LABELS = {
    "extractions": "extractions",
    "failed_extractions": "failed",
    "recalls": "recalls",
    "llm_calls": "llm calls",
    "prompt_tokens": "prompt tokens",
    "completion_tokens": "completion tokens",
}
USAGE_COLUMNS = [(f"usage_{name}", USAGE_LABELS[name]) for name in TenantUsage.COUNTERS]


class Command(BaseCommand):
    help = (
        "Show, per tenant, the end users, memories by status (active, pending review, "
        "superseded), pending review items, extraction jobs by status, and usage over the "
        "last days (extractions, recalls, LLM calls and tokens). Read-only."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", metavar="NAME", help="only this tenant")
        parser.add_argument("--json", action="store_true", help="one JSON object per tenant")
        parser.add_argument(
            "--days",
            type=int,
            default=USAGE_DAYS,
            metavar="N",
            help=f"usage over the last N days, today included (default {USAGE_DAYS})",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="accepted for symmetry: this command only reads"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        days = options["days"]
        if days < 1:
            raise CommandError("--days must be at least 1")
        named = command_tenant(options["tenant"])
        fields = [field for field, _ in COLUMNS + USAGE_COLUMNS]
        with command_scope("memory_stats", named):
            tenants = tenant_stats_with_jobs_list(usage_days=days)
            if named is not None:
                tenants = tenants.filter(pk=named.pk)
            rows = [
                {"tenant": t.name, **{field: getattr(t, field) for field in fields}}
                for t in tenants
            ]
        totals = {field: sum(row[field] for row in rows) for field in fields}

        if options["json"]:
            for row in rows:
                self.stdout.write(json.dumps({**row, "usage_days": days}))
        else:
            self._table(COLUMNS, rows, totals)
            self.stdout.write(f"\nUsage over the last {days} day(s), today included (UTC):")
            self._table(USAGE_COLUMNS, rows, totals)
        memories = totals["memories_active"] + totals["memories_pending_review"]
        memories += totals["memories_superseded"]
        self.stdout.write(
            f"{len(rows)} tenant(s), {totals['users']} user(s), {memories} memories "
            f"({totals['memories_active']} active, {totals['memories_pending_review']} pending "
            f"review, {totals['memories_superseded']} superseded), {totals['reviews_pending']} "
            f"pending review(s), {totals['jobs_failed']} failed job(s); in the last {days} "
            f"day(s) {totals['usage_extractions']} extraction(s), {totals['usage_recalls']} "
            f"recall(s), {totals['usage_llm_calls']} LLM call(s)."
        )

    def _table(
        self, columns: list[tuple[str, str]], rows: list[dict[str, Any]], totals: dict[str, int]
    ) -> None:
        header = ["tenant", *(label for _, label in columns)]
        body = [[row["tenant"], *(str(row[field]) for field, _ in columns)] for row in rows]
        body.append(["(all)", *(str(totals[field]) for field, _ in columns)])
        widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
        for line in [header, *body]:
            cells = [line[0].ljust(widths[0])]
            cells += [cell.rjust(width) for cell, width in zip(line[1:], widths[1:], strict=True)]
            self.stdout.write("  ".join(cells))
