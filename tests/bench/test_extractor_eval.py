"""The extractor evaluation: caption matching, the labelled set and the `eval_extractor` command."""

from __future__ import annotations

import io
import json

from django.core.management import call_command

from bench.extractor_eval import DEFAULT_LABELLED_SET, load_labelled, match_captions, token_f1
from bench.management.commands.eval_extractor import Command as EvalExtractor
from memories.models import Memory
from memories.text import CAPTION_MAX_LENGTH


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


def test_the_bundled_labelled_set_is_the_default() -> None:
    assert DEFAULT_LABELLED_SET.is_file()
