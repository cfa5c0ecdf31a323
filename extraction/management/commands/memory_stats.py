"""Per tenant: end users, memories by status, pending reviews and extraction jobs by status."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from extraction.selectors import tenant_stats_with_jobs_list

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


class Command(BaseCommand):
    help = (
        "Show, per tenant, the end users, memories by status (active, pending review, "
        "superseded), pending review items and extraction jobs by status. Read-only."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", metavar="NAME", help="only this tenant")
        parser.add_argument("--json", action="store_true", help="one JSON object per tenant")
        parser.add_argument(
            "--dry-run", action="store_true", help="accepted for symmetry: this command only reads"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        tenants = tenant_stats_with_jobs_list()
        if options["tenant"]:
            tenants = tenants.filter(name=options["tenant"])
        rows = [
            {"tenant": t.name, **{field: getattr(t, field) for field, _ in COLUMNS}}
            for t in tenants
        ]
        if options["tenant"] and not rows:
            raise CommandError(f"no tenant named {options['tenant']!r}")
        totals = {field: sum(row[field] for row in rows) for field, _ in COLUMNS}

        if options["json"]:
            for row in rows:
                self.stdout.write(json.dumps(row))
        else:
            self._table(rows, totals)
        memories = totals["memories_active"] + totals["memories_pending_review"]
        memories += totals["memories_superseded"]
        self.stdout.write(
            f"{len(rows)} tenant(s), {totals['users']} user(s), {memories} memories "
            f"({totals['memories_active']} active, {totals['memories_pending_review']} pending "
            f"review, {totals['memories_superseded']} superseded), {totals['reviews_pending']} "
            f"pending review(s), {totals['jobs_failed']} failed job(s)."
        )

    def _table(self, rows: list[dict[str, Any]], totals: dict[str, int]) -> None:
        header = ["tenant", *(label for _, label in COLUMNS)]
        body = [[row["tenant"], *(str(row[field]) for field, _ in COLUMNS)] for row in rows]
        body.append(["(all)", *(str(totals[field]) for field, _ in COLUMNS)])
        widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
        for line in [header, *body]:
            cells = [line[0].ljust(widths[0])]
            cells += [cell.rjust(width) for cell, width in zip(line[1:], widths[1:], strict=True)]
            self.stdout.write("  ".join(cells))
