"""Tool-calling models write terse queries: a noun phrase through `recall`, `context` or MCP
is a personal request ("dinner ideas" is about this user's dinner)."""

from __future__ import annotations

import pytest

from memories.models import Memory
from recall.context import memory_context
from recall.services import memory_recall

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def local_embedder(settings):
    # The embedder a new user runs (the local model), not the tests' word-hashing one.
    settings.MEMORY_EMBEDDER = "local"


FACTS = (
    "User is vegetarian",
    "User uses Neovim as their editor",
    "User is a secondary school history teacher",
    "User's mum loves gardening and orchids",
    "User lives in Leeds",
    "User supports Leeds United",
    "User drives a 2012 Honda Jazz",
    "User has two cats called Miso and Tofu",
)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("dinner ideas", "User is vegetarian"),
        ("editor config", "User uses Neovim as their editor"),
        ("set up my editor config for a new Go project", "User uses Neovim as their editor"),
        ("any tips for my lesson plan tomorrow?", "User is a secondary school history teacher"),
        ("gift for my mum", "User's mum loves gardening and orchids"),
        ("weekend recipes", "User is vegetarian"),
    ],
)
def test_a_terse_request_finds_the_memory_it_needs_first(end_user, remember, query, expected):
    remember(end_user, *FACTS, category=Memory.Category.PERSONAL)

    found = memory_recall(
        tenant=end_user.tenant, external_id=end_user.external_id, prompt=query, limit=3
    ).memories
    context = memory_context(
        tenant=end_user.tenant, external_id=end_user.external_id, prompt=query, max_tokens=500
    )

    assert found and found[0].caption == expected
    assert expected in context.text
