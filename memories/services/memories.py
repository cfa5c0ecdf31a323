"""Writes to single memories: create, merge, version, delete, and the per-user cap."""

from __future__ import annotations

import datetime
import logging
from collections.abc import Iterable, Sequence

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from core.exceptions import NotFound
from memories.evidence import Quote
from memories.facets import facets_of
from memories.models import AgentSession, DeletionRecord, EndUser, Memory, MemoryVersion, ReviewItem
from memories.selectors import VISIBLE_STATUSES
from memories.services.evidence import memory_evidence_add, memory_evidence_fold
from memories.signals import memories_changed_on_commit
from tenants.models import Tenant

logger = logging.getLogger(__name__)


def end_user_get_or_create(*, tenant: Tenant, external_id: str) -> EndUser:
    """Return the tenant's end user with this id, creating it on first sight."""
    end_user, _ = EndUser.objects.get_or_create(tenant=tenant, external_id=external_id)
    return end_user


def agent_session_get_or_create(*, end_user: EndUser, external_id: str) -> AgentSession:
    """Return the user's session with the caller's id, creating it on first sight."""
    session, _ = AgentSession.objects.get_or_create(end_user=end_user, external_id=external_id)
    return session


def memory_version_record(
    *,
    memory: Memory,
    action: str,
    actor_type: str,
    actor: str = "",
    caption_before: str = "",
    full_text_before: str = "",
    note: str = "",
) -> MemoryVersion:
    """Append the memory's current state to its history."""
    last = memory.versions.aggregate(last=Max("version"))["last"] or 0
    return MemoryVersion.objects.create(
        memory=memory,
        version=last + 1,
        action=action,
        status=memory.status,
        caption_before=caption_before,
        full_text_before=full_text_before,
        caption=memory.caption,
        full_text=memory.full_text,
        actor_type=actor_type,
        actor=actor,
        note=note[:255],
        stated_at=memory.stated_at,
        last_stated_at=memory.last_stated_at,
        valid_from=memory.valid_from,
        valid_to=memory.valid_to,
    )


@transaction.atomic
def memory_create(
    *,
    end_user: EndUser,
    caption: str,
    full_text: str,
    category: str,
    confidence: float,
    content_hash: str,
    embedding: Iterable[float] | None,  # a list or a numpy vector
    embedding_model: str,
    status: str = Memory.Status.ACTIVE,
    source_session: AgentSession | None = None,
    actor_type: str = MemoryVersion.Actor.SYSTEM,
    actor: str = "",
    use_when: str = "",
    facets: list[dict] | None = None,
    stated_at: datetime.datetime | None = None,
    valid_from: datetime.date | None = None,
    valid_to: datetime.date | None = None,
    evidence: Sequence[Quote] = (),
) -> Memory:
    """Store a new memory and its first version; its facets are read from its text unless the
    extractor passes what it read. `stated_at` is when the user said it (None: now);
    `evidence`, the words it was said in."""
    stated_at = stated_at or timezone.now()
    valid_from, valid_to = validity_ordered(valid_from, valid_to)
    memory = Memory.objects.create(
        end_user=end_user,
        caption=caption,
        full_text=full_text,
        use_when=use_when[: Memory._meta.get_field("use_when").max_length],
        category=category,
        confidence=min(max(confidence, 0.0), 1.0),
        content_hash=content_hash,
        embedding=list(embedding) if embedding is not None else None,
        embedding_model=embedding_model if embedding is not None else "",
        status=status,
        source_session=source_session,
        facets=facets if facets is not None else facets_of(caption, full_text),
        stated_outside_sessions=source_session is None,
        stated_at=stated_at,
        last_stated_at=stated_at,
        valid_from=valid_from,
        valid_to=valid_to,
    )
    if source_session is not None:
        memory.sessions.add(source_session)
    memory_evidence_add(memory=memory, quotes=evidence)
    memory_version_record(
        memory=memory, action=MemoryVersion.Action.CREATED, actor_type=actor_type, actor=actor
    )
    return memory


@transaction.atomic
def memory_merge(
    *,
    memory: Memory,
    caption: str,
    full_text: str,
    confidence: float,
    content_hash: str,
    embedding: Iterable[float] | None,  # a list or a numpy vector
    embedding_model: str,
    actor_type: str = MemoryVersion.Actor.SYSTEM,
    actor: str = "",
    note: str = "",
    session: AgentSession | None = None,
    stated_at: datetime.datetime | None = None,
    valid_from: datetime.date | None = None,
    valid_to: datetime.date | None = None,
    evidence: Sequence[Quote] = (),
) -> Memory:
    """Fold a near-duplicate statement into an existing memory as a new version.

    The more detailed wording wins, so a merge never loses information; the memory keeps the
    facets of both statements, and the statement's source (`session`, None for one outside
    any session) among its own. A restatement moves `last_stated_at` forward (to `stated_at`,
    None: now) and fills in a validity the memory did not know yet. The statement's words
    (`evidence`) join the memory's.
    """
    _restated(memory, stated_at or timezone.now())
    if memory.valid_from is None and memory.valid_to is None:
        if valid_from is not None and valid_from > memory.stated_at.date():
            # It held when first said: a start after that is not this fact's (a change).
            valid_from = None
        memory.valid_from, memory.valid_to = validity_ordered(valid_from, valid_to)
    memory_sources_add(memory=memory, sessions=[session] if session else [], outside=not session)
    memory_evidence_add(memory=memory, quotes=evidence)
    caption_before, full_text_before = memory.caption, memory.full_text
    known = (
        memory.facets if memory.facets is not None else facets_of(caption_before, full_text_before)
    )
    memory.facets = [*known, *(f for f in facets_of(caption, full_text) if f not in known)]
    if len(full_text) > len(memory.full_text):
        memory.caption, memory.full_text, memory.content_hash = caption, full_text, content_hash
        if embedding is not None:
            memory.embedding, memory.embedding_model = list(embedding), embedding_model
    elif full_text != memory.full_text:
        # The stored wording stays; the history keeps the one folded into it, so both texts
        # of a merge are on record (before/after hold the stored one).
        note = f"{note}; merged in: {full_text}" if note else f"merged in: {full_text}"
        note = note[: MemoryVersion._meta.get_field("note").max_length]
    memory.confidence = max(memory.confidence, min(max(confidence, 0.0), 1.0))
    memory.save()
    memory_version_record(
        memory=memory,
        action=MemoryVersion.Action.MERGED,
        actor_type=actor_type,
        actor=actor,
        caption_before=caption_before,
        full_text_before=full_text_before,
        note=note,
    )
    return memory


def _restated(memory: Memory, at: datetime.datetime) -> None:
    # Said again: later than anything said before moves the last time forward; a statement
    # dated earlier than the first one (a backfilled conversation) moves the first back.
    memory.last_stated_at = max(memory.last_stated_at or at, at)
    memory.stated_at = min(memory.stated_at or at, at)


def memory_restate(*, memory: Memory, stated_at: datetime.datetime | None = None) -> None:
    """The user said `memory` again word for word (at `stated_at`, None: now): its
    `last_stated_at` moves forward; no new version, the text is unchanged."""
    _restated(memory, stated_at or timezone.now())
    Memory.objects.filter(pk=memory.pk).update(
        stated_at=memory.stated_at, last_stated_at=memory.last_stated_at
    )


def validity_ordered(
    valid_from: datetime.date | None, valid_to: datetime.date | None
) -> tuple[datetime.date | None, datetime.date | None]:
    """A validity the schema accepts: an end before the start keeps the end alone (the
    start was the guess)."""
    if valid_from and valid_to and valid_from > valid_to:
        return None, valid_to
    return valid_from, valid_to


def memory_sources_add(
    *, memory: Memory, sessions: Iterable[AgentSession], outside: bool = False
) -> None:
    """Count `sessions` (and, with `outside`, a source outside any session) among the sources
    of `memory`, so that erasing one of its sessions keeps it (`agent_session_erase`)."""
    sessions = list(sessions)
    if sessions:
        memory.sessions.add(*sessions)
    if outside and not memory.stated_outside_sessions:
        memory.stated_outside_sessions = True
        Memory.objects.filter(pk=memory.pk).update(stated_outside_sessions=True)


def memory_sources_fold(*, into: Memory, source: Memory) -> None:
    """`into` takes over every source of `source` (an operator merged them), and a copy of
    the words each said (`memory_evidence_fold`)."""
    # `sessions` holds the first session too (`memory_create`, migration 0011).
    memory_sources_add(
        memory=into, sessions=source.sessions.all(), outside=source.stated_outside_sessions
    )
    memory_evidence_fold(into=into, source=source)


@transaction.atomic
def memory_delete_many(
    *, memories: Iterable[Memory], reason: str, actor_type: str, actor: str = ""
) -> int:
    """Delete memories for real (text, embedding, versions) and leave content-free audit rows."""
    memories = list(memories)
    if not memories:
        return 0
    DeletionRecord.objects.bulk_create(
        DeletionRecord(
            memory_id=memory.id,
            end_user_id=memory.end_user_id,
            reason=reason,
            actor_type=actor_type,
            actor=actor,
        )
        for memory in memories
    )
    end_user_ids = {memory.end_user_id for memory in memories}
    ids = [memory.id for memory in memories]
    # A conflict whose new memory is gone has nothing left to decide: the existing one stays.
    ReviewItem.objects.filter(new_memory_id__in=ids, status=ReviewItem.Status.PENDING).update(
        status=ReviewItem.Status.RESOLVED,
        resolution=ReviewItem.Resolution.KEEP_EXISTING,
        resolved_at=timezone.now(),
    )
    Memory.objects.filter(id__in=ids).delete()
    memories_changed_on_commit(end_user_ids=end_user_ids)
    return len(memories)


@transaction.atomic
def memory_cap_enforce(*, end_user: EndUser, cap: int) -> list[str]:
    """Evict the user's oldest active memories until the visible ones fit the cap.

    Pending conflicts are never evicted: they wait for an operator.
    """
    visible = Memory.objects.filter(end_user=end_user, status__in=VISIBLE_STATUSES).count()
    excess = visible - cap
    if excess <= 0:
        return []
    victims = list(
        Memory.objects.filter(end_user=end_user, status=Memory.Status.ACTIVE).order_by(
            "created_at", "id"
        )[:excess]
    )
    memory_delete_many(
        memories=victims,
        reason=DeletionRecord.Reason.EVICTED,
        actor_type=MemoryVersion.Actor.SYSTEM,
        actor="per-user cap",
    )
    return [memory.id for memory in victims]


def end_user_lock(*, end_user_id: int) -> EndUser | None:
    """Take the per-user write lock: every change to a user's memories holds it first.

    FOR NO KEY UPDATE, not FOR UPDATE: writers of the user's memories wait for each other,
    while rows that merely reference the user (a new job, a deletion record) do not wait.
    With FOR UPDATE, a deletion holding a memory row and inserting its deletion record, and
    an extraction holding the user and reaching for that memory, deadlocked (bench_load).
    """
    return EndUser.objects.select_for_update(no_key=True).filter(pk=end_user_id).first()


@transaction.atomic
def memory_delete(*, end_user: EndUser, memory_id: str, actor: str = "") -> None:
    """Delete one of the user's memories for real; another user's memory is NotFound."""
    end_user_lock(end_user_id=end_user.pk)  # the same lock order as every other writer
    memory = Memory.objects.select_for_update().filter(end_user=end_user, id=memory_id).first()
    if memory is None:
        raise NotFound(f"No memory {memory_id} for this user_id.")
    memory_delete_many(
        memories=[memory],
        reason=DeletionRecord.Reason.API,
        actor_type=MemoryVersion.Actor.API,
        actor=actor,
    )
