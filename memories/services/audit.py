"""The consolidation job (issue 34): what the store's audit finds (`memories.hygiene`) filed in
the review queue as proposals, each with its reason, for an operator to decide.

It never merges, supersedes nor deletes on its own: a proposal is a `ReviewItem` with the signal
`audit`, the flagged memory as its new memory (left active) and, for a near-duplicate, the older
memory it repeats as the existing one, so the operator's choices are the review queue's own
(keep the new, keep the existing, keep both, merge). A finding already proposed once (pending
or resolved) is never proposed again, so an operator's "keep both" stands; a memory that waits
in the queue for another reason is left to that review.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Q

from memories.hygiene import Finding, memory_audit
from memories.models import Memory, ReviewItem
from memories.services.conflicts import review_item_file
from memories.services.memories import end_user_lock

AUDIT = ReviewItem.Signal.AUDIT


@dataclass(frozen=True)
class AuditFiling:
    """What one run filed: new proposals, findings proposed before, and findings on a memory
    already waiting in the queue."""

    filed: int = 0
    proposed_before: int = 0
    in_review: int = 0


@dataclass(frozen=True)
class _Proposal:
    memory_id: str
    other_id: str
    similarity: float
    reason: str

    @property
    def members(self) -> frozenset[str]:
        return frozenset({self.memory_id, self.other_id} - {""})


def proposals_of(findings: Iterable[Finding]) -> list[_Proposal]:
    """One proposal per flagged memory, its reasons joined (a memory garbled and stale is one
    item), a near-duplicate's pair kept (a pure decision)."""
    by_memory: dict[str, list[Finding]] = defaultdict(list)
    for finding in findings:
        by_memory[finding.memory_id].append(finding)
    proposals = []
    for memory_id, found in by_memory.items():
        pair = next((f for f in found if f.other_id), None)
        proposals.append(
            _Proposal(
                memory_id=memory_id,
                other_id=pair.other_id if pair else "",
                similarity=pair.similarity if pair else 0.0,
                reason="Store audit: " + "; ".join(f.reason for f in found),
            )
        )
    return proposals


def _proposed_before(memory_ids: set[str]) -> set[frozenset[str]]:
    """The memories (a pair, or one) every earlier audit proposal about them named."""
    items = ReviewItem.objects.filter(
        Q(new_memory_id__in=memory_ids) | Q(existing_memories__id__in=memory_ids), signal=AUDIT
    )
    named: dict[int, set[str]] = defaultdict(set)
    for item_id, new_id, old_id in items.values_list(
        "id", "new_memory_id", "existing_memories__id"
    ):
        named[item_id] |= {memory_id for memory_id in (new_id, old_id) if memory_id}
    return {frozenset(members) for members in named.values()}


def audit_proposals_file(*, tenant_ids: Iterable[int] | None = None) -> AuditFiling:
    """File what the audit finds in the tenants' review queues (of `tenant_ids`, or every
    tenant) as proposals; idempotent, and it changes no memory."""
    findings = [f for audit in memory_audit(tenant_ids=tenant_ids) for f in audit.findings]
    proposals = proposals_of(findings)
    if not proposals:
        return AuditFiling()
    ids = {memory_id for p in proposals for memory_id in p.members}
    before = _proposed_before(ids)
    fresh = [p for p in proposals if p.members not in before]
    users = dict(Memory.objects.filter(id__in=ids).values_list("id", "end_user_id"))
    per_user: dict[int, list[_Proposal]] = defaultdict(list)
    for proposal in fresh:
        if proposal.memory_id in users:
            per_user[users[proposal.memory_id]].append(proposal)
    filed = in_review = 0
    for end_user_id, mine in per_user.items():
        done, waiting = _file_for_user(end_user_id, mine)
        filed, in_review = filed + done, in_review + waiting
    return AuditFiling(
        filed=filed, proposed_before=len(proposals) - len(fresh), in_review=in_review
    )


@transaction.atomic
def _file_for_user(end_user_id: int, proposals: list[_Proposal]) -> tuple[int, int]:
    """File one user's proposals under the user's write lock (so a concurrent run or write
    finds them filed), skipping a memory already in the queue or gone since the audit read."""
    end_user_lock(end_user_id=end_user_id)
    ids = {memory_id for p in proposals for memory_id in p.members}
    memories = {m.id: m for m in Memory.objects.filter(id__in=ids, status=Memory.Status.ACTIVE)}
    waiting = set(
        ReviewItem.objects.filter(
            status=ReviewItem.Status.PENDING, new_memory_id__in=ids
        ).values_list("new_memory_id", flat=True)
    )
    before = _proposed_before(ids)
    filed = in_review = 0
    for proposal in proposals:
        if proposal.members in before or any(m not in memories for m in proposal.members):
            continue
        if proposal.memory_id in waiting:
            in_review += 1
            continue
        review_item_file(
            new_memory=memories[proposal.memory_id],
            existing=[memories[proposal.other_id]] if proposal.other_id else [],
            similarity=proposal.similarity,
            reason=proposal.reason,
            signal=AUDIT,
        )
        waiting.add(proposal.memory_id)
        filed += 1
    return filed, in_review
