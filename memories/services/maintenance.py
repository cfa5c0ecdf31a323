"""Maintenance of the memory store: pruning and re-embedding, for commands and scheduled tasks.

Pruning never touches a conflict waiting for an operator: neither a `pending_review` memory nor
an existing memory that a pending review item points at. Deletions go through
`memory_delete_many`, so they are real and leave a content-free DeletionRecord.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Q, QuerySet
from django.db.models.functions import Coalesce
from django.utils import timezone

from integrations.embeddings import current_model_id, embed_texts
from memories.models import DeletionRecord, Memory, MemoryVersion, ReviewItem
from memories.selectors import VISIBLE_STATUSES
from memories.services.memories import end_user_lock, memory_delete_many
from memories.signals import memories_changed_on_commit
from memories.text import embedding_text

logger = logging.getLogger(__name__)

PRUNABLE_STATUSES = (Memory.Status.ACTIVE, Memory.Status.SUPERSEDED)


@dataclass(frozen=True)
class PruneResult:
    """How many memories a prune deleted (or would delete, in a dry run)."""

    by_criteria: int = 0
    over_cap: int = 0
    users: int = 0
    dry_run: bool = False

    @property
    def total(self) -> int:
        return self.by_criteria + self.over_cap

    def __add__(self, other: PruneResult) -> PruneResult:
        return PruneResult(
            by_criteria=self.by_criteria + other.by_criteria,
            over_cap=self.over_cap + other.over_cap,
            users=self.users + other.users,
            dry_run=self.dry_run or other.dry_run,
        )


@dataclass(frozen=True)
class ReembedResult:
    """How many memories a re-embedding (re)computed, with which model."""

    model_id: str
    stale: int
    embedded: int = 0
    batches: int = 0
    dry_run: bool = False


def _prunable(*, end_user_ids: Sequence[int] | None, tenant_id: int | None) -> QuerySet[Memory]:
    """Memories in scope that pruning may delete: not part of a pending conflict."""
    memories = Memory.objects.exclude(status=Memory.Status.PENDING_REVIEW).exclude(
        conflicting_reviews__status=ReviewItem.Status.PENDING
    )
    if end_user_ids is not None:
        memories = memories.filter(end_user_id__in=end_user_ids)
    if tenant_id is not None:
        memories = memories.filter(end_user__tenant_id=tenant_id)
    return memories


def memory_prune(
    *,
    older_than: timedelta | None = None,
    unused_for: timedelta | None = None,
    statuses: Sequence[str] = PRUNABLE_STATUSES,
    cap: int | None = None,
    end_user_ids: Sequence[int] | None = None,
    tenant_id: int | None = None,
    dry_run: bool = False,
    actor: str = "prune_memories",
    batch_size: int = 500,
    now: datetime | None = None,
) -> PruneResult:
    """Delete memories by age and/or last access (both must hold when both are given), then
    trim each user down to `cap` visible memories by evicting the oldest active ones.

    `end_user_ids` and `tenant_id` narrow the scope. Deletes in batches of `batch_size`, each
    in its own transaction, so a long prune never holds many locks for long.
    """
    if older_than is None and unused_for is None and cap is None:
        raise ValueError("give at least one of older_than, unused_for or cap")
    unknown = set(statuses) - set(PRUNABLE_STATUSES)
    if unknown:
        raise ValueError(f"only active and superseded memories can be pruned, not {unknown}")
    now = now or timezone.now()
    by_criteria, users = 0, set()
    if older_than is not None or unused_for is not None:
        matched = _prunable(end_user_ids=end_user_ids, tenant_id=tenant_id).filter(
            status__in=statuses
        )
        if older_than is not None:
            matched = matched.filter(created_at__lt=now - older_than)
        if unused_for is not None:
            matched = matched.alias(last_used=Coalesce("last_accessed_at", "created_at")).filter(
                last_used__lt=now - unused_for
            )
        if dry_run:
            counted = matched.values("end_user_id").annotate(n=Count("id")).order_by()
            for row in counted:
                by_criteria += row["n"]
                users.add(row["end_user_id"])
        else:
            by_criteria = _delete_in_batches(
                matched, actor=actor, batch_size=batch_size, users=users
            )
    over_cap = 0
    if cap is not None:
        over_cap = _prune_to_cap(
            cap=cap,
            end_user_ids=end_user_ids,
            tenant_id=tenant_id,
            dry_run=dry_run,
            actor=actor,
            users=users,
        )
    return PruneResult(
        by_criteria=by_criteria, over_cap=over_cap, users=len(users), dry_run=dry_run
    )


def _delete_in_batches(
    memories: QuerySet[Memory], *, actor: str, batch_size: int, users: set[int]
) -> int:
    deleted = 0
    while True:
        with transaction.atomic():
            # Rows the write pipeline holds are skipped this time, never waited for.
            batch = list(
                memories.select_for_update(skip_locked=True, of=("self",))
                .only("id", "end_user_id")
                .order_by("id")[:batch_size]
            )
            if not batch:
                return deleted
            deleted += memory_delete_many(
                memories=batch,
                reason=DeletionRecord.Reason.PRUNED,
                actor_type=MemoryVersion.Actor.SYSTEM,
                actor=actor,
            )
            users.update(memory.end_user_id for memory in batch)


def _prune_to_cap(
    *,
    cap: int,
    end_user_ids: Sequence[int] | None,
    tenant_id: int | None,
    dry_run: bool,
    actor: str,
    users: set[int],
) -> int:
    """Evict the oldest active memories of each user whose visible memories exceed the cap."""
    visible = Memory.objects.filter(status__in=VISIBLE_STATUSES)
    if end_user_ids is not None:
        visible = visible.filter(end_user_id__in=end_user_ids)
    if tenant_id is not None:
        visible = visible.filter(end_user__tenant_id=tenant_id)
    over = (
        visible.values("end_user_id")
        .annotate(n=Count("id"))
        .filter(n__gt=cap)
        .order_by("end_user_id")
        .values_list("end_user_id", flat=True)
    )
    evicted = 0
    for end_user_id in list(over):
        with transaction.atomic():
            # The user's lock serialises this with the write pipeline, so the count holds.
            end_user_lock(end_user_id=end_user_id)
            excess = (
                Memory.objects.filter(end_user_id=end_user_id, status__in=VISIBLE_STATUSES).count()
                - cap
            )
            if excess <= 0:
                continue
            victims = list(
                _prunable(end_user_ids=[end_user_id], tenant_id=None)
                .filter(status=Memory.Status.ACTIVE)
                .only("id", "end_user_id")
                .order_by("created_at", "id")[:excess]
            )
            if not victims:
                continue
            users.add(end_user_id)
            if dry_run:
                evicted += len(victims)
                continue
            evicted += memory_delete_many(
                memories=victims,
                reason=DeletionRecord.Reason.PRUNED,
                actor_type=MemoryVersion.Actor.SYSTEM,
                actor=actor,
            )
    return evicted


def memory_prune_scheduled(*, now: datetime | None = None) -> PruneResult:
    """The pruning Celery beat runs: the rules come from settings (0 days turns a rule off).

    - MEMORY_PRUNE_SUPERSEDED_DAYS: delete superseded memories older than this;
    - MEMORY_PRUNE_UNUSED_DAYS: delete active memories not recalled for this long;
    - always: trim every user down to MEMORY_USER_CAP (after a cap was lowered, say).
    """
    actor = "scheduled prune"
    result = PruneResult()
    superseded_days = settings.MEMORY_PRUNE_SUPERSEDED_DAYS
    if superseded_days > 0:
        result += memory_prune(
            older_than=timedelta(days=superseded_days),
            statuses=[Memory.Status.SUPERSEDED],
            actor=actor,
            now=now,
        )
    unused_days = settings.MEMORY_PRUNE_UNUSED_DAYS
    if unused_days > 0:
        result += memory_prune(
            unused_for=timedelta(days=unused_days),
            statuses=[Memory.Status.ACTIVE],
            actor=actor,
            now=now,
        )
    result += memory_prune(cap=settings.MEMORY_USER_CAP, actor=actor, now=now)
    return result


def memory_reembed(
    *,
    everything: bool = False,
    end_user_ids: Sequence[int] | None = None,
    batch_size: int = 64,
    dry_run: bool = False,
    on_batch: Callable[[int, int], None] | None = None,
) -> ReembedResult:
    """Recompute embeddings with the configured model, in batches of `batch_size`.

    By default only stale memories are done: no vector, or one from another model, so an
    interrupted run resumes where it stopped. `everything` redoes them all. Each batch is
    embedded outside any transaction, then written in one that skips a memory whose text
    changed meanwhile (its writer stored a fresh vector). `on_batch(done, total)` reports
    progress.
    """
    model_id = current_model_id()
    memories = Memory.objects.all()
    if end_user_ids is not None:
        memories = memories.filter(end_user_id__in=end_user_ids)
    if not everything:
        memories = memories.filter(Q(embedding__isnull=True) | ~Q(embedding_model=model_id))
    total = memories.count()
    if dry_run or total == 0:
        return ReembedResult(model_id=model_id, stale=total, dry_run=dry_run)

    done = embedded = batches = 0
    last_id = ""
    while True:
        rows = list(
            memories.filter(id__gt=last_id)
            .order_by("id")
            .values_list("id", "caption", "full_text", "use_when")[:batch_size]
        )
        if not rows:
            break
        last_id = rows[-1][0]
        vectors = embed_texts(
            [embedding_text(caption, text, hint) for _, caption, text, hint in rows]
        )
        texts = {memory_id: (caption, text) for memory_id, caption, text, _ in rows}
        with transaction.atomic():
            locked = Memory.objects.select_for_update().filter(id__in=texts)
            current = {
                memory.id: memory
                for memory in locked.only("id", "end_user_id", "caption", "full_text")
            }
            changed = []
            for (memory_id, *_), vector in zip(rows, vectors, strict=True):
                memory = current.get(memory_id)
                if memory is None or (memory.caption, memory.full_text) != texts[memory_id]:
                    continue
                memory.embedding = [float(x) for x in vector]
                memory.embedding_model = model_id
                changed.append(memory)
            Memory.objects.bulk_update(changed, ["embedding", "embedding_model"])
            user_ids = {memory.end_user_id for memory in changed}
            memories_changed_on_commit(end_user_ids=user_ids)
        embedded += len(changed)
        done += len(rows)
        batches += 1
        if on_batch is not None:
            on_batch(done, total)
    return ReembedResult(model_id=model_id, stale=total, embedded=embedded, batches=batches)
