"""The real write path for `eval_extractor --write`: what a fresh user holds after one extraction.

Each conversation is written by `extraction.pipeline.conversation_memories_write` (screening,
the caption gate, embedding, the decisions and their merges) for a new end user of a throwaway
tenant, inside one transaction rolled back at the end: nothing stays in the database. The
candidates the pipeline writes are the extractor's own, taken from the same call (its step 3 is
replaced by the extractor under test for the duration), so a fact the evaluation saw extracted
is the fact the write received.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from unittest import mock

from django.db import transaction

from extraction import pipeline
from extraction.candidates import Candidate
from extraction.screening import candidate_screen
from integrations.embeddings import EmbeddingError
from integrations.llm import LLMError, LLMUsage
from memories.models import EndUser, Memory
from memories.values import lacks_value
from tenants.models import Tenant

TENANT_PREFIX = "bench-eval-extractor"


@dataclass
class Written:
    """The user's memories after the write: recallable (active) and held for review, and the
    candidates the write refused before deciding (screening, a caption without its value)."""

    active: list[str] = field(default_factory=list)
    held: list[str] = field(default_factory=list)
    refused: frozenset[str] = frozenset()
    usage: LLMUsage = field(default_factory=LLMUsage)
    error: str = ""


class _Rollback(Exception):
    """Raised at the end of the run to undo every row it wrote."""


@contextmanager
def throwaway_tenant() -> Iterator[Tenant]:
    """An inactive tenant (it serves nothing) whose rows are rolled back when the block ends."""
    try:
        with transaction.atomic():
            yield Tenant.objects.create(
                name=f"{TENANT_PREFIX}-{uuid.uuid4().hex[:12]}", is_active=False
            )
            raise _Rollback
    except _Rollback:
        pass


def conversation_write(
    *,
    tenant: Tenant,
    messages: list[dict[str, str]],
    candidates: Sequence[Candidate],
    path: str,
) -> Written:
    """Write `candidates` for a new user of `tenant` as the pipeline writes its step 3's.

    `path` is "llm" (the LLM judges the decisions, as in the service) or "rules"."""
    end_user = EndUser.objects.create(tenant=tenant, external_id=f"bench-{uuid.uuid4().hex}")
    usage = pipeline.Usage()

    def extracted(
        messages: list[dict[str, str]], usage: pipeline.Usage, *, read_before: int = 0
    ) -> tuple[list[Candidate], str]:
        return list(candidates), path

    written = Written(usage=usage, refused=refused_captions(candidates))
    try:
        # A savepoint per conversation: a failed write leaves the others' rows usable.
        with transaction.atomic(), mock.patch.object(pipeline, "candidates_extract", extracted):
            pipeline.conversation_memories_write(
                end_user=end_user, messages=messages, session=None, usage=usage,
                actor="eval_extractor",
            )  # fmt: skip
    except (LLMError, EmbeddingError) as error:
        written.error = f"{type(error).__name__}: {error}"
        return written
    for status, caption in Memory.objects.filter(end_user=end_user).values_list(
        "status", "caption"
    ):
        if status == Memory.Status.ACTIVE:
            written.active.append(caption)
        elif status == Memory.Status.PENDING_REVIEW:
            written.held.append(caption)
    return written


def refused_captions(candidates: Sequence[Candidate]) -> frozenset[str]:
    """The captions the write path refuses before any decision: the pipeline's own gates
    (`candidate_screen`, `lacks_value`), asked again to tell a refusal from a merge."""
    refused = set()
    for candidate in candidates:
        screened, _ = candidate_screen(candidate)
        if screened is None or lacks_value(screened.caption):
            refused.add(candidate.caption)
    return frozenset(refused)


Writer = Callable[[list[dict[str, str]], Sequence[Candidate]], Written]


def writer_for(tenant: Tenant, path: str) -> Writer:
    """A function writing one conversation's candidates for a new user of `tenant`."""
    return lambda messages, candidates: conversation_write(
        tenant=tenant, messages=messages, candidates=candidates, path=path
    )
