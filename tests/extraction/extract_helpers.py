"""Extraction as the tests of what is stored call it: through the API, or the write path."""

from __future__ import annotations

import uuid

from extraction.jobs import extraction_perform
from memories.models import Memory


def extract(api, *said: str, user_id: uuid.UUID | None = None) -> list[str]:
    """The captions stored from the user's messages (each answered "ok"), through the API."""
    conversation = []
    for text in said:
        conversation += [{"role": "user", "content": text}, {"role": "assistant", "content": "ok"}]
    body = {"user_id": str(user_id or uuid.uuid4()), "conversation": conversation}
    response = api.post("/memories/extract", body, format="json")
    assert response.status_code in (200, 201), response.json()
    return [memory["caption"] for memory in response.json()["memories_saved"]]


def stored_active(tenant, text: str) -> list[str]:
    """The active captions one user message leaves, through the real write path (no API)."""
    user = uuid.uuid4()
    extraction_perform(
        tenant=tenant, external_id=user, messages=[{"role": "user", "content": text}]
    )
    return sorted(
        Memory.objects.filter(end_user__external_id=user, status="active").values_list(
            "caption", flat=True
        )
    )
