"""Evidence for every memory (issue 34): the words it came from, kept through restatements,
operator merges and edits, bounded, erased with their session, and shown (API and admin)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import IntegrityError
from django.urls import reverse

from memories.evidence import EVIDENCE_PER_MEMORY, Quote, evidence_kept
from memories.models import DeletionRecord, Memory, MemoryEvidence, MemoryVersion
from memories.services.erasure import agent_session_erase
from memories.services.evidence import memory_evidence_add
from memories.services.memories import memory_delete_many
from memories.services.reviews import memory_operator_edit, review_item_resolve
from tests.factories import (
    AgentSessionFactory,
    MemoryEvidenceFactory,
    conflict_make,
    memory_make,
)

pytestmark = pytest.mark.django_db

MONDAY = datetime(2026, 11, 2, 9, 30, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _hashing_embedder(settings):
    settings.MEMORY_EMBEDDER = "hashing"


def _said(memory: Memory) -> list[str]:
    return list(memory.evidence.order_by("said_at", "id").values_list("quote", flat=True))


def _quote(text: str, at: datetime, **fields) -> Quote:
    return Quote(text=text, said_at=at, position=fields.pop("position", 0), **fields)


# --- the bound -------------------------------------------------------------------------------


def test_a_fact_restated_many_times_keeps_its_first_quote_and_the_latest_ones(end_user):
    memory = memory_make(end_user, "User drinks green tea")

    for n in range(40):
        memory_evidence_add(
            memory=memory, quotes=[_quote(f"I drink green tea ({n})", MONDAY + timedelta(days=n))]
        )

    kept = _said(memory)
    assert len(kept) == EVIDENCE_PER_MEMORY
    assert kept[0] == "I drink green tea (0)"
    assert kept[1:] == [f"I drink green tea ({n})" for n in range(40 - EVIDENCE_PER_MEMORY + 1, 40)]


def test_a_statement_dated_before_the_first_becomes_the_first_kept():
    said = [MONDAY + timedelta(days=n) for n in range(EVIDENCE_PER_MEMORY)]
    said.append(MONDAY - timedelta(days=30))  # a backfilled conversation, sent last

    kept = evidence_kept(said)

    assert len(kept) == EVIDENCE_PER_MEMORY
    assert len(said) - 1 in kept and 0 not in kept  # the old first is now in the middle


def test_one_statement_is_quoted_once_however_often_it_is_written(end_user):
    memory = memory_make(end_user, "User drinks green tea")
    quote = _quote("I drink green tea", MONDAY, position=2)

    memory_evidence_add(memory=memory, quotes=[quote, quote])
    memory_evidence_add(memory=memory, quotes=[quote])

    assert _said(memory) == ["I drink green tea"]


def test_the_same_words_said_again_later_are_a_second_quote(end_user):
    memory = memory_make(end_user, "User drinks green tea")

    memory_evidence_add(memory=memory, quotes=[_quote("I drink green tea", MONDAY)])
    memory_evidence_add(
        memory=memory, quotes=[_quote("I drink green tea", MONDAY + timedelta(days=1))]
    )

    assert _said(memory) == ["I drink green tea", "I drink green tea"]


# --- what the model holds ---------------------------------------------------------------------


def test_an_agents_note_has_no_message_position(end_user):
    memory = memory_make(end_user, "User drinks green tea")

    with pytest.raises(IntegrityError):
        MemoryEvidenceFactory(memory=memory, source=MemoryEvidence.Source.AGENT, position=3)


def test_a_users_quote_names_its_message(end_user):
    memory = memory_make(end_user, "User drinks green tea")

    with pytest.raises(IntegrityError):
        MemoryEvidenceFactory(memory=memory, source=MemoryEvidence.Source.USER, position=None)


def test_an_empty_quote_is_no_evidence(end_user):
    memory = memory_make(end_user, "User drinks green tea")

    with pytest.raises(IntegrityError):
        MemoryEvidenceFactory(memory=memory, quote="")


def test_deleting_a_memory_deletes_what_the_user_said_for_it(end_user):
    memory = memory_make(end_user, "User drinks green tea")
    MemoryEvidenceFactory(memory=memory, quote="I drink green tea")

    memory_delete_many(
        memories=[memory], reason=DeletionRecord.Reason.API, actor_type=MemoryVersion.Actor.API
    )

    assert not MemoryEvidence.objects.filter(quote="I drink green tea").exists()


# --- operators ---------------------------------------------------------------------------------


def test_an_operator_merge_keeps_what_the_user_said_for_both_memories(end_user, operator):
    item = conflict_make(end_user, "User lives in Munich", ("User lives in Berlin",))
    existing = item.existing_memories.get()
    assert item.new_memory is not None
    MemoryEvidenceFactory(memory=existing, quote="I live in Berlin", said_at=MONDAY)
    MemoryEvidenceFactory(
        memory=item.new_memory, quote="we moved to Munich", said_at=MONDAY + timedelta(days=9)
    )

    review_item_resolve(
        review_item_id=item.pk,
        resolution="merge",
        operator=operator,
        caption="User lives in Munich, before in Berlin",
        full_text="User lives in Munich, before in Berlin.",
    )

    assert not Memory.objects.filter(pk=item.new_memory.pk).exists()
    assert _said(existing) == ["I live in Berlin", "we moved to Munich"]


def test_a_memory_folded_into_its_active_duplicate_brings_its_quotes(end_user, operator):
    # Keep new, when an active memory already says the new one: the two are folded together.
    item = conflict_make(end_user, "User lives in Munich", ("User lives in Berlin",))
    assert item.new_memory is not None
    duplicate = memory_make(end_user, "User lives in Munich")
    MemoryEvidenceFactory(memory=duplicate, quote="I live in Munich", said_at=MONDAY)
    MemoryEvidenceFactory(memory=item.new_memory, quote="now in Munich", said_at=MONDAY)

    review_item_resolve(review_item_id=item.pk, resolution="keep_new", operator=operator)

    assert _said(duplicate) == ["I live in Munich", "now in Munich"]


def test_an_operator_edit_keeps_what_the_user_said(end_user, operator):
    memory = memory_make(end_user, "User lives in Berlin", category=Memory.Category.PERSONAL)
    MemoryEvidenceFactory(memory=memory, quote="I live in Berlin")

    memory_operator_edit(
        memory_id=memory.id,
        operator=operator,
        caption="User lives in Berlin-Mitte",
        full_text="User lives in Berlin-Mitte.",
        category=Memory.Category.PERSONAL,
        confidence=0.9,
    )

    assert _said(memory) == ["I live in Berlin"]


# --- erasure -----------------------------------------------------------------------------------


def test_erasing_a_session_removes_its_quotes_and_only_its_quotes(end_user):
    erased, other = AgentSessionFactory(end_user=end_user), AgentSessionFactory(end_user=end_user)
    both = memory_make(end_user, "User lives in Berlin", source_session=erased)
    both.sessions.add(erased, other)
    MemoryEvidenceFactory(memory=both, session=erased, quote="I live in Berlin")
    MemoryEvidenceFactory(memory=both, session=other, quote="still in Berlin")
    alone = memory_make(end_user, "User plays the cello", source_session=erased)
    alone.sessions.add(erased)
    MemoryEvidenceFactory(memory=alone, session=erased, quote="I play the cello")
    untouched = memory_make(end_user, "User drinks tea", stated_outside_sessions=True)
    MemoryEvidenceFactory(memory=untouched, quote="I drink tea")

    agent_session_erase(
        tenant=end_user.tenant, external_id=end_user.external_id, session_id=erased.external_id
    )

    assert _said(both) == ["still in Berlin"]
    assert not Memory.objects.filter(pk=alone.pk).exists()
    assert _said(untouched) == ["I drink tea"]
    assert MemoryEvidence.objects.count() == 2


def test_a_memory_stated_elsewhere_stays_when_its_only_quotes_are_erased(end_user):
    # Stated in another session before quotes were kept: the erasure rules keep it, quoteless.
    erased, other = AgentSessionFactory(end_user=end_user), AgentSessionFactory(end_user=end_user)
    memory = memory_make(end_user, "User lives in Berlin", source_session=other)
    memory.sessions.add(erased, other)
    MemoryEvidenceFactory(memory=memory, session=erased, quote="I live in Berlin")

    agent_session_erase(
        tenant=end_user.tenant, external_id=end_user.external_id, session_id=erased.external_id
    )

    assert Memory.objects.filter(pk=memory.pk, evidence__isnull=True).exists()


# --- shown -------------------------------------------------------------------------------------


def test_full_returns_what_the_user_said_for_each_memory(api, end_user):
    session = AgentSessionFactory(end_user=end_user, external_id="chat-7")
    quoted = memory_make(end_user, "User lives in Berlin")
    MemoryEvidenceFactory(
        memory=quoted, session=session, position=2, said_at=MONDAY, quote="I live in Berlin"
    )
    bare = memory_make(end_user, "User plays the cello")

    response = api.get(
        "/memories/full", {"user_id": end_user.external_id, "ids": f"{quoted.id},{bare.id}"}
    )

    assert response.status_code == 200
    first, second = response.json()["memories"]
    assert set(first) == {"id", "caption", "full_text", "created_at", "evidence"}
    assert first["evidence"] == [
        {
            "quote": "I live in Berlin",
            "source": "user",
            "session_id": "chat-7",
            "position": 2,
            "said_at": "2026-11-02T09:30:00Z",
        }
    ]
    assert second["evidence"] == []


def test_full_shows_no_quote_of_another_users_memory(api, end_user):
    other = memory_make(AgentSessionFactory().end_user, "User lives in Oslo")
    MemoryEvidenceFactory(memory=other, quote="I live in Oslo")

    response = api.get("/memories/full", {"user_id": end_user.external_id, "ids": other.id})

    assert response.json()["memories"] == []


def test_the_conflict_page_shows_what_the_user_said_beside_both_memories(
    client_as_operator, end_user
):
    item = conflict_make(end_user, "User lives in Munich", ("User lives in Berlin",))
    session = AgentSessionFactory(end_user=end_user, external_id="chat-42")
    existing = item.existing_memories.get()
    MemoryEvidenceFactory(memory=existing, session=session, position=0, quote="I live in Berlin")
    assert item.new_memory is not None
    MemoryEvidenceFactory(memory=item.new_memory, position=4, quote="we moved to Munich & <b>")

    html = client_as_operator.get(
        reverse("admin:memories_reviewitem_change", args=[item.pk])
    ).content.decode()

    new_card = html[html.index(f'id="memory-{item.new_memory.id}"') :]
    existing_card = html[html.index(f'id="memory-{existing.id}"') :]
    assert "<blockquote>we moved to Munich &amp; &lt;b&gt;</blockquote>" in new_card
    assert "message 5," in new_card
    assert "<blockquote>I live in Berlin</blockquote>" in existing_card
    assert "message 1 of session chat-42" in existing_card


def test_the_conflict_page_says_when_a_memory_has_no_words_kept(client_as_operator, end_user):
    item = conflict_make(end_user)

    html = client_as_operator.get(
        reverse("admin:memories_reviewitem_change", args=[item.pk])
    ).content.decode()

    assert html.count("No words kept") == 2


def test_the_memory_page_lists_what_the_user_said(client_as_operator, end_user):
    memory = memory_make(end_user, "User lives in Berlin")
    MemoryEvidenceFactory(memory=memory, quote="I live in Berlin", said_at=MONDAY)
    MemoryEvidenceFactory(
        memory=memory,
        source=MemoryEvidence.Source.AGENT,
        position=None,
        quote="User lives in Berlin",
        said_at=MONDAY + timedelta(days=1),
    )

    html = client_as_operator.get(
        reverse("admin:memories_memory_change", args=[memory.pk])
    ).content.decode()

    assert "What the user said" in html
    said = html.index("I live in Berlin")
    assert said < html.index("The agent&#x27;s note", said)
