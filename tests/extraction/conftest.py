"""Fixtures of the extraction tests: the offline extractor, and extraction through the API."""

from __future__ import annotations

import pytest


@pytest.fixture
def offline(settings):
    """The offline reader and the hashing embedder: no LLM, no model to load."""
    settings.MEMORY_EXTRACTOR = "rules"
    settings.MEMORY_EMBEDDER = "hashing"
