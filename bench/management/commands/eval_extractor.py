"""Score an extractor against the labelled conversations and print precision, recall and F1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.module_loading import import_string

from bench.extractor_eval import DEFAULT_LABELLED_SET, MATCH_THRESHOLD, evaluate_extractor

DEFAULT_EXTRACTOR = "extraction.rules.extract_candidates"


class Command(BaseCommand):
    help = (
        "Measure an extractor on the labelled conversations: micro precision, recall and F1 "
        f"(a caption matches a label when their content-word F1 is >= {MATCH_THRESHOLD})."
    )
    # Pure computation over a file: no database, and no need to load the URLconf to run it.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--path",
            type=Path,
            default=DEFAULT_LABELLED_SET,
            help="JSON-lines file of labelled conversations (default: the bundled set).",
        )
        parser.add_argument(
            "--extractor",
            default=DEFAULT_EXTRACTOR,
            help="Dotted path of a function messages -> candidates "
            f"(default: {DEFAULT_EXTRACTOR}, the offline rules).",
        )
        parser.add_argument("--json", action="store_true", help="Print the report as JSON.")

    def handle(self, *args: Any, path: Path, extractor: str, **options: Any) -> None:
        if not path.is_file():
            raise CommandError(f"No labelled set at {path}.")
        try:
            extract = import_string(extractor)
        except ImportError as error:
            raise CommandError(f"Cannot import extractor {extractor!r}: {error}") from error
        try:
            report = evaluate_extractor(extract, path)
        except (ValueError, KeyError) as error:
            raise CommandError(f"Malformed labelled set {path}: {error}") from error
        # -v 2 lists every spurious and missed caption, which is what one reads when tuning.
        details = options["verbosity"] >= 2
        if options["json"]:
            self.stdout.write(json.dumps(report.as_dict(details=details), indent=2))
            return
        self.stdout.write(f"extractor  {extractor}")
        self.stdout.write(f"labelled   {path} ({report.conversations} conversations)")
        self.stdout.write(
            f"precision  {report.precision:.3f}  recall  {report.recall:.3f}  f1  {report.f1:.3f}"
        )
        self.stdout.write(
            f"expected   {report.expected}  predicted  {report.predicted}  "
            f"true positives  {report.true_positives}  false positives  "
            f"{report.false_positives}  false negatives  {report.false_negatives}"
        )
        self.stdout.write(f"category agreement on matches  {report.category_accuracy:.3f}")
        if details:
            for result in report.results:
                for caption in result.spurious:
                    self.stdout.write(f"  {result.id}  spurious  {caption}")
                for caption in result.missed:
                    self.stdout.write(f"  {result.id}  missed    {caption}")
