"""What the model extracted and the user said is stored: no check refuses a grounded fact.
Through the real write path, with the OpenAI-protocol stub as the model."""

from __future__ import annotations

import json
import re

import pytest

from extraction.models import ExtractionJob
from extraction.prompts import EXTRACTION_SYSTEM_PROMPT
from tests.extraction.extract_helpers import stored_active
from tests.scripted_llm import ScriptedLLM, fact

pytestmark = pytest.mark.django_db


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

    assert given in stored_active(tenant, message)
    assert ExtractionJob.objects.get().candidates_refused == 0


def test_a_negated_fact_is_still_refused(tenant, llm_settings):
    message = "i dont eat spicy food at all"
    ScriptedLLM(llm_settings).learn(message, fact("User eats spicy food"))

    assert "User eats spicy food" not in stored_active(tenant, message)


def test_a_model_that_echoes_the_prompts_examples_stores_none_of_them(tenant, llm_settings):
    replies = re.findall(r"EXAMPLE reply: (\{.*?\]\})", " ".join(EXTRACTION_SYSTEM_PROMPT.split()))
    echoed = [item for reply in replies for item in json.loads(reply)["memories"]]
    assert echoed
    message = "my son is a dentist and we have two cats"
    ScriptedLLM(llm_settings).learn(message, *echoed)

    stored = stored_active(tenant, message)

    assert not set(stored) & {item["caption"] for item in echoed}


def test_a_statement_inside_a_longer_caption_of_the_model_is_kept_as_its_own(tenant, llm_settings):
    # The context shows "User is a data analyst at a charity, fully remote" as one fact; the
    # user's own "fully remote" is another, kept in their words.
    message = "these days im a data analyst at a charity, fully remote"
    given = "User is a data analyst at a charity, fully remote"
    ScriptedLLM(llm_settings).learn(message, fact(given))

    assert stored_active(tenant, message) == sorted([given, "User is fully remote"])
