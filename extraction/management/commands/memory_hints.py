"""Write use-when hints for active memories that have none (an LLM call per batch)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from extraction.hints import HINTS_BATCH, memory_hints_fill
from memories.models import Memory
from tenants.rls import bypassed


class Command(BaseCommand):
    help = (
        "Ask the LLM where each active memory without a use-when hint matters, store the hint "
        "and embed the memory again with it (memories written offline or before hints existed)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--limit", type=int, default=1000, help="at most this many memories")
        parser.add_argument("--batch", type=int, default=HINTS_BATCH, help="memories per call")

    @bypassed("manage.py memory_hints")
    def handle(self, *args: Any, limit: int, batch: int, **options: Any) -> None:
        if not settings.OPENAI_API_KEY:
            raise CommandError("No LLM: set OPENAI_API_KEY (and OPENAI_BASE_URL) first.")
        memories = list(
            Memory.objects.filter(status=Memory.Status.ACTIVE, use_when="").order_by("id")[:limit]
        )
        result = memory_hints_fill(memories=memories, batch=max(1, batch))
        self.stdout.write(
            f"Hints written for {result.written} of {result.asked} memories "
            f"({result.usage.llm_calls} LLM calls, {result.usage.prompt_tokens} prompt and "
            f"{result.usage.completion_tokens} completion tokens)."
        )
        for error in result.errors:
            self.stderr.write(f"A batch failed and was left as it was: {error}")
