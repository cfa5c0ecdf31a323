"""Replay extraction jobs that failed or stalled (their conversations were kept)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from extraction.jobs import extraction_jobs_retry


class Command(BaseCommand):
    help = (
        "Replay stalled extraction jobs (queued or running past MEMORY_JOB_STALE_MINUTES), then "
        "failed ones, oldest first, with the conversations they kept."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dry-run", action="store_true", help="Only count the jobs.")
        parser.add_argument("--limit", type=int, default=None, help="Replay at most N jobs.")

    def handle(self, *args: Any, dry_run: bool, limit: int | None, **options: Any) -> None:
        summary = extraction_jobs_retry(dry_run=dry_run, limit=limit)
        found = f"{summary['found']} jobs ({summary['stalled']} stalled, the rest failed)"
        if dry_run:
            self.stdout.write(f"{found} would be retried (dry run).")
        else:
            self.stdout.write(
                f"{found} retried: {summary['succeeded']} succeeded, "
                f"{summary['failed']} failed again."
            )
