"""A memory's use-when hint (written by the LLM at extraction) lets a prompt that needs the
memory without naming it find it."""

from __future__ import annotations

import json
import uuid

import pytest

from extraction.jobs import extraction_perform
from extraction.prompts import parse_extraction_reply
from memories.text import embedding_text
from recall.services import memory_recall
from tests.scripted_llm import ScriptedLLM, fact

pytestmark = pytest.mark.django_db

SISTER = "User's sister Ines lives in Bergen"
HINT = "trips to Norway, family visits, gifts for their sister"
PROMPT = "I'm going to Norway next month, what should I bring?"


@pytest.fixture
def local_embedder(settings):
    settings.MEMORY_EMBEDDER = "local"  # the recall floors are calibrated for MiniLM


def _recalled(tenant, user_id) -> list[str]:
    found = memory_recall(tenant=tenant, external_id=user_id, prompt=PROMPT, limit=3)
    return [memory.caption for memory in found.memories]


def _store(tenant, llm_settings, use_when: str) -> uuid.UUID:
    llm = ScriptedLLM(llm_settings)
    llm.learn("Bergen", {**fact(SISTER), "use_when": use_when})
    user_id = uuid.uuid4()
    said = "my sister Ines lives in Bergen, she moved there for work"
    extraction_perform(tenant=tenant, external_id=user_id,
                       messages=[{"role": "user", "content": said}])  # fmt: skip
    return user_id


def test_the_hint_is_read_from_the_reply_and_embedded_with_the_text():
    reply = json.dumps({"memories": [{**fact(SISTER), "use_when": HINT}]})

    [candidate] = parse_extraction_reply(reply)

    assert candidate.use_when == HINT
    assert embedding_text(SISTER, SISTER, HINT).endswith(f"Matters for: {HINT}")


def test_a_prompt_that_needs_the_memory_without_naming_it_finds_it_by_its_hint(
    tenant, llm_settings, local_embedder
):
    with_hint = _store(tenant, llm_settings, HINT)
    without = _store(tenant, llm_settings, "")

    assert _recalled(tenant, with_hint) == [SISTER]
    assert _recalled(tenant, without) == []  # the caption alone is too far from the prompt
