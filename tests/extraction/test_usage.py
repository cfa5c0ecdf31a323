"""Extractions and recalls add to their tenant's usage, with the LLM use the server reported."""

from __future__ import annotations

import json
import uuid

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from extraction.models import ExtractionJob
from tenants.models import TenantUsage
from testing.llm_stub import content
from tests.factories import TenantFactory, api_key_for

TALK = [
    {"role": "user", "content": "I moved to Porto last spring and I work as a nurse there."},
    {"role": "assistant", "content": "Porto is lovely. Night shifts?"},
]


def _api(tenant) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key_for(tenant)}")
    return client


def _today(tenant) -> TenantUsage | None:
    return TenantUsage.objects.filter(tenant=tenant, day=timezone.now().date()).first()


@pytest.mark.django_db
def test_an_extraction_adds_exactly_the_tokens_the_llm_reported(tenant, llm_settings):
    facts = [
        {"caption": caption, "full_text": caption, "category": "personal"}
        for caption in ("User lives in Porto", "User works as a nurse")
    ]
    llm_settings.always(content(json.dumps(facts), prompt_tokens=321, completion_tokens=54))

    response = _api(tenant).post(
        "/memories/extract", {"user_id": str(uuid.uuid4()), "conversation": TALK}, format="json"
    )

    assert response.status_code == 201
    calls = len(llm_settings.calls)
    assert calls >= 1
    usage = _today(tenant)
    assert (usage.extractions, usage.failed_extractions) == (1, 0)
    assert (usage.llm_calls, usage.prompt_tokens, usage.completion_tokens) == (
        calls,
        321 * calls,
        54 * calls,
    )
    job = ExtractionJob.objects.get()
    assert (job.llm_calls, job.prompt_tokens) == (usage.llm_calls, usage.prompt_tokens)


@pytest.mark.django_db
def test_a_replayed_conversation_costs_nothing_more(tenant, llm_settings):
    llm_settings.always(content("[]", prompt_tokens=10, completion_tokens=2))
    api, body = _api(tenant), {"user_id": str(uuid.uuid4()), "conversation": TALK}

    api.post("/memories/extract", body, format="json")
    before = _today(tenant)
    api.post("/memories/extract", body, format="json")

    after = _today(tenant)
    assert (after.extractions, after.llm_calls) == (before.extractions, before.llm_calls) == (1, 1)


@pytest.mark.django_db
def test_a_failed_extraction_counts_as_failed_with_every_attempt_it_made(tenant, llm_settings):
    llm_settings.fail(503, times=10)

    response = _api(tenant).post(
        "/memories/extract", {"user_id": str(uuid.uuid4()), "conversation": TALK}, format="json"
    )

    assert response.status_code == 502  # the upstream LLM failed
    usage = _today(tenant)
    assert (usage.extractions, usage.failed_extractions) == (0, 1)
    assert usage.llm_calls == len(llm_settings.calls) == 3  # one try and two retries
    job = ExtractionJob.objects.get()
    assert job.conversation  # kept for a replay
    assert job.llm_calls == usage.llm_calls


@pytest.mark.django_db
def test_every_recall_endpoint_counts_one_recall_for_its_tenant_only(tenant):
    other = TenantFactory()
    api, user = _api(tenant), str(uuid.uuid4())
    api.post("/memories/extract", {"user_id": user, "conversation": TALK}, format="json")

    responses = [
        api.get("/memories/relevant", {"user_id": user, "prompt": "Any plans for the weekend?"}),
        api.get("/memories/context", {"user_id": user, "prompt": "Where should we eat tonight?"}),
        api.get("/memories/relevant", {"user_id": str(uuid.uuid4()), "prompt": "hello"}),
        api.post(
            "/tools/call",
            {"name": "recall", "arguments": {"user_id": user, "query": "work"}},
            format="json",
        ),
    ]

    assert [r.status_code for r in responses] == [200, 200, 200, 200]
    assert _today(tenant).recalls == 4
    assert _today(other) is None
