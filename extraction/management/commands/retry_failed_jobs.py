"""Replay extraction jobs that failed or stalled (their conversations were kept)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from extraction.jobs import extraction_jobs_retry
from tenants.rls import bypassed


class Command(BaseCommand):
    help = (
        "Replay stalled extraction jobs (queued or running past MEMORY_JOB_STALE_MINUTES), then "
        "failed ones, with the conversations they kept: each on its own, the jobs tried fewest "
        "times first, then the oldest. A job tried MEMORY_JOB_MAX_ATTEMPTS times is given up "
        "and reported, not replayed, unless --given-up."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dry-run", action="store_true", help="Only count the jobs.")
        parser.add_argument("--limit", type=int, default=None, help="Replay at most N jobs.")
        parser.add_argument(
            "--given-up",
            action="store_true",
            help="Replay the jobs given up after MEMORY_JOB_MAX_ATTEMPTS too (once the cause "
            "is fixed).",
        )

    @bypassed("manage.py retry_failed_jobs")
    def handle(
        self, *args: Any, dry_run: bool, limit: int | None, given_up: bool, **options: Any
    ) -> None:
        summary = extraction_jobs_retry(dry_run=dry_run, limit=limit, given_up=given_up)
        found = f"{summary['found']} jobs ({summary['stalled']} stalled, the rest failed)"
        if dry_run:
            self.stdout.write(f"{found} would be retried (dry run).")
        else:
            self.stdout.write(
                f"{found} retried: {summary['succeeded']} succeeded, "
                f"{summary['failed']} failed again."
            )
        if summary["given_up"]:
            self.stderr.write(
                f"{summary['given_up']} jobs given up after {settings.MEMORY_JOB_MAX_ATTEMPTS} "
                "attempts are not replayed: see their errors in the admin (jobs, filter "
                '"given up"); --given-up replays them once the cause is fixed.'
            )
