"""Contradictions held, compatible pairs left alone, restatements merged: on labelled pairs."""

from __future__ import annotations

import json
import logging
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from bench.conflicts import PATHS, SPLITS, bench_run, cases_limit, cases_load
from bench.llm import cost_line, llm_arguments_add, llm_server
from tenants.models import ConflictPolicy
from tenants.rls import bypassed


class Command(BaseCommand):
    help = (
        "Run the labelled statement pairs (bench/data/conflicts_*.jsonl) through the write "
        "pipeline as new users of a bench tenant, on the offline path, the LLM path (a stub "
        "answering from the labels) and the LLM path whose decision call is unusable, and "
        "report contradictions held, compatible pairs wrongly held and restatements merged. "
        "With an LLM server (--llm-base-url, or OPENAI_BASE_URL) the LLM path runs against it."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--split", choices=[*SPLITS, "all"], default="all")
        parser.add_argument("--path", choices=[*PATHS, "all"], default="all")
        parser.add_argument("--data", help="another JSON-lines file of cases (split 'custom')")
        parser.add_argument("--json", action="store_true", help="one JSON object per run")
        parser.add_argument(
            "--policy",
            choices=[p.value for p in ConflictPolicy],
            default=ConflictPolicy.SUPERSEDE.value,
            help="the bench tenant's conflict policy (supersede: held and superseded at once "
            "both count as held, and the precision of automatic supersession is reported)",
        )
        parser.add_argument(
            "--misses", action="store_true", help="list the cases each path got wrong"
        )
        parser.add_argument(
            "--limit",
            type=int,
            default=None,
            help="only N cases of each split, taken in turn from each kind",
        )
        llm_arguments_add(parser)

    @bypassed("manage.py bench_conflicts (bench data)")
    def handle(self, *args: Any, **options: Any) -> None:
        # Per-request logs of the stub LLM and the pipeline would bury the figures.
        for name in ("httpx", "httpx2", "extraction", "openai"):
            logging.getLogger(name).setLevel(logging.WARNING)
        limit = options["limit"]
        if limit is not None and limit < 1:
            raise CommandError("--limit must be at least 1")
        server = llm_server(options)
        if options["data"]:
            from pathlib import Path

            splits = {"custom": Path(options["data"])}
        elif options["split"] == "all":
            splits = SPLITS
        else:
            splits = {options["split"]: SPLITS[options["split"]]}
        paths = PATHS if options["path"] == "all" else (options["path"],)
        for split, file in splits.items():
            cases = cases_limit(cases_load(file, split=split), limit)
            for path in paths:
                report = bench_run(
                    cases=cases, split=split, path=path, server=server, policy=options["policy"]
                )
                summary = report.summary()
                if options["json"]:
                    self.stdout.write(json.dumps({**summary, "items": report.items()}))
                else:
                    self._print(summary)
                if options["misses"]:
                    for outcome in report.outcomes:
                        if not outcome.correct:
                            case = outcome.case
                            self.stdout.write(
                                f"  miss {case.id} {case.kind}/{case.topic}: "
                                f"held={outcome.held} merged={outcome.merged} "
                                f"extracted={outcome.extracted} reached={outcome.reached_llm} "
                                f"{outcome.reason}"
                            )

    def _print(self, summary: dict) -> None:
        def rate(key: str) -> str:
            figure = summary[key]
            return f"{figure['count']}/{figure['total']} ({100 * figure['rate']:.0f}%)"

        line = (
            f"{summary['split']:8} {summary['path']:13} contradictions held "
            f"{rate('contradictions_held')}, compatible wrongly held "
            f"{rate('compatible_wrongly_held')}, restatements merged "
            f"{rate('restatements_merged')} (stored twice {rate('restatements_stored_twice')}"
            f", first confirmed by the second {rate('restatements_confirmed')})"
        )
        if "pairs_reaching_llm" in summary:
            line += (
                f", reaching the LLM: contradictions {rate('contradictions_reaching_llm')}, "
                f"all pairs {rate('pairs_reaching_llm')}"
            )
        line += (
            f"; extraction p50 {summary['extraction_p50_ms']} ms, "
            f"p95 {summary['extraction_p95_ms']} ms"
        )
        line += (
            f"; facts lost {rate('facts_lost')}; superseded at once {rate('superseded')} "
            f"of contradictions, precision {rate('supersede_precision')}; review load "
            f"{summary['review_load']} per 100 extractions"
        )
        if summary["not_extracted"]:
            line += f"; {summary['not_extracted']} pair(s) not extracted"
        if summary["failed_extractions"]:
            line += f"; {summary['failed_extractions']} extraction(s) failed"
        self.stdout.write(line)
        self.stdout.write(
            f"{'':23}LLM: {summary['llm']}; {cost_line(summary['usage'], item='pair')}"
        )
