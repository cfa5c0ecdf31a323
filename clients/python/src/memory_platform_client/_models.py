"""Typed results: one frozen dataclass per response shape, built with `from_json`.

Fields the service adds later are ignored, so a newer service does not break an older client.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, TypedDict

__all__ = [
    "Context",
    "ContextMemory",
    "ErasureReceipt",
    "Extraction",
    "FullMemories",
    "FullMemory",
    "Health",
    "Job",
    "ListedMemory",
    "MemoryPage",
    "Message",
    "QueuedJob",
    "RelevantMemories",
    "RelevantMemory",
    "SavedMemory",
]


class Message(TypedDict):
    """One message of a conversation, as POST /memories/extract takes it."""

    role: Literal["user", "assistant", "system"]
    content: str


def _time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


@dataclass(frozen=True)
class SavedMemory:
    """A memory an extraction created or merged into."""

    id: str
    caption: str
    created_at: datetime

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SavedMemory:
        """Build it from the service's JSON."""
        return cls(data["id"], data["caption"], datetime.fromisoformat(data["created_at"]))


def _saved(items: list[Mapping[str, Any]]) -> tuple[SavedMemory, ...]:
    return tuple(SavedMemory.from_json(item) for item in items)


@dataclass(frozen=True)
class Extraction:
    """The result of POST /memories/extract; `replayed` when the conversation was seen before."""

    memories_saved: tuple[SavedMemory, ...]
    total_user_memories: int
    replayed: bool = False
    job_id: str | None = None  # set when the service ran it as a job the client waited for

    @classmethod
    def from_json(cls, data: Mapping[str, Any], *, replayed: bool = False) -> Extraction:
        """Build it from the service's JSON."""
        return cls(_saved(data["memories_saved"]), data["total_user_memories"], replayed)


@dataclass(frozen=True)
class QueuedJob:
    """An extraction accepted for a worker (202); poll it with `job()` or `wait_for_job()`."""

    job_id: str

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> QueuedJob:
        """Build it from the service's JSON."""
        return cls(str(data["job_id"]))


@dataclass(frozen=True)
class Job:
    """The state of an extraction job: queued, running, succeeded or failed."""

    job_id: str
    status: str
    memories_saved: tuple[SavedMemory, ...]
    total_user_memories: int
    error: str
    created_at: datetime | None
    finished_at: datetime | None

    @property
    def done(self) -> bool:
        """Whether the job has finished, one way or the other."""
        return self.status in ("succeeded", "failed")

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Job:
        """Build it from the service's JSON."""
        return cls(
            job_id=str(data["job_id"]),
            status=data["status"],
            memories_saved=_saved(data["memories_saved"]),
            total_user_memories=data["total_user_memories"],
            error=data.get("error") or "",
            created_at=_time(data.get("created_at")),
            finished_at=_time(data.get("finished_at")),
        )


@dataclass(frozen=True)
class RelevantMemory:
    """A memory relevant to a prompt; `signals` only with explain=True."""

    id: str
    caption: str
    score: float
    signals: Mapping[str, float] | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RelevantMemory:
        """Build it from the service's JSON."""
        return cls(data["id"], data["caption"], data["score"], data.get("signals"))


@dataclass(frozen=True)
class RelevantMemories:
    """GET /memories/relevant: most relevant first; `explain` only with explain=True."""

    memories: tuple[RelevantMemory, ...]
    explain: Mapping[str, Any] | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RelevantMemories:
        """Build it from the service's JSON."""
        memories = tuple(RelevantMemory.from_json(item) for item in data["memories"])
        return cls(memories, data.get("explain"))


@dataclass(frozen=True)
class FullMemory:
    """A memory with its full text."""

    id: str
    caption: str
    full_text: str
    created_at: datetime

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> FullMemory:
        """Build it from the service's JSON."""
        created_at = datetime.fromisoformat(data["created_at"])
        return cls(data["id"], data["caption"], data["full_text"], created_at)


@dataclass(frozen=True)
class FullMemories:
    """GET /memories/full: in the order asked, without the ids that are not this user's."""

    memories: tuple[FullMemory, ...]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> FullMemories:
        """Build it from the service's JSON."""
        return cls(tuple(FullMemory.from_json(item) for item in data["memories"]))


@dataclass(frozen=True)
class ListedMemory:
    """A memory in a page of GET /memories/list."""

    id: str
    caption: str
    category: str
    status: str
    created_at: datetime

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ListedMemory:
        """Build it from the service's JSON."""
        created_at = datetime.fromisoformat(data["created_at"])
        return cls(data["id"], data["caption"], data["category"], data["status"], created_at)


@dataclass(frozen=True)
class MemoryPage:
    """GET /memories/list: a page of the user's memories, newest first, and the total."""

    memories: tuple[ListedMemory, ...]
    total: int
    limit: int
    offset: int

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MemoryPage:
        """Build it from the service's JSON."""
        memories = tuple(ListedMemory.from_json(item) for item in data["memories"])
        return cls(memories, data["total"], data["limit"], data["offset"])


@dataclass(frozen=True)
class ContextMemory:
    """A memory that went into a context block, with the tier it was placed in."""

    id: str
    caption: str
    tier: str
    score: float

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ContextMemory:
        """Build it from the service's JSON."""
        return cls(data["id"], data["caption"], data["tier"], data["score"])


@dataclass(frozen=True)
class Context:
    """GET /memories/context: a block to put in the prompt, within the token budget."""

    context: str
    tokens: int
    truncated: bool
    memories: tuple[ContextMemory, ...]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Context:
        """Build it from the service's JSON."""
        memories = tuple(ContextMemory.from_json(item) for item in data["memories"])
        return cls(data["context"], data["tokens"], data["truncated"], memories)


@dataclass(frozen=True)
class ErasureReceipt:
    """What DELETE /users/{id} or /sessions/{id} erased: a count per kind of record."""

    user_id: str
    deleted: Mapping[str, int]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ErasureReceipt:
        """Build it from the service's JSON."""
        return cls(str(data["user_id"]), dict(data["deleted"]))


@dataclass(frozen=True)
class Health:
    """GET /health: `status` is ok, degraded or down; `checks` has one entry per dependency."""

    status: str
    checks: Mapping[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Whether the service can serve requests (the database answers)."""
        return self.status in ("ok", "degraded")

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Health:
        """Build it from the service's JSON."""
        return cls(data["status"], {k: v for k, v in data.items() if k != "status"})
