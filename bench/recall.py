"""What the recall benches share: a dedicated tenant, bulk loading of memories, the off-topic set.

Benches write into the real database through a tenant of their own (`BENCH_TENANT`), removed
when they finish, so they never touch a real install's users.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from django.db import connection, transaction
from django.utils import timezone

from integrations.embeddings import current_model_id, embed_texts
from memories.models import AgentSession, EndUser, Memory
from memories.text import CAPTION_MAX_LENGTH, FULL_TEXT_MAX_LENGTH, content_hash, embedding_text
from recall.index import user_index_invalidate
from recall.services import memory_recall_for_end_user
from tenants.models import Tenant

BENCH_TENANT = "bench-recall"
DATA = Path(__file__).resolve().parent / "data"
OFFTOPIC_PATH = DATA / "offtopic.json"
# Sets of one user's memories with prompts that need one of them (most without naming it) and
# general prompts that need none; tune on offtopic, needs_dev and needs_dev2, report
# needs_heldout.
PROMPT_SETS = (
    OFFTOPIC_PATH,
    DATA / "needs_dev.json",
    DATA / "needs_dev2.json",
    DATA / "needs_heldout.json",
)


def bench_tenant_reset(*, name: str = BENCH_TENANT) -> Tenant:
    """Return the bench's own tenant, emptied of anything a killed earlier run left."""
    tenant, _ = Tenant.objects.get_or_create(name=name, defaults={"is_active": False})
    EndUser.objects.filter(tenant=tenant).delete()
    return tenant


def bench_tenant_delete(*, name: str = BENCH_TENANT) -> None:
    """Remove the bench's tenant with its end users and memories."""
    Tenant.objects.filter(name=name).delete()


def caption_of(text: str) -> str:
    """A caption for a long text: its start, cut at a word boundary."""
    text = " ".join(text.split())
    if len(text) <= CAPTION_MAX_LENGTH:
        return text
    cut = text[: CAPTION_MAX_LENGTH - 1].rsplit(" ", 1)[0]
    return cut + "…"


@transaction.atomic
def bench_memories_create(
    *,
    end_user: EndUser,
    texts: list[str],
    captions: list[str] | None = None,
    sessions: list[str | None] | None = None,
) -> list[str]:
    """Store texts as active memories of one user, in order; return their ids.

    Bypasses the write pipeline on purpose (no merge, no cap): a bench measures recall over
    exactly the corpus it loads. Creation times follow the list order.
    """
    sessions = sessions or [None] * len(texts)
    session_ids: dict[str, int] = {}
    for key in dict.fromkeys(s for s in sessions if s is not None):
        session_ids[key] = AgentSession.objects.create(end_user=end_user, external_id=key).pk
    full_texts = [" ".join(t.split())[:FULL_TEXT_MAX_LENGTH] for t in texts]
    captions = captions or [caption_of(t) for t in full_texts]
    vectors = embed_texts([embedding_text(c, f) for c, f in zip(captions, full_texts, strict=True)])
    model_id = current_model_id()
    memories = [
        Memory(
            end_user=end_user,
            caption=caption,
            full_text=full_text,
            content_hash=content_hash(full_text),
            embedding=vector,
            embedding_model=model_id,
            source_session_id=session_ids.get(session) if session else None,
        )
        for caption, full_text, vector, session in zip(
            captions, full_texts, vectors, sessions, strict=True
        )
    ]
    Memory.objects.bulk_create(memories, batch_size=500)
    ids = [m.id for m in memories]
    # bulk_create stamps one creation time on every row; spread them so order is kept.
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {Memory._meta.db_table} AS m "
            "SET created_at = %s + v.n * interval '1 millisecond' "
            "FROM unnest(%s::text[], %s::int[]) AS v(id, n) WHERE m.id = v.id",
            [timezone.now(), ids, list(range(len(ids)))],
        )
    transaction.on_commit(lambda: user_index_invalidate(end_user_id=end_user.pk))
    return ids


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile of values (0 when empty)."""
    return float(np.percentile(values, q)) if values else 0.0


@dataclass(frozen=True)
class OfftopicResult:
    """How one mode handles prompts about nothing the user said, and prompts about one thing."""

    offtopic_prompts: int
    empty_rate: float
    matching_prompts: int
    recall_at_3: float
    p50_ms: float

    def as_dict(self) -> dict:
        """The figures as the bench prints them (rates in percent)."""
        return {
            "offtopic_prompts": self.offtopic_prompts,
            "empty_rate": round(self.empty_rate, 1),
            "matching_prompts": self.matching_prompts,
            "recall@3": round(self.recall_at_3, 1),
            "p50_ms": round(self.p50_ms, 2),
        }


def offtopic_load(*, path: Path = OFFTOPIC_PATH) -> dict:
    """Read the off-topic set: memories (key, caption, full_text), matching and offtopic."""
    return json.loads(Path(path).read_text())


def offtopic_user_create(*, tenant: Tenant, data: dict) -> tuple[EndUser, dict[str, str]]:
    """Create an end user holding the set's memories; return it and memory id -> key."""
    end_user = EndUser.objects.create(tenant=tenant, external_id=uuid.uuid4())
    memories = data["memories"]
    ids = bench_memories_create(
        end_user=end_user,
        texts=[m["full_text"] for m in memories],
        captions=[m["caption"] for m in memories],
    )
    return end_user, {i: m["key"] for i, m in zip(ids, memories, strict=True)}


def offtopic_evaluate(
    *, end_user: EndUser, keys: dict[str, str], data: dict, mode: str
) -> OfftopicResult:
    """Ask every prompt of the set: count empty answers and top-3 hits."""
    timings: list[float] = []

    def ask(prompt: str) -> list[str]:
        started = time.perf_counter()
        results = memory_recall_for_end_user(
            end_user=end_user, prompt=prompt, limit=10, mode=mode
        ).memories
        timings.append((time.perf_counter() - started) * 1000)
        return [keys[r.id] for r in results]

    empty = sum(1 for prompt in data["offtopic"] if not ask(prompt))
    hits = sum(1 for item in data["matching"] if item["expected"] in ask(item["prompt"])[:3])
    return OfftopicResult(
        offtopic_prompts=len(data["offtopic"]),
        empty_rate=100 * empty / max(len(data["offtopic"]), 1),
        matching_prompts=len(data["matching"]),
        recall_at_3=100 * hits / max(len(data["matching"]), 1),
        p50_ms=percentile(timings, 50),
    )
