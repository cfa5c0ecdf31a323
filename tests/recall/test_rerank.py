import json

import numpy as np
import pytest
from django.utils import timezone

from recall.ranking import Ranked
from recall.rerank import parse_references
from recall.selectors import ranked_as_picked, ranked_reordered
from recall.services import memory_recall, memory_recall_for_end_user
from tenants.models import TenantUsage

pytestmark = pytest.mark.django_db


def relevant(**arguments) -> list:
    """The memories of one recall that counts no usage (as the context and the benchmarks)."""
    return memory_recall_for_end_user(**arguments).memories


FACTS = (
    "User prefers dark roast coffee in the morning",
    "User is learning the Rust programming language",
    "User has a golden retriever named Biscuit",
)


def test_llm_mode_sends_every_caption_and_returns_the_memories_it_picks(
    end_user, remember, llm_settings
):
    _, rust, dog = remember(end_user, *FACTS)
    llm_settings.reply('["m3", "m2"]')

    results = relevant(end_user=end_user, prompt="what should I do today", mode="llm")

    assert [r.id for r in results] == [dog.id, rust.id]
    assert results[0].score > results[1].score
    (call,) = llm_settings.calls
    assert all(json.dumps(fact)[1:-1] in call.prompt_text for fact in FACTS)


def test_hybrid_llm_reranks_the_hybrid_shortlist(end_user, remember, llm_settings):
    remember(end_user, *FACTS, "User drinks coffee while learning Rust")
    shortlist = relevant(end_user=end_user, prompt="coffee and Rust", mode="hybrid")
    llm_settings.reply('["m2"]')

    results = relevant(end_user=end_user, prompt="coffee and Rust", mode="hybrid+llm", limit=1)

    assert [r.id for r in results] == [shortlist[1].id]
    (call,) = llm_settings.calls
    assert all(r.caption in call.prompt_text for r in shortlist)


def test_hybrid_llm_makes_no_llm_call_for_an_unrelated_prompt(end_user, remember, llm_settings):
    remember(end_user, *FACTS)

    assert relevant(end_user=end_user, prompt="plate tectonics", mode="hybrid+llm") == []
    assert llm_settings.calls == []


@pytest.mark.parametrize("mode", ["llm", "hybrid+llm"])
def test_a_failing_llm_degrades_to_the_hybrid_ranking(end_user, remember, llm_settings, mode):
    coffee, _, _ = remember(end_user, *FACTS)
    llm_settings.fail(503, times=5)

    results = relevant(end_user=end_user, prompt="dark roast coffee", mode=mode)

    assert results[0].id == coffee.id


def test_llm_nonsense_degrades_to_the_hybrid_ranking(end_user, remember, llm_settings):
    coffee, _, _ = remember(end_user, *FACTS)
    llm_settings.reply("I think the coffee one is relevant.")

    results = relevant(end_user=end_user, prompt="dark roast coffee", mode="llm")

    assert results[0].id == coffee.id


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('["m2", "m1"]', [1, 0]),
        ('<think>m3?</think>\n```json\n["m3"]\n```', [2]),
        ('Relevant: ["m9", "m1", "m1", 2]', [0, 1]),
        ("[]", []),
        ("none of them", None),
    ],
)
def test_llm_replies_are_parsed_defensively(reply, expected):
    assert parse_references(reply, count=3, limit=5) == expected


@pytest.mark.parametrize(("replies", "calls", "tokens"), [(["ok"], 1, 40), (["503"] * 3, 3, 0)])
def test_a_recall_s_llm_calls_and_tokens_count_in_its_tenant_s_usage(
    end_user, remember, llm_settings, replies, calls, tokens
):
    remember(end_user, *FACTS)
    for reply in replies:
        if reply == "503":
            llm_settings.fail(503)
        else:
            llm_settings.reply('["m1"]', prompt_tokens=tokens, completion_tokens=3)

    memory_recall(
        tenant=end_user.tenant, external_id=end_user.external_id, prompt="coffee", mode="llm"
    )

    usage = TenantUsage.objects.get(tenant=end_user.tenant, day=timezone.now().date())
    assert (usage.recalls, usage.llm_calls, usage.prompt_tokens) == (1, calls, tokens)
    assert len(llm_settings.calls) == calls


def test_the_llm_s_picks_reorder_the_shortlist_and_carry_their_signals():
    shortlist = Ranked(
        rows=np.array([7, 3, 5], dtype=np.int64),
        scores=np.array([0.9, 0.8, 0.7], dtype=np.float32),
        signals=({"score": 0.9}, {"score": 0.8}, {"score": 0.7}),
    )

    picked = ranked_reordered(shortlist, [2, 0], limit=5)
    kept = ranked_reordered(shortlist, None, limit=2)

    assert picked.rows.tolist() == [5, 7]
    assert picked.signals == ({"score": 0.7}, {"score": 0.9})
    assert picked.scores[0] == 1.0 and picked.scores[1] < 1.0
    assert kept.rows.tolist() == [7, 3] and kept.scores.tolist() == pytest.approx([0.9, 0.8])
    assert ranked_as_picked([]).rows.size == 0
