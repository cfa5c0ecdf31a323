"""Reads of recall: the memories of one user that matter for a prompt."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
from django.conf import settings

from integrations.embeddings import EmbeddingError, embed_query
from memories.models import EndUser
from recall.access import access_record
from recall.index import UserIndex, user_index_get
from recall.lexical import tokenize
from recall.ranking import MODES, rank
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


def memory_relevant_list(
    *, end_user: EndUser, prompt: str, limit: int = 10, mode: str | None = None
) -> list[RelevantMemory]:
    """Return the user's active memories most relevant to `prompt`, best first."""
    mode = mode or settings.RECALL_MODE
    if mode not in MODES:
        raise ValueError(f"unknown recall mode {mode!r}; expected one of {', '.join(MODES)}")
    index = user_index_get(end_user_id=end_user.pk)
    if index.size == 0 or limit <= 0 or not prompt.strip():
        return []  # nothing to rank: skip the query embedding altogether
    if mode == "llm":
        picked = llm_choose(prompt=prompt, captions=list(index.captions), limit=limit)
        rows, scores = (
            (np.array(picked, dtype=np.int64), _positional(len(picked)))
            if picked is not None
            else _hybrid(index, prompt, limit)
        )
    elif mode == "hybrid+llm":
        rows, scores = _hybrid(index, prompt, max(limit, RERANK_SHORTLIST))
        picked = None
        if rows.size:
            # The floor runs first: a prompt about nothing the user said costs no LLM call.
            captions = [index.captions[row] for row in rows]
            picked = llm_choose(prompt=prompt, captions=captions, limit=limit)
        if picked is not None:
            rows, scores = rows[picked], _positional(len(picked))
        rows, scores = rows[:limit], scores[:limit]
    else:
        rows, scores = _ranked(index, prompt, mode, limit)
    results = [
        RelevantMemory(id=index.ids[row], caption=index.captions[row], score=round(float(s), 4))
        for row, s in zip(rows, scores, strict=True)
    ]
    access_record(memory_ids=[r.id for r in results])
    return results


def _ranked(index: UserIndex, prompt: str, mode: str, limit: int) -> tuple[np.ndarray, np.ndarray]:
    query_vector = None
    if mode != "lexical":
        try:
            query_vector = embed_query(prompt)
        except EmbeddingError:
            # A down embedding provider degrades recall to lexical, it does not fail it.
            logger.warning("recall: query embedding failed, ranking lexically", exc_info=True)
    ranked = rank(
        index=index,
        query_vector=query_vector,
        query_terms=tokenize(prompt),
        mode=mode,
        limit=limit,
    )
    return ranked.rows, ranked.scores


def _hybrid(index: UserIndex, prompt: str, limit: int) -> tuple[np.ndarray, np.ndarray]:
    return _ranked(index, prompt, "hybrid", limit)


def _positional(count: int) -> np.ndarray:
    """Scores for an order the LLM chose: 1.0 for its first pick, evenly down from there."""
    return np.linspace(1.0, 1.0 / max(count, 1), num=count, dtype=np.float32)
