import json
from io import StringIO

import pytest
from django.core.management import call_command

from bench.management.commands.bench_recall import Command as BenchRecall
from bench.recall import BENCH_TENANT
from memories.models import EndUser, Memory
from tenants.models import Tenant

pytestmark = pytest.mark.django_db

LOCOMO = [
    {
        "sample_id": "conv-tiny",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bob",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a tabby cat called Miso."},
                {"speaker": "Bob", "dia_id": "D1:2", "text": "I am training for a marathon."},
                {"speaker": "Ann", "dia_id": "D1:3", "text": "My sister lives in Oslo."},
            ],
        },
        "observation": {
            "session_1_observation": {
                "Ann": [
                    ["Ann adopted a tabby cat called Miso.", "D1:1"],
                    ["Ann's sister lives in Oslo.", "D1:3"],
                ],
                "Bob": [["Bob is training for a marathon.", "D:1:2"]],
            }
        },
        "qa": [
            {"question": "What is the name of Ann's cat?", "evidence": ["D1:1"], "category": 1},
            {"question": "Where does Ann's sister live?", "evidence": ["D1:3"], "category": 4},
            {"question": "What is Bob training for?", "evidence": ["D1:2; D"], "category": 2},
        ],
    }
]


@pytest.fixture
def locomo_file(tmp_path):
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(LOCOMO))
    return path


@pytest.mark.parametrize("corpus", ["observations", "turns"])
def test_bench_recall_prints_the_documented_json(locomo_file, corpus):
    out = StringIO()

    call_command(
        BenchRecall(),
        "--data", str(locomo_file),
        "--conversations", "0",
        "--corpus", corpus,
        "--json",
        stdout=out,
    )  # fmt: skip

    report = json.loads(out.getvalue())
    assert report["corpus"] == corpus
    assert report["conversations"] == [0]
    assert report["questions"] == 3
    assert set(report["methods"]) == {"hybrid", "vector", "lexical"}
    for figures in report["methods"].values():
        assert set(figures) == {
            "recall_any@5",
            "recall_any@10",
            "recall_any@20",
            "recall_all@10",
            "mrr@10",
            "p50_ms",
            "p95_ms",
        }
    assert report["methods"]["lexical"]["recall_any@5"] == 100.0
    assert report["evidence_ids"]["split"] == 1
    assert report["evidence_ids"]["dropped"] == 1


def test_bench_recall_cleans_up_its_tenant(locomo_file):
    call_command(BenchRecall(), "--data", str(locomo_file), "--conversations", "0",
                 "--offtopic", stdout=StringIO())  # fmt: skip

    assert not Tenant.objects.filter(name=BENCH_TENANT).exists()
    assert not EndUser.objects.exists()
    assert not Memory.objects.exists()


def test_bench_recall_reports_every_prompt_set(locomo_file):
    out = StringIO()

    call_command(BenchRecall(), "--data", str(locomo_file), "--conversations", "0",
                 "--methods", "hybrid", "--offtopic", "--json", stdout=out)  # fmt: skip

    sets = json.loads(out.getvalue())["prompt_sets"]
    assert set(sets) == {"offtopic", "needs_dev", "needs_dev2", "needs_heldout"}
    for figures in sets.values():
        result = figures["hybrid"]
        assert result["offtopic_prompts"] >= 40 and result["matching_prompts"] >= 40
        assert 0 <= result["empty_rate"] <= 100 and 0 <= result["recall@3"] <= 100
