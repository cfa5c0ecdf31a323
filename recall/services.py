"""Recall: the memories of one user that matter for a prompt, and what recalling them records.

A recall is a write besides a read: it counts an access of each memory returned (off the
request path, `recall.access`), the `llm` modes call the LLM, and the API's recall counts in
the tenant's usage. The ranking itself is `recall.selectors`.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from django.utils import timezone

from core.metrics import RECALL_DURATION
from integrations.llm import LLMUsage
from memories.models import EndUser, MemoryEvidence
from memories.selectors import memory_evidence_map
from recall.access import access_record
from recall.index import UserIndex, user_index_find, user_index_get
from recall.ranking import Ranked
from recall.rerank import llm_choose
from recall.selectors import memory_ranked, ranked_as_picked, ranked_reordered, recall_mode_checked
from recall.timeline import (
    PAST_FIRST,
    asks_about_past,
    before_first,
    current_rows,
    past_first,
    past_rows,
    period_of,
    rows_held_on,
    user_timeline_get,
)
from tenants.models import Tenant
from tenants.services import tenant_usage_add

# How many hybrid candidates `hybrid+llm` shows the LLM.
RERANK_SHORTLIST = 20


@dataclass(frozen=True)
class RelevantMemory:
    """One recalled memory and how relevant it is (higher is more relevant)."""

    id: str
    caption: str
    score: float
    # With `explain`: the signals behind the rank (cosine, lexical, domain need...).
    signals: dict | None = None
    # When it holds ("since October 2026", "from March 2021 to June 2024"; "" when unknown),
    # and whether it no longer does (an update replaced it, or its end has passed).
    period: str = ""
    past: bool = False
    # With `explain`: what the user said that it came from (`MemoryEvidence` rows).
    evidence: list[MemoryEvidence] | None = None


@dataclass(frozen=True)
class Recall:
    """The memories recalled for a prompt, and with `explain` why (or why none)."""

    memories: list[RelevantMemory]
    explanation: dict | None = None
    # The LLM modes' calls and tokens, for the tenant's usage.
    cost: LLMUsage = field(default_factory=LLMUsage)


def memory_recall(
    *,
    tenant: Tenant,
    external_id: str,
    prompt: str,
    limit: int = 10,
    mode: str | None = None,
    explain: bool = False,
    as_of: datetime.date | None = None,
) -> Recall:
    """The tenant's end user `external_id`'s active memories most relevant to `prompt`, best
    first; a user the tenant has never seen (another tenant's included) has no memories.
    With `as_of`, the memories that held on that day instead (`recall.timeline`).

    The API's path: the user is looked up together with its index's freshness, one query on a
    warm request instead of an ORM lookup and then the stamp. Counted as one recall in the
    tenant's usage, LLM calls and tokens included. Not atomic on purpose: the usage row is one
    statement, and alone in its transaction it commits without waiting for the WAL flush
    (`tenant_usage_add`); nothing else here writes in the request's transaction."""
    mode = recall_mode_checked(mode)
    # The index's lookup (or build) and the ranking, not the usage write after them.
    with RECALL_DURATION.labels("relevant").time():
        index = user_index_find(tenant_id=tenant.pk, external_id=external_id)
        recall = _recall(index, prompt=prompt, limit=limit, mode=mode, explain=explain, as_of=as_of)
    if explain and index is not None and recall.memories:
        recall = _with_evidence(recall, end_user_id=index.end_user_id)
    tenant_usage_add(tenant_id=tenant.pk, recalls=1, **recall.cost.counts())
    return recall


def _with_evidence(recall: Recall, *, end_user_id: int) -> Recall:
    """`recall` with each memory's evidence (explain=true): one query, after the ranking, so
    the default answer costs nothing more."""
    found = memory_evidence_map(end_user_id=end_user_id, memory_ids=[m.id for m in recall.memories])
    memories = [replace(m, evidence=found.get(m.id, [])) for m in recall.memories]
    return replace(recall, memories=memories)


def memory_recall_for_end_user(
    *,
    end_user: EndUser | None,
    prompt: str,
    limit: int = 10,
    mode: str | None = None,
    explain: bool = False,
    as_of: datetime.date | None = None,
) -> Recall:
    """`memory_recall` for an end user already at hand (None: one never seen has no memories).

    Counts no usage: its callers (the context, the benchmarks) count their own."""
    mode = recall_mode_checked(mode)
    index = None if end_user is None else user_index_get(end_user_id=end_user.pk)
    return _recall(index, prompt=prompt, limit=limit, mode=mode, explain=explain, as_of=as_of)


def _rows_in_time(
    index: UserIndex, prompt: str, as_of: datetime.date | None
) -> tuple[UserIndex, np.ndarray | None, str]:
    """The index to rank and the rows it may answer: the facts that held on `as_of`, every
    fact for a prompt about the past (the replaced ones too), else those that hold today
    (None: every row, the default read exactly as before issue 33); and which of the three."""
    if as_of is not None:
        timeline = user_timeline_get(end_user_id=index.end_user_id)
        return timeline, rows_held_on(timeline, as_of), "as_of"
    if asks_about_past(prompt):
        return user_timeline_get(end_user_id=index.end_user_id), None, "past"
    return index, current_rows(index, timezone.now().date()), "present"


def _recall(
    index: UserIndex | None,
    *,
    prompt: str,
    limit: int,
    mode: str,
    explain: bool,
    as_of: datetime.date | None = None,
) -> Recall:
    """Rank the memories of `index` (None: a user with none) for `prompt`."""
    if index is not None and limit > 0 and prompt.strip():
        index, allowed, reading = _rows_in_time(index, prompt, as_of)
    else:
        allowed, reading = None, "present"
    if index is None or index.size == 0 or limit <= 0 or not prompt.strip():
        # Nothing to rank: skip the query embedding altogether.
        return Recall([], {"reason": "no memories", "mode": mode} if explain else None)
    explanation: dict[str, Any] | None = {"mode": mode} if explain else None
    if explanation is not None and reading != "present":
        explanation["time"] = reading if as_of is None else f"as of {as_of.isoformat()}"
    cost = LLMUsage()
    # The rows the LLM modes may show the model: those the time allows.
    shown = np.arange(index.size) if allowed is None else np.flatnonzero(allowed)

    def ranked_by(
        ranker: str, count: int, on: UserIndex | None = None, rows: np.ndarray | None = None
    ) -> Ranked:
        ranked, notes = memory_ranked(
            index=index if on is None else on,
            prompt=prompt,
            mode=ranker,
            limit=count,
            explain=explain,
            allowed=allowed if on is None else rows,
        )
        if explanation is not None:
            explanation.update(notes)
        return ranked

    if mode == "llm":
        captions = [index.captions[row] for row in shown]
        picked = llm_choose(prompt=prompt, captions=captions, limit=limit, cost=cost)
        if picked is not None:
            ranked = ranked_as_picked([int(shown[at]) for at in picked])
        else:
            ranked = ranked_by("hybrid", limit)
    elif mode == "hybrid+llm":
        shortlist = ranked_by("hybrid", max(limit, RERANK_SHORTLIST))
        picked = None
        if shortlist.rows.size:
            # The floor runs first: a prompt about nothing the user said costs no LLM call.
            captions = [index.captions[row] for row in shortlist.rows]
            picked = llm_choose(prompt=prompt, captions=captions, limit=limit, cost=cost)
        ranked = ranked_reordered(shortlist, picked, limit=limit)
    else:
        ranked = ranked_by(mode, limit)
    answered = index  # the index whose rows the answer names
    if (
        reading == "present"
        and not ranked.rows.size
        and index.has_replaced
        and mode in ("hybrid", "vector")
    ):
        # Nothing current reached the prompt: a fact an update replaced may ("my partner"
        # after "my boyfriend Tom", replaced by "dating Ana now"). It says the prompt is about
        # the user; only the facts that hold today answer it. One query more (the timeline's
        # stamp), only for a user the index says has such a fact.
        timeline = user_timeline_get(end_user_id=index.end_user_id)
        if timeline.replaced is not None and timeline.replaced.any():
            answered = timeline
            ranked = ranked_by(mode, limit, timeline, current_rows(timeline, timezone.now().date()))
    past = past_rows(answered, timezone.now().date())
    if reading == "past" and mode in ("hybrid", "vector") and past.any():
        ranked = past_first(ranked, ranked_by(mode, PAST_FIRST, answered, past), past)
        ranked = before_first(ranked, answered, prompt, past)
    signals = ranked.signals
    results = [
        RelevantMemory(
            id=answered.ids[row],
            caption=answered.captions[row],
            score=round(float(s), 4),
            signals=signals[n] if signals else None,
            period=period_of(answered, row),
            past=bool(past[row]),
        )
        for n, (row, s) in enumerate(zip(ranked.rows, ranked.scores, strict=True))
    ]
    if explanation is not None:
        # Each memory's period, and which no longer hold: a past fact is labelled, never
        # presented as current.
        periods = {r.id: r.period for r in results if r.period}
        if periods:
            explanation["periods"] = periods
        if any(r.past for r in results):
            explanation["past"] = [r.id for r in results if r.past]
    access_record(memory_ids=[r.id for r in results])
    return Recall(results, explanation, cost)
