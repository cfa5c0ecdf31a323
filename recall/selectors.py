"""Reads of recall: the memories of one user that matter for a prompt."""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings

from integrations.embeddings import EmbeddingError, embed_query
from integrations.llm import LLMUsage
from memories.models import EndUser, Tenant
from memories.services.usage import tenant_usage_add
from memory_platform.metrics import RECALL_DURATION
from recall.access import access_record
from recall.domains import names, needs, reading
from recall.index import UserIndex, user_index_find, user_index_get
from recall.lexical import tokenize
from recall.ranking import MODES, Query, Ranked, rank
from recall.rerank import llm_choose

logger = logging.getLogger(__name__)

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


@dataclass(frozen=True)
class Recall:
    """The memories recalled for a prompt, and with `explain` why (or why none)."""

    memories: list[RelevantMemory]
    explanation: dict | None = None
    # The LLM modes' calls and tokens, for the tenant's usage.
    cost: LLMUsage = field(default_factory=LLMUsage)


def memory_relevant_list(
    *, end_user: EndUser, prompt: str, limit: int = 10, mode: str | None = None
) -> list[RelevantMemory]:
    """Return the user's active memories most relevant to `prompt`, best first."""
    return memory_recall(end_user=end_user, prompt=prompt, limit=limit, mode=mode).memories


def memory_recall(
    *,
    end_user: EndUser | None,
    prompt: str,
    limit: int = 10,
    mode: str | None = None,
    explain: bool = False,
) -> Recall:
    """The user's active memories most relevant to `prompt`, best first, optionally explained.

    A user the tenant has never seen (None) has no memories."""
    mode = _checked_mode(mode)
    index = None if end_user is None else user_index_get(end_user_id=end_user.pk)
    return _recall(index, prompt=prompt, limit=limit, mode=mode, explain=explain)


def memory_recall_for_external_id(
    *,
    tenant: Tenant,
    external_id: uuid.UUID,
    prompt: str,
    limit: int = 10,
    mode: str | None = None,
    explain: bool = False,
) -> Recall:
    """`memory_recall` for the tenant's end user `external_id`; a user the tenant has never seen
    (another tenant's included) has no memories.

    The API's path: the user is looked up together with its index's freshness, one query on a
    warm request instead of an ORM lookup and then the stamp. Counted as one recall in the
    tenant's usage (the one write of this module besides access statistics)."""
    mode = _checked_mode(mode)
    # The index's lookup (or build) and the ranking, not the usage write after them.
    with RECALL_DURATION.labels("relevant").time():
        index = user_index_find(tenant_id=tenant.pk, external_id=external_id)
        recall = _recall(index, prompt=prompt, limit=limit, mode=mode, explain=explain)
    tenant_usage_add(tenant_id=tenant.pk, recalls=1, **recall.cost.counts())
    return recall


def _checked_mode(mode: str | None) -> str:
    mode = mode or settings.RECALL_MODE
    if mode not in MODES:
        raise ValueError(f"unknown recall mode {mode!r}; expected one of {', '.join(MODES)}")
    return mode


def _recall(
    index: UserIndex | None, *, prompt: str, limit: int, mode: str, explain: bool
) -> Recall:
    """Rank the memories of `index` (None: a user with none) for `prompt`."""
    if index is None or index.size == 0 or limit <= 0 or not prompt.strip():
        # Nothing to rank: skip the query embedding altogether.
        return Recall([], {"reason": "no memories", "mode": mode} if explain else None)
    signals: tuple = ()
    explanation = {"mode": mode} if explain else None
    cost = LLMUsage()
    if mode == "llm":
        picked = llm_choose(prompt=prompt, captions=list(index.captions), limit=limit, cost=cost)
        if picked is not None:
            rows, scores = np.array(picked, dtype=np.int64), _positional(len(picked))
        else:
            ranked = _ranked(index, prompt, "hybrid", limit, explanation)
            rows, scores, signals = ranked.rows, ranked.scores, ranked.signals
    elif mode == "hybrid+llm":
        ranked = _ranked(index, prompt, "hybrid", max(limit, RERANK_SHORTLIST), explanation)
        rows, scores, signals = ranked.rows, ranked.scores, ranked.signals
        picked = None
        if rows.size:
            # The floor runs first: a prompt about nothing the user said costs no LLM call.
            captions = [index.captions[row] for row in rows]
            picked = llm_choose(prompt=prompt, captions=captions, limit=limit, cost=cost)
        if picked is not None:
            rows, scores = rows[picked], _positional(len(picked))
            signals = tuple(signals[i] for i in picked) if signals else ()
        rows, scores, signals = rows[:limit], scores[:limit], signals[:limit]
    else:
        ranked = _ranked(index, prompt, mode, limit, explanation)
        rows, scores, signals = ranked.rows, ranked.scores, ranked.signals
    results = [
        RelevantMemory(
            id=index.ids[row],
            caption=index.captions[row],
            score=round(float(s), 4),
            signals=signals[n] if signals else None,
        )
        for n, (row, s) in enumerate(zip(rows, scores, strict=True))
    ]
    access_record(memory_ids=[r.id for r in results])
    return Recall(results, explanation, cost)


def _ranked(
    index: UserIndex, prompt: str, mode: str, limit: int, explanation: dict | None
) -> Ranked:
    """Rank for one prompt; with an `explanation`, note how the prompt was read and why an
    answer is empty."""
    query_vector = None
    if mode != "lexical":
        try:
            query_vector = embed_query(prompt)
        except EmbeddingError:
            # A down embedding provider degrades recall to lexical, it does not fail it.
            logger.warning("recall: query embedding failed, ranking lexically", exc_info=True)
    personal, general = reading(prompt)
    wanted = needs(prompt, query_vector, index.model_id) if personal else None
    # A question naming whom the memories are about ("When did Caroline move?") is about them.
    general = general and not any(name.lower() in index.subjects for name in names(prompt))
    query = Query(
        vector=query_vector,
        terms=tokenize(prompt),
        personal=personal,
        general=general,
        domains=wanted,
    )
    explain = explanation is not None
    ranked = rank(index=index, query=query, mode=mode, limit=limit, explain=explain)
    if explain:
        explanation.update(personal_request=personal, general_question=general)
        explanation.update(ranked.why_empty or {})
    return ranked


def _positional(count: int) -> np.ndarray:
    """Scores for an order the LLM chose: 1.0 for its first pick, evenly down from there."""
    return np.linspace(1.0, 1.0 / max(count, 1), num=count, dtype=np.float32)
