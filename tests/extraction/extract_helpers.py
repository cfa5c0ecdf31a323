"""Extraction through the API, as the tests of what is stored call it."""

from __future__ import annotations

import uuid


def extract(api, *said: str, user_id: uuid.UUID | None = None) -> list[str]:
    """The captions stored from the user's messages (each answered "ok"), through the API."""
    conversation = []
    for text in said:
        conversation += [{"role": "user", "content": text}, {"role": "assistant", "content": "ok"}]
    body = {"user_id": str(user_id or uuid.uuid4()), "conversation": conversation}
    response = api.post("/memories/extract", body, format="json")
    assert response.status_code in (200, 201), response.json()
    return [memory["caption"] for memory in response.json()["memories_saved"]]
