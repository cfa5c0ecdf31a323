"""The timeline set (issue 33): users whose facts change over dated conversations, and checks
of what the service answers about time (`bench_time`).

Each user's conversations go through the real write pipeline (`extraction_perform`) with their
timestamps, as a fresh user of a bench tenant under the `supersede` policy (an update applied
at once closes the old fact), removed afterwards. Then four kinds of check, each a figure:

- `as_of`: the list's selector on that day holds a memory for every `expect` matcher and none
  for an `absent` one (exact);
- `present`: among the memories recalled for the prompt (no as_of) that match any matcher, the
  first matches `expect` (a stale one labelled past is no fault);
- `past`: a memory matching `expect` is in the top 3 for the prompt;
- `resolve`: the memory matching `expect` has `valid_from` (or `valid_to`) within one month of
  the given `YYYY-MM`.

A matcher is a list of lower-case words that must all be words of a caption (a word may end
with more letters: "dog" finds "dogs"). Format: /work/wt/_prompts/timeline_format.md, kept in
docs/benchmarks.md.
"""

from __future__ import annotations

import datetime
import json
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.test.utils import override_settings

from bench.llm import LLMServer
from core.exceptions import UpstreamUnavailable
from core.words import words_of
from extraction.jobs import extraction_perform
from memories.models import EndUser, Memory
from memories.selectors import TIMELINE, memory_as_of_list
from recall.services import memory_recall_for_end_user
from tenants.models import ConflictPolicy, Tenant

BENCH_TENANT = "bench-time"
DATA = Path(__file__).resolve().parent / "data"
# "heldout2" was written in session 38 on topics neither other split has: report it, never
# tune on it.
SPLITS = {
    "dev": DATA / "timeline_dev.json",
    "heldout": DATA / "timeline_heldout.json",
    "heldout2": DATA / "timeline_heldout2.json",
    # Written in session 40 before any of its changes, on topics no other split has, in the way
    # people chat: a dev split (tuned on), kept apart to see whether a change carries.
    "dev40": DATA / "timeline_dev40.json",
    # Session 41's, written the same way before any of its changes, on topics no other split has.
    "dev41": DATA / "timeline_dev41.json",
}
KINDS = ("as_of", "present", "past", "resolve")
PATHS = ("offline", "llm")
# How many recalled memories a check reads (the relevant endpoint's default limit).
RECALL_LIMIT = 10
PAST_TOP = 3


def users_load(path: Path) -> list[dict]:
    """The users of one timeline file."""
    return json.loads(path.read_text(encoding="utf-8"))["users"]


def matches(caption: str, matcher: list[str]) -> bool:
    """Whether every word of `matcher` is a word of `caption` (or begins one)."""
    words = words_of(caption)
    return all(any(word.startswith(wanted) for word in words) for wanted in matcher)


def _matchers(value: Any) -> list[list[str]]:
    """`expect`/`stale`/`absent` as a list of matchers (one matcher may be given bare)."""
    if not value:
        return []
    if all(isinstance(item, str) for item in value):
        return [list(value)]
    return [list(item) for item in value]


def _month_distance(day: datetime.date, month: str) -> int:
    year, number = (int(part) for part in month.split("-")[:2])
    return abs((day.year * 12 + day.month) - (year * 12 + number))


@dataclass
class CheckResult:
    user: str
    kind: str
    passed: bool
    detail: str = ""


@dataclass
class Report:
    """The figures of one path over one split."""

    split: str
    path: str
    results: list[CheckResult] = field(default_factory=list)
    failed_extractions: int = 0
    seconds: float = 0.0

    def figures(self) -> dict[str, dict[str, float]]:
        found = {}
        for kind in KINDS:
            of_kind = [r for r in self.results if r.kind == kind]
            passed = sum(r.passed for r in of_kind)
            rate = passed / len(of_kind) if of_kind else 0.0
            found[kind] = {"passed": passed, "total": len(of_kind), "rate": round(rate, 4)}
        return found


def _check(end_user: EndUser, check: dict) -> tuple[bool, str]:
    """One check of one user: whether it passed, and what was seen."""
    kind = check["kind"]
    expect = _matchers(check.get("expect"))
    if kind == "as_of":
        day = datetime.date.fromisoformat(check["as_of"][:10])
        captions = [m.caption for m in memory_as_of_list(end_user=end_user, day=day)]
        found = all(any(matches(c, m) for c in captions) for m in expect)
        clean = not any(matches(c, m) for c in captions for m in _matchers(check.get("absent")))
        return found and clean, "; ".join(captions)
    if kind in ("present", "past"):
        recalled = memory_recall_for_end_user(
            end_user=end_user, prompt=check["prompt"], limit=RECALL_LIMIT
        ).memories
        seen = "; ".join(f"{m.caption}{' (past)' if m.past else ''}" for m in recalled)
        if kind == "past":
            return any(matches(m.caption, e) for m in recalled[:PAST_TOP] for e in expect), seen
        stale = _matchers(check.get("stale"))
        for memory in recalled:
            if any(matches(memory.caption, e) for e in expect):
                return True, seen
            if not memory.past and any(matches(memory.caption, s) for s in stale):
                return False, seen
        return False, seen
    if kind == "resolve":
        bound = "valid_to" if "valid_to" in check else "valid_from"
        rows = Memory.objects.filter(end_user=end_user).filter(TIMELINE)
        values = [
            (m.caption, getattr(m, bound))
            for m in rows
            if any(matches(m.caption, e) for e in expect)
        ]
        ok = any(v is not None and _month_distance(v, check[bound]) <= 1 for _, v in values)
        return ok, "; ".join(f"{c} {bound}={v}" for c, v in values) or "no memory matched"
    raise ValueError(f"unknown check kind {kind!r}")


def user_run(user: dict, *, tenant: Tenant, report: Report) -> list[CheckResult]:
    """Say a user's conversations in order with their timestamps, then run the checks."""
    external_id = f"{user['id']}-{uuid.uuid4().hex[:8]}"
    for conversation in user["conversations"]:
        started = time.perf_counter()
        try:
            extraction_perform(
                tenant=tenant,
                external_id=external_id,
                messages=conversation["messages"],
                timestamp=datetime.datetime.fromisoformat(conversation["timestamp"]),
            )
        except UpstreamUnavailable:
            report.failed_extractions += 1
        report.seconds += time.perf_counter() - started
    end_user = EndUser.objects.get(tenant=tenant, external_id=external_id)
    results = []
    for check in user["checks"]:
        passed, detail = _check(end_user, check)
        results.append(CheckResult(user["id"], check["kind"], passed, detail))
    return results


def bench_run(
    *, users: list[dict], split: str, path: str, server: LLMServer | None = None
) -> Report:
    """Every user of a split through one path, as fresh users of the bench tenant."""
    Tenant.objects.filter(name=BENCH_TENANT).delete()
    tenant = Tenant.objects.create(
        name=BENCH_TENANT, is_active=False, conflict_policy=ConflictPolicy.SUPERSEDE
    )
    report = Report(split=split, path=path)
    try:
        if path == "llm":
            if server is None:
                raise ValueError("the llm path needs a server (--llm-base-url)")
            settings = server.configured(MEMORY_EXTRACTOR="llm", MEMORY_ASYNC_EXTRACTION=False)
        else:
            settings = override_settings(MEMORY_EXTRACTOR="rules", MEMORY_ASYNC_EXTRACTION=False)
        with settings:
            for user in users:
                report.results += user_run(user, tenant=tenant, report=report)
    finally:
        tenant.delete()
    return report
