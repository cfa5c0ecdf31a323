"""The per-user recall index: one user's active memories as a vector matrix plus BM25 postings.

A user's corpus is small (at most the cap), so the index is rebuilt from the database after any
write and kept hot in two layers: a process-local LRU (a warm request touches no database) and,
when the cache is shared (Redis), the shared cache, so one worker's build serves the others.

Freshness: every entry carries the *stamp* it was built under.
- With a shared cache the stamp is a version token kept there; `user_index_invalidate` replaces
  it after every committed write, so every process sees the write on its next request.
- With a process-local cache (the embedded default: LocMemCache, one per gunicorn worker) a
  token could not reach the other workers, so the stamp is a fingerprint of the user's active
  rows read from PostgreSQL (one indexed aggregate): a write made by any process changes it.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
from django.core.cache import cache
from django.core.cache.backends.dummy import DummyCache
from django.core.cache.backends.locmem import LocMemCache
from django.db import connection

from memories.models import Memory
from recall.embeddings import current_model_id
from recall.lexical import tokenize

logger = logging.getLogger(__name__)

_VERSION_KEY = "recall:v1:version:{end_user_id}"
_INDEX_KEY = "recall:v1:index:{end_user_id}:{stamp}"
# A shared-cache entry outlives no write (the stamp changes), so the TTL only bounds memory.
_INDEX_TTL_SECONDS = 24 * 3600
_LOCAL_MAX_USERS = 2048


@dataclass(frozen=True)
class UserIndex:
    """Everything recall needs about one user's active memories, in creation order."""

    end_user_id: int
    stamp: str
    model_id: str
    ids: tuple[str, ...]
    captions: tuple[str, ...]
    # (n, d) float32, L2-normalised; rows without a current-model vector are zero.
    vectors: np.ndarray
    # BM25 postings in CSR form: term -> column; rows/weights[indptr[c]:indptr[c + 1]].
    terms: dict[str, int]
    indptr: np.ndarray
    rows: np.ndarray
    weights: np.ndarray
    # Row of the previous / next memory of the same source session, -1 when none.
    previous: np.ndarray
    following: np.ndarray
    # Dense group number of each row: its source session, or a group of its own.
    groups: np.ndarray
    group_count: int

    @property
    def size(self) -> int:
        """The number of memories indexed."""
        return len(self.ids)

    def bm25(self, query_terms: list[str]) -> np.ndarray:
        """Return the BM25 score of every memory for the query terms (repeats count once)."""
        scores = np.zeros(self.size, dtype=np.float32)
        for term in set(query_terms):
            column = self.terms.get(term)
            if column is not None:
                start, end = self.indptr[column], self.indptr[column + 1]
                scores[self.rows[start:end]] += self.weights[start:end]
        return scores


def index_build(
    *,
    end_user_id: int,
    stamp: str,
    model_id: str,
    records: list[tuple[str, str, str, np.ndarray | None, str, int | None]],
    k1: float = 1.2,
    b: float = 0.5,
) -> UserIndex:
    """Build an index from (id, caption, full_text, embedding, embedding_model, session) rows."""
    size = len(records)
    vectors: np.ndarray | None = None
    documents: list[list[str]] = []
    sessions: list[int | None] = []
    for row, (_, caption, full_text, embedding, embedding_model, session) in enumerate(records):
        # The caption is usually a prefix or summary of the full text: index both, once.
        text = full_text if caption in full_text else f"{caption}. {full_text}"
        documents.append(tokenize(text))
        sessions.append(session)
        if embedding is None or embedding_model != model_id:
            continue  # lexical only until `reembed` runs: never compare two models' vectors
        vector = np.asarray(embedding, dtype=np.float32)
        if vectors is None:
            vectors = np.zeros((size, vector.shape[0]), dtype=np.float32)
        if vector.shape[0] == vectors.shape[1]:
            vectors[row] = vector
    if vectors is None:
        vectors = np.zeros((size, 1), dtype=np.float32)
    terms, indptr, rows, weights = _bm25_csr(documents, k1=k1, b=b)
    previous = np.full(size, -1, dtype=np.int32)
    following = np.full(size, -1, dtype=np.int32)
    groups = np.zeros(size, dtype=np.int32)
    group_of: dict[int, int] = {}
    last_row: dict[int, int] = {}
    group_count = 0
    for row, session in enumerate(sessions):
        if session is None:
            groups[row] = group_count
            group_count += 1
            continue
        if session not in group_of:
            group_of[session] = group_count
            group_count += 1
        groups[row] = group_of[session]
        if session in last_row:
            previous[row] = last_row[session]
            following[last_row[session]] = row
        last_row[session] = row
    return UserIndex(
        end_user_id=end_user_id,
        stamp=stamp,
        model_id=model_id,
        ids=tuple(r[0] for r in records),
        captions=tuple(r[1] for r in records),
        vectors=vectors,
        terms=terms,
        indptr=indptr,
        rows=rows,
        weights=weights,
        previous=previous,
        following=following,
        groups=groups,
        group_count=group_count,
    )


def _bm25_csr(
    documents: list[list[str]], *, k1: float, b: float
) -> tuple[dict[str, int], np.ndarray, np.ndarray, np.ndarray]:
    """BM25 weights (Lucene's non-negative idf) of tokenized documents as CSR postings."""
    size = len(documents)
    lengths = np.array([len(d) for d in documents] or [0], dtype=np.float32)
    average = max(float(lengths.mean()), 1.0)
    frequencies: dict[str, dict[int, int]] = {}
    for row, document in enumerate(documents):
        for term in document:
            counts = frequencies.setdefault(term, {})
            counts[row] = counts.get(row, 0) + 1
    terms: dict[str, int] = {}
    indptr = np.zeros(len(frequencies) + 1, dtype=np.int32)
    all_rows: list[np.ndarray] = []
    all_weights: list[np.ndarray] = []
    for column, (term, counts) in enumerate(frequencies.items()):
        terms[term] = column
        rows = np.fromiter(counts.keys(), dtype=np.int32, count=len(counts))
        tf = np.fromiter(counts.values(), dtype=np.float32, count=len(counts))
        idf = np.log1p((size - len(counts) + 0.5) / (len(counts) + 0.5))
        norm = k1 * (1 - b + b * lengths[rows] / average)
        all_rows.append(rows)
        all_weights.append((idf * tf * (k1 + 1) / (tf + norm)).astype(np.float32))
        indptr[column + 1] = indptr[column] + len(counts)
    rows = np.concatenate(all_rows) if all_rows else np.zeros(0, dtype=np.int32)
    weights = np.concatenate(all_weights) if all_weights else np.zeros(0, dtype=np.float32)
    return terms, indptr, rows, weights


# --- loading from the database ---------------------------------------------------------------


def _fetch_records(end_user_id: int) -> list[tuple]:
    """The user's active memories in creation order, embeddings as float32 arrays."""
    return list(
        Memory.objects.filter(end_user_id=end_user_id, status=Memory.Status.ACTIVE)
        .order_by("created_at", "id")
        .values_list("id", "caption", "full_text", "embedding", "embedding_model", "source_session")
    )


def _database_stamp(end_user_id: int) -> str:
    """A fingerprint of the user's active rows: any insert, delete, edit or status change."""
    table = Memory._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT count(*), max(updated_at), "
            f"coalesce(sum(hashtext(id || content_hash || embedding_model)::bigint), 0) "
            f"FROM {table} WHERE end_user_id = %s AND status = %s",
            [end_user_id, Memory.Status.ACTIVE],
        )
        count, updated, checksum = cursor.fetchone()
    return f"db:{count}:{updated.timestamp() if updated else 0}:{checksum}"


# --- the two cache layers ----------------------------------------------------------------------

_local: OrderedDict[int, UserIndex] = OrderedDict()
_local_lock = threading.Lock()


def _cache_is_shared() -> bool:
    """Whether the default cache is shared between processes (Redis), not per process."""
    return not isinstance(cache, LocMemCache | DummyCache)


def _local_get(end_user_id: int) -> UserIndex | None:
    with _local_lock:
        index = _local.get(end_user_id)
        if index is not None:
            _local.move_to_end(end_user_id)
        return index


def _local_put(index: UserIndex) -> None:
    with _local_lock:
        _local[index.end_user_id] = index
        _local.move_to_end(index.end_user_id)
        while len(_local) > _LOCAL_MAX_USERS:
            _local.popitem(last=False)


def _shared_stamp(end_user_id: int) -> str:
    """The user's version token in the shared cache, created on first use."""
    key = _VERSION_KEY.format(end_user_id=end_user_id)
    stamp = cache.get(key)
    if stamp is None:
        # add() so that two processes racing here agree on one token.
        cache.add(key, uuid.uuid4().hex, timeout=None)
        stamp = cache.get(key)
    return stamp


def user_index_get(*, end_user_id: int) -> UserIndex:
    """Return the user's current index, from the process, the shared cache or the database."""
    model_id = current_model_id()
    shared = _cache_is_shared()
    stamp = None
    if shared:
        try:
            stamp = _shared_stamp(end_user_id)
        except Exception:  # a cache outage must not fail recall: fall back to the database
            logger.warning("recall: shared cache unavailable, using database stamps", exc_info=True)
            shared = False
    if stamp is None:
        shared = False
        stamp = _database_stamp(end_user_id)

    index = _local_get(end_user_id)
    if index is not None and index.stamp == stamp and index.model_id == model_id:
        return index
    key = _INDEX_KEY.format(end_user_id=end_user_id, stamp=stamp)
    if shared:
        try:
            index = cache.get(key)
        except Exception:
            logger.warning("recall: could not read a cached index", exc_info=True)
            index = None
        if isinstance(index, UserIndex) and index.model_id == model_id:
            _local_put(index)
            return index
    # The stamp was read before the rows: if a write lands in between, the index is stored
    # under the old stamp, which that write's invalidation has already retired.
    index = index_build(
        end_user_id=end_user_id,
        stamp=stamp,
        model_id=model_id,
        records=_fetch_records(end_user_id),
    )
    _local_put(index)
    if shared:
        try:
            cache.set(key, index, timeout=_INDEX_TTL_SECONDS)
        except Exception:
            logger.warning("recall: could not store an index in the cache", exc_info=True)
    return index


def user_index_invalidate(*, end_user_id: int) -> None:
    """Forget the cached index of one end user after a write (best effort, never raises)."""
    with _local_lock:
        _local.pop(end_user_id, None)
    if not _cache_is_shared():
        return  # other processes notice the write through the database stamp
    key = _VERSION_KEY.format(end_user_id=end_user_id)
    try:
        old = cache.get(key)
        cache.set(key, uuid.uuid4().hex, timeout=None)
        if old is not None:
            # Deleted memories' text must not linger in the shared cache.
            cache.delete(_INDEX_KEY.format(end_user_id=end_user_id, stamp=old))
    except Exception:
        logger.warning("recall: could not invalidate user %s", end_user_id, exc_info=True)


def local_index_clear() -> None:
    """Drop every process-local index (tests, benches, a model switch)."""
    with _local_lock:
        _local.clear()
