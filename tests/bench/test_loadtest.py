import itertools
import json
import urllib.request

import pytest

from bench.loadtest.client import LoadResult
from bench.loadtest.seeding import (
    end_users_create,
    fact_pool,
    memories_seed,
    memories_unseed,
    prompt_stream,
)
from extraction.reader import offline_candidates
from integrations.embeddings import current_model_id
from memories.models import Memory
from testing.llm_stub import LLMStub, extracting_chat_reply


def test_the_fact_pool_and_the_prompts_are_distinct():
    assert len(set(fact_pool(size=500))) == 500
    prompts = list(itertools.islice(prompt_stream(), 12_000))
    assert len(set(prompts)) == len(prompts)


@pytest.mark.django_db
def test_seeding_gives_every_user_distinct_embedded_active_memories(tenant):
    users = end_users_create(tenant=tenant, count=3)

    inserted = memories_seed(end_user_ids=users, per_user=40, pool_size=60, chunk_users=2)

    assert inserted == 120
    for user in users:
        memories = Memory.objects.filter(end_user_id=user)
        assert memories.count() == 40
        assert memories.values("content_hash").distinct().count() == 40
    memory = Memory.objects.first()
    assert memory.status == "active" and memory.embedding_model == current_model_id()
    assert len(memory.embedding) == 384 and memory.id.startswith("mem_") and len(memory.id) == 20


@pytest.mark.django_db
def test_unseeding_removes_the_bench_tenant_and_its_rows(tenant):
    memories_seed(end_user_ids=end_users_create(tenant=tenant, count=2), per_user=5, pool_size=10)

    memories_unseed(tenant=tenant)

    assert not Memory.objects.exists()


def test_a_load_summary_reports_percentiles_throughput_and_errors():
    result = LoadResult(latencies=[float(n) for n in range(1, 101)], seconds=2.0)
    result.statuses = {200: 99, 503: 1}

    summary = result.summary()

    assert summary["requests"] == 100 and summary["rps"] == 50.0 and summary["errors"] == 1
    assert summary["p50_ms"] == pytest.approx(50.5) and summary["p99_ms"] == pytest.approx(99.01)


def test_the_rules_stub_llm_answers_extraction_and_leaves_decisions_to_the_offline_judge():
    def ask(stub: LLMStub, content: str) -> str:
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": content}]})
        request = urllib.request.Request(
            f"{stub.base_url}/chat/completions", data=body.encode(), method="POST"
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            return json.loads(response.read())["choices"][0]["message"]["content"]

    stub = LLMStub().always(extracting_chat_reply(offline_candidates)).start()
    try:
        conversation = json.dumps({"role": "user", "content": "I work as a nurse in Leeds."})
        facts = json.loads(ask(stub, f"<conversation>\n{conversation}\n</conversation>"))
        verdict = ask(stub, '<pairs>\n{"q": 1, "stored": "a", "new": "b"}\n</pairs>')
    finally:
        stub.stop()

    assert facts[0]["caption"] == "User works as a nurse in Leeds"
    assert verdict == "No answer."
    assert len(stub.calls) == 2
