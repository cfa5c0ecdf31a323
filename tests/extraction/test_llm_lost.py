"""A fact the model extracted is never lost on the way to the store: two of its facts that share
one full text are two memories. Through the real write path, with the OpenAI-protocol stub."""

from __future__ import annotations

import uuid

import pytest

from extraction.jobs import extraction_perform
from memories.models import Memory
from tests.scripted_llm import ScriptedLLM, fact

pytestmark = pytest.mark.django_db


def _stored(tenant, text: str) -> list[str]:
    user = uuid.uuid4()
    extraction_perform(
        tenant=tenant, external_id=user, messages=[{"role": "user", "content": text}]
    )
    return sorted(
        Memory.objects.filter(end_user__external_id=user, status="active").values_list(
            "caption", flat=True
        )
    )


@pytest.mark.parametrize(
    ("message", "captions", "full_text"),
    [
        ("my grandad is a retired welder and hes got type 2 diabetes",
         ("User's grandad is a retired welder", "User's grandad has type 2 diabetes"),
         "User's grandad is a retired welder who has type 2 diabetes."),
        ("we rent a flat in leith and our cat is called miso",
         ("User rents a flat in Leith", "User's cat is called Miso"),
         "User rents a flat in Leith with their cat Miso."),
    ],
)  # fmt: skip
def test_two_facts_the_model_wrote_one_full_text_for_are_two_memories(
    tenant, llm_settings, message, captions, full_text
):
    ScriptedLLM(llm_settings).learn(message, *(fact(c, full_text=full_text) for c in captions))

    assert _stored(tenant, message) == sorted(captions)
