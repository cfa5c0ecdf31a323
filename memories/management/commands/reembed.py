"""Recompute memory embeddings with the configured model, in batches, with a progress bar."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.user_ids import user_id_normal
from integrations.embeddings import EmbeddingError
from memories.models import EndUser
from memories.services.maintenance import memory_reembed
from tenants.rls import bypassed


class ProgressBar:
    """A one-line text progress bar, redrawn in place on a terminal, one line a step otherwise."""

    def __init__(self, stream: Any, width: int = 30) -> None:
        self.stream = stream
        self.width = width
        self.interactive = hasattr(stream, "isatty") and stream.isatty()

    def __call__(self, done: int, total: int) -> None:
        filled = self.width * done // max(total, 1)
        line = f"[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total}"
        if self.interactive:
            self.stream.write("\r" + line, ending="")
            if done >= total:
                self.stream.write("")
            self.stream.flush()
        else:
            self.stream.write(line)


class Command(BaseCommand):
    help = (
        "Recompute embeddings after a change of embedding model (MEMORY_EMBEDDER). By default "
        "only memories without a vector of the current model; safe to interrupt and re-run."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--all", action="store_true", help="redo every memory, even up-to-date ones"
        )
        parser.add_argument(
            "--user",
            action="append",
            type=user_id_normal,
            metavar="USER_ID",
            help="only this end user (the API's user_id); repeat for several",
        )
        parser.add_argument("--batch-size", type=int, default=64)
        parser.add_argument(
            "--no-progress", action="store_true", help="no progress bar (still a summary)"
        )
        parser.add_argument("--dry-run", action="store_true", help="count, embed nothing")

    @bypassed("manage.py reembed")
    def handle(self, *args: Any, **options: Any) -> None:
        if options["batch_size"] < 1:
            raise CommandError("--batch-size must be at least 1")
        end_user_ids = None
        if options["user"]:
            end_user_ids = list(
                EndUser.objects.filter(external_id__in=options["user"]).values_list("pk", flat=True)
            )
            if not end_user_ids:
                raise CommandError("none of the given users exists")
        progress = None if options["no_progress"] else ProgressBar(self.stderr)

        try:
            result = memory_reembed(
                everything=options["all"],
                end_user_ids=end_user_ids,
                batch_size=options["batch_size"],
                dry_run=options["dry_run"],
                on_batch=progress,
            )
        except EmbeddingError as exc:
            raise CommandError(f"{exc}; the batches done so far are saved: run it again") from exc
        which = "memories" if options["all"] else "stale memories"
        if result.dry_run:
            self.stdout.write(
                f"Would re-embed {result.stale} {which} with {result.model_id} (dry run)."
            )
        else:
            self.stdout.write(
                f"Re-embedded {result.embedded} of {result.stale} {which} with {result.model_id} "
                f"in {result.batches} batch(es)."
            )
