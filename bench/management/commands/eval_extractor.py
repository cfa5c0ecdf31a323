"""Score an extractor against the labelled conversations: precision, recall and F1, and, through
the real write path, the facts lost, misattributed and garbled (`bench.extractor_eval`)."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DatabaseError
from django.utils.module_loading import import_string

from bench.extractor_eval import (
    DEFAULT_LABELLED_SET,
    MATCH_THRESHOLD,
    SPLITS,
    EvaluationReport,
    evaluate_rows,
    llm_extractor,
    load_labelled,
    rows_select,
)
from bench.extractor_write import throwaway_tenant, writer_for
from bench.llm import cost_line, llm_arguments_add, llm_server
from tenants.rls import bypassed

DEFAULT_EXTRACTOR = "extraction.reader.offline_candidates"


class Command(BaseCommand):
    help = (
        "Measure an extractor on the labelled conversations: micro precision, recall and F1 "
        f"(a caption matches a label when their content-word F1 is >= {MATCH_THRESHOLD}). "
        "With an LLM server (--llm-base-url, or OPENAI_BASE_URL) the extractor is the "
        "service's LLM path: the model, then the grounding check. Each conversation is then "
        "written for a fresh user of a throwaway tenant (rolled back) to count the facts lost "
        "on the way; --no-write skips that and needs no database."
    )
    # No need to load the URLconf; the write needs the database, rolled back at the end.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--path",
            type=Path,
            default=DEFAULT_LABELLED_SET,
            help="JSON-lines file of labelled conversations (default: the bundled set; "
            "bench/data/chat_facts.jsonl has splits and kinds).",
        )
        parser.add_argument(
            "--extractor",
            default=None,
            help="Dotted path of a function messages -> candidates "
            f"(default: {DEFAULT_EXTRACTOR}, the offline path; not with --llm-base-url).",
        )
        parser.add_argument(
            "--split",
            choices=SPLITS,
            default="all",
            help="rows whose 'split' field is dev or heldout (default all: every row, with "
            "or without a split)",
        )
        parser.add_argument(
            "--kind",
            default="",
            help="comma-separated values of the rows' 'kind' field to keep (default: all)",
        )
        parser.add_argument(
            "--limit", type=int, default=None, help="only the first N selected conversations"
        )
        parser.add_argument(
            "--json", action="store_true", help="Print the report as JSON, per conversation too."
        )
        parser.add_argument(
            "--no-write",
            dest="write",
            action="store_false",
            help="Only extract: skip the write path (no facts-lost figure; misattribution and "
            "garbles judged on the candidates, not on the stored memories).",
        )
        llm_arguments_add(parser)

    @bypassed("manage.py eval_extractor (bench data)")
    def handle(self, *args: Any, path: Path, extractor: str | None, **options: Any) -> None:
        if not path.is_file():
            raise CommandError(f"No labelled set at {path}.")
        if options["limit"] is not None and options["limit"] < 1:
            raise CommandError("--limit must be at least 1")
        if extractor and options["llm_base_url"]:
            raise CommandError("--extractor and --llm-base-url exclude each other")
        # An explicit --extractor wins over an OPENAI_BASE_URL from the environment.
        server = None if extractor else llm_server(options)
        if server is None:
            extractor = extractor or DEFAULT_EXTRACTOR
            try:
                extract = import_string(extractor)
            except ImportError as error:
                raise CommandError(f"Cannot import extractor {extractor!r}: {error}") from error
            llm = "none (offline extractor)"
        else:
            extractor = "extraction.pipeline.candidates_extract (MEMORY_EXTRACTOR=llm)"
            extract = llm_extractor
            llm = server.describe()
            # One line per request and per refused candidate would bury the figures.
            for name in ("httpx", "httpx2", "openai", "extraction"):
                logging.getLogger(name).setLevel(logging.WARNING)
        kinds = [kind.strip() for kind in options["kind"].split(",") if kind.strip()]
        try:
            rows = rows_select(
                load_labelled(path), split=options["split"], kinds=kinds, limit=options["limit"]
            )
        except (ValueError, KeyError) as error:
            raise CommandError(f"Malformed labelled set {path}: {error}") from error
        if not rows:
            raise CommandError(
                f"No conversation of {path} is in split {options['split']!r}"
                + (f" with kind in {kinds}" if kinds else "")
                + " (rows without a 'split' field are only in 'all')."
            )
        try:
            if server is None:
                report = self._evaluate(extract, rows, options["write"], "rules")
            else:
                with server.configured():
                    report = self._evaluate(extract, rows, options["write"], "llm")
        except (ValueError, KeyError) as error:
            raise CommandError(f"Malformed labelled set {path}: {error}") from error
        except DatabaseError as error:
            raise CommandError(
                f"The write path needs the database ({error}): run `manage.py migrate`, or "
                "pass --no-write to only extract."
            ) from error
        # -v 2 lists every spurious and missed caption, which is what one reads when tuning.
        details = options["verbosity"] >= 2
        if options["json"]:
            data = {
                "extractor": extractor,
                "llm": llm,
                "path": str(path),
                "split": options["split"],
                "kinds": kinds,
                **report.as_dict(details=details, items=True),
            }
            self.stdout.write(json.dumps(data, indent=2))
            return
        self.stdout.write(f"extractor  {extractor}")
        self.stdout.write(f"llm        {llm}")
        selection = f"split {options['split']}" + (f", kind {','.join(kinds)}" if kinds else "")
        self.stdout.write(f"labelled   {path} ({report.conversations} conversations, {selection})")
        self.stdout.write(
            f"precision  {report.precision:.3f}  recall  {report.recall:.3f}  f1  {report.f1:.3f}"
        )
        self.stdout.write(
            f"expected   {report.expected}  predicted  {report.predicted}  "
            f"true positives  {report.true_positives}  false positives  "
            f"{report.false_positives}  false negatives  {report.false_negatives}"
        )
        self.stdout.write(f"category agreement on matches  {report.category_accuracy:.3f}")
        no_fact = report.no_fact
        line = (
            f"stored from no-fact messages  {no_fact['stored']}/{no_fact['conversations']} "
            f"conversations ({no_fact['memories']} memories)"
        )
        if "by_kind" in no_fact:
            line += ": " + ", ".join(
                f"{kind} {figures['stored']}/{figures['conversations']}"
                for kind, figures in no_fact["by_kind"].items()
            )
        self.stdout.write(line)
        self._faults(report)
        self.stdout.write(cost_line(report.usage, item="conversation"))
        if report.failed:
            self.stdout.write(f"failed extractions  {report.failed} (stored nothing)")
        if details:
            for result in report.results:
                if result.error:
                    self.stdout.write(f"  {result.id}  failed    {result.error}")
                for caption in result.spurious:
                    self.stdout.write(f"  {result.id}  spurious  {caption}")
                for caption in result.missed:
                    self.stdout.write(f"  {result.id}  missed    {caption}")
                for label, candidate, reason in result.lost:
                    self.stdout.write(
                        f"  {result.id}  lost      {label}  <- {candidate} ({reason})"
                    )
                for caption in result.misattributed:
                    self.stdout.write(f"  {result.id}  misattributed  {caption}")
                for caption, kinds in result.garbled:
                    self.stdout.write(f"  {result.id}  garbled   {caption}  [{', '.join(kinds)}]")

    @staticmethod
    def _evaluate(
        extract: Any, rows: list[dict[str, Any]], write: bool, path: str
    ) -> EvaluationReport:
        """The evaluation, through the write path for a throwaway tenant unless --no-write."""
        if not write:
            return evaluate_rows(extract, rows)
        with throwaway_tenant() as tenant:
            return evaluate_rows(extract, rows, write=writer_for(tenant, path))

    def _faults(self, report: EvaluationReport) -> None:
        """The issue-30 lines: facts lost, misattributed and garbled."""
        if report.lost is not None and report.lost_by is not None and report.stored is not None:
            stored = report.stored
            reasons = ", ".join(f"{reason} {count}" for reason, count in report.lost_by.items())
            self.stdout.write(
                f"after the write  {stored['memories']} active memories, recall "
                f"{stored['recall']:.3f}  precision {stored['precision']:.3f}  "
                f"facts lost {report.lost} ({reasons}); "
                f"{stored['write_seconds_mean']:.3f} s a write"
            )
        else:
            self.stdout.write("after the write  not run (--no-write): no facts-lost figure")
        kinds = ", ".join(f"{kind} {count}" for kind, count in report.garbles.items())
        self.stdout.write(
            f"on the {report.judged}  misattributed {report.misattributed}  garbled "
            f"{report.garbled}/{report.captions_judged} captions ({kinds})"
        )
