"""Writes of a memory's evidence: the quotes of what stated it, added and folded, bounded.

Every way a memory is written adds here: an extraction's new memory, a restatement and a
merge (`memories.services.memories`), an agent's note, and an operator's merge, whose
survivor takes the quotes of both (`memory_sources_fold`). A memory keeps at most
`memories.evidence.EVIDENCE_PER_MEMORY` quotes, the first said and the latest.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction

from memories.evidence import Quote, evidence_kept
from memories.models import Memory, MemoryEvidence


@transaction.atomic
def memory_evidence_add(*, memory: Memory, quotes: Iterable[Quote]) -> int:
    """Add `quotes` to `memory`'s evidence, each statement once, and trim to the bound; return
    how many were stored. One read, one insert and at most one delete."""
    quotes = [quote for quote in quotes if quote.text]
    if not quotes:
        return 0
    stored = list(
        MemoryEvidence.objects.filter(memory=memory)
        .only("id", "session_id", "position", "source", "quote", "said_at")
        .order_by("said_at", "id")
    )
    seen = {Quote.of(row).key for row in stored}
    new: list[Quote] = []
    for quote in quotes:
        if quote.key not in seen:
            seen.add(quote.key)
            new.append(quote)
    if not new:
        return 0
    kept = evidence_kept([row.said_at for row in stored] + [quote.said_at for quote in new])
    dropped = [row.pk for at, row in enumerate(stored) if at not in kept]
    if dropped:
        MemoryEvidence.objects.filter(pk__in=dropped).delete()
    added = [quote for at, quote in enumerate(new, start=len(stored)) if at in kept]
    MemoryEvidence.objects.bulk_create(
        MemoryEvidence(
            memory=memory,
            session_id=quote.session_id,
            source=quote.source,
            position=quote.position,
            said_at=quote.said_at,
            quote=quote.text,
        )
        for quote in added
    )
    return len(added)


def memory_evidence_fold(*, into: Memory, source: Memory) -> int:
    """`into` takes a copy of `source`'s quotes (an operator merged them): what the user said
    for either stays on the memory that survives."""
    return memory_evidence_add(
        memory=into, quotes=[Quote.of(row) for row in MemoryEvidence.objects.filter(memory=source)]
    )
