"""The store audit's recall and precision per kind on a seeded store (issue 34)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from bench.hygiene import BENCH_TENANT, JUNK, audit_score, junk_load, pairs_score, store_seed
from bench.recall import bench_tenant_delete
from memories.hygiene import KINDS
from tenants.rls import bypassed


class Command(BaseCommand):
    help = (
        "Seed a bench tenant with clean facts (the dev labels of chat_facts.jsonl and "
        "dense_facts_dev2.jsonl) and known junk and near-duplicates (bench/data/"
        "hygiene_dev.toml), run the store audit (memories.hygiene.memory_audit) and report "
        "recall and precision per kind, and the share of clean memories flagged."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--data", type=Path, default=JUNK, help="another junk file")
        parser.add_argument("--json", action="store_true", help="the figures as one object")
        parser.add_argument("--misses", action="store_true", help="list misses and wrong flags")
        parser.add_argument("--keep", action="store_true", help="keep the bench tenant")
        parser.add_argument(
            "--pairs",
            action="store_true",
            help="instead: the near-duplicates the audit flags among the conflict benches' "
            "labelled pairs (restatement, compatible, contradiction; dev splits)",
        )
        parser.add_argument(
            "--as-labelled",
            action="store_true",
            help="seed the clean labels listed in clean_that_go_stale as clean, as labelled",
        )

    @bypassed("manage.py bench_hygiene (bench data)")
    def handle(self, *args: Any, **options: Any) -> None:
        if options["pairs"]:
            self._pairs()
            return
        try:
            seeded = store_seed(junk=junk_load(options["data"]), relabel=not options["as_labelled"])
            report = audit_score(seeded)
        finally:
            if not options["keep"]:
                bench_tenant_delete(name=BENCH_TENANT)
        if options["json"]:
            self.stdout.write(
                json.dumps(
                    {
                        "kinds": {
                            s.kind: {
                                "seeded": s.seeded,
                                "flagged": s.flagged,
                                "found": s.found,
                                "recall": round(s.recall, 4),
                                "precision": round(s.precision, 4),
                            }
                            for s in report.scores
                        },
                        "junk": report.junk,
                        "junk_found": report.junk_found,
                        "clean": report.clean,
                        "clean_flagged_rate": round(report.clean_rate, 4),
                    }
                )
            )
        else:
            self.stdout.write(
                f"{'kind':<32}{'seeded':>7}{'flagged':>8}{'found':>6}{'recall':>8}{'precision':>10}"
            )
            for s in report.scores:
                self.stdout.write(
                    f"{KINDS[s.kind]:<32}{s.seeded:>7}{s.flagged:>8}{s.found:>6}"
                    f"{s.recall:>8.1%}{s.precision:>10.1%}"
                )
            self.stdout.write(
                f"junk of any kind flagged as junk: {report.junk_found} of {report.junk} "
                f"({report.junk_found / max(report.junk, 1):.1%})"
            )
            flagged = len({c for c, _ in report.clean_flagged})
            self.stdout.write(
                f"clean memories flagged: {flagged} of {report.clean} ({report.clean_rate:.1%})"
            )
        if options["misses"]:
            for kind, caption in report.misses:
                self.stdout.write(f"missed  {kind:<11} {caption}")
            for kind, caption in report.wrong:
                self.stdout.write(f"wrong   {kind:<11} {caption}")
            for caption, kind in report.clean_flagged:
                self.stdout.write(f"clean   {kind:<11} {caption}")

    def _pairs(self) -> None:
        try:
            scores = pairs_score()
        finally:
            bench_tenant_delete(name=BENCH_TENANT)
        self.stdout.write(f"{'labelled pair':<16}{'pairs':>6}{'flagged':>8}{'share':>8}")
        for kind, (pairs, flagged) in scores.items():
            share = flagged / pairs if pairs else 0.0
            self.stdout.write(f"{kind:<16}{pairs:>6}{flagged:>8}{share:>8.1%}")
