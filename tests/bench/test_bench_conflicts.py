"""bench_conflicts on a tiny labelled file: each path runs and reports what it measured."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from bench.conflicts import SPLITS, cases_load
from bench.management.commands.bench_conflicts import Command as BenchConflicts
from tenants.models import Tenant

pytestmark = pytest.mark.django_db

CASES = [
    {
        "id": "t-1",
        "kind": "contradiction",
        "explicit_update": True,
        "topic": "residence",
        "first": {
            "user": "i live in leeds btw",
            "caption": "User lives in Leeds",
            "full_text": "The user lives in Leeds.",
            "category": "personal",
        },
        "second": {
            "user": "We moved to Bristol last month!",
            "caption": "User said they moved to Bristol",
            "full_text": "User mentioned they relocated to Bristol last month.",
            "category": "personal",
        },
    },
    {
        "id": "t-2",
        "kind": "compatible",
        "explicit_update": False,
        "topic": "residence",
        "first": {
            "user": "I live in Berlin.",
            "caption": "User lives in Berlin",
            "full_text": "User lives in Berlin.",
            "category": "personal",
        },
        "second": {
            "user": "my sister lives in Oslo",
            "caption": "User's sister lives in Oslo",
            "full_text": "The user's sister lives in Oslo.",
            "category": "personal",
        },
    },
    {
        "id": "t-3",
        "kind": "restatement",
        "explicit_update": False,
        "topic": "diet",
        "first": {
            "user": "I'm vegetarian",
            "caption": "User is vegetarian",
            "full_text": "User is vegetarian.",
            "category": "preference",
        },
        "second": {
            "user": "I don't eat meat",
            "caption": "User does not eat meat",
            "full_text": "The user mentioned they don't eat meat.",
            "category": "preference",
        },
    },
]


@pytest.fixture
def labelled(tmp_path):
    path = tmp_path / "pairs.jsonl"
    path.write_text("\n".join(json.dumps(case) for case in CASES) + "\n")
    return path


@pytest.mark.parametrize("path", ["offline", "llm", "llm-fallback"])
def test_each_path_holds_the_contradiction_and_merges_the_restatement(labelled, path, settings):
    settings.MEMORY_EMBEDDER = "hashing"
    out = StringIO()

    call_command(BenchConflicts(), "--data", str(labelled), "--path", path, "--json", stdout=out)

    report = json.loads(out.getvalue())
    assert report["path"] == path and report["cases"] == 3
    assert report["contradictions_held"] == {"count": 1, "total": 1, "rate": 1.0}
    assert report["compatible_wrongly_held"]["count"] == 0
    assert report["restatements_merged"]["count"] == 1
    if path != "offline":
        assert report["contradictions_reaching_llm"]["count"] == 1
    assert not Tenant.objects.filter(name="bench-conflicts").exists()


def test_the_bundled_sets_are_split_and_large_enough():
    dev, held_out = cases_load(SPLITS["dev"]), cases_load(SPLITS["heldout"])

    assert len(dev) + len(held_out) >= 80
    assert not {case.id for case in dev} & {case.id for case in held_out}
    for cases in (dev, held_out):
        kinds = {case.kind for case in cases}
        assert kinds == {"contradiction", "compatible", "restatement"}
        assert any(case.explicit_update for case in cases)
