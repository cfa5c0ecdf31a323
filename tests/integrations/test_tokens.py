"""Offline tiktoken encodings: the bundled vocabularies, their hashes, the model families."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
import tiktoken
from tiktoken_ext import openai_public

from integrations import tokens
from integrations.tokens import ENCODINGS, count_tokens, encoding_name_for_model, get_encoding


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
    tokens._build_encoding.cache_clear()

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
