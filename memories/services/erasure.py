"""Erasure on request: everything the service holds about an end user, or one of their sessions.

Both services run in one transaction that first takes the per-user lock (`end_user_lock`, the
same order as every other writer), then decide what goes (pure functions over what was read),
then delete it, and leave only a content-free `ErasureRecord` (and, for a session, a
`DeletionRecord` per memory). Other apps delete their own rows about the user or session
(extraction: the jobs and their conversations) through `memories.signals.erasure_started`,
inside the same transaction; recall drops the user's cached index through `memories_changed`
once it commits.

- A whole user: memories, versions, review items, sessions, jobs, the earlier deletion records
  and the EndUser row itself. What stays is one ErasureRecord (tenant, user_id, counts, when,
  who): the per-memory deletion records would only list ids of a user who no longer exists.
- A session: the memories that came from it and from nothing else, and every quote of what
  was said in it (`MemoryEvidence`). A memory that another session (or a conversation sent
  without one, or an agent's note) also stated stays, with its history and the quotes of its
  other sources: erasing one conversation does not unsay what the user said elsewhere. One
  whose only quotes were the session's stays too, with none (its other sources were stated
  before quotes were kept, or their quotes fell to the bound). Review items about an
  erased memory go too; a memory held for review only because it contradicted erased ones
  becomes active, since nothing it contradicts is left.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, fields

from django.db import transaction
from django.db.models import Prefetch, Q

from core.exceptions import NotFound
from memories.models import (
    AgentSession,
    DeletionRecord,
    EndUser,
    ErasureRecord,
    Memory,
    MemoryEvidence,
    MemoryVersion,
    ReviewItem,
)
from memories.selectors import end_user_get
from memories.services.memories import end_user_lock, memory_delete_many, memory_version_record
from memories.signals import ErasureShare, erasure_shares, memories_changed_on_commit
from tenants.models import Tenant


@dataclass(frozen=True)
class ErasureCounts:
    """How many rows of each kind an erasure deleted."""

    memories: int = 0
    versions: int = 0
    jobs: int = 0
    sessions: int = 0
    reviews: int = 0


@dataclass(frozen=True)
class ErasureReceipt:
    """What DELETE /users/{user_id} and DELETE /sessions/{session_id} answer."""

    user_id: str
    deleted: ErasureCounts


_KINDS = frozenset(f.name for f in fields(ErasureCounts))


def _shared_counts(shares: Iterable[ErasureShare]) -> Counter[str]:
    """The other apps' deletions, by kind of the receipt."""
    counts: Counter[str] = Counter()
    for share in shares:
        unknown = set(share.deleted) - _KINDS
        if unknown:
            raise ValueError(f"an erasure receiver deleted unknown kinds: {sorted(unknown)}")
        counts.update(share.deleted)
    return counts


def _locked_end_user(*, tenant: Tenant, external_id: str) -> EndUser:
    """The tenant's end user under the per-user lock, or NotFound (another tenant's too)."""
    found = end_user_get(tenant=tenant, external_id=external_id)
    end_user = end_user_lock(end_user_id=found.pk) if found is not None else None
    if end_user is None:  # never seen, another tenant's, or erased while we waited
        raise NotFound("Unknown user_id for this API key.")
    return end_user


# --- a whole user ------------------------------------------------------------------------------


@transaction.atomic
def end_user_erase(
    *,
    tenant: Tenant,
    external_id: str,
    actor_type: str = MemoryVersion.Actor.API,
    actor: str = "",
) -> ErasureReceipt:
    """Erase everything held about the tenant's end user; another tenant's user is NotFound."""
    end_user = _locked_end_user(tenant=tenant, external_id=external_id)
    # Deleting the row needs its key lock as well: from here on no row that references the
    # user (a job, a session) can be inserted until this commits, so none outlives the user.
    EndUser.objects.select_for_update().filter(pk=end_user.pk).first()
    memory_ids = list(Memory.objects.filter(end_user=end_user).values_list("id", flat=True))
    shared = _shared_counts(erasure_shares(end_user=end_user, session=None, memory_ids=memory_ids))
    # Everything left hangs off the user row: one cascade, counted per model as it deletes.
    _, per_model = EndUser.objects.filter(pk=end_user.pk).delete()
    counts = ErasureCounts(
        memories=per_model.get(Memory._meta.label, 0),
        versions=per_model.get(MemoryVersion._meta.label, 0),
        sessions=per_model.get(AgentSession._meta.label, 0),
        reviews=per_model.get(ReviewItem._meta.label, 0),
        jobs=shared["jobs"],
    )
    ErasureRecord.objects.create(
        tenant=tenant,
        external_id=external_id,
        scope=ErasureRecord.Scope.USER,
        deleted=asdict(counts),
        actor_type=actor_type,
        actor=actor,
    )
    memories_changed_on_commit(end_user_ids=[end_user.pk])
    return ErasureReceipt(user_id=external_id, deleted=counts)


# --- one session -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReviewSnapshot:
    """What the plan needs of a review item that names a memory of the session."""

    id: int
    pending: bool
    new_memory_id: str | None
    new_memory_held: bool  # the new memory is pending_review
    existing_ids: frozenset[str]
    # An active memory that stays already says what the new memory says (same content hash).
    new_memory_duplicated: bool = False


@dataclass(frozen=True)
class SessionErasurePlan:
    """What a session's erasure deletes and what it changes."""

    memory_ids: frozenset[str]
    review_ids: frozenset[int]
    # Memories held for review whose every contradicted memory is erased: they become active.
    activate_ids: frozenset[str]


def session_erasure_plan(
    *,
    from_session: Iterable[str],
    stated_elsewhere: Iterable[str],
    reviews: Iterable[ReviewSnapshot],
) -> SessionErasurePlan:
    """Decide a session's erasure from what was read (pure).

    Its memories are those it created (`from_session`) less those another source also stated.
    A review item goes when it is about an erased memory: its new memory is erased, or it is
    resolved history naming one, or it is pending and every memory it contradicts is erased
    (then its held memory becomes active, unless an active duplicate of it stays: that one is
    left for an operator). A pending item that still contradicts memories that stay is kept.
    """
    erased = frozenset(from_session) - frozenset(stated_elsewhere)
    review_ids: set[int] = set()
    activate: set[str] = set()
    for item in reviews:
        if item.new_memory_id in erased:
            review_ids.add(item.id)
        elif not item.existing_ids & erased:
            continue
        elif not item.pending:
            review_ids.add(item.id)
        elif not item.existing_ids - erased:
            if item.new_memory_held and item.new_memory_duplicated:
                continue
            review_ids.add(item.id)
            if item.new_memory_held and item.new_memory_id is not None:
                activate.add(item.new_memory_id)
    return SessionErasurePlan(erased, frozenset(review_ids), frozenset(activate))


_BY_ANOTHER_JOB = "another conversation stated it too"


def _other_sources(*, memory_ids: frozenset[str], session: AgentSession) -> dict[str, str]:
    """Of `memory_ids`, those another source stated too, with the source in words."""
    found: dict[str, str] = {}
    rows = (
        Memory.sessions.through.objects.filter(memory_id__in=memory_ids)
        .exclude(agentsession_id=session.pk)
        .select_related("agentsession")
    )
    for row in rows:
        found.setdefault(row.memory_id, f"also stated in session {row.agentsession.external_id}")
    outside = Memory.objects.filter(id__in=memory_ids, stated_outside_sessions=True)
    for memory_id in outside.values_list("id", flat=True):
        found.setdefault(memory_id, "also stated outside any session")
    return found


def _review_snapshots(*, end_user: EndUser, memory_ids: frozenset[str]) -> list[ReviewSnapshot]:
    items = (
        ReviewItem.objects.filter(end_user=end_user)
        .filter(Q(new_memory_id__in=memory_ids) | Q(existing_memories__id__in=memory_ids))
        .distinct()
        .select_related("new_memory")
        .defer("new_memory__embedding")
        .prefetch_related(
            Prefetch("existing_memories", queryset=Memory.objects.only("id", "end_user_id"))
        )
    )
    snapshots = []
    for item in items:
        new = item.new_memory
        held = new is not None and new.status == Memory.Status.PENDING_REVIEW
        duplicated = (
            new is not None
            and held
            and Memory.objects.filter(
                end_user=end_user, status=Memory.Status.ACTIVE, content_hash=new.content_hash
            )
            .exclude(id__in=memory_ids)
            .exists()
        )
        snapshots.append(
            ReviewSnapshot(
                id=item.pk,
                pending=item.status == ReviewItem.Status.PENDING,
                new_memory_id=item.new_memory_id,
                new_memory_held=held,
                existing_ids=frozenset(m.id for m in item.existing_memories.all()),
                new_memory_duplicated=duplicated,
            )
        )
    return snapshots


@transaction.atomic
def agent_session_erase(
    *,
    tenant: Tenant,
    external_id: str,
    session_id: str,
    actor_type: str = MemoryVersion.Actor.API,
    actor: str = "",
) -> ErasureReceipt:
    """Erase one session of the tenant's end user: its jobs and the memories from it alone.

    An unknown user (another tenant's included) or session is NotFound.
    """
    end_user = _locked_end_user(tenant=tenant, external_id=external_id)
    session = AgentSession.objects.filter(end_user=end_user, external_id=session_id).first()
    if session is None:
        raise NotFound("Unknown session_id for this user_id.")
    # Every memory the session stated, its first source or not (`Memory.sessions`).
    from_session = frozenset(session.memories_stated.values_list("id", flat=True))
    shares = erasure_shares(end_user=end_user, session=session, memory_ids=from_session)
    shared = _shared_counts(shares)
    # Stated elsewhere too: by another session or outside any (the memory's own sources,
    # kept through restatements and operator merges), or by another session's job.
    sources = _other_sources(memory_ids=from_session, session=session)
    elsewhere = frozenset(sources).union(*(share.stated_elsewhere for share in shares))
    plan = session_erasure_plan(
        from_session=from_session,
        stated_elsewhere=elsewhere,
        reviews=_review_snapshots(end_user=end_user, memory_ids=from_session - elsewhere),
    )

    ReviewItem.objects.filter(pk__in=plan.review_ids).delete()
    for memory in Memory.objects.filter(id__in=plan.activate_ids):
        memory.status = Memory.Status.ACTIVE
        memory.save(update_fields=["status", "updated_at"])
        memory_version_record(
            memory=memory,
            action=MemoryVersion.Action.RESOLVED,
            actor_type=MemoryVersion.Actor.SYSTEM,
            actor=actor,
            note="what it contradicted was erased with its session",
        )
    for memory in Memory.objects.filter(id__in=from_session - plan.memory_ids):
        memory_version_record(
            memory=memory,
            action=MemoryVersion.Action.SOURCE_ERASED,
            actor_type=actor_type,
            actor=actor,
            note=f"session {session_id} erased; kept: {sources.get(memory.id, _BY_ANOTHER_JOB)}",
        )
    versions = MemoryVersion.objects.filter(memory_id__in=plan.memory_ids).count()
    memory_delete_many(
        memories=Memory.objects.filter(id__in=plan.memory_ids).only("id", "end_user_id"),
        reason=DeletionRecord.Reason.ERASED,
        actor_type=actor_type,
        actor=actor,
    )
    # What was said in the session goes, from the memories that stay too (the FK's CASCADE
    # would take it as well; said here, where the erasure is read).
    MemoryEvidence.objects.filter(session=session).delete()
    # Memories kept because another source stated them lose this source (SET_NULL).
    session.delete()

    counts = ErasureCounts(
        memories=len(plan.memory_ids),
        versions=versions,
        jobs=shared["jobs"],
        sessions=1,
        reviews=len(plan.review_ids),
    )
    ErasureRecord.objects.create(
        tenant=tenant,
        external_id=external_id,
        scope=ErasureRecord.Scope.SESSION,
        session_external_id=session_id,
        deleted=asdict(counts),
        actor_type=actor_type,
        actor=actor,
    )
    memories_changed_on_commit(end_user_ids=[end_user.pk])
    return ErasureReceipt(user_id=external_id, deleted=counts)
