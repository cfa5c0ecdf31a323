"""The prompt sets of bench/data with the real local embedder: general prompts get no memory,
prompts that need one (even without naming it) find it."""

import pytest

from bench.recall import offtopic_evaluate, offtopic_load, offtopic_user_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def local_embedder(settings):
    settings.MEMORY_EMBEDDER = "local"  # the floor is calibrated for MiniLM, so test with it


def test_the_set_has_enough_prompts_of_both_kinds():
    data = offtopic_load()
    keys = {m["key"] for m in data["memories"]}

    assert len(data["offtopic"]) >= 40
    assert len(data["matching"]) >= 40
    assert all(item["expected"] in keys for item in data["matching"])


def test_off_topic_prompts_get_no_memories_while_matching_ones_keep_recall(tenant, local_embedder):
    data = offtopic_load()
    end_user, keys = offtopic_user_create(tenant=tenant, data=data)

    result = offtopic_evaluate(end_user=end_user, keys=keys, data=data, mode="hybrid")

    assert result.empty_rate >= 80, result
    assert result.recall_at_3 >= 90, result


@pytest.mark.parametrize(
    ("name", "hit_at_3", "empty"),
    # Floors under what the held-out set measured when it was first run (50.0% / 93.8%):
    # they catch a regression; the targets (90% / 90%) are in docs/benchmarks.md.
    [("needs_heldout", 45, 90)],
)
def test_the_held_out_prompts_that_need_a_memory_without_naming_it(
    tenant, local_embedder, name, hit_at_3, empty
):
    from bench.recall import DATA

    data = offtopic_load(path=DATA / f"{name}.json")
    end_user, keys = offtopic_user_create(tenant=tenant, data=data)

    result = offtopic_evaluate(end_user=end_user, keys=keys, data=data, mode="hybrid")

    assert result.recall_at_3 >= hit_at_3, result
    assert result.empty_rate >= empty, result
