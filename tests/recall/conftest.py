"""Recall fixtures: a deterministic embedder, inline access statistics, a cold index cache."""

from __future__ import annotations

import hashlib

import pytest

from integrations.embeddings import current_model_id, embed_texts
from memories.models import EndUser, Memory
from recall.index import local_index_clear


@pytest.fixture(autouse=True)
def recall_settings(settings):
    settings.MEMORY_EMBEDDER = "hashing"
    settings.RECALL_MODE = "hybrid"
    settings.RECALL_ACCESS_FLUSH_SECONDS = 0
    local_index_clear()
    yield settings
    local_index_clear()


@pytest.fixture
def remember():
    """Store active memories for a user, embedded like the write path does."""

    def _remember(end_user: EndUser, *texts: str, **fields) -> list[Memory]:
        vectors = embed_texts(list(texts))
        memories = []
        for text, vector in zip(texts, vectors, strict=True):
            memories.append(
                Memory.objects.create(
                    end_user=end_user,
                    caption=text[:100],
                    full_text=text,
                    content_hash=hashlib.sha256(text.lower().encode()).hexdigest(),
                    embedding=vector,
                    embedding_model=current_model_id(),
                    **fields,
                )
            )
        return memories

    return _remember
