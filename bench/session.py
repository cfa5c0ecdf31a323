"""A chat session played the way a chat loop sends it, for what the LLM reads per turn.

The README's loop sends the last `window` messages after every reply. Each turn is one
extraction through the service (`extraction_perform`); a continued conversation is read for its
new messages only (extraction.selectors.messages_read_count), so the prompt per turn should stay
flat however long the session grows.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from extraction.jobs import extraction_perform
from integrations.tokens import count_tokens
from tenants.models import Tenant

SESSION = Path(__file__).resolve().parent / "data" / "session_30.json"
WINDOW = 20


@dataclass(frozen=True)
class Turn:
    """One turn: the messages sent, those read for the first time, what the LLM was asked."""

    turn: int
    sent: int
    read_before: int
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    memories: int


def session_load(path: Path = SESSION) -> list[dict[str, str]]:
    """The session's (user, assistant) turns."""
    return json.loads(path.read_text(encoding="utf-8"))["turns"]


def session_play(
    *, tenant: Tenant, turns: list[dict[str, str]], window: int = WINDOW, stub: Any = None
) -> list[Turn]:
    """Play every turn as a new extraction of the last `window` messages.

    With the stub, prompt tokens are counted from what the stub received (it reports a fixed
    figure); with a real server, from the usage it reported.
    """
    user_id = uuid.uuid4()
    messages: list[dict[str, str]] = []
    played: list[Turn] = []
    for number, turn in enumerate(turns, start=1):
        messages += [
            {"role": "user", "content": turn["user"]},
            {"role": "assistant", "content": turn["assistant"]},
        ]
        sent = messages[-window:]
        seen = len(stub.calls) if stub is not None else 0
        started = time.perf_counter()
        outcome = extraction_perform(tenant=tenant, external_id=user_id, messages=sent)
        seconds = time.perf_counter() - started
        job = outcome.job
        job.refresh_from_db()
        prompt_tokens = job.prompt_tokens
        if stub is not None:
            prompt_tokens = sum(count_tokens(call.prompt_text) for call in stub.calls[seen:])
        played.append(
            Turn(
                turn=number,
                sent=len(sent),
                read_before=job.messages_read_before,
                llm_calls=job.llm_calls,
                prompt_tokens=prompt_tokens,
                completion_tokens=job.completion_tokens,
                seconds=round(seconds, 3),
                memories=outcome.total_user_memories,
            )
        )
    return played
