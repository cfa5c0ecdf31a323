"""Issue 33, prompts read with time: a question in the past about something the user had
("what was the telescope I sold?") reads the facts that no longer hold too, and a present
request that only a fact the user had reaches ("what should I bring to quiz night?" when
their Tuesday pub quiz ended) is about them, answered by what holds now, never by the past
fact."""

from __future__ import annotations

import datetime

import pytest

from memories.models import Memory
from recall.index import timelines, user_index_get
from recall.services import memory_recall
from recall.timeline import asks_about_past

pytestmark = pytest.mark.django_db

FEB = datetime.datetime(2025, 2, 3, 20, 0, tzinfo=datetime.UTC)
JUL = datetime.date(2025, 7, 1)
AUG = datetime.datetime(2025, 8, 11, 19, 0, tzinfo=datetime.UTC)


@pytest.mark.parametrize(
    "prompt",
    [
        "what was the telescope I sold called?",
        "what was the name of the choir I was in?",
        "what was the dose of the inhaler I tried first?",
        "which allotment society was I with?",
    ],
)
def test_a_question_in_the_past_about_what_the_user_had_is_read_as_one(prompt):
    assert asks_about_past(prompt)


def test_the_fact_a_past_question_asks_for_is_found_though_it_ended(end_user, remember, tenant):
    (telescope,) = remember(
        end_user,
        "User has a Celestron telescope",
        stated_at=FEB,
        status=Memory.Status.SUPERSEDED,
        valid_to=JUL.replace(month=5),
    )
    remember(end_user, "User sold the Celestron", stated_at=AUG, valid_from=JUL, valid_to=JUL)

    found = memory_recall(
        tenant=tenant,
        external_id=end_user.external_id,
        prompt="what was the telescope I sold called?",
    )

    assert telescope.id in [m.id for m in found.memories[:3]]
    assert next(m for m in found.memories if m.id == telescope.id).past


def test_a_present_request_reached_only_by_an_ended_fact_is_answered_by_what_holds_now(
    end_user, remember, tenant
):
    (quiz,) = remember(
        end_user,
        "User goes to the pub quiz at the Red Cow every Tuesday",
        stated_at=FEB,
        valid_to=JUL,
    )
    (darts,) = remember(end_user, "User plays in a darts league now", stated_at=AUG, valid_from=JUL)

    found = memory_recall(
        tenant=tenant,
        external_id=end_user.external_id,
        prompt="what should I take to the pub quiz on Tuesday?",
    )

    ids = [m.id for m in found.memories]
    assert quiz.id not in ids  # a fact that ended is never answered as current
    assert ids[:1] == [darts.id]


def test_a_present_request_reached_only_by_a_replaced_fact_is_answered_by_its_successor(
    end_user, remember, tenant
):
    (tom,) = remember(
        end_user,
        "User's boyfriend Tom is a chef",
        stated_at=FEB,
        status=Memory.Status.SUPERSEDED,
        valid_to=JUL,
    )
    (ana,) = remember(end_user, "User is dating a woman called Ana now", stated_at=AUG)

    found = memory_recall(
        tenant=tenant,
        external_id=end_user.external_id,
        prompt="what should I cook for my boyfriend tonight?",
    )

    ids = [m.id for m in found.memories]
    assert tom.id not in ids
    assert ids[:1] == [ana.id]


def test_an_unanswered_present_request_reads_no_timeline_for_a_user_nothing_replaced(
    end_user, remember, tenant
):
    remember(end_user, "User goes to the pub quiz at the Red Cow every Tuesday", stated_at=FEB)

    found = memory_recall(
        tenant=tenant, external_id=end_user.external_id, prompt="how do I descale a kettle?"
    )

    assert found.memories == []
    assert end_user.pk not in timelines  # no query more for the timeline's stamp


def test_the_index_knows_when_an_update_closed_one_of_the_users_facts(end_user, remember):
    (tom,) = remember(end_user, "User's boyfriend Tom is a chef", stated_at=FEB)
    remember(end_user, "User is dating a woman called Ana now", stated_at=AUG)
    assert not user_index_get(end_user_id=end_user.pk).has_replaced

    Memory.objects.filter(pk=tom.pk).update(status=Memory.Status.SUPERSEDED, valid_to=JUL)

    assert user_index_get(end_user_id=end_user.pk).has_replaced


def test_a_past_question_finds_the_replaced_fact_when_current_ones_share_its_words(
    end_user, remember, tenant
):
    (old,) = remember(
        end_user,
        "User's window cleaner Mr Okafor comes every four weeks",
        stated_at=FEB,
        status=Memory.Status.SUPERSEDED,
        valid_to=JUL,
    )
    remember(end_user, "User's new window cleaner is Priya Shah", stated_at=AUG, valid_from=JUL)
    remember(end_user, "User's window cleaner is very good with the conservatory", stated_at=AUG)
    remember(end_user, "User pays the window cleaner by bank transfer", stated_at=AUG)
    remember(end_user, "User's window cleaner Priya also cleans the gutters", stated_at=AUG)

    found = memory_recall(
        tenant=tenant,
        external_id=end_user.external_id,
        prompt="who was my window cleaner before Priya?",
    )

    assert old.id in [m.id for m in found.memories[:3]]
    assert next(m for m in found.memories if m.id == old.id).past
