"""Scoring one user's index against a prompt: vector, lexical, and their fusion with a floor.

Pure numpy over an in-memory index, so a ranking costs tens of microseconds. Every parameter
was tuned on LoCoMo conversations 0-4 and the off-topic set only (docs/benchmarks.md).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from integrations.embeddings import (
    HASHING_MODEL_ID,
    LOCAL_MODEL_ID,
    LOCAL_QUANTIZED_MODEL_ID,
    OPENAI_MODEL_ID,
)
from recall.index import UserIndex

MODES = ("vector", "lexical", "hybrid", "llm", "hybrid+llm")


@dataclass(frozen=True)
class RankingParams:
    """The knobs of the ranker (the defaults are the dev-split tuning)."""

    # Fusion: weight of the cosine against BM25 divided by the prompt's best BM25.
    vector_weight: float = 0.7
    # Hubness correction: a memory close to many others is close to many prompts too, so its
    # mean similarity to its nearest fellow memories is taken off, this much (ranking only).
    hub_weight: float = 0.7
    # Context: memories written together (same source session) explain each other, so a
    # memory gains from its best-scoring neighbour and from the best memory of its session.
    neighbour_weight: float = 0.2
    session_weight: float = 0.5
    # Relevance floor. The prompt is about the user at all only if some memory is close
    # (cosine >= strong_cosine) or fairly close and shares a content word; otherwise the
    # answer is empty. Then a memory is returned only if its score is at least
    # `relative_floor` of the best one.
    strong_cosine: float = 0.25
    weak_cosine: float = 0.20
    relative_floor: float = 0.2


DEFAULT_PARAMS = RankingParams()

# The cosine floors depend on a model's similarity scale, so each model has its own. MiniLM's
# were tuned on the off-topic set (its quantized run gives vectors within 0.99 cosine of the
# shipped one); the hashing embedder's follow from its construction (one shared word of ten
# gives about 0.1); OpenAI's are an uncalibrated first guess (unrelated texts sit near 0.1
# there): check them with `bench_recall --offtopic` before relying on them.
_FLOORS = {
    LOCAL_MODEL_ID: (0.25, 0.20),
    LOCAL_QUANTIZED_MODEL_ID: (0.25, 0.20),
    HASHING_MODEL_ID: (0.10, 0.05),
    OPENAI_MODEL_ID: (0.30, 0.22),
}


def params_for(model_id: str) -> RankingParams:
    """The ranking parameters calibrated for vectors of `model_id`."""
    if model_id not in _FLOORS:
        return DEFAULT_PARAMS
    strong, weak = _FLOORS[model_id]
    return replace(DEFAULT_PARAMS, strong_cosine=strong, weak_cosine=weak)


@dataclass(frozen=True)
class Ranked:
    """Rows of the index, best first, with their scores."""

    rows: np.ndarray
    scores: np.ndarray


_EMPTY = Ranked(rows=np.zeros(0, dtype=np.int64), scores=np.zeros(0, dtype=np.float32))


def _context_boost(index: UserIndex, scores: np.ndarray, params: RankingParams) -> np.ndarray:
    """Add the best neighbour's and the best same-session memory's score to each memory."""
    positive = np.maximum(scores, 0)
    boosted = scores.copy()
    if params.neighbour_weight:
        padded = np.append(positive, 0.0)  # row -1 (no neighbour) reads the 0 at the end
        neighbour = np.maximum(padded[index.previous], padded[index.following])
        boosted += params.neighbour_weight * neighbour
    if params.session_weight:
        best = np.zeros(index.group_count, dtype=positive.dtype)
        np.maximum.at(best, index.groups, positive)
        boosted += params.session_weight * best[index.groups]
    return boosted


def rank(
    *,
    index: UserIndex,
    query_vector: np.ndarray | None,
    query_terms: list[str],
    mode: str,
    limit: int,
    params: RankingParams | None = None,
) -> Ranked:
    """Rank the index for one prompt; `query_vector` None means lexical only."""
    params = params or params_for(index.model_id)
    if index.size == 0 or limit <= 0:
        return _EMPTY
    lexical = index.bm25(query_terms)
    if query_vector is None or index.vectors.shape[1] != query_vector.shape[0]:
        mode = "lexical"
        cosine = None
    else:
        cosine = index.vectors @ query_vector

    if mode == "lexical":
        scores = lexical
        candidates = np.flatnonzero(lexical > 0)
    elif mode == "vector":
        if not (cosine >= params.strong_cosine).any():
            return _EMPTY
        scores = cosine
        candidates = np.arange(index.size)
    else:
        strong = (cosine >= params.strong_cosine) | ((cosine >= params.weak_cosine) & (lexical > 0))
        if not strong.any():
            return _EMPTY  # nothing about this user is close to the prompt
        top = float(lexical.max())
        w = params.vector_weight
        # A hub estimate needs many fellow memories: in a small corpus the nearest twenty are
        # most of it, so the correction grows with the corpus and is full from 101 memories.
        hub = params.hub_weight * min(1.0, (index.size - 1) / 100)
        corrected = cosine - hub * index.hubness
        scores = w * corrected + (1 - w) * (lexical / top if top > 0 else lexical)
        scores = _context_boost(index, scores, params)
        candidates = np.arange(index.size)
    if candidates.size == 0:
        return _EMPTY
    order = candidates[np.argsort(-scores[candidates], kind="stable")[:limit]]
    ordered = scores[order]
    if params.relative_floor and ordered.size and ordered[0] > 0:
        keep = ordered >= params.relative_floor * ordered[0]
        order, ordered = order[keep], ordered[keep]
    return Ranked(rows=order, scores=ordered.astype(np.float32))
