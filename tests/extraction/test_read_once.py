"""Each message is read once: a chat loop that resends the conversation after every reply
pays for its new messages only, the earlier ones given as context."""

from __future__ import annotations

import re
import uuid

import pytest

from extraction.jobs import extraction_perform
from extraction.models import ExtractionJob
from tests.scripted_llm import ScriptedLLM, fact

pytestmark = pytest.mark.django_db

TURNS = [
    ("I live in Porto with my husband", "Nice! How long have you been there?"),
    ("about five years. I work as a pharmacist", "That sounds busy."),
    ("it is. our daughter Ana just started school", "Congratulations to Ana!"),
    ("thanks. also I'm allergic to peanuts", "Good to know, I'll keep that in mind."),
]


@pytest.fixture
def llm(llm_settings) -> ScriptedLLM:
    scripted = ScriptedLLM(llm_settings)
    scripted.learn("Porto", fact("User lives in Porto"))
    scripted.learn("pharmacist", fact("User works as a pharmacist"))
    scripted.learn("Ana", fact("User's daughter Ana started school"))
    scripted.learn("peanuts", fact("User is allergic to peanuts"))
    return scripted


def _chat(turns: int) -> list[dict]:
    messages = []
    for user, assistant in TURNS[:turns]:
        messages += [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]
    return messages


def _quoted(prompt: str, tag: str) -> str:
    found = re.search(rf"<{tag}>\n(.*?)\n</{tag}>", prompt, re.DOTALL)
    return found.group(1) if found else ""


def test_a_continued_conversation_is_extracted_for_its_new_messages_only(tenant, llm):
    user_id = uuid.uuid4()

    extraction_perform(tenant=tenant, external_id=user_id, messages=_chat(1))
    outcome = extraction_perform(tenant=tenant, external_id=user_id, messages=_chat(2))

    second = llm.extraction_calls[-1].prompt_text
    assert "pharmacist" in _quoted(second, "conversation")
    assert "Porto" not in _quoted(second, "conversation")
    assert "Porto" in _quoted(second, "earlier")
    assert [m.caption for m in outcome.memories] == ["User works as a pharmacist"]
    assert ExtractionJob.objects.get(pk=outcome.job.pk).messages_read_before == 2


def test_a_window_that_slid_past_the_first_turns_is_still_recognised(tenant, llm):
    user_id = uuid.uuid4()
    extraction_perform(tenant=tenant, external_id=user_id, messages=_chat(3))

    # The caller keeps only its last four messages, and one more turn.
    outcome = extraction_perform(tenant=tenant, external_id=user_id, messages=_chat(4)[-4:])

    last = llm.extraction_calls[-1].prompt_text
    assert "peanuts" in _quoted(last, "conversation")
    assert "Ana" not in _quoted(last, "conversation")
    assert [m.caption for m in outcome.memories] == ["User is allergic to peanuts"]


def test_another_users_conversation_is_read_whole(tenant, llm):
    extraction_perform(tenant=tenant, external_id=uuid.uuid4(), messages=_chat(1))

    extraction_perform(tenant=tenant, external_id=uuid.uuid4(), messages=_chat(2))

    assert "Porto" in _quoted(llm.extraction_calls[-1].prompt_text, "conversation")


def test_a_conversation_that_does_not_continue_one_is_read_whole(tenant, llm):
    user_id = uuid.uuid4()
    extraction_perform(tenant=tenant, external_id=user_id, messages=_chat(1))

    extraction_perform(tenant=tenant, external_id=user_id, messages=_chat(4)[2:])

    assert "pharmacist" in _quoted(llm.extraction_calls[-1].prompt_text, "conversation")
