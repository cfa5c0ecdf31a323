"""Reads of recall: the memories of one user that matter for a prompt."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.conf import settings

from memories.models import EndUser
from recall.access import access_record
from recall.embeddings import EmbeddingError, embed_query
from recall.index import user_index_get
from recall.lexical import tokenize
from recall.ranking import MODES, rank

logger = logging.getLogger(__name__)


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
        mode="hybrid" if mode in {"llm", "hybrid+llm"} else mode,
        limit=limit,
    )
    results = [
        RelevantMemory(id=index.ids[row], caption=index.captions[row], score=round(float(s), 4))
        for row, s in zip(ranked.rows, ranked.scores, strict=True)
    ]
    access_record(memory_ids=[r.id for r in results])
    return results
