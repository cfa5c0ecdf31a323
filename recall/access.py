"""Access statistics (last_accessed_at, access_count), recorded off the request path.

A recall only appends ids to a process-local buffer; a daemon thread flushes the buffer to
PostgreSQL in one UPDATE every few seconds. Statistics are best effort: a killed process loses
at most one interval of counts, and nothing a request does ever waits for the database write.
`RECALL_ACCESS_FLUSH_SECONDS=0` flushes inline instead (deterministic tests).
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
from collections import Counter
from datetime import datetime

from django.conf import settings
from django.db import connection, connections
from django.utils import timezone

from memories.models import Memory
from tenants import rls

logger = logging.getLogger(__name__)

_MAX_BUFFERED_IDS = 50_000

_lock = threading.Lock()
# Keyed by (the tenants the recall was for, memory id): the flusher writes each tenant's under
# its own walls (tenants.rls), as the request that read them.
_Key = tuple[rls.Scope, str]
_counts: Counter[_Key] = Counter()
_last_seen: dict[_Key, datetime] = {}
_wakeup = threading.Event()
_thread: threading.Thread | None = None
_thread_pid: int | None = None


def _flush_interval() -> float:
    return float(settings.RECALL_ACCESS_FLUSH_SECONDS)


def access_record(*, memory_ids: list[str]) -> None:
    """Count one access of each memory (returns at once; the write happens later)."""
    if not memory_ids:
        return
    now = timezone.now()
    scope = rls.scope_current()
    keys = [(scope, memory_id) for memory_id in memory_ids]
    with _lock:
        _counts.update(keys)
        for key in keys:
            _last_seen[key] = now
        overflowing = len(_counts) > _MAX_BUFFERED_IDS
    if _flush_interval() <= 0:
        access_flush()
        return
    _ensure_thread()
    if overflowing:
        _wakeup.set()


def access_flush() -> int:
    """Write the buffered statistics, one UPDATE per scope the reads were made in (a tenant's
    walls, tenants.rls); return how many memories they touched."""
    with _lock:
        if not _counts:
            return 0
        batches: dict[rls.Scope, list[tuple[str, int, datetime]]] = {}
        for key, n in _counts.items():
            batches.setdefault(key[0], []).append((key[1], n, _last_seen[key]))
        _counts.clear()
        _last_seen.clear()
    touched = 0
    for scope, batch in batches.items():
        with rls.scope_restored(scope):
            touched += _batch_write(batch)
    return touched


def _batch_write(batch: list[tuple[str, int, datetime]]) -> int:
    table = Memory._meta.db_table
    values = ", ".join(["(%s, %s::integer, %s::timestamptz)"] * len(batch))
    params = [item for row in batch for item in row]
    # Raw SQL so that updated_at (auto_now) stays put: an access is not an edit, and the
    # recall index must not be rebuilt because it was read.
    sql = (
        f"UPDATE {table} AS m SET access_count = m.access_count + v.n, "
        f"last_accessed_at = GREATEST(COALESCE(m.last_accessed_at, v.at), v.at) "
        f"FROM (VALUES {values}) AS v(id, n, at) WHERE m.id = v.id"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount


def _ensure_thread() -> None:
    """Start the flusher in this process (again after a fork: threads do not survive it)."""
    global _thread, _thread_pid
    if _thread is not None and _thread_pid == os.getpid() and _thread.is_alive():
        return
    with _lock:
        if _thread is not None and _thread_pid == os.getpid() and _thread.is_alive():
            return
        _thread_pid = os.getpid()
        _thread = threading.Thread(target=_run, name="recall-access-flush", daemon=True)
        _thread.start()


def _run() -> None:
    while True:
        # Never spin: a setting changed to 0 (inline flushing) leaves this thread idle-ish.
        _wakeup.wait(max(_flush_interval(), 0.5))
        _wakeup.clear()
        _flush_safely()


def _flush_safely() -> None:
    try:
        access_flush()
    except Exception:  # statistics are best effort; the next flush starts afresh
        logger.warning("recall: could not write access statistics", exc_info=True)
    finally:
        # This thread's connection is its own; do not keep it open between flushes.
        connections.close_all()


atexit.register(_flush_safely)
