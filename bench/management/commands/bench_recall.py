"""Recall quality and latency on LoCoMo, through the same selector the API calls."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from bench.llm import ItemCost, LLMServer, cost_line, cost_summary, llm_arguments_add, llm_server
from bench.locomo import CORPORA, Conversation, Metrics, locomo_load, parse_range
from bench.prompts import (
    PROMPTS_DEV,
    prompts_context,
    prompts_evaluate,
    prompts_labels,
    prompts_limit,
    prompts_load,
    prompts_users_create,
)
from bench.recall import (
    PROMPT_SETS,
    RecallLabels,
    bench_memories_create,
    bench_tenant_delete,
    bench_tenant_reset,
    offtopic_evaluate,
    offtopic_labels,
    offtopic_limit,
    offtopic_load,
    offtopic_user_create,
    percentile,
    recall_llm,
    recall_measured,
)
from extraction.hints import memory_hints_fill
from integrations.embeddings import query_cache
from memories.models import EndUser, Memory
from recall.index import local_index_clear, user_index_get
from recall.ranking import MODES
from tenants.rls import bypassed

DEFAULT_DATA = Path(settings.BASE_DIR).parent / "shared" / "data" / "locomo10.json"
DEFAULT_METHODS = ("hybrid", "vector", "lexical")
DEPTH = 20  # the deepest cut-off reported (recall_any@20)


# LoCoMo's question categories, as its paper numbers them.
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


class Command(BaseCommand):
    help = (
        "Load LoCoMo conversations as memories (one end user each, under a bench tenant that "
        "is removed afterwards), ask every QA question of categories 1-4 through the recall "
        "selector, and report recall_any@5/10/20, recall_all@10, MRR@10 and latency per method. "
        "With --offtopic and --prompts, also the prompt sets and the prompts sets (several "
        "users; scores by kind of prompt). "
        "The LLM modes (llm, hybrid+llm) ask the server of --llm-base-url (or OPENAI_BASE_URL), "
        "else a stub answering from the labels."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="locomo10.json")
        parser.add_argument(
            "--conversations",
            default="5-9",
            help="indexes, e.g. 5-9 (held out) or 0-4 (dev); '' for none (no LoCoMo file read)",
        )
        parser.add_argument("--corpus", choices=CORPORA, default="observations")
        parser.add_argument(
            "--methods",
            default=",".join(DEFAULT_METHODS),
            help="comma-separated recall modes to compare (default: hybrid,vector,lexical)",
        )
        parser.add_argument(
            "--offtopic",
            nargs="*",
            type=Path,
            default=None,
            help="also run prompt sets (one user's memories, prompts that need one of them, "
            "general prompts that need none); default: bench/data/offtopic.json, "
            "needs_dev.json and needs_heldout.json",
        )
        parser.add_argument(
            "--prompts",
            nargs="*",
            type=Path,
            default=None,
            help="also run prompts sets (several users with their people; personal, people, "
            "implicit, general and nothing-fits prompts): hit@1, hit@3, empty answers and "
            "own-before-others by kind; default: bench/data/prompts_dev.json (name "
            "prompts_heldout2.json or prompts_heldout3.json, the held-out sets, to report them)",
        )
        parser.add_argument(
            "--hints",
            action="store_true",
            help="before the prompt sets are asked, the LLM server writes each memory's "
            "use-when hints (as extraction does; `manage.py memory_hints`), and the memories "
            "are embedded with them; needs --llm-base-url or OPENAI_BASE_URL",
        )
        parser.add_argument(
            "--limit",
            type=int,
            default=None,
            help="only the first N questions of the conversations, of each prompt set the "
            "first N prompts needing a memory and N general prompts, and of each prompts set "
            "the first N prompts of each user",
        )
        parser.add_argument(
            "--json", action="store_true", help="print one JSON object, per question too"
        )
        llm_arguments_add(parser)

    @bypassed("manage.py bench_recall (bench data)")
    def handle(self, *args, **options) -> None:
        methods = [m.strip() for m in options["methods"].split(",") if m.strip()]
        if not methods:
            raise CommandError("--methods is empty")
        unknown = [m for m in methods if m not in MODES]
        if unknown:
            raise CommandError(f"unknown recall mode(s) {unknown}; known: {', '.join(MODES)}")
        if options["limit"] is not None and options["limit"] < 1:
            raise CommandError("--limit must be at least 1")
        server = llm_server(options)
        if options["hints"] and server is None:
            raise CommandError("--hints needs an LLM server (--llm-base-url or OPENAI_BASE_URL)")
        try:
            indexes = parse_range(options["conversations"])
            # No conversation asked (--conversations ''): the prompt sets alone, no LoCoMo file.
            conversations = (
                locomo_load(options["data"], conversations=indexes, corpus=options["corpus"])
                if indexes
                else []
            )
        except (OSError, ValueError, KeyError) as exc:
            raise CommandError(f"cannot load {options['data']}: {exc}") from exc
        for path in options["prompts"] or []:
            try:
                prompts_load(path)
            except (OSError, ValueError, KeyError) as exc:
                raise CommandError(f"cannot load {path}: {exc}") from exc

        if options["limit"] is not None:
            _questions_limit(conversations, options["limit"])
        tenant = bench_tenant_reset()
        try:
            with recall_llm(methods, server) as (llm, labels):
                report = {
                    "llm": llm,
                    **self._run(tenant, conversations, methods, options, labels, server),
                }
        finally:
            bench_tenant_delete()
        if options["json"]:
            self.stdout.write(json.dumps(report))
        else:
            self._print(report)

    def _run(
        self,
        tenant,
        conversations: list[Conversation],
        methods: list[str],
        options,
        labels: RecallLabels | None,
        server: LLMServer | None,
    ):
        users: list[tuple[Conversation, EndUser, dict[str, frozenset[str]]]] = []
        started = time.perf_counter()
        for conversation in conversations:
            end_user = EndUser.objects.create(tenant=tenant, external_id=uuid.uuid4())
            ids = bench_memories_create(
                end_user=end_user,
                texts=[item.text for item in conversation.items],
                sessions=[
                    f"{conversation.sample_id}/session_{item.session}"
                    for item in conversation.items
                ],
                # Each session's date is when its memories were said (issue 33).
                stated=[item.said for item in conversation.items],
            )
            # The evidence map belongs to the bench: memory id -> LoCoMo dialogue ids.
            evidence = {
                memory_id: item.evidence
                for memory_id, item in zip(ids, conversation.items, strict=True)
            }
            users.append((conversation, end_user, evidence))
            if labels is not None:
                # The stub's answer: the memories with evidence in common with the question.
                captions = dict(Memory.objects.filter(id__in=ids).values_list("id", "caption"))
                for question in conversation.questions:
                    labels.add(
                        question.text,
                        [captions[i] for i, ev in evidence.items() if ev & question.evidence],
                    )
        load_seconds = time.perf_counter() - started

        results = {}
        for method in methods:
            metrics = Metrics()
            # LoCoMo's categories: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop.
            by_category: dict[int, Metrics] = {}
            costs: list[ItemCost] = []
            items: list[dict] = []
            # Fresh query embeddings for every method: the latency includes the model, as a
            # new prompt's does; the user's index is warm, as it is between two writes.
            query_cache.clear()
            local_index_clear()
            for conversation, end_user, evidence in users:
                user_index_get(end_user_id=end_user.pk)
                for question in conversation.questions:
                    cost = ItemCost()
                    recalled = recall_measured(
                        end_user=end_user, prompt=question.text, limit=DEPTH, mode=method, cost=cost
                    )
                    ranked = [evidence[r.id] for r in recalled]
                    metrics.add(ranked, question.evidence)
                    by_category.setdefault(question.category, Metrics()).add(
                        ranked, question.evidence
                    )
                    costs.append(cost)
                    items.append(
                        {"conversation": conversation.index, "question": question.text}
                        | cost.as_dict()
                    )
            timings = [1000 * cost.seconds for cost in costs]
            results[method] = {
                **metrics.as_percent(),
                "p50_ms": round(percentile(timings, 50), 2),
                "p95_ms": round(percentile(timings, 95), 2),
                "usage": cost_summary(costs),
                "by_category": {
                    str(category): {"questions": m.questions, **m.as_percent()}
                    for category, m in sorted(by_category.items())
                },
            }
            if options["json"]:
                results[method]["items"] = items

        report = {
            "corpus": options["corpus"],
            "conversations": [c.index for c in conversations],
            "questions": sum(len(c.questions) for c in conversations),
            "methods": results,
            "memories": sum(len(c.items) for c in conversations),
            "evidence_ids": {
                **{
                    k: sum(c.evidence.as_dict()[k] for c in conversations)
                    for k in ("entries", "split", "repaired", "dropped")
                },
                "questions_without_evidence": sum(
                    c.questions_without_evidence for c in conversations
                ),
                "duplicate_memories_merged": sum(c.duplicates_merged for c in conversations),
            },
            "load_seconds": round(load_seconds, 1),
        }
        if options["offtopic"] is not None:
            report["prompt_sets"] = {}
            for path in options["offtopic"] or PROMPT_SETS:
                data = offtopic_limit(offtopic_load(path=path), options["limit"])
                end_user, keys = offtopic_user_create(tenant=tenant, data=data)
                hints = None
                if options["hints"]:
                    hints = self._hints(end_user, server)
                if labels is not None:
                    labels.clear()
                    offtopic_labels(data, labels)
                report["prompt_sets"][path.stem] = {
                    method: offtopic_evaluate(
                        end_user=end_user, keys=keys, data=data, mode=method
                    ).as_dict(items=options["json"])
                    for method in methods
                }
                if hints is not None:
                    report["prompt_sets"][path.stem]["hints"] = hints
        if options["prompts"] is not None:
            report["prompts_sets"] = {}
            report["prompts_context"] = {}
            for path in options["prompts"] or [PROMPTS_DEV]:
                data = prompts_limit(prompts_load(path), options["limit"])
                users = prompts_users_create(tenant=tenant, data=data)
                if labels is not None:
                    labels.clear()
                    prompts_labels(data, labels)
                report["prompts_sets"][path.stem] = {
                    method: prompts_evaluate(users=users, mode=method).as_dict(
                        items=options["json"]
                    )
                    for method in methods
                }
                # The context is built once, in the configured mode (what the API serves).
                context = prompts_context(users=users)
                if not options["json"]:
                    context.pop("items")
                report["prompts_context"][path.stem] = context
        return report

    def _hints(self, end_user: EndUser, server: LLMServer) -> dict:
        """Use-when hints for the set's memories, written by the server; what it cost."""
        started = time.perf_counter()
        with server.configured():
            outcome = memory_hints_fill(memories=list(Memory.objects.filter(end_user=end_user)))
        return {
            "asked": outcome.asked,
            "written": outcome.written,
            "errors": outcome.errors,
            **outcome.usage.counts(),
            "seconds": round(time.perf_counter() - started, 1),
        }

    def _print(self, report: dict) -> None:
        self.stdout.write(f"LLM (llm, hybrid+llm modes): {report['llm']}")
        self.stdout.write(
            f"LoCoMo {report['corpus']}, conversations {report['conversations']}: "
            f"{report['memories']} memories, {report['questions']} questions "
            f"(loaded in {report['load_seconds']} s)"
        )
        evidence = report["evidence_ids"]
        self.stdout.write(
            f"evidence ids: {evidence['entries']} entries, {evidence['split']} split, "
            f"{evidence['repaired']} repaired, {evidence['dropped']} dropped; "
            f"{evidence['questions_without_evidence']} questions without usable evidence; "
            f"{evidence['duplicate_memories_merged']} duplicate memories merged"
        )
        columns = [
            "recall_any@5",
            "recall_any@10",
            "recall_any@20",
            "recall_all@10",
            "mrr@10",
            "p50_ms",
            "p95_ms",
        ]
        self.stdout.write("| method | " + " | ".join(columns) + " |")
        self.stdout.write("| --- " * (len(columns) + 1) + "|")
        for method, figures in report["methods"].items():
            cells = " | ".join(str(figures[c]) for c in columns)
            self.stdout.write(f"| {method} | {cells} |")
        self.stdout.write("")
        self.stdout.write("| method | category | questions | recall_any@10 | mrr@10 |")
        self.stdout.write("| --- | --- | --- | --- | --- |")
        for method, figures in report["methods"].items():
            for category, f in figures.get("by_category", {}).items():
                name = CATEGORY_NAMES.get(int(category), category)
                self.stdout.write(
                    f"| {method} | {name} | {f['questions']} | {f['recall_any@10']} | "
                    f"{f['mrr@10']} |"
                )
        self.stdout.write("")
        for method, figures in report["methods"].items():
            self.stdout.write(f"{method}: {cost_line(figures['usage'], item='question')}")
        if "prompt_sets" in report:
            self.stdout.write("")
            self.stdout.write(
                "| set | method | general prompts | empty answers % | prompts needing a "
                "memory | hit@3 % |"
            )
            self.stdout.write("| --- | --- | --- | --- | --- | --- |")
            for name, by_method in report["prompt_sets"].items():
                for method, r in _methods(by_method):
                    self.stdout.write(
                        f"| {name} | {method} | {r['offtopic_prompts']} | {r['empty_rate']} | "
                        f"{r['matching_prompts']} | {r['recall@3']} |"
                    )
            self.stdout.write("")
            for name, by_method in report["prompt_sets"].items():
                for method, r in _methods(by_method):
                    self.stdout.write(f"{name} {method}: {cost_line(r['usage'], item='prompt')}")
                if "hints" in by_method:
                    h = by_method["hints"]
                    self.stdout.write(
                        f"{name} hints: {h['written']} of {h['asked']} memories, "
                        f"{h['llm_calls']} LLM calls, {h['seconds']} s"
                        + (f", errors {h['errors']}" if h["errors"] else "")
                    )
        if "prompts_sets" in report:
            self.stdout.write("")
            for line in _prompts_lines(report["prompts_sets"]):
                self.stdout.write(line)
            for line in _context_lines(report["prompts_context"]):
                self.stdout.write(line)


def _prompts_lines(sets: dict) -> list[str]:
    """The prompts sets' figures: one row per set and mode, then the scores by kind."""
    lines = [
        "| prompts set | method | prompts | hit@1 % | hit@3 % | empty when nothing fits % | "
        "self prompts answered first by another's fact |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, by_method in sets.items():
        for method, r in by_method.items():
            own = r["own_before_others"]
            lines.append(
                f"| {name} | {method} | {r['prompts']} | {r['hit@1']} | {r['hit@3']} | "
                f"{r['empty_when_nothing_fits']} | {own['other_first']} of {own['self_prompts']} "
                f"({own['other_first_rate']}%) |"
            )
    lines += ["", "| prompts set | method | kind | prompts | hit@1 % | hit@3 % | empty % |"]
    lines.append("| --- | --- | --- | --- | --- | --- | --- |")
    for name, by_method in sets.items():
        for method, r in by_method.items():
            rows = list(r["by_kind"].items()) + [
                (f"personal {mark} ?", scores)
                for mark, scores in r["personal_by_question_mark"].items()
            ]
            for kind, k in rows:
                needs = "empty" not in k
                lines.append(
                    f"| {name} | {method} | {kind} | {k['prompts']} | "
                    + (f"{k['hit@1']} | {k['hit@3']} | - |" if needs else f"- | - | {k['empty']} |")
                )
    lines.append("")
    for name, by_method in sets.items():
        for method, r in by_method.items():
            lines.append(f"{name} {method}: {cost_line(r['usage'], item='prompt')}")
    return lines


def _context_lines(sets: dict) -> list[str]:
    """The context each prompt gets (the real builder, the configured mode, default budget)."""
    lines = [
        "",
        "| prompts set | context lines per prompt, mean (max) | relevant / session / profile, "
        "mean | profile lines, max | prompts over the profile cap | empty when nothing fits % "
        "| conflicting pairs shown | of them unmarked |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, c in sets.items():
        tiers = " / ".join(str(v) for v in c["lines_by_tier_mean"].values())
        lines.append(
            f"| {name} | {c['lines_mean']} ({c['lines_max']}) | {tiers} | "
            f"{c['profile_lines_max']} | {c['prompts_over_profile_lines']} | "
            f"{c['empty_when_nothing_fits']} | {c['conflicting_pairs_shown']} | "
            f"{c['conflicting_pairs_unmarked']} |"
        )
    return lines


def _methods(by_method: dict) -> list[tuple[str, dict]]:
    """A prompt set's figures per recall mode (without the hints' cost)."""
    return [(method, r) for method, r in by_method.items() if method != "hints"]


def _questions_limit(conversations: list[Conversation], limit: int) -> None:
    """Keep only the first `limit` questions, in conversation order."""
    for conversation in conversations:
        conversation.questions = conversation.questions[:limit]
        limit -= len(conversation.questions)
