"""Pytest fixtures around the OpenAI-protocol stub server of `testing.llm_stub`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from testing.llm_stub import LLMStub


@pytest.fixture
def llm_stub() -> Iterator[LLMStub]:
    """A running OpenAI-protocol stub server for one test."""
    stub = LLMStub().start()
    try:
        yield stub
    finally:
        stub.stop()


@pytest.fixture
def llm_settings(settings, llm_stub: LLMStub) -> LLMStub:
    """Point Django's LLM settings at the stub (short timeout, fast retries) and return it."""
    settings.OPENAI_API_KEY = "test-key"
    settings.OPENAI_BASE_URL = llm_stub.base_url
    settings.MEMORY_EXTRACTOR = "llm"
    settings.MEMORY_LLM_TIMEOUT = 1.0
    settings.MEMORY_LLM_MAX_RETRIES = 2
    # Backoff between retries without a server hint (timeouts, connection errors).
    settings.MEMORY_LLM_BACKOFF = 0.01
    return llm_stub
