"""The timeline set through the write pipeline, and the four figures of issue 33."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from bench.llm import llm_arguments_add, llm_server
from bench.timeline import KINDS, PATHS, SPLITS, bench_run, users_load
from tenants.rls import bypassed

LABELS = {
    "as_of": "as_of exact",
    "present": "present current-first",
    "past": "past in top 3",
    "resolve": "resolved within a month",
}


class Command(BaseCommand):
    help = (
        "Run each user of the timeline set (bench/data/timeline_*.json) through the write "
        "pipeline with its conversations' timestamps, as a fresh user of a bench tenant under "
        "the supersede policy, and report per split: as_of reads exact, present-tense prompts "
        "ranking the current fact first, past prompts finding the old fact in the top 3, and "
        "time phrases resolved within a month. The offline path by default; --path llm with "
        "a real server (--llm-base-url, or OPENAI_BASE_URL)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--split", choices=[*SPLITS, "all"], default="dev")
        parser.add_argument("--path", choices=[*PATHS, "all"], default="offline")
        parser.add_argument("--data", type=Path, help="another timeline file (split 'custom')")
        parser.add_argument("--limit", type=int, help="only the first N users of each split")
        parser.add_argument("--json", action="store_true", help="one JSON object per run")
        parser.add_argument("--misses", action="store_true", help="list the failed checks")
        llm_arguments_add(parser)

    @bypassed("manage.py bench_time (bench data)")
    def handle(self, *args: Any, **options: Any) -> None:
        for name in ("httpx", "extraction", "openai", "recall"):
            logging.getLogger(name).setLevel(logging.WARNING)
        server = llm_server(options)
        paths = PATHS if options["path"] == "all" else (options["path"],)
        if "llm" in paths and server is None:
            if options["path"] == "llm":
                raise CommandError("--path llm needs a server: --llm-base-url (or OPENAI_BASE_URL)")
            paths = ("offline",)
        if options["data"]:
            splits = {"custom": options["data"]}
        elif options["split"] == "all":
            splits = SPLITS
        else:
            splits = {options["split"]: SPLITS[options["split"]]}
        for split, file in splits.items():
            if not file.exists():
                self.stderr.write(f"{split}: no {file}, skipped")
                continue
            users = users_load(file)[: options["limit"] or None]
            for path in paths:
                report = bench_run(users=users, split=split, path=path, server=server)
                figures = report.figures()
                if options["json"]:
                    self.stdout.write(json.dumps({"split": split, "path": path, **figures}))
                else:
                    shown = ", ".join(
                        f"{LABELS[k]} {f['passed']}/{f['total']} ({100 * f['rate']:.0f}%)"
                        for k, f in figures.items()
                        if k in KINDS
                    )
                    self.stdout.write(
                        f"{split:8} {path:8} {len(users)} users: {shown}; "
                        f"{report.failed_extractions} extraction(s) failed, "
                        f"{report.seconds:.1f} s writing"
                    )
                if options["misses"]:
                    for result in report.results:
                        if not result.passed:
                            self.stdout.write(
                                f"  miss {result.user} {result.kind}: {result.detail}"
                            )
