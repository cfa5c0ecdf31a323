"""bench_time on a tiny timeline file: the conversations go through the write pipeline with
their timestamps, and each kind of check is a figure; the dev set is well formed."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from bench.management.commands.bench_time import Command as BenchTime
from bench.timeline import KINDS, SPLITS, matches, users_load
from memories.models import Memory
from tenants.models import Tenant

pytestmark = pytest.mark.django_db

USER = {
    "id": "tl-t-001",
    "topic": "home",
    "conversations": [
        {
            "timestamp": "2025-01-14T09:30:00Z",
            "messages": [{"role": "user", "content": "I live in Leeds."}],
        },
        {
            "timestamp": "2025-06-02T18:05:00Z",
            "messages": [{"role": "user", "content": "We moved to Bristol!"}],
        },
    ],
    "checks": [
        {"kind": "as_of", "as_of": "2025-03-01", "expect": [["leeds"]], "absent": [["bristol"]]},
        {"kind": "as_of", "as_of": "2025-07-01", "expect": [["bristol"]], "absent": [["leeds"]]},
        {"kind": "past", "prompt": "where did I use to live?", "expect": ["leeds"]},
        {"kind": "present", "prompt": "which city do I live in", "expect": ["bristol"],
         "stale": [["leeds"]]},
        {"kind": "resolve", "expect": ["bristol"], "valid_from": "2025-06"},
    ],
}  # fmt: skip


@pytest.fixture(autouse=True)
def _offline(settings):
    settings.MEMORY_EMBEDDER = "hashing"


def test_a_users_dated_conversations_give_each_kind_its_figure(tmp_path):
    data = tmp_path / "timeline.json"
    data.write_text(json.dumps({"split": "custom", "users": [USER]}))
    out = StringIO()

    call_command(BenchTime(), "--data", str(data), "--json", stdout=out)

    figures = json.loads(out.getvalue())
    assert figures["as_of"] == {"passed": 2, "total": 2, "rate": 1.0}
    assert figures["past"]["passed"] == figures["present"]["passed"] == 1
    assert figures["resolve"]["total"] == 1
    assert not Tenant.objects.filter(name="bench-time").exists()
    assert not Memory.objects.exists()


def test_the_llm_path_needs_a_server(tmp_path, settings):
    settings.OPENAI_BASE_URL = ""
    with pytest.raises(Exception, match="needs a server"):
        call_command(BenchTime(), "--path", "llm", stdout=StringIO())


def test_a_matcher_wants_every_word_and_a_word_may_go_on():
    assert matches("User has two dogs", ["dog", "two"])
    assert not matches("User has two dogs", ["cat"])
    assert not matches("User lives in Oporto", ["porto"])


def test_the_dev_set_is_well_formed_and_on_the_dev_topics():
    users = users_load(SPLITS["dev"])

    assert len(users) >= 16
    assert {u["topic"] for u in users} == {"home", "job", "partner", "pets", "diet", "hobbies"}
    for user in users:
        assert len(user["conversations"]) >= 2
        assert all(c["timestamp"].endswith("Z") for c in user["conversations"])
        assert {check["kind"] for check in user["checks"]} <= set(KINDS)


@pytest.mark.parametrize("split", ["dev40", "dev41"])
def test_each_session_dev_set_is_well_formed_and_on_topics_no_other_split_has(split):
    users = users_load(SPLITS[split])
    others = {
        u["topic"] for name, path in SPLITS.items() if name != split for u in users_load(path)
    }
    kinds = [check["kind"] for user in users for check in user["checks"]]

    assert len(users) >= 8
    assert not {u["topic"] for u in users} & others
    assert all(kinds.count(kind) >= 8 for kind in KINDS)
    for user in users:
        stamps = [c["timestamp"] for c in user["conversations"]]
        assert stamps == sorted(stamps) and all(stamp.endswith("Z") for stamp in stamps)
        assert all(check["expect"] for check in user["checks"])


@pytest.mark.parametrize("split", ["heldout", "heldout2"])
def test_each_held_out_set_is_well_formed_and_on_topics_no_other_split_has(split):
    """Held out by topic (issue 33): no topic of a held-out split is a topic of dev or of
    another held-out split, so a figure on it says how time carries to unseen facts."""
    users = users_load(SPLITS[split])
    others = {
        u["topic"] for name, path in SPLITS.items() if name != split for u in users_load(path)
    }
    kinds = [check["kind"] for user in users for check in user["checks"]]

    assert len(users) >= 16
    assert len({u["id"] for u in users}) == len(users)
    assert not {u["topic"] for u in users} & others
    assert all(kinds.count(kind) >= 10 for kind in KINDS)
    for user in users:
        stamps = [c["timestamp"] for c in user["conversations"]]
        assert len(stamps) >= 2 and stamps == sorted(stamps)
        assert all(stamp.endswith("Z") for stamp in stamps)
        for check in user["checks"]:
            assert check["kind"] in KINDS
            assert check["expect"], check
            if check["kind"] in ("present", "past"):
                assert check["prompt"].strip()
            if check["kind"] == "resolve":
                assert ("valid_from" in check) != ("valid_to" in check)
