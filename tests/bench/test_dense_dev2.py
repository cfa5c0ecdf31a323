"""The second dev set of dense chat (`bench/data/dense_facts_dev2.jsonl`): dev only, on no
topic of the held-out split of `dense_facts.jsonl`, three facts or more a row, each labelled
with whom it is about and written as a careful reader would."""

from __future__ import annotations

from bench.caption_faults import garbles
from bench.extractor_eval import load_labelled
from memories.models import Memory
from tests.bench.test_extractor_eval import DENSE_FACTS

DENSE_DEV2 = DENSE_FACTS.parent / "dense_facts_dev2.jsonl"


def test_the_second_dense_dev_set_stays_off_the_held_out_topics() -> None:
    rows = load_labelled(DENSE_DEV2)
    heldout_topics = {r["topic"] for r in load_labelled(DENSE_FACTS) if r["split"] == "heldout"}

    assert len(rows) >= 40
    assert len({r["id"] for r in rows}) == len(rows)
    assert {r["split"] for r in rows} == {"dev"}
    assert not {r["topic"] for r in rows} & heldout_topics
    for r in rows:
        assert len(r["expected"]) >= 3
        messages = [m["content"] for m in r["conversation"]]
        for label in r["expected"]:
            assert label["caption"].startswith("User")
            assert label["category"] in Memory.Category.values
            assert label["about"]
            assert not garbles(label["caption"], messages)
