"""Conversation budgeting: what of a conversation fits in one extraction prompt."""

from __future__ import annotations

from django.conf import settings

from integrations.tokens import model_encoding

# Role and separators around each message as it is quoted in the prompt.
MESSAGE_OVERHEAD = 8


def conversation_budget() -> int:
    """Tokens of conversation one extraction prompt may carry."""
    return int(settings.MEMORY_LLM_INPUT_BUDGET)


def fit_to_budget(
    messages: list[dict], max_tokens: int | None = None, *, model: str | None = None
) -> tuple[list[dict], int]:
    """Drop the oldest messages until the rest fit in `max_tokens`; return them and the count.

    If the newest message alone is over budget it is kept, cut from its start so its end
    (usually the most recent statement) survives; that does not count as a dropped message.
    """
    budget = conversation_budget() if max_tokens is None else max_tokens
    if not messages:
        return [], 0
    encoding = model_encoding(model)
    kept: list[dict] = []
    used = 0
    for message in reversed(messages):
        cost = len(encoding.encode_ordinary(str(message.get("content", "")))) + MESSAGE_OVERHEAD
        if used + cost > budget:
            break
        kept.append(message)
        used += cost
    if not kept:
        newest = messages[-1]
        room = max(budget - MESSAGE_OVERHEAD, 1)
        tokens = encoding.encode_ordinary(str(newest.get("content", "")))
        keep = room
        while True:
            # A cut can land inside a multi-byte character; drop the broken remnant.
            tail = encoding.decode(tokens[-keep:], errors="replace").lstrip("\ufffd")
            # Re-encoding the cut text can merge differently; shrink until it really fits.
            if keep <= 1 or len(encoding.encode_ordinary(tail)) <= room:
                break
            keep -= 1
        kept.append({**newest, "content": tail})
    kept.reverse()
    return kept, len(messages) - len(kept)
