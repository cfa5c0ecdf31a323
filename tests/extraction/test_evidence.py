"""Every memory an extraction writes keeps the user's words it came from (issue 34): the clause,
redacted, with its session, the message's position and time; a restatement adds its own."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from extraction.jobs import extraction_perform
from memories.models import Memory, MemoryEvidence, MemoryVersion
from tests.scripted_llm import ScriptedLLM, fact

pytestmark = pytest.mark.django_db

MONDAY = "2026-11-02T09:30:00+00:00"
TUESDAY = "2026-11-03T18:05:00+00:00"


def _extract(tenant, user_id, *messages: dict, session_id: str | None = None):
    return extraction_perform(
        tenant=tenant, external_id=user_id, messages=list(messages), session_id=session_id
    )


def _evidence(user_id, caption: str) -> list[MemoryEvidence]:
    memory = Memory.objects.get(end_user__external_id=user_id, caption=caption)
    return list(memory.evidence.select_related("session").order_by("said_at", "id"))


def _said(user_id) -> list[str]:
    return list(
        MemoryEvidence.objects.filter(memory__end_user__external_id=user_id).values_list(
            "quote", flat=True
        )
    )


def test_an_extraction_quotes_the_clause_with_its_session_message_and_time(tenant, offline):
    user_id = uuid.uuid4()

    _extract(
        tenant,
        user_id,
        {"role": "user", "content": "hi there", "timestamp": MONDAY},
        {"role": "assistant", "content": "Hello! How can I help?"},
        {
            "role": "user",
            "content": "I work as a nurse at the city hospital.",
            "timestamp": TUESDAY,
        },
        session_id="chat-1",
    )

    [quote] = _evidence(user_id, "User works as a nurse at the city hospital")
    assert quote.quote == "I work as a nurse at the city hospital."
    assert quote.source == MemoryEvidence.Source.USER
    assert quote.session is not None and quote.session.external_id == "chat-1"
    assert quote.position == 2
    assert quote.said_at == datetime(2026, 11, 3, 18, 5, tzinfo=UTC)


def test_a_message_read_before_is_counted_in_the_position(tenant, offline):
    user_id = uuid.uuid4()
    first = [
        {"role": "user", "content": "I live in Porto"},
        {"role": "assistant", "content": "Nice city."},
    ]
    _extract(tenant, user_id, *first, session_id="chat-1")

    # The same conversation, continued: its first two messages were read already.
    _extract(
        tenant,
        user_id,
        *first,
        {"role": "user", "content": "I play the cello in an orchestra"},
        session_id="chat-1",
    )

    [quote] = _evidence(user_id, "User plays the cello in an orchestra")
    assert quote.position == 2


def test_a_conversation_without_a_session_is_quoted_without_one(tenant, offline):
    user_id = uuid.uuid4()

    _extract(tenant, user_id, {"role": "user", "content": "I live in Porto"})

    [quote] = _evidence(user_id, "User lives in Porto")
    assert (quote.session, quote.position, quote.quote) == (None, 0, "I live in Porto")


@pytest.mark.parametrize(
    ("said", "kept", "gone"),
    [
        ("I pay for groceries with my card 4111 1111 1111 1111", "[card]", "4111"),
        ("I work as a nurse and my phone is +44 7700 900123", "[phone]", "900123"),
    ],
)
def test_the_quote_is_stored_redacted(tenant, offline, said, kept, gone):
    user_id = uuid.uuid4()

    _extract(tenant, user_id, {"role": "user", "content": said})

    quotes = _said(user_id)
    assert quotes and all(kept in quote and gone not in quote for quote in quotes)


def test_an_email_address_is_never_cut_at_its_dots_into_a_caption_or_a_quote(tenant, offline):
    user_id = uuid.uuid4()

    _extract(
        tenant,
        user_id,
        {"role": "user", "content": "My email is bob.smith@example.com and I work as a nurse"},
    )

    stored = [
        *_said(user_id),
        *Memory.objects.filter(end_user__external_id=user_id).values_list("caption", flat=True),
    ]
    assert stored and not any("bob" in text or "example" in text for text in stored)
    assert any("nurse" in text for text in stored)


def test_a_restatement_adds_its_quote_to_the_memory_it_restates(tenant, offline):
    user_id = uuid.uuid4()
    _extract(
        tenant, user_id, {"role": "user", "content": "I live in Porto", "timestamp": MONDAY},
        session_id="chat-1",
    )  # fmt: skip

    _extract(
        tenant,
        user_id,
        {"role": "user", "content": "how are you"},
        {"role": "assistant", "content": "Fine!"},
        {"role": "user", "content": "I live in Porto", "timestamp": TUESDAY},
        session_id="chat-2",
    )

    quotes = _evidence(user_id, "User lives in Porto")
    assert Memory.objects.filter(end_user__external_id=user_id).count() == 1
    assert [(q.session and q.session.external_id, q.position) for q in quotes] == [
        ("chat-1", 0),
        ("chat-2", 2),
    ]


def test_a_merge_adds_the_quote_of_the_wording_it_folds_in(tenant, llm_settings):
    llm = ScriptedLLM(llm_settings)
    llm.learn("berlin", fact("User lives in Berlin"))
    llm.learn("mitte", fact("User lives in Berlin", full_text="User lives in Berlin, Mitte"))
    llm.same("User lives in Berlin", "User lives in Berlin, Mitte")
    user_id = uuid.uuid4()
    _extract(tenant, user_id, {"role": "user", "content": "berlin: I live in Berlin"})

    _extract(tenant, user_id, {"role": "user", "content": "mitte: I live in Berlin, in Mitte"})

    memory = Memory.objects.get(end_user__external_id=user_id)
    assert memory.versions.filter(action=MemoryVersion.Action.MERGED).exists()
    first, merged = (q.quote for q in _evidence(user_id, "User lives in Berlin"))
    assert first == "berlin: I live in Berlin"
    assert merged.startswith("mitte: I live in Berlin,")  # the clause that grounds the wording


def test_an_llm_candidate_is_quoted_in_the_users_words(tenant, llm_settings):
    llm = ScriptedLLM(llm_settings)
    llm.learn("dark mode", fact("User prefers dark mode in every editor", "preference"))
    user_id = uuid.uuid4()

    _extract(
        tenant,
        user_id,
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "Hi!"},
        {"role": "user", "content": "Honestly I prefer dark mode in every editor I use."},
        session_id="chat-9",
    )

    [quote] = _evidence(user_id, "User prefers dark mode in every editor")
    assert "I prefer dark mode in every editor" in quote.quote
    assert quote.position == 2


def test_every_memory_an_extraction_writes_has_evidence(tenant, offline):
    user_id = uuid.uuid4()

    _extract(
        tenant,
        user_id,
        {"role": "user", "content": "My sister lives in Bergen and I love hiking with my dog"},
        {"role": "assistant", "content": "Lovely."},
        {"role": "user", "content": "I work as a nurse. I'm allergic to peanuts."},
    )

    memories = Memory.objects.filter(end_user__external_id=user_id)
    assert memories.count() >= 3
    assert not memories.filter(evidence__isnull=True).exists()
