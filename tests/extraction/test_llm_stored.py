"""What the model extracted and the user said is stored: no check refuses a grounded fact.
Through the real write path, with the OpenAI-protocol stub as the model."""

from __future__ import annotations

import uuid

import pytest

from extraction.jobs import extraction_perform
from extraction.models import ExtractionJob
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
    ("message", "given"),
    [
        ("i work as a night porter at a hotel and i hate night shifts",
         "User works as a night porter at a hotel"),
        ("been a dog groomer for 3 years, cant stand dog shows tho", "User is a dog groomer"),
    ],
)  # fmt: skip
def test_a_negation_of_another_phrase_with_the_same_word_refuses_nothing(
    tenant, llm_settings, message, given
):
    ScriptedLLM(llm_settings).learn(message, fact(given))

    assert given in _stored(tenant, message)
    assert ExtractionJob.objects.get().candidates_refused == 0


def test_a_negated_fact_is_still_refused(tenant, llm_settings):
    message = "i dont eat spicy food at all"
    ScriptedLLM(llm_settings).learn(message, fact("User eats spicy food"))

    assert "User eats spicy food" not in _stored(tenant, message)
