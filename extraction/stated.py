"""When and where each candidate was said (issue 33, 34): the timestamp of the user's message
it was read from, else the conversation's, else the request's time; that message's place in
the conversation, and the words quoted as the memory's evidence.

Messages carry the `timestamp` the caller sent (`extraction.apis`; the conversation's own is
copied onto each message without one when the job is recorded), as ISO 8601 text in the job's
payload. A candidate names the clause it was read from (`Candidate.said`); the message holding
that clause, or sharing most words with it, is the one that stated it.
"""

from __future__ import annotations

import datetime
from dataclasses import replace

from core.words import words_of
from extraction.candidates import Candidate


def message_time(message: dict) -> datetime.datetime | None:
    """The message's `timestamp` as an aware datetime, None when it has none (or a bad one:
    the API refused those, and an old job's payload had none)."""
    value = message.get("timestamp")
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=datetime.UTC)


def _timestamp_text(value: datetime.datetime | str | None) -> str | None:
    """A timestamp as the job's JSON payload keeps it: ISO 8601 text."""
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    return value or None


def messages_timed(
    messages: list[dict], timestamp: datetime.datetime | str | None = None
) -> list[dict[str, str]]:
    """The messages as a job keeps them: role, content and, when the message or the
    conversation (`timestamp`) has one, the message's timestamp as ISO 8601 text."""
    timed = []
    for message in messages:
        kept = {"role": message["role"], "content": message["content"]}
        at = _timestamp_text(message.get("timestamp")) or _timestamp_text(timestamp)
        if at:
            kept["timestamp"] = at
        timed.append(kept)
    return timed


def candidates_dated(
    candidates: list[Candidate],
    messages: list[dict],
    *,
    default: datetime.datetime,
    offset: int = 0,
) -> list[Candidate]:
    """`candidates`, each with the user's message it was read from: its time (`said_at`; one an
    extractor already dated keeps its own), its index in the conversation (`said_in`, counted
    from `offset`, the messages read before `messages`: it also tells which candidates one
    message said, `extraction.timing`) and the words quoted as the memory's evidence (`quote`:
    the clause it was read from, else that message)."""
    positions = [at for at, m in enumerate(messages) if m.get("role") == "user"]
    positions = positions or list(range(len(messages)))
    users = [messages[at] for at in positions]
    if not users:
        return [c if c.said_at else replace(c, said_at=default) for c in candidates]
    times = [message_time(m) or default for m in users]
    texts = [str(m.get("content", "")) for m in users]
    lowered = [text.lower() for text in texts]
    vocabularies = [set(words_of(text)) for text in lowered]
    placed = []
    for candidate in candidates:
        source = _source(candidate, lowered, vocabularies) if len(users) > 1 else 0
        found: dict = {}
        if candidate.said_at is None:
            found["said_at"] = times[source]
        if candidate.said_in is None:
            found["said_in"] = offset + positions[source]
        if not candidate.quote:
            found["quote"] = candidate.said or texts[source]
        placed.append(replace(candidate, **found) if found else candidate)
    return placed


def _source(candidate: Candidate, texts: list[str], vocabularies: list[set[str]]) -> int:
    """The position of the message `candidate` was read from: the last holding its clause,
    else the one sharing most of its words (the later on a tie: the newer statement)."""
    said = candidate.said.strip().lower()
    if said:
        for position in range(len(texts) - 1, -1, -1):
            if said in texts[position]:
                return position
    words = set(words_of(candidate.said or candidate.caption))
    overlaps = [len(words & vocabulary) for vocabulary in vocabularies]
    best = max(overlaps)
    return max(position for position, overlap in enumerate(overlaps) if overlap == best)
