"""Offline tiktoken encodings and the conversation budget."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
import tiktoken
from tiktoken_ext import openai_public

from extraction import budget
from extraction.budget import (
    ENCODINGS,
    MESSAGE_OVERHEAD,
    count_tokens,
    encoding_name_for_model,
    fit_to_budget,
    get_encoding,
)


@pytest.mark.parametrize(
    ("name", "text", "ids"),
    [
        ("o200k_base", "hello world", [24912, 2375]),
        ("cl100k_base", "hello world", [15339, 1917]),
        ("cl100k_base", "tiktoken is great!", [83, 1609, 5963, 374, 2294, 0]),
    ],
)
def test_the_bundled_encodings_give_the_published_token_ids(name, text, ids):
    encoding = get_encoding(name)

    assert isinstance(encoding, tiktoken.Encoding)
    assert encoding.encode(text) == ids
    assert encoding.decode(ids) == text


def test_encodings_load_with_the_network_off(monkeypatch, tmp_path):
    def no_network(*args, **kwargs):
        raise OSError("network is off in this test")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    budget._build_encoding.cache_clear()

    assert get_encoding("o200k_base").encode("hello world") == [24912, 2375]
    assert get_encoding("cl100k_base").encode("hello world") == [15339, 1917]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_patterns_and_special_tokens_match_tiktokens_own_definitions(monkeypatch, name):
    # Only the download is replaced; everything else comes from tiktoken's own constructor.
    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda *args, **kwargs: {})
    upstream = getattr(openai_public, name)()

    assert ENCODINGS[name]["pat_str"] == upstream["pat_str"]
    assert ENCODINGS[name]["special_tokens"] == upstream["special_tokens"]


def test_the_hashes_are_tiktokens_published_ones():
    source = Path(openai_public.__file__).read_text()

    for spec in ENCODINGS.values():
        assert f'expected_hash="{spec["sha256"]}"' in source


@pytest.mark.parametrize(
    ("model", "name"),
    [
        ("gpt-4o-mini", "o200k_base"),
        ("gpt-4.1-nano", "o200k_base"),
        ("openai/gpt-5", "o200k_base"),
        ("o3-mini", "o200k_base"),
        ("gpt-4", "cl100k_base"),
        ("gpt-3.5-turbo", "cl100k_base"),
        ("zai-org/GLM-4.5-Air", "cl100k_base"),
        ("llama3.1:8b", "cl100k_base"),
    ],
)
def test_the_encoding_follows_the_model_family(model, name):
    assert encoding_name_for_model(model) == name


def test_special_token_text_in_user_content_is_counted_not_rejected():
    assert count_tokens("hello <|endoftext|> world", model="gpt-4o") > 3


def turns(count: int, words: int = 20) -> list[dict]:
    return [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i} " + "word " * words}
        for i in range(count)
    ]


def test_a_conversation_within_budget_is_kept_whole():
    messages = turns(4)

    assert fit_to_budget(messages, 6000) == (messages, 0)


def test_the_oldest_turns_are_dropped_and_counted():
    messages = turns(10)
    per_message = count_tokens(messages[0]["content"]) + MESSAGE_OVERHEAD

    kept, dropped = fit_to_budget(messages, per_message * 3 + 1)

    assert dropped == 7
    assert kept == messages[7:]


def test_the_kept_turns_fit_the_budget():
    messages = turns(30, words=37)

    kept, dropped = fit_to_budget(messages, 500)

    assert sum(count_tokens(m["content"]) + MESSAGE_OVERHEAD for m in kept) <= 500
    assert dropped == len(messages) - len(kept) > 0
    assert kept[-1] is messages[-1]


def test_a_newest_message_over_budget_keeps_its_end():
    newest = {"role": "user", "content": "start " + "filler " * 500 + "I live in Lisbon."}
    messages = [{"role": "user", "content": "older"}, newest]

    kept, dropped = fit_to_budget(messages, 50)

    assert dropped == 1
    [clipped] = kept
    assert clipped["role"] == "user"
    assert clipped["content"].endswith("I live in Lisbon.")
    assert not clipped["content"].startswith("start")
    assert count_tokens(clipped["content"]) + MESSAGE_OVERHEAD <= 50


def test_cutting_inside_multibyte_text_leaves_no_broken_character():
    newest = {"role": "user", "content": "日本語のテキスト、絵文字🙂も含む。" * 40}

    [clipped], _ = fit_to_budget([newest], 30)

    assert "\ufffd" not in clipped["content"]
    assert newest["content"].endswith(clipped["content"])


def test_the_default_budget_comes_from_settings(settings):
    settings.MEMORY_LLM_INPUT_BUDGET = 3 * (
        count_tokens("turn 0 " + "word " * 20) + MESSAGE_OVERHEAD
    )

    _, dropped = fit_to_budget(turns(5))

    assert dropped == 2


def test_an_empty_conversation_stays_empty():
    assert fit_to_budget([], 100) == ([], 0)
