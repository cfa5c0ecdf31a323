"""The conflict bench: labelled pairs of statements through the real write pipeline.

Each case is two things one user says in two conversations, labelled `contradiction` (cannot
both be true now), `compatible` or `restatement`, with the words the user typed and the words
an LLM extractor would store. Three paths are measured:

- `offline`: the rule extractor reads what the user typed, the rule judge decides;
- `llm`: the stub LLM extracts the labelled LLM wording and answers the decision call from
  the labels, so the figure measures what reaches the LLM and what the service does with it;
- `llm-fallback`: the same extraction, but the decision call gives no usable answer, so the
  rule judge decides on LLM-worded facts.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from django.test.utils import override_settings

from extraction.jobs import extraction_perform
from extraction.rules import extract_candidates
from memories.models import EndUser, Memory, ReviewItem
from tenants.models import Tenant
from testing.llm_stub import LLMStub, StubRequest, content

DATA = Path(__file__).resolve().parent / "data"
# Tune on "dev" only (two sets written independently); "heldout" is for reporting.
SPLITS = {
    "dev": (DATA / "conflicts_dev.jsonl", DATA / "conflicts_dev2.jsonl"),
    "heldout": (DATA / "conflicts_heldout.jsonl",),
}
PATHS = ("offline", "llm", "llm-fallback")
BENCH_TENANT = "bench-conflicts"
KINDS = ("contradiction", "compatible", "restatement")


@dataclass(frozen=True)
class Side:
    """One statement: what the user typed, and how an LLM extractor words it."""

    user: str
    caption: str
    full_text: str
    category: str


@dataclass(frozen=True)
class Case:
    id: str
    kind: str
    explicit_update: bool
    topic: str
    first: Side
    second: Side


@dataclass
class Outcome:
    """What the pipeline did with one case."""

    case: Case
    held: bool = False
    merged: bool = False
    duplicated: bool = False
    extracted: bool = True
    reached_llm: bool | None = None
    signal: str = ""
    reason: str = ""
    seconds: list[float] = field(default_factory=list)

    @property
    def correct(self) -> bool:
        if self.case.kind == "contradiction":
            return self.held
        if self.case.kind == "restatement":
            return self.merged
        return not self.held


def cases_load(paths: Path | tuple[Path, ...]) -> list[Case]:
    """The labelled cases of one or more JSON-lines files."""
    cases = []
    files = (paths,) if isinstance(paths, Path) else paths
    lines = [line for path in files for line in path.read_text().splitlines()]
    for line in lines:
        if line.strip():
            row = json.loads(line)
            cases.append(
                Case(
                    id=row["id"],
                    kind=row["kind"],
                    explicit_update=bool(row.get("explicit_update")),
                    topic=row.get("topic", ""),
                    first=Side(**row["first"]),
                    second=Side(**row["second"]),
                )
            )
    return cases


_FACTS = re.compile(r"<facts>\s*(.*?)\s*</facts>", re.S)


class LabelledLLM:
    """Answers the stub's chat requests from the labels: the extraction with the labelled LLM
    wording, the decision call with the labelled relation (or nothing usable)."""

    def __init__(self, cases: list[Case], *, decide: bool) -> None:
        self.decide = decide
        self.by_user = {}
        self.by_text: dict[str, tuple[Case, str]] = {}
        for case in cases:
            for which, side in (("first", case.first), ("second", case.second)):
                self.by_user[side.user] = side
                self.by_text[side.full_text] = (case, which)
        self.reached: dict[str, bool] = {}

    def __call__(self, request: StubRequest) -> object:
        text = str(request.messages[-1].get("content", "")) if request.messages else ""
        facts = _FACTS.search(text)
        if facts:
            return self._decisions(facts.group(1))
        conversation = text.split("<conversation>", 1)[-1].split("</conversation>", 1)[0]
        for line in conversation.strip().splitlines():
            message = json.loads(line.replace("\\u003c", "<").replace("\\u003e", ">"))
            side = self.by_user.get(message.get("content", ""))
            if side is not None:
                item = {
                    "caption": side.caption,
                    "full_text": side.full_text,
                    "category": side.category,
                    "confidence": 0.9,
                }
                return content(json.dumps({"memories": [item]}))
        return content(json.dumps({"memories": []}))

    def _decisions(self, body: str) -> object:
        decisions = []
        for line in body.splitlines():
            fact = json.loads(line.replace("\\u003c", "<").replace("\\u003e", ">"))
            case, which = self.by_text.get(fact["text"], (None, ""))
            if case is None or which != "second":
                continue
            first = next(
                (m["id"] for m in fact["memories"] if m["text"] == case.first.full_text), None
            )
            self.reached[case.id] = first is not None
            verdict = {"contradiction": "contradicts", "restatement": "same"}.get(case.kind, "new")
            decisions.append(
                {
                    "fact": fact["fact"],
                    "decision": verdict if first else "new",
                    "memories": [first] if first and verdict != "new" else [],
                    "update": case.explicit_update,
                    "reason": f"labelled {case.kind}",
                }
            )
        if not self.decide:
            return content("I am not sure about these.")
        return content(json.dumps({"decisions": decisions}))


@contextmanager
def _path_settings(path: str, cases: list[Case]) -> Iterator[LabelledLLM | None]:
    if path == "offline":
        with override_settings(MEMORY_EXTRACTOR="rules", MEMORY_ASYNC_EXTRACTION=False):
            yield None
        return
    llm = LabelledLLM(cases, decide=path == "llm")
    stub = LLMStub().always(llm).start()
    try:
        with override_settings(
            MEMORY_EXTRACTOR="llm",
            OPENAI_API_KEY="bench-stub",
            OPENAI_BASE_URL=stub.base_url,
            MEMORY_LLM_MAX_RETRIES=0,
            MEMORY_ASYNC_EXTRACTION=False,
        ):
            yield llm
    finally:
        stub.stop()


def _say(tenant: Tenant, user_id: uuid.UUID, text: str, outcome: Outcome):
    started = time.perf_counter()
    result = extraction_perform(
        tenant=tenant, external_id=user_id, messages=[{"role": "user", "content": text}]
    )
    outcome.seconds.append(time.perf_counter() - started)
    return result


def case_run(case: Case, *, tenant: Tenant, path: str) -> Outcome:
    """Say both statements as one new user, then read what the store did."""
    outcome = Outcome(case)
    user_id = uuid.uuid4()
    first = _say(tenant, user_id, case.first.user, outcome)
    first_ids = {memory.id for memory in first.memories}
    second = _say(tenant, user_id, case.second.user, outcome)
    if path == "offline":
        outcome.extracted = bool(first_ids) and bool(
            extract_candidates([{"role": "user", "content": case.second.user}])
        )
    end_user = EndUser.objects.get(tenant=tenant, external_id=user_id)
    second_ids = {memory.id for memory in second.memories}
    items = ReviewItem.objects.filter(
        end_user=end_user, new_memory_id__in=second_ids, existing_memories__in=first_ids
    ).distinct()
    item = items.first()
    outcome.held = item is not None
    if item is not None:
        outcome.signal, outcome.reason = item.signal, item.reason
    new_rows = Memory.objects.filter(end_user=end_user).exclude(id__in=first_ids)
    outcome.merged = outcome.extracted and bool(first_ids) and not new_rows.exists()
    outcome.duplicated = new_rows.exists() and not outcome.held
    return outcome


@dataclass
class Report:
    """The figures of one path over one split."""

    path: str
    split: str
    outcomes: list[Outcome]

    def _of(self, kind: str) -> list[Outcome]:
        return [o for o in self.outcomes if o.case.kind == kind]

    def summary(self) -> dict:
        contradictions = self._of("contradiction")
        compatible = self._of("compatible")
        restatements = self._of("restatement")
        seconds = sorted(s for o in self.outcomes for s in o.seconds)
        reached = [o.reached_llm for o in contradictions if o.reached_llm is not None]
        figures = {
            "path": self.path,
            "split": self.split,
            "cases": len(self.outcomes),
            "contradictions_held": _rate(sum(o.held for o in contradictions), len(contradictions)),
            "compatible_wrongly_held": _rate(sum(o.held for o in compatible), len(compatible)),
            "restatements_merged": _rate(sum(o.merged for o in restatements), len(restatements)),
            # The failure that matters to a user: the same fact stored twice.
            "restatements_stored_twice": _rate(
                sum(o.duplicated for o in restatements), len(restatements)
            ),
            "not_extracted": sum(not o.extracted for o in self.outcomes),
            "extraction_p50_ms": round(1000 * seconds[len(seconds) // 2], 1) if seconds else 0,
            "extraction_p95_ms": round(1000 * seconds[int(len(seconds) * 0.95)], 1)
            if seconds
            else 0,
        }
        if self.path != "offline":
            every = [bool(o.reached_llm) for o in self.outcomes]
            figures["pairs_reaching_llm"] = _rate(sum(every), len(every))
            figures["contradictions_reaching_llm"] = _rate(sum(reached), len(contradictions))
        return figures


def _rate(count: int, total: int) -> dict:
    return {"count": count, "total": total, "rate": round(count / total, 3) if total else 0.0}


def bench_run(*, cases: list[Case], split: str, path: str) -> Report:
    """Run every case through one path, as fresh users of a bench tenant removed afterwards."""
    Tenant.objects.filter(name=BENCH_TENANT).delete()
    tenant = Tenant.objects.create(name=BENCH_TENANT, is_active=False)
    try:
        with _path_settings(path, cases) as llm:
            outcomes = [case_run(case, tenant=tenant, path=path) for case in cases]
            if llm is not None:
                for outcome in outcomes:
                    outcome.reached_llm = llm.reached.get(outcome.case.id, False)
    finally:
        tenant.delete()
    return Report(path=path, split=split, outcomes=outcomes)
