import json
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from bench.management.commands.bench_recall import Command as BenchRecall
from bench.recall import BENCH_TENANT
from memories.models import EndUser, Memory
from tenants.models import Tenant
from testing.llm_stub import content

pytestmark = pytest.mark.django_db

QA = [
    {"question": "What is the name of Ann's cat?", "evidence": ["D1:1"], "category": 1},
    {"question": "Where does Ann's sister live?", "evidence": ["D1:3"], "category": 4},
    {"question": "What is Bob training for?", "evidence": ["D1:2; D"], "category": 2},
]
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
        "qa": QA,
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
    assert report["llm"] == "not used (no LLM recall mode)"
    for figures in report["methods"].values():
        assert set(figures) == {
            "recall_any@5",
            "recall_any@10",
            "recall_any@20",
            "recall_all@10",
            "mrr@10",
            "p50_ms",
            "p95_ms",
            "usage",
            "items",
            "by_category",
        }
        # Per LoCoMo category (issue 33: the temporal one is 2).
        assert sum(c["questions"] for c in figures["by_category"].values()) == 3
        assert figures["usage"]["llm_calls"] == 0 and figures["usage"]["items"] == 3
        assert [item["question"] for item in figures["items"]] == [q["question"] for q in QA]
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


PROMPT_SET = {
    "memories": [
        {"key": "diet", "caption": "User is vegetarian", "full_text": "User eats no meat."},
        {"key": "cat", "caption": "User has a cat named Miso", "full_text": "User's cat is Miso."},
    ],
    "matching": [
        {"prompt": "Suggest a dinner I can cook tonight", "expected": "diet"},
        {"prompt": "What food should I buy for my pet?", "expected": "cat"},
    ],
    "offtopic": ["What is the capital of Australia?", "How do tides work?"],
}


@pytest.fixture
def prompt_set(tmp_path):
    path = tmp_path / "tiny_needs.json"
    path.write_text(json.dumps(PROMPT_SET))
    return path


@pytest.fixture
def no_llm_server(settings):
    """No OPENAI_BASE_URL from the environment: the LLM modes ask the labelled stub."""
    settings.OPENAI_BASE_URL = ""


def run_recall(locomo_file, *args: str) -> dict:
    out = StringIO()
    call_command(BenchRecall(), "--data", str(locomo_file), "--conversations", "0", "--json",
                 *args, stdout=out)  # fmt: skip
    return json.loads(out.getvalue())


def test_the_llm_modes_ask_the_labelled_stub_by_default(locomo_file, prompt_set, no_llm_server):
    report = run_recall(locomo_file, "--methods", "llm,hybrid+llm", "--offtopic", str(prompt_set))

    assert report["llm"] == "stub (answers from the labels)"
    # The stub picks exactly what the labels say: every LoCoMo question's evidence memory.
    assert report["methods"]["llm"]["recall_any@5"] == 100.0
    assert report["methods"]["llm"]["usage"]["llm_calls"] == 3
    figures = report["prompt_sets"]["tiny_needs"]["llm"]
    assert figures["recall@3"] == 100.0 and figures["empty_rate"] == 100.0
    assert figures["usage"]["llm_calls"] == 4
    assert [item["kind"] for item in figures["items"]] == ["general"] * 2 + ["needs_memory"] * 2
    assert all(item["correct"] for item in figures["items"])


def test_the_llm_modes_run_against_the_given_server_and_count_its_usage(
    locomo_file, prompt_set, llm_stub, no_llm_server
):
    # Every reply states a different number of tokens, so each item's figures can be traced.
    llm_stub.always(
        lambda request: content('["m1"]', prompt_tokens=len(request.raw), completion_tokens=4)
    )

    report = run_recall(
        locomo_file, "--methods", "llm", "--offtopic", str(prompt_set), "--limit", "1",
        "--llm-base-url", llm_stub.base_url, "--llm-model", "bench-model",
    )  # fmt: skip

    assert report["llm"] == f"{llm_stub.base_url} (model bench-model)"
    assert report["questions"] == 1
    items = report["methods"]["llm"]["items"] + report["prompt_sets"]["tiny_needs"]["llm"]["items"]
    calls = llm_stub.calls
    assert len(items) == len(calls) == 3  # 1 question, 1 general prompt, 1 needing a memory
    for item, call in zip(items, calls, strict=True):
        assert call.body["model"] == "bench-model"
        assert item["llm_calls"] == 1
        assert item["prompt_tokens"] == len(call.raw)
        assert item["completion_tokens"] == 4
    usage = report["prompt_sets"]["tiny_needs"]["llm"]["usage"]
    assert usage["llm_calls"] == 2 and usage["completion_tokens"] == 8
    assert usage["mean"]["llm_calls"] == 1.0


def test_bench_recall_prints_llm_usage(locomo_file, prompt_set, no_llm_server):
    out = StringIO()

    call_command(BenchRecall(), "--data", str(locomo_file), "--conversations", "0",
                 "--methods", "hybrid+llm", "--offtopic", str(prompt_set), stdout=out)  # fmt: skip

    text = out.getvalue()
    assert "LLM (llm, hybrid+llm modes): stub (answers from the labels)" in text
    assert "hybrid+llm: LLM calls" in text and "per question" in text
    assert "tiny_needs hybrid+llm: LLM calls" in text and "per prompt" in text


def test_hints_are_written_by_the_given_server_before_the_prompts_are_asked(
    locomo_file, prompt_set, llm_stub, no_llm_server
):
    def hints(request):
        ids = re.findall(r'"id": ?"(f\d+)"', request.messages[-1]["content"])
        return content(json.dumps({"hints": [{"id": i, "use_when": "gift ideas"} for i in ids]}))

    llm_stub.always(hints)

    report = run_recall(
        locomo_file, "--methods", "hybrid", "--offtopic", str(prompt_set), "--hints",
        "--llm-base-url", llm_stub.base_url,
    )  # fmt: skip

    written = report["prompt_sets"]["tiny_needs"]["hints"]
    assert written["written"] == written["asked"] == len(PROMPT_SET["memories"])
    assert written["llm_calls"] == len(llm_stub.calls) >= 1
    assert "hybrid" in report["prompt_sets"]["tiny_needs"]


def test_hints_need_a_server(locomo_file, prompt_set, no_llm_server):
    with pytest.raises(CommandError, match="--hints needs an LLM server"):
        run_recall(locomo_file, "--offtopic", str(prompt_set), "--hints")
