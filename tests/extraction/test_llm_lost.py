"""A fact the model extracted is never lost on the way to the store: two of its facts that share
one full text are two memories. Through the real write path, with the OpenAI-protocol stub."""

from __future__ import annotations

import pytest

from tests.extraction.extract_helpers import stored_active
from tests.scripted_llm import ScriptedLLM, fact

pytestmark = pytest.mark.django_db


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

    assert stored_active(tenant, message) == sorted(captions)


@pytest.mark.parametrize(
    ("message", "detailed", "full_text", "other"),
    [
        ("my wife just got promoted to head of sales, shes been at the firm 12 years",
         "User's wife got promoted to head of sales",
         "User's wife, who has been at the firm for 12 years, got promoted to head of sales.",
         "User's wife has been at the firm for 12 years"),
        ("our cat luna is 14 and she has kidney disease",
         "User's cat Luna has kidney disease",
         "User's cat Luna is 14 years old and has kidney disease.",
         "User's cat Luna is 14"),
    ],
)  # fmt: skip
def test_a_fact_only_the_full_text_of_another_states_is_not_merged_into_it(
    tenant, llm_settings, message, detailed, full_text, other
):
    llm = ScriptedLLM(llm_settings)
    llm.learn(message, fact(detailed, full_text=full_text), fact(other))

    assert stored_active(tenant, message) == sorted([detailed, other])


@pytest.mark.parametrize(
    ("message", "detailed", "full_text", "other"),
    [
        ("im a porter at the royal infirmary, nights mostly",
         "User is a porter at the Royal Infirmary",
         "User is a porter at the Royal Infirmary and mostly works nights.",
         "User mostly works nights"),
        ("our dog biscuit is a beagle, hes 9",
         "User's dog Biscuit is a beagle",
         "User's dog Biscuit is a beagle and is 9 years old.",
         "User's dog Biscuit is 9"),
        ("my mum is a retired teacher, she lives in wales",
         "User's mum is a retired teacher",
         "User's mum is a retired teacher and lives in Wales.",
         "User's mum lives in Wales"),
    ],
)  # fmt: skip
def test_a_fact_only_the_full_text_of_another_caption_states_stays_its_own_memory(
    tenant, llm_settings, message, detailed, full_text, other
):
    # The model's second fact repeats what its first one's full text said; the context an
    # assistant reads shows captions, so folding it in would hide it.
    llm = ScriptedLLM(llm_settings)
    llm.learn(message, fact(detailed, full_text=full_text), fact(other))

    stored = stored_active(tenant, message)

    assert detailed in stored and other in stored


@pytest.mark.parametrize(
    ("message", "given", "full_text", "added"),
    [
        ("our dog biscuit is a beagle, hes 9", "User's dog Biscuit is a beagle",
         "User's dog Biscuit is a beagle and is 9 years old.", "User's dog Biscuit is 9"),
        ("my cat pickle is a ragdoll, shes 3", "User's cat Pickle is a ragdoll",
         "User's cat Pickle is a ragdoll and is 3 years old.", "User's cat Pickle is 3"),
    ],
)  # fmt: skip
def test_a_statement_only_a_full_text_of_the_model_states_is_kept_in_the_users_words(
    tenant, llm_settings, message, given, full_text, added
):
    ScriptedLLM(llm_settings).learn(message, fact(given, full_text=full_text))

    stored = sorted(caption.lower() for caption in stored_active(tenant, message))

    assert stored == sorted([given.lower(), added.lower()])
