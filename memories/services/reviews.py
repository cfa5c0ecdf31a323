"""Operators' work on the memory store: resolving conflicts (review items) and editing memories.

Every resolution runs in one transaction that first locks the end user's row (the same
serialisation as the write pipeline), then the review item, then the memories involved, so two
operators resolving the same conflict at once apply it once: the second one finds the item
resolved and gets `ReviewAlreadyResolved`. Each memory that survives a resolution gets one new
MemoryVersion row naming the operator; a discarded memory is deleted for real (its
DeletionRecord names the operator) and the resolved item keeps `new_memory = NULL`.

What each resolution does:

- keep_new: the new memory becomes active; the existing ones become superseded.
- keep_existing: the new memory is discarded; the existing ones stay as they are.
- keep_both: the new memory becomes active; the existing ones stay as they are.
- merge: one existing memory (the first, or the one the operator picks) takes the operator's
  edited caption and text as a new version (new content hash, re-embedded) and becomes active;
  the new memory is discarded.

Activating never breaks the one-active-memory-per-text rule: if an active memory of the user
already says the same thing, the memory being activated is folded into it (a `merged` version on
the survivor) instead of failing.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from integrations.embeddings import EmbeddingError, current_model_id, embed_texts
from memories.facets import facets_of
from memories.instructions import REFUSALS, instruction_in
from memories.models import (
    DeletionRecord,
    Memory,
    MemoryVersion,
    ReviewItem,
)
from memories.services.memories import (
    end_user_lock,
    memory_delete_many,
    memory_sources_fold,
    memory_version_record,
)
from memories.signals import memories_changed_on_commit
from memories.text import (
    CAPTION_MAX_LENGTH,
    FULL_TEXT_MAX_LENGTH,
    content_hash,
    embedding_text,
    text_clean,
)
from memories.validity import change_date, closing_date

logger = logging.getLogger(__name__)

OPERATOR = MemoryVersion.Actor.OPERATOR
Resolution = ReviewItem.Resolution


class ReviewError(Exception):
    """The review item cannot be resolved (or the memory edited) as asked."""


class ReviewAlreadyResolved(ReviewError):
    """Someone resolved this review item first."""


@dataclass(frozen=True)
class BulkResolution:
    """What a bulk resolution did: how many items it resolved, and why it skipped others."""

    resolved: int = 0
    skipped: int = 0
    errors: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Vector:
    values: list[float] | None
    model_id: str


def _clean_text(caption: str, full_text: str) -> tuple[str, str]:
    caption = " ".join(text_clean(caption, lines=False).split())
    full_text = text_clean(full_text).strip()
    if not caption or not full_text:
        raise ReviewError("the caption and the text must not be empty")
    # The rule of every way in (`memories.instructions`): an operator's text is handed to the
    # assistant like any other.
    reason = instruction_in(caption) or instruction_in(full_text)
    if reason:
        raise ReviewError(REFUSALS[reason].rstrip("."))
    if len(caption) > CAPTION_MAX_LENGTH:
        raise ReviewError(f"the caption is longer than {CAPTION_MAX_LENGTH} characters")
    if len(full_text) > FULL_TEXT_MAX_LENGTH:
        raise ReviewError(f"the text is longer than {FULL_TEXT_MAX_LENGTH} characters")
    return caption, full_text


def _embed(caption: str, full_text: str) -> _Vector:
    """Embed edited text before any lock is taken; on failure store no vector (`reembed` fixes)."""
    try:
        vector = embed_texts([embedding_text(caption, full_text)])[0]
        return _Vector([float(x) for x in vector], current_model_id())
    except EmbeddingError:
        logger.warning("could not embed an operator's edit; `manage.py reembed` will retry it")
        return _Vector(None, "")


def review_item_resolve(
    *,
    review_item_id: int,
    resolution: str,
    operator: User,
    caption: str = "",
    full_text: str = "",
    merge_into_id: str | None = None,
    changed_on: datetime.date | None = None,
) -> ReviewItem:
    """Resolve one pending conflict as keep_new, keep_existing, keep_both or merge.

    `caption` and `full_text` are the operator's edited text, required for merge only;
    `merge_into_id` picks which existing memory takes it (default: the oldest one);
    `changed_on` is the day the change happened, for keep_new (default: the new memory's
    `valid_from`, else the day it was said): the existing memories held until then.
    The embedding of merged text is computed before the transaction so no lock waits on it.
    """
    if resolution not in Resolution.values:
        raise ReviewError(f"unknown resolution {resolution!r}")
    vector = None
    if resolution == Resolution.MERGE:
        caption, full_text = _clean_text(caption, full_text)
        vector = _embed(caption, full_text)
    return _review_item_resolve_locked(
        review_item_id=review_item_id,
        resolution=resolution,
        operator=operator,
        caption=caption,
        full_text=full_text,
        merge_into_id=merge_into_id,
        vector=vector,
        changed_on=changed_on,
    )


@transaction.atomic
def _review_item_resolve_locked(
    *,
    review_item_id: int,
    resolution: str,
    operator: User,
    caption: str,
    full_text: str,
    merge_into_id: str | None,
    vector: _Vector | None,
    changed_on: datetime.date | None = None,
) -> ReviewItem:
    end_user_id = (
        ReviewItem.objects.filter(pk=review_item_id).values_list("end_user_id", flat=True).first()
    )
    if end_user_id is None:
        raise ReviewError(f"review item {review_item_id} does not exist")
    # Lock order: user, item, memories; the write pipeline takes the user's lock first too.
    end_user_lock(end_user_id=end_user_id)
    item = ReviewItem.objects.select_for_update().get(pk=review_item_id)
    if item.status != ReviewItem.Status.PENDING:
        raise ReviewAlreadyResolved(f"review item {item.pk} is already resolved")

    new = None
    if item.new_memory_id:
        new = Memory.objects.select_for_update().filter(pk=item.new_memory_id).first()
    existing = list(
        Memory.objects.select_for_update()
        .filter(pk__in=item.existing_memories.values("pk"))
        .order_by("created_at", "id")
    )
    context = _Context(item=item, actor=operator.get_username(), new=new, existing=existing)

    if resolution == Resolution.KEEP_NEW:
        _keep_new(context, changed_on)
    elif resolution == Resolution.KEEP_EXISTING:
        _keep_existing(context)
    elif resolution == Resolution.KEEP_BOTH:
        _keep_both(context)
    else:
        assert vector is not None
        _merge(context, caption=caption, full_text=full_text, into=merge_into_id, vector=vector)

    item.status = ReviewItem.Status.RESOLVED
    item.resolution = resolution
    item.resolved_by = operator
    item.resolved_at = timezone.now()
    # Not `new_memory`: a discarded memory's deletion has already set it to NULL.
    item.save(update_fields=["status", "resolution", "resolved_by", "resolved_at"])
    memories_changed_on_commit(end_user_ids=[end_user_id])
    return item


@dataclass
class _Context:
    item: ReviewItem
    actor: str
    new: Memory | None
    existing: list[Memory]

    def note(self, text: str) -> str:
        return f"review {self.item.pk}: {text}"


def _require_new(context: _Context) -> Memory:
    if context.new is None:
        raise ReviewError(
            "the new memory no longer exists: resolve this conflict as keep existing or merge"
        )
    return context.new


def _version(context: _Context, memory: Memory, action: str, note: str, **before: str) -> None:
    memory_version_record(
        memory=memory,
        action=action,
        actor_type=OPERATOR,
        actor=context.actor,
        note=context.note(note),
        **before,
    )


def _discard(context: _Context, memory: Memory) -> None:
    memory_delete_many(
        memories=[memory],
        reason=DeletionRecord.Reason.DISCARDED,
        actor_type=OPERATOR,
        actor=context.actor,
    )


def _active_duplicate(memory: Memory, text_hash: str, *, besides: Iterable[str]) -> Memory | None:
    return (
        Memory.objects.select_for_update()
        .filter(end_user_id=memory.end_user_id, status=Memory.Status.ACTIVE, content_hash=text_hash)
        .exclude(pk__in=[memory.pk, *besides])
        .first()
    )


def _activate(context: _Context, memory: Memory, note: str) -> None:
    """Make the memory active, or fold it into an active memory that already says the same."""
    duplicate = _active_duplicate(memory, memory.content_hash, besides=())
    if duplicate is not None:
        _version(context, duplicate, MemoryVersion.Action.MERGED, f"{memory.id} said the same")
        memory_sources_fold(into=duplicate, source=memory)
        _discard(context, memory)
        return
    memory.status = Memory.Status.ACTIVE
    memory.save(update_fields=["status", "updated_at"])
    _version(context, memory, MemoryVersion.Action.RESOLVED, note)


def _keep_new(context: _Context, changed_on: datetime.date | None) -> None:
    new = _require_new(context)
    if changed_on is not None and changed_on != new.valid_from:
        # The operator dated the change: the new fact holds from then.
        new.valid_from = changed_on if not new.valid_to or changed_on <= new.valid_to else None
        new.save(update_fields=["valid_from", "updated_at"])
    on = changed_on or change_date(new)
    for memory in context.existing:
        if memory.status == Memory.Status.SUPERSEDED:
            continue
        memory.status = Memory.Status.SUPERSEDED
        # It held until the new fact took over: a past fact now (`memories.validity`).
        memory.valid_to = closing_date(memory, on)
        memory.save(update_fields=["status", "valid_to", "updated_at"])
        _version(context, memory, MemoryVersion.Action.SUPERSEDED, f"superseded by {new.id}")
    _activate(context, new, "kept as the new truth")


def _keep_existing(context: _Context) -> None:
    discarded = context.new.id if context.new else "the new memory"
    for memory in context.existing:
        _version(context, memory, MemoryVersion.Action.RESOLVED, f"kept; {discarded} discarded")
    if context.new is not None:
        _discard(context, context.new)


def _keep_both(context: _Context) -> None:
    new = _require_new(context)
    for memory in context.existing:
        _version(context, memory, MemoryVersion.Action.RESOLVED, f"kept alongside {new.id}")
    _activate(context, new, "kept alongside the existing memories")


def _merge(
    context: _Context, *, caption: str, full_text: str, into: str | None, vector: _Vector
) -> None:
    if not context.existing:
        raise ReviewError("no existing memory is left to merge into: keep the new one instead")
    by_id = {memory.id: memory for memory in context.existing}
    if into and into not in by_id:
        raise ReviewError(f"{into} is not one of the existing memories of this conflict")
    target = by_id[into] if into else context.existing[0]
    new = context.new
    source = new.id if new else "the new memory"

    text_hash = content_hash(full_text)
    duplicate = _active_duplicate(target, text_hash, besides=[new.pk] if new else [])
    if duplicate is not None:
        # The edited text is already an active memory of the user: that one absorbs the merge.
        target.status = Memory.Status.SUPERSEDED
        target.save(update_fields=["status", "updated_at"])
        _version(context, target, MemoryVersion.Action.SUPERSEDED, f"merged into {duplicate.id}")
        _version(context, duplicate, MemoryVersion.Action.MERGED, f"merged with {source}")
        memory_sources_fold(into=duplicate, source=target)
    else:
        caption_before, full_text_before = target.caption, target.full_text
        target.caption, target.full_text, target.content_hash = caption, full_text, text_hash
        target.facets = facets_of(caption, full_text)  # the operator's text is the fact now
        target.embedding, target.embedding_model = vector.values, vector.model_id
        target.status = Memory.Status.ACTIVE
        if new is not None:
            target.confidence = max(target.confidence, new.confidence)
        target.save()
        _version(
            context,
            target,
            MemoryVersion.Action.MERGED,
            f"merged with {source}",
            caption_before=caption_before,
            full_text_before=full_text_before,
        )
    for memory in context.existing:
        if memory.pk not in (target.pk, getattr(duplicate, "pk", None)):
            _version(context, memory, MemoryVersion.Action.RESOLVED, "kept; not merged")
    if new is not None:
        # What the new memory's sessions stated lives on in the merged memory.
        memory_sources_fold(into=duplicate or target, source=new)
        _discard(context, new)


def review_item_resolve_many(
    *, review_item_ids: Iterable[int], resolution: str, operator: User
) -> BulkResolution:
    """Resolve several conflicts the same way, each in its own transaction.

    Merge needs edited text per conflict, so it is not offered in bulk. An item that is
    already resolved, or cannot take this resolution, is skipped and reported.
    """
    if resolution == Resolution.MERGE:
        raise ReviewError("merge needs edited text: resolve those conflicts one at a time")
    resolved, errors = 0, []
    for review_item_id in review_item_ids:
        try:
            review_item_resolve(
                review_item_id=review_item_id, resolution=resolution, operator=operator
            )
        except ReviewError as exc:
            errors.append(f"#{review_item_id}: {exc}")
        else:
            resolved += 1
    return BulkResolution(resolved=resolved, skipped=len(errors), errors=errors)


def memory_operator_edit(
    *,
    memory_id: str,
    operator: User,
    caption: str,
    full_text: str,
    category: str,
    confidence: float,
) -> Memory:
    """Apply an operator's edit of a memory from the admin as a new `edited` version.

    A changed text gets a new content hash and a new embedding; an edit that would give the
    user two active memories with the same text is refused.
    """
    caption, full_text = _clean_text(caption, full_text)
    if category not in Memory.Category.values:
        raise ReviewError(f"unknown category {category!r}")
    if not 0.0 <= confidence <= 1.0:
        raise ReviewError("the confidence must be between 0 and 1")
    current = Memory.objects.filter(pk=memory_id).values_list("caption", "full_text").first()
    if current is None:
        raise ReviewError(f"memory {memory_id} does not exist")
    text_changed = current != (caption, full_text)
    vector = _embed(caption, full_text) if text_changed else None
    return _memory_operator_edit_locked(
        memory_id=memory_id,
        actor=operator.get_username(),
        caption=caption,
        full_text=full_text,
        category=category,
        confidence=confidence,
        vector=vector,
    )


@transaction.atomic
def _memory_operator_edit_locked(
    *,
    memory_id: str,
    actor: str,
    caption: str,
    full_text: str,
    category: str,
    confidence: float,
    vector: _Vector | None,
) -> Memory:
    memory = Memory.objects.select_for_update().get(pk=memory_id)
    caption_before, full_text_before = memory.caption, memory.full_text
    text_changed = (caption, full_text) != (caption_before, full_text_before)
    if not text_changed and (category, confidence) == (memory.category, memory.confidence):
        return memory
    if text_changed:
        text_hash = content_hash(full_text)
        if memory.status == Memory.Status.ACTIVE and _active_duplicate(
            memory, text_hash, besides=()
        ):
            raise ReviewError("another active memory of this user already says this")
        if vector is None:  # the text changed again since the caller embedded it
            vector = _embed(caption, full_text)
        memory.caption, memory.full_text, memory.content_hash = caption, full_text, text_hash
        memory.facets = facets_of(caption, full_text)
        memory.embedding, memory.embedding_model = vector.values, vector.model_id
    memory.category, memory.confidence = category, confidence
    memory.save()
    memory_version_record(
        memory=memory,
        action=MemoryVersion.Action.EDITED,
        actor_type=OPERATOR,
        actor=actor,
        caption_before=caption_before if text_changed else "",
        full_text_before=full_text_before if text_changed else "",
        note="edited in the admin",
    )
    memories_changed_on_commit(end_user_ids=[memory.end_user_id])
    return memory


@transaction.atomic
def review_item_reopen(*, review_item_id: int, operator: User) -> ReviewItem:
    """Undo an update the supersede policy applied: the conflict waits for review again.

    The new memory goes back to pending_review and the memories it superseded become active
    again (each with a version naming the operator); then any resolution can be chosen.
    """
    item = ReviewItem.objects.select_for_update().filter(pk=review_item_id).first()
    if item is None:
        raise ReviewError(f"no review item {review_item_id}")
    end_user_lock(end_user_id=item.end_user_id)
    if not item.auto_resolved or item.status != ReviewItem.Status.RESOLVED:
        raise ReviewError("only a conflict the supersede policy resolved can be reopened")
    actor = operator.get_username()
    note = f"review {item.pk}: reopened for review"
    for memory in Memory.objects.select_for_update().filter(
        pk__in=item.existing_memories.values("pk"), status=Memory.Status.SUPERSEDED
    ):
        if _active_duplicate(memory, memory.content_hash, besides=()) is not None:
            continue  # an active memory already says it; keep the store consistent
        # The update no longer closes it: it holds as long as it did before.
        memory.valid_to = _valid_to_before_update(memory)
        _status_restore(memory, Memory.Status.ACTIVE, actor=actor, note=note)
    if item.new_memory_id:
        new = Memory.objects.select_for_update().get(pk=item.new_memory_id)
        _status_restore(new, Memory.Status.PENDING_REVIEW, actor=actor, note=note)
    item.status, item.resolution, item.auto_resolved = ReviewItem.Status.PENDING, "", False
    item.resolved_at, item.resolved_by = None, None
    item.save(update_fields=["status", "resolution", "auto_resolved", "resolved_at", "resolved_by"])
    memories_changed_on_commit(end_user_ids=[item.end_user_id])
    return item


def _status_restore(memory: Memory, status: str, *, actor: str, note: str) -> None:
    """Put a memory back in `status` for a reopened review, with its version row."""
    memory.status = status
    memory.save(update_fields=["status", "valid_to", "updated_at"])
    memory_version_record(
        memory=memory,
        action=MemoryVersion.Action.RESOLVED,
        actor_type=OPERATOR,
        actor=actor,
        note=note,
    )


def _valid_to_before_update(memory: Memory) -> datetime.date | None:
    """The end `memory` had before its latest supersession closed it (its version history)."""
    versions = list(memory.versions.order_by("-version").values_list("action", "valid_to"))
    for at, (action, _) in enumerate(versions):
        if action == MemoryVersion.Action.SUPERSEDED:
            return versions[at + 1][1] if at + 1 < len(versions) else None
    return memory.valid_to
