"""The extractor evaluation: caption matching, the labelled set and the `eval_extractor` command."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from bench.caption_faults import GARBLE_KINDS
from bench.extractor_eval import (
    DEFAULT_LABELLED_SET,
    load_labelled,
    match_captions,
    rows_select,
    token_f1,
)
from bench.management.commands.eval_extractor import Command as EvalExtractor
from memories.models import Memory
from memories.text import CAPTION_MAX_LENGTH
from testing.llm_stub import content

# The command writes each conversation through the write path (rolled back): it needs the
# database unless --no-write.
pytestmark = pytest.mark.django_db


def user(*contents: str) -> list[dict[str, str]]:
    """A conversation in which the user says each text in turn."""
    return [{"role": "user", "content": content} for content in contents]


def test_token_f1_ignores_the_subject_and_function_words_but_not_negation() -> None:
    assert token_f1("User lives in Berlin", "The user lives in Berlin") == 1.0
    assert token_f1("User likes tofu", "User doesn't like tofu") < 0.6
    assert token_f1("User has a cat named Luna", "User's cat is called Luna") >= 0.6
    assert token_f1("", "User lives in Berlin") == 0.0


def test_each_label_is_matched_at_most_once() -> None:
    pairs = match_captions(
        ["User lives in Berlin", "User lives in Berlin, Germany"], ["User lives in Berlin"]
    )

    assert pairs == [(0, 0)]


def test_the_labelled_set_has_at_least_60_well_formed_conversations() -> None:
    rows = load_labelled()

    assert len(rows) >= 60
    assert len({row["id"] for row in rows}) == len(rows)
    assert any(not row["expected"] for row in rows), "needs conversations with no fact at all"
    assert any(len(row["expected"]) >= 2 for row in rows), "needs multi-fact conversations"
    for row in rows:
        assert row["conversation"]
        for message in row["conversation"]:
            assert message["role"] in {"user", "assistant", "system"}
            assert message["content"].strip()
        for label in row["expected"]:
            assert label["caption"].startswith("User")
            assert len(label["caption"]) <= CAPTION_MAX_LENGTH
            assert label["category"] in Memory.Category.values


def test_eval_extractor_command_prints_the_scores() -> None:
    out = io.StringIO()
    call_command(EvalExtractor(), stdout=out)

    text = out.getvalue()
    assert "precision" in text and "recall" in text and "f1" in text
    assert "false positives" in text


def test_eval_extractor_command_reports_json(tmp_path) -> None:
    labelled = tmp_path / "tiny.jsonl"
    rows = [
        {
            "id": "a",
            "conversation": user("I live in Berlin and I love tea."),
            "expected": [{"caption": "User lives in Berlin", "category": "personal"}],
        },
        {"id": "b", "conversation": user("What time is it?"), "expected": []},
    ]
    labelled.write_text("\n".join(json.dumps(row) for row in rows) + "\n")
    out = io.StringIO()

    call_command(EvalExtractor(), "--json", "--path", str(labelled), stdout=out)

    report = json.loads(out.getvalue())
    assert report["conversations"] == 2
    assert report["true_positives"] == 1
    assert report["false_positives"] == 1  # "User loves tea" was not labelled
    assert report["precision"] == 0.5
    assert report["recall"] == 1.0


DENSE_FACTS = DEFAULT_LABELLED_SET.parent / "dense_facts.jsonl"


def test_the_bundled_labelled_set_is_the_default() -> None:
    assert DEFAULT_LABELLED_SET.is_file()


# --- selecting rows, no-fact conversations, and the LLM path against a server ----------------

LABELLED_ROWS = [
    {
        "id": "d1",
        "split": "dev",
        "kind": "fact",
        "conversation": user("I live in Berlin."),
        "expected": [{"caption": "User lives in Berlin", "category": "personal"}],
    },
    {
        "id": "d2",
        "split": "dev",
        "kind": "question",
        "conversation": user("What time is it in Tokyo?"),
        "expected": [],
    },
    {
        "id": "h1",
        "split": "heldout",
        "kind": "injection",
        "conversation": user("I live in Oslo."),
        "expected": [],
    },
    {"id": "x1", "conversation": user("I love tea."), "expected": []},
]


@pytest.fixture
def labelled(tmp_path) -> Path:
    path = tmp_path / "chat_facts.jsonl"
    path.write_text("\n".join(json.dumps(row) for row in LABELLED_ROWS) + "\n")
    return path


@pytest.fixture
def no_llm_server(settings):
    """No OPENAI_BASE_URL from the environment: the benches keep their stub or offline path."""
    settings.OPENAI_BASE_URL = ""
    settings.OPENAI_API_KEY = ""


def run_eval(*args: str) -> dict:
    out = io.StringIO()
    call_command(EvalExtractor(), "--json", *args, stdout=out)
    return json.loads(out.getvalue())


def test_rows_select_by_split_kind_and_limit() -> None:
    assert [r["id"] for r in rows_select(LABELLED_ROWS)] == ["d1", "d2", "h1", "x1"]
    assert [r["id"] for r in rows_select(LABELLED_ROWS, split="dev")] == ["d1", "d2"]
    assert [r["id"] for r in rows_select(LABELLED_ROWS, split="heldout")] == ["h1"]
    assert [r["id"] for r in rows_select(LABELLED_ROWS, kinds=["question", "injection"])] == [
        "d2",
        "h1",
    ]
    assert [r["id"] for r in rows_select(LABELLED_ROWS, split="dev", limit=1)] == ["d1"]


def test_split_kind_and_limit_options_are_honoured(labelled, no_llm_server) -> None:
    dev = run_eval("--path", str(labelled), "--split", "dev")
    assert dev["conversations"] == 2 and [i["id"] for i in dev["items"]] == ["d1", "d2"]
    assert dev["items"][0]["split"] == "dev" and dev["items"][0]["kind"] == "fact"

    kinds = run_eval("--path", str(labelled), "--kind", "injection,question")
    assert [i["id"] for i in kinds["items"]] == ["d2", "h1"]

    assert run_eval("--path", str(labelled), "--limit", "3")["conversations"] == 3

    with pytest.raises(CommandError, match="No conversation"):
        run_eval("--path", str(labelled), "--split", "heldout", "--kind", "fact")


def test_no_fact_conversations_that_stored_something_are_counted(labelled, no_llm_server) -> None:
    report = run_eval("--path", str(labelled))

    assert report["llm"] == "none (offline extractor)"
    # h1 ("I live in Oslo.") is labelled with no fact: the rules store one from it anyway.
    assert report["no_fact"]["conversations"] == 3
    assert report["no_fact"]["stored"] == 2  # h1, and x1 ("I love tea.")
    assert report["no_fact"]["by_kind"] == {
        "injection": {"conversations": 1, "stored": 1},
        "question": {"conversations": 1, "stored": 0},
    }
    assert report["usage"]["llm_calls"] == 0 and report["usage"]["items"] == 4
    assert all(item["llm_calls"] == 0 for item in report["items"])

    out = io.StringIO()
    call_command(EvalExtractor(), "--path", str(labelled), stdout=out)
    assert "stored from no-fact messages  2/3" in out.getvalue()
    assert "LLM calls 0" in out.getvalue()


BERLIN = {
    "memories": [
        {
            "caption": "User lives in Berlin",
            "full_text": "The user lives in Berlin.",
            "category": "personal",
            "confidence": 0.9,
        }
    ]
}


def test_the_llm_path_runs_against_the_given_server_and_counts_its_usage(
    labelled, llm_stub, no_llm_server
) -> None:
    # Every reply states a different number of tokens, so each item's figures can be traced.
    llm_stub.always(
        lambda request: content(
            json.dumps(BERLIN), prompt_tokens=len(request.raw), completion_tokens=11
        )
    )

    report = run_eval(
        "--path", str(labelled),
        "--split", "dev",
        "--llm-base-url", llm_stub.base_url,
        "--llm-model", "bench-model",
        "--llm-api-key", "secret",
    )  # fmt: skip

    assert report["llm"] == f"{llm_stub.base_url} (model bench-model)"
    calls = llm_stub.calls
    assert len(calls) == 2  # one extraction per conversation
    assert all(call.body["model"] == "bench-model" for call in calls)
    assert all(call.headers["authorization"] == "Bearer secret" for call in calls)
    for item, call in zip(report["items"], calls, strict=True):
        assert item["llm_calls"] == 1
        assert item["prompt_tokens"] == len(call.raw)
        assert item["completion_tokens"] == 11
        assert item["seconds"] > 0
    assert report["usage"]["llm_calls"] == 2
    assert report["usage"]["prompt_tokens"] == sum(len(call.raw) for call in calls)
    assert report["usage"]["mean"]["completion_tokens"] == 11
    # The grounding check runs after the model: "What time is it in Tokyo?" grounds no Berlin.
    assert report["true_positives"] == 1 and report["false_positives"] == 0
    # The model's candidates went through the write path: stored, nothing lost or garbled.
    assert report["judged"] == "stored" and report["lost"] == 0
    assert report["stored"]["memories"] == 1 and report["garbled"] == 0
    assert report["no_fact"] == {"conversations": 1, "stored": 0, "memories": 0, "by_kind": {
        "question": {"conversations": 1, "stored": 0}
    }}  # fmt: skip


def test_the_server_falls_back_to_the_service_variables(labelled, llm_stub, settings) -> None:
    llm_stub.always(json.dumps(BERLIN))
    settings.OPENAI_BASE_URL = llm_stub.base_url
    settings.OPENAI_API_KEY = ""
    settings.MEMORY_LLM_MODEL = "env-model"

    report = run_eval("--path", str(labelled), "--limit", "1")

    assert report["llm"] == f"{llm_stub.base_url} (model env-model)"
    assert llm_stub.calls[0].headers["authorization"] == "Bearer local"  # the default key
    assert report["items"][0]["llm_calls"] == 1

    # `--llm-base-url stub` and an explicit --extractor both keep the offline extractor.
    assert run_eval("--path", str(labelled), "--llm-base-url", "stub")["usage"]["llm_calls"] == 0
    offline = run_eval(
        "--path", str(labelled), "--extractor", "extraction.reader.offline_candidates"
    )
    assert offline["llm"] == "none (offline extractor)"
    assert len(llm_stub.calls) == 1


def test_a_timed_out_extraction_stores_nothing_and_still_counts(
    labelled, llm_stub, no_llm_server, settings
) -> None:
    settings.MEMORY_LLM_MAX_RETRIES = 0
    llm_stub.slow(3.0, json.dumps(BERLIN))

    report = run_eval(
        "--path", str(labelled), "--limit", "1",
        "--llm-base-url", llm_stub.base_url, "--llm-timeout", "0.3",
    )  # fmt: skip

    assert report["failed"] == 1
    item = report["items"][0]
    assert item["llm_calls"] == 1 and item["predicted"] == 0
    assert "LLMUnavailable" in item["error"]
    assert 0.3 <= item["seconds"] < 3.0


def test_the_command_prints_and_reports_the_new_figures(labelled, no_llm_server) -> None:
    report = run_eval("--path", str(labelled))
    assert report["judged"] == "stored"
    assert report["lost"] == 0 and report["misattributed"] == 0
    assert set(report["garbles"]) == set(GARBLE_KINDS)
    assert report["stored"]["memories"] >= 1
    assert all("lost" in item for item in report["items"])

    extracted_only = run_eval("--path", str(labelled), "--no-write")
    assert extracted_only["judged"] == "candidates"
    assert extracted_only["lost"] is None and extracted_only["stored"] is None

    out = io.StringIO()
    call_command(EvalExtractor(), "--path", str(labelled), stdout=out)
    text = out.getvalue()
    assert "facts lost 0" in text
    assert "misattributed 0" in text and "garbled 0/" in text
