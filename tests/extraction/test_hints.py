"""Use-when hints for memories that have none: asked of the LLM, stored, embedded again."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from memories.models import Memory
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db


def test_memories_without_a_hint_get_one_and_their_embedding_again(llm_settings, end_user):
    tea = MemoryFactory(end_user=end_user, caption="User drinks green tea", use_when="")
    kept = MemoryFactory(end_user=end_user, caption="User uses Neovim", use_when="coding")
    reply = {"hints": [{"id": "f1", "use_when": "drinks, cafes, gifts"}]}
    llm_settings.reply(json.dumps(reply))

    call_command("memory_hints")

    tea.refresh_from_db()
    assert tea.use_when == "drinks, cafes, gifts"
    assert tea.embedding is not None
    assert Memory.objects.get(pk=kept.pk).use_when == "coding"
    [call] = llm_settings.calls
    assert "User drinks green tea" in call.prompt_text
    assert "Neovim" not in call.prompt_text


@pytest.mark.parametrize(
    "hints",
    [
        [{"id": "f7", "use_when": "nowhere"}],
        # Small models echo the format's placeholders.
        [{"id": "f1", "use_when": "..."}],
        [{"id": "f1", "use_when": "string"}],
        # ...and the prompt's own examples.
        [{"id": "f1", "use_when": "cooking, recipes, restaurants, food gifts"}],
    ],
)
def test_a_reply_without_usable_hints_changes_nothing(llm_settings, end_user, hints):
    memory = MemoryFactory(end_user=end_user, caption="User drinks green tea", use_when="")
    llm_settings.reply(json.dumps({"hints": hints}))

    call_command("memory_hints")

    assert Memory.objects.get(pk=memory.pk).use_when == ""
