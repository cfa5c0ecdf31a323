"""What the recall benches share: a dedicated tenant, bulk loading of memories, the off-topic set.

Benches write into the real database through a tenant of their own (`BENCH_TENANT`), removed
when they finish, so they never touch a real install's users.

The LLM recall modes (`LLM_MODES`) ask a real server when the bench is given one, else the
stub answering from the labels (`RecallLabels`): it picks exactly the shown memories a prompt
needs, so its figures measure what reaches the LLM, not a model.
"""

from __future__ import annotations

import datetime
import json
import re
import time
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from django.db import connection, transaction
from django.test.utils import override_settings
from django.utils import timezone

from bench.llm import ItemCost, LLMServer, cost_summary
from integrations.embeddings import current_model_id, embed_texts
from memories.models import AgentSession, EndUser, Memory
from memories.text import CAPTION_MAX_LENGTH, FULL_TEXT_MAX_LENGTH, content_hash, embedding_text
from recall.index import user_index_invalidate
from recall.services import memory_recall_for_end_user
from tenants.models import Tenant
from testing.llm_stub import LLMStub, StubRequest, content

BENCH_TENANT = "bench-recall"
# The recall modes that ask the LLM (recall.services).
LLM_MODES = ("llm", "hybrid+llm")
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
    stated: list[datetime.datetime | None] | None = None,
) -> list[str]:
    """Store texts as active memories of one user, in order; return their ids.

    Bypasses the write pipeline on purpose (no merge, no cap): a bench measures recall over
    exactly the corpus it loads. Creation times follow the list order; `stated` is when each
    was said (LoCoMo's session dates; None: now).
    """
    sessions = sessions or [None] * len(texts)
    now = timezone.now()
    stated = [s or now for s in stated] if stated else [now] * len(texts)
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
            tenant_id=end_user.tenant_id,  # bulk_create skips Memory.save, which copies it
            caption=caption,
            full_text=full_text,
            content_hash=content_hash(full_text),
            embedding=vector,
            embedding_model=model_id,
            source_session_id=session_ids.get(session) if session else None,
            stated_at=said,
            last_stated_at=said,
        )
        for caption, full_text, vector, session, said in zip(
            captions, full_texts, vectors, sessions, stated, strict=True
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


_MEMORIES = re.compile(r"<memories>\s*(.*?)\s*</memories>", re.S)
_PROMPT = re.compile(r"<prompt>\s*(.*?)\s*</prompt>", re.S)


class RecallLabels:
    """The stub's answers to the recall modes' LLM call: of the memories shown, the ones the
    labels say the prompt needs (LoCoMo: evidence in common; prompt sets: the expected
    memory; general prompts: none)."""

    def __init__(self) -> None:
        self.needed: dict[str, set[str]] = {}

    def clear(self) -> None:
        """Forget every label (a prompt of one set may be a general prompt of the next)."""
        self.needed.clear()

    def add(self, prompt: str, captions: Iterable[str]) -> None:
        """Label `prompt` as needing the memories with these captions."""
        self.needed.setdefault(prompt, set()).update(captions)

    def __call__(self, request: StubRequest) -> object:
        text = str(request.messages[-1].get("content", "")) if request.messages else ""
        memories, prompt = _MEMORIES.search(text), _PROMPT.search(text)
        if memories is None or prompt is None:
            return content("[]")
        # The service quotes both as JSON (with < and > escaped, which JSON decodes).
        shown = json.loads(memories.group(1))
        needed = self.needed.get(json.loads(prompt.group(1)), set())
        return content(json.dumps([ref for ref, caption in shown.items() if caption in needed]))


@contextmanager
def recall_llm(
    methods: Iterable[str], server: LLMServer | None
) -> Iterator[tuple[str, RecallLabels | None]]:
    """The LLM the LLM modes ask for the run, and the stub's labels to fill (None: no stub).

    Yields how the output names it: the server, the stub, or "not used" without LLM modes."""
    if not set(methods) & set(LLM_MODES):
        yield "not used (no LLM recall mode)", None
        return
    if server is not None:
        with server.configured():
            yield server.describe(), None
        return
    labels = RecallLabels()
    stub = LLMStub().always(labels).start()
    try:
        with override_settings(
            OPENAI_API_KEY="bench-stub", OPENAI_BASE_URL=stub.base_url, MEMORY_LLM_MAX_RETRIES=0
        ):
            yield "stub (answers from the labels)", labels
    finally:
        stub.stop()


def recall_measured(*, end_user: EndUser, prompt: str, limit: int, mode: str, cost: ItemCost):
    """The recalled memories for one prompt; its LLM usage and seconds added to `cost`."""
    started = time.perf_counter()
    recall = memory_recall_for_end_user(end_user=end_user, prompt=prompt, limit=limit, mode=mode)
    cost.seconds += time.perf_counter() - started
    cost.add_usage(recall.cost)
    return recall.memories


@dataclass(frozen=True)
class OfftopicResult:
    """How one mode handles prompts about nothing the user said, and prompts about one thing."""

    offtopic_prompts: int
    empty_rate: float
    matching_prompts: int
    recall_at_3: float
    p50_ms: float
    # Per prompt: which, whether the mode got it right, and its LLM usage and seconds.
    items: list[dict[str, Any]] = field(default_factory=list)
    costs: list[ItemCost] = field(default_factory=list)

    def as_dict(self, *, items: bool = False) -> dict:
        """The figures as the bench prints them (rates in percent), with LLM usage."""
        figures = {
            "offtopic_prompts": self.offtopic_prompts,
            "empty_rate": round(self.empty_rate, 1),
            "matching_prompts": self.matching_prompts,
            "recall@3": round(self.recall_at_3, 1),
            "p50_ms": round(self.p50_ms, 2),
            "usage": cost_summary(self.costs),
        }
        if items:
            figures["items"] = self.items
        return figures


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


def offtopic_limit(data: dict, limit: int | None) -> dict:
    """The set with only its first `limit` general prompts and `limit` prompts needing one."""
    if limit is None:
        return data
    return {**data, "offtopic": data["offtopic"][:limit], "matching": data["matching"][:limit]}


def offtopic_labels(data: dict, labels: RecallLabels) -> None:
    """What the stub answers for the set: each matching prompt needs its expected memory."""
    captions = {m["key"]: m["caption"] for m in data["memories"]}
    for item in data["matching"]:
        labels.add(item["prompt"], [captions[item["expected"]]])


def offtopic_evaluate(
    *, end_user: EndUser, keys: dict[str, str], data: dict, mode: str
) -> OfftopicResult:
    """Ask every prompt of the set: count empty answers and top-3 hits."""
    items: list[dict[str, Any]] = []
    costs: list[ItemCost] = []

    def ask(prompt: str, kind: str) -> list[str]:
        cost = ItemCost()
        results = recall_measured(end_user=end_user, prompt=prompt, limit=10, mode=mode, cost=cost)
        costs.append(cost)
        items.append({"prompt": prompt, "kind": kind, **cost.as_dict()})
        return [keys[r.id] for r in results]

    empty = 0
    for prompt in data["offtopic"]:
        answered = bool(ask(prompt, "general"))
        items[-1]["correct"] = not answered
        empty += not answered
    hits = 0
    for item in data["matching"]:
        hit = item["expected"] in ask(item["prompt"], "needs_memory")[:3]
        items[-1]["correct"] = hit
        hits += hit
    return OfftopicResult(
        offtopic_prompts=len(data["offtopic"]),
        empty_rate=100 * empty / max(len(data["offtopic"]), 1),
        matching_prompts=len(data["matching"]),
        recall_at_3=100 * hits / max(len(data["matching"]), 1),
        p50_ms=percentile([1000 * cost.seconds for cost in costs], 50),
        items=items,
        costs=costs,
    )
