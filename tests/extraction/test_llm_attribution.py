"""A fact the model pins on the user is stored as the user's only when the user's own clause is
about them: else it is the clause reader's caption of the person the clause is about, or it is
refused. Through the real write path, with the OpenAI-protocol stub as the model."""

from __future__ import annotations

import pytest

from extraction.models import ExtractionJob
from tests.extraction.extract_helpers import stored_active
from tests.scripted_llm import ScriptedLLM, fact

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("message", "given", "theirs"),
    [
        # A pronoun typed without its apostrophe, for the person named before it.
        ("me and my gf priya are planning a trip to japan in october. shes vegan",
         "User is vegan", "User's gf Priya is vegan"),
        ("my uncle runs a bakery in bristol and hes diabetic",
         "User is diabetic", "User's uncle is diabetic"),
        # The person named as the subject of the clause itself.
        ("i teach maths and my wife works as a radiographer",
         "User works as a radiographer", "User's wife works as a radiographer"),
        # A plan of two is theirs together.
        ("me and my brother are training for the berlin marathon",
         "User is training for the Berlin marathon",
         "User and their brother are training for the berlin marathon"),
    ],
)  # fmt: skip
def test_a_fact_of_someone_else_the_model_gives_the_user_is_stored_as_theirs(
    tenant, llm_settings, message, given, theirs
):
    ScriptedLLM(llm_settings).learn(message, fact(given))

    stored = stored_active(tenant, message)

    assert theirs in stored
    assert given not in stored


def test_a_fact_said_of_someone_the_reader_cannot_name_is_refused(tenant, llm_settings):
    message = "tom and i share a flat, he is a plumber"
    ScriptedLLM(llm_settings).learn(message, fact("User is a plumber"))

    stored = stored_active(tenant, message)

    assert "User is a plumber" not in stored
    assert ExtractionJob.objects.get().candidates_refused == 1


@pytest.mark.parametrize(
    ("message", "given"),
    [
        ("my sister is coeliac and i am too", "User is coeliac"),
        ("my dad is a carpenter, like me", "User is a carpenter"),
        ("my husband and i are both teetotal", "User is teetotal"),
        ("i live with my mum in cardiff", "User lives in Cardiff"),
        ("i work in derby and my partner works in york", "User works in Derby"),
    ],
)
def test_a_fact_the_user_said_of_themselves_stays_theirs(tenant, llm_settings, message, given):
    ScriptedLLM(llm_settings).learn(message, fact(given))

    assert given in stored_active(tenant, message)
