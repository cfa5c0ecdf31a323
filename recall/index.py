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
  The API reads it in the same statement as the user's lookup (`user_index_find`).
"""

from __future__ import annotations

import logging
import re
import threading
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import cached_property

import numpy as np
from django.core.cache import cache, caches
from django.core.cache.backends.dummy import DummyCache
from django.core.cache.backends.locmem import LocMemCache
from django.db import connection

from integrations.embeddings import current_model_id
from memories.models import EndUser, Memory
from recall.domains import FINGERPRINT, membership
from recall.lexical import bm25_postings, tokenize
from recall.people import about_whom, name_rows, names_of, whom_rows
from recall.standing import standing_rows

logger = logging.getLogger(__name__)

# v2 added life-domain memberships, v3 whom each memory is about, v4 the names of the user's
# people; index v5: terms from `core.words` (a word of any script is one term), so an older
# cached index's terms would not meet a prompt's. The domains' fingerprint retires cached
# memberships computed from older word lists.
# v6: when each memory holds (issue 33), and the timeline; v7: `UserIndex.has_replaced`;
# v8: `UserIndex.standing` and `UserIndex.names`.
_VERSION_KEY = "recall:v4:version:{end_user_id}"
_INDEX_KEY = "recall:v8:index:{end_user_id}:{stamp}:" + FINGERPRINT
# A shared-cache entry outlives no write (the stamp changes), so the TTL only bounds memory.
_INDEX_TTL_SECONDS = 24 * 3600
LOCAL_MAX_USERS = 2048


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
    # Mean cosine of each memory to its nearest fellow memories: a "hub" that is close to
    # everything gets this much taken off its similarity to a prompt.
    hubness: np.ndarray
    # (n, D): how much each memory belongs to each life domain (recall.domains).
    domains: np.ndarray
    # Who the memories are about: the first word of each caption, lower-cased ("user",
    # "caroline"), so a question naming one of them is about the user's world.
    subjects: frozenset[str]
    # Whether each memory is about one of the user's people ("User's mum lives in York"),
    # not the user themself: a prompt about the user ranks these after the user's own facts.
    others: np.ndarray
    # The names of the user's people, lower-cased ("hannah" of "User's sister Hannah is a
    # nurse"): a prompt naming one ("hannah's had a rough week") is about them, not the user,
    # however it is capitalised.
    people_names: frozenset[str] = frozenset()
    # Which rows are about whom: each word naming one of the user's people in a caption (its
    # relation as `same_words` heads it, "mum" for "mother", and its name) -> those rows, so
    # a prompt naming one ranks the facts about the others after (recall.ranking).
    whom: dict[str, np.ndarray] = field(default_factory=dict)
    # When each memory holds (issue 33), as proleptic ordinals of days (`date.toordinal`):
    # `valid_from` and `valid_to` (0: open or unknown; `valid_to` exclusive), the day it was
    # said, and whether an update replaced it (a superseded row: only a timeline holds those).
    valid_from: np.ndarray | None = None
    valid_to: np.ndarray | None = None
    stated: np.ndarray | None = None
    replaced: np.ndarray | None = None
    # Whether an update had closed one of the user's facts when it was built (closing one moves
    # the stamp): only then does a present prompt nothing current answers read the timeline.
    has_replaced: bool = False
    # (n,) the user's own standing constraints (recall.standing): "User can't swim".
    standing: np.ndarray | None = None
    # (n,) the facts that give the user's name alone (recall.people.name_rows).
    names: np.ndarray | None = None

    @cached_property
    def vocabulary(self) -> tuple[str, ...]:
        """The index's terms sorted, for a prefix's range (recall.lexical.derived_terms); made
        on first use and kept with the index."""
        return tuple(sorted(self.terms))

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
    records: list[tuple],
    has_replaced: bool = False,
    k1: float = 1.2,
    b: float = 0.5,
) -> UserIndex:
    """Build an index from (id, caption, full_text, embedding, embedding_model, session) rows,
    each with its time (valid_from, valid_to, stated day as ordinals, replaced) seventh when
    known."""
    size = len(records)
    vectors: np.ndarray | None = None
    documents: list[list[str]] = []
    texts: list[str] = []
    captions = [record[1] for record in records]
    sessions: list[int | None] = []
    times = np.array([record[6] if len(record) > 6 else (0, 0, 0, 0) for record in records])
    times = times.reshape(size, 4).astype(np.int64)
    for row, (_, caption, full_text, embedding, embedding_model, session) in enumerate(
        record[:6] for record in records
    ):
        # The caption is usually a prefix or summary of the full text: index both, once.
        text = full_text if caption in full_text else f"{caption}. {full_text}"
        texts.append(text)
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
    terms, indptr, rows, weights = bm25_postings(documents, k1=k1, b=b)
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
    about = [about_whom(caption) for caption in captions]
    others = np.array([bool(words) for words in about], dtype=bool)
    people_names = frozenset(
        word
        for caption, words in zip(captions, about, strict=True)
        for word in words
        if word in names_of(caption)
    )
    domains = membership(list(captions), texts, vectors, model_id)
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
        hubness=_hubness(vectors),
        domains=domains,
        subjects=frozenset(
            match[0].lower() for caption in captions if (match := _SUBJECT.match(caption))
        ),
        others=others,
        people_names=people_names,
        whom=whom_rows(about),
        valid_from=times[:, 0],
        valid_to=times[:, 1],
        stated=times[:, 2],
        replaced=times[:, 3].astype(bool),
        has_replaced=has_replaced,
        standing=standing_rows(captions, domains, others),
        names=name_rows(captions, others),
    )


HUB_NEIGHBOURS = 20
# The name a caption opens with: "Caroline" of "Caroline: ..." (a turn) and of "Caroline's ...".
_SUBJECT = re.compile(r"[^\W\d_]+")


def _hubness(vectors: np.ndarray) -> np.ndarray:
    """Mean cosine of each row to its HUB_NEIGHBOURS most similar other rows (0 when alone)."""
    size = vectors.shape[0]
    if size < 2:
        return np.zeros(size, dtype=np.float32)
    similarity = vectors @ vectors.T
    np.fill_diagonal(similarity, -np.inf)
    k = min(HUB_NEIGHBOURS, size - 1)
    nearest = np.partition(similarity, size - k, axis=1)[:, size - k :]
    return nearest.mean(axis=1).astype(np.float32)


# --- loading from the database ---------------------------------------------------------------


# The rows of an index: the active memories; a timeline adds the facts an update closed.
CURRENT_ROWS = "status = 'active'"
TIMELINE_ROWS = "(status = 'active' OR (status = 'superseded' AND valid_to IS NOT NULL))"


def fetch_records(end_user_id: int, rows: str = CURRENT_ROWS) -> tuple[list[tuple], bool]:
    """The user's active memories (or `rows`) in creation order, embeddings as float32 arrays,
    each with its time (`index_build`); and whether the user has a fact an update closed
    (`UserIndex.has_replaced`: a scalar subquery, run once beside the rows, no round trip)."""
    table = Memory._meta.db_table
    with connection.cursor() as cursor:
        # vector_send() is pgvector's binary form (two int16 then big-endian float4s): parsing
        # it is a memory copy, where the text form costs a float() per dimension.
        cursor.execute(
            # The use-when hint is indexed with the text: its words find the memory too.
            f"SELECT id, caption, concat_ws(' ', full_text, nullif(use_when, '')), "
            f"vector_send(embedding), embedding_model, source_session_id, "
            f"valid_from, valid_to, (stated_at AT TIME ZONE 'UTC')::date, status, "
            f"(SELECT EXISTS (SELECT 1 FROM {table} WHERE end_user_id = %s "
            f"AND status = 'superseded' AND valid_to IS NOT NULL)) "
            f"FROM {table} WHERE end_user_id = %s AND {rows} "
            f"ORDER BY created_at, id",
            [end_user_id, end_user_id],
        )
        found = cursor.fetchall()
    return [_record(*row[:-1]) for row in found], bool(found and found[0][-1])


def _record(
    memory_id: str,
    caption: str,
    text: str,
    raw: bytes | memoryview | None,
    model: str,
    session: int | None,
    valid_from: date | None,
    valid_to: date | None,
    stated: date | None,
    status: str,
) -> tuple:
    """One row as `index_build` takes it: its time seventh."""
    time = (_day(valid_from), _day(valid_to), _day(stated), int(status != Memory.Status.ACTIVE))
    return (memory_id, caption, text, _vector(raw), model, session, time)


def _day(value: date | None) -> int:
    """A date as its ordinal, 0 for none."""
    return value.toordinal() if value is not None else 0


def _vector(raw: bytes | memoryview | None) -> np.ndarray | None:
    """A pgvector binary value as float32 (None stays None)."""
    if raw is None:
        return None
    return np.frombuffer(bytes(raw), dtype=">f4", offset=4).astype(np.float32)


# A fingerprint of a user's active rows: any insert, delete, edit or status change moves it.
_STAMP_COLUMNS = (
    "count(*), max(updated_at), "
    "coalesce(sum(hashtext(id || content_hash || embedding_model)::bigint), 0)"
)


def stamp_text(count: int, updated: datetime | None, checksum: int) -> str:
    return f"db:{count}:{updated.timestamp() if updated else 0}:{checksum}"


def _database_stamp(end_user_id: int) -> str:
    """The database stamp of the user's active rows."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {_STAMP_COLUMNS} FROM {Memory._meta.db_table} "
            f"WHERE end_user_id = %s AND status = %s",
            [end_user_id, Memory.Status.ACTIVE],
        )
        return stamp_text(*cursor.fetchone())


def _end_user_id(tenant_id: int, external_id: str) -> int | None:
    """The primary key of the tenant's end user `external_id`, None when it has none."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id FROM {EndUser._meta.db_table} WHERE tenant_id = %s AND external_id = %s",
            [tenant_id, str(external_id)],
        )
        row = cursor.fetchone()
    return row[0] if row else None


def _end_user_and_stamp(tenant_id: int, external_id: str) -> tuple[int, str] | None:
    """The tenant's end user `external_id` and its database stamp, in one statement."""
    with connection.cursor() as cursor:
        # The lateral subquery's unqualified columns are the memory's (its own FROM).
        cursor.execute(
            f"SELECT u.id, s.* FROM {EndUser._meta.db_table} u CROSS JOIN LATERAL ("
            f"SELECT {_STAMP_COLUMNS} FROM {Memory._meta.db_table} "
            f"WHERE end_user_id = u.id AND status = %s) s "
            f"WHERE u.tenant_id = %s AND u.external_id = %s",
            [Memory.Status.ACTIVE, tenant_id, str(external_id)],
        )
        row = cursor.fetchone()
    return (row[0], stamp_text(*row[1:])) if row else None


# --- the two cache layers ----------------------------------------------------------------------

_local: OrderedDict[int, UserIndex] = OrderedDict()
local_lock = threading.Lock()


def _cache_is_shared() -> bool:
    """Whether the default cache is shared between processes (Redis), not per process."""
    # `cache` is a proxy (isinstance would always say no): ask the handler for the backend.
    return not isinstance(caches["default"], LocMemCache | DummyCache)


def _local_get(end_user_id: int) -> UserIndex | None:
    with local_lock:
        index = _local.get(end_user_id)
        if index is not None:
            _local.move_to_end(end_user_id)
        return index


def _local_put(index: UserIndex) -> None:
    with local_lock:
        _local[index.end_user_id] = index
        _local.move_to_end(index.end_user_id)
        while len(_local) > LOCAL_MAX_USERS:
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
    stamp = None
    if _cache_is_shared():
        try:
            stamp = _shared_stamp(end_user_id)
        except Exception:  # a cache outage must not fail recall: fall back to the database
            logger.warning("recall: shared cache unavailable, using database stamps", exc_info=True)
    if stamp is None:
        return _index_at(end_user_id, _database_stamp(end_user_id), shared=False)
    return _index_at(end_user_id, stamp, shared=True)


def user_index_find(*, tenant_id: int, external_id: str) -> UserIndex | None:
    """The current index of the tenant's end user `external_id`; None when the tenant has no
    such user (another tenant's user included), as `memories.selectors.end_user_get` reads it.

    The read path's lookup: without a shared cache the user and its database stamp come from
    one statement, so a warm request makes one query."""
    if _cache_is_shared():
        end_user_id = _end_user_id(tenant_id, external_id)
        return None if end_user_id is None else user_index_get(end_user_id=end_user_id)
    found = _end_user_and_stamp(tenant_id, external_id)
    return None if found is None else _index_at(*found, shared=False)


def _index_at(end_user_id: int, stamp: str, *, shared: bool) -> UserIndex:
    """The user's index as of `stamp`: the process's, the shared cache's or a new build."""
    model_id = current_model_id()
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
    rows, replaced = fetch_records(end_user_id)
    index = index_build(
        end_user_id=end_user_id, stamp=stamp, model_id=model_id, records=rows, has_replaced=replaced
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
    with local_lock:
        _local.pop(end_user_id, None)
        timelines.pop(end_user_id, None)
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
    with local_lock:
        _local.clear()
        timelines.clear()


# --- the timeline: current facts and the ones an update closed (issue 33) -------------------

# The timelines of `recall.timeline` (per process), dropped with the user's index.
timelines: OrderedDict[int, UserIndex] = OrderedDict()
