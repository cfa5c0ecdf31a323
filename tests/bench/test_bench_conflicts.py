"""bench_conflicts on a tiny labelled file: each path runs and reports what it measured."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from bench.conflicts import CHAT, KINDS, SPLITS, LabelledLLM, cases_limit, cases_load
from bench.management.commands.bench_conflicts import Command as BenchConflicts
from core.lexicon import LEXICONS, broader
from memories.attributes import registry
from memories.models import Memory
from tenants.models import Tenant
from testing.llm_stub import content, error

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


@pytest.mark.parametrize("split", ["heldout2", "heldout3", "heldout4"])
def test_each_topic_held_out_set_is_large_enough_and_on_topics_no_other_set_or_attribute_has(
    split,
):
    """Held out by topic, never by row (issue 31): a result on it carries to unseen topics only
    if no other set (one tunes on, or another held-out one), and no registry attribute, names
    one of its topics."""
    held_out = cases_load(SPLITS[split])
    others = [
        case
        for name, files in SPLITS.items()
        if name != split and CHAT not in files
        for case in cases_load(files)
    ] + cases_load(CHAT)
    kinds = [case.kind for case in held_out]

    assert len({case.id for case in held_out}) == len(held_out)
    assert kinds.count("contradiction") >= 30 and kinds.count("compatible") >= 20
    assert kinds.count("restatement") >= 10
    assert len({case.topic for case in held_out}) >= 20
    assert not {case.topic for case in held_out} & {case.topic for case in others}
    assert not {case.topic for case in held_out} & set(registry())
    assert not {case.id for case in held_out} & {case.id for case in others}


@pytest.mark.parametrize("split", ["heldout2", "heldout3", "heldout4"])
def test_each_topic_held_out_set_has_valid_rows_on_topics_no_lexicon_names(split):
    """Every row is a pair the bench can run (a known kind and category, two different things
    said, captions about the user or their people), and no topic is the name of a lexicon file
    or a word of the kinds lexicon, so no rule was written for it."""
    held_out = cases_load(SPLITS[split])
    lexicon_names = {path.stem for path in LEXICONS.glob("*.txt")}
    kinds = broader("kinds")
    kind_words = set(kinds) | set(kinds.values())

    for case in held_out:
        assert case.kind in KINDS, case.id
        assert not case.explicit_update or case.kind == "contradiction", case.id
        for side in (case.first, case.second):
            assert side.category in Memory.Category.values, case.id
            assert side.user.strip() and side.full_text.strip(), case.id
            assert side.caption.startswith("User"), case.id
        assert case.first.user != case.second.user, case.id
        assert case.topic not in lexicon_names, case.id
        assert case.topic.replace("_", " ") not in kind_words, case.id


@pytest.fixture
def no_llm_server(settings):
    """No OPENAI_BASE_URL from the environment: the LLM paths keep their stub."""
    settings.OPENAI_BASE_URL = ""


def test_the_llm_path_runs_against_the_given_server_and_counts_its_usage(
    labelled, llm_stub, no_llm_server, settings
):
    settings.MEMORY_EMBEDDER = "hashing"
    answer = LabelledLLM(cases_load(labelled), decide=True)

    def labelled_text(request) -> str:
        return answer(request).body["choices"][0]["message"]["content"]

    def reply(request):
        # The labelled answer, reporting a distinct token count per request.
        text = labelled_text(request)
        return content(text, prompt_tokens=len(request.raw), completion_tokens=len(text))

    llm_stub.always(reply)
    out = StringIO()

    call_command(
        BenchConflicts(), "--data", str(labelled), "--path", "llm", "--json",
        "--llm-base-url", llm_stub.base_url, "--llm-model", "bench-model",
        stdout=out,
    )  # fmt: skip

    report = json.loads(out.getvalue())
    assert report["llm"] == f"{llm_stub.base_url} (model bench-model)"
    assert report["contradictions_held"]["count"] == 1
    assert report["restatements_merged"]["count"] == 1
    # What reached the decision call is only known to the stub's labelled answers.
    assert "contradictions_reaching_llm" not in report
    assert all(call.body["model"] == "bench-model" for call in llm_stub.calls)
    for item, case in zip(report["items"], CASES, strict=True):
        said = (case["first"]["user"], case["second"]["user"], case["second"]["full_text"])
        calls = [c for c in llm_stub.calls if any(text in c.prompt_text for text in said)]
        assert item["id"] == case["id"]
        assert item["llm_calls"] == len(calls) >= 2  # two extractions, maybe a decision call
        assert item["prompt_tokens"] == sum(len(c.raw) for c in calls)
        assert item["completion_tokens"] == sum(len(labelled_text(c)) for c in calls)
        assert item["seconds"] > 0
    assert report["usage"]["llm_calls"] == len(llm_stub.calls)
    assert report["usage"]["items"] == 3


def test_the_stub_paths_report_their_usage(labelled, no_llm_server, settings):
    settings.MEMORY_EMBEDDER = "hashing"
    out = StringIO()

    call_command(BenchConflicts(), "--data", str(labelled), "--path", "llm", stdout=out)

    text = out.getvalue()
    assert "LLM: stub (answers from the labels)" in text
    # Each case: two extractions, and a decision call for a pair the linker links (not the
    # sister's city: another person), at the stub's 12 + 7 tokens each.
    assert "LLM calls 8, tokens 96 prompt + 56 completion" in text


def test_a_server_that_fails_leaves_the_case_unextracted_and_counted(
    labelled, llm_stub, no_llm_server, settings
):
    settings.MEMORY_EMBEDDER = "hashing"
    settings.MEMORY_LLM_MAX_RETRIES = 0
    llm_stub.always(error(503))
    out = StringIO()

    call_command(
        BenchConflicts(), "--data", str(labelled), "--path", "llm", "--json",
        "--llm-base-url", llm_stub.base_url, "--limit", "2",
        stdout=out,
    )  # fmt: skip

    report = json.loads(out.getvalue())
    assert report["cases"] == 2 and report["failed_extractions"] == 4
    assert report["not_extracted"] == 2
    assert report["restatements_merged"]["count"] == 0
    assert [item["llm_calls"] for item in report["items"]] == [2, 2]
    assert not Tenant.objects.filter(name="bench-conflicts").exists()


def test_limit_takes_the_kinds_in_turn():
    cases = cases_load(SPLITS["heldout"])

    picked = cases_limit(cases, 4)

    assert [case.kind for case in picked[:3]] == ["contradiction", "compatible", "restatement"]
    assert len(picked) == 4
    assert cases_limit(cases, None) == cases


def test_the_chat_pairs_split_by_their_own_split_field():
    dev = cases_load(SPLITS["chat-dev"], split="chat-dev")
    heldout = cases_load(SPLITS["chat-heldout"], split="chat-heldout")
    every = cases_load(SPLITS["chat-dev"])

    assert dev and heldout
    assert not {case.id for case in dev} & {case.id for case in heldout}
    assert len(dev) + len(heldout) == len(every)


def test_the_fifth_dev_set_is_on_topics_no_earlier_dev_set_has():
    """`dev5` checks that a rule carries beyond the phrasings it was fitted to: its topics are
    in no other dev split, and it holds each kind (restatements most adding a detail)."""
    dev5 = cases_load(SPLITS["dev5"])
    earlier = [
        case
        for name in ("dev", "heldout", "heldout2", "heldout3", "chat-dev")
        for case in cases_load(SPLITS[name])
    ]
    kinds = [case.kind for case in dev5]

    assert kinds.count("restatement") >= 14 and kinds.count("contradiction") >= 14
    assert kinds.count("compatible") >= 8
    assert not {case.topic for case in dev5} & {case.topic for case in earlier}
    assert not {case.id for case in dev5} & {case.id for case in earlier}


def test_the_sixth_dev_set_is_on_topics_no_other_set_has():
    """`dev6` checks that a rule carries to topics and phrasings no rule was fitted to: its
    topics are in no other split (the held-out ones are checked against it above), one topic
    a pair, and it holds each kind."""
    dev6 = cases_load(SPLITS["dev6"])
    others = [
        case
        for name in ("dev", "heldout", "heldout2", "heldout3", "dev5", "chat-dev")
        for case in cases_load(SPLITS[name])
    ]
    kinds = [case.kind for case in dev6]

    assert kinds.count("restatement") >= 14 and kinds.count("contradiction") >= 16
    assert kinds.count("compatible") >= 10
    assert len({case.topic for case in dev6}) == len(dev6)
    assert not {case.topic for case in dev6} & {case.topic for case in others}
    assert not {case.id for case in dev6} & {case.id for case in others}
