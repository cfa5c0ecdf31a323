"""MemoryClient: the synchronous client (httpx.Client)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Mapping
from types import TracebackType
from typing import Any, Literal, TypeVar, overload

import httpx

from ._core import ClientBase, Operation, UserId
from ._models import (
    Context,
    ErasureReceipt,
    Extraction,
    FullMemories,
    Health,
    Job,
    MemoryPage,
    QueuedJob,
    RelevantMemories,
)
from ._retry import Outcome, Sleep

__all__ = ["MemoryClient"]

T = TypeVar("T")


class MemoryClient(ClientBase[httpx.Client]):
    """The synchronous client of the memory service (constructor arguments: see ClientBase)."""

    _http_class = httpx.Client

    def _run(self, operation: Operation[T]) -> T:
        """Drive an operation: send its calls, sleep its pauses, return its result."""
        outcome: Outcome = None
        try:
            while True:
                step = operation.send(outcome)
                if isinstance(step, Sleep):
                    time.sleep(step.seconds)
                    outcome = None
                    continue
                try:
                    outcome = self._http.request(
                        step.method, step.path, params=step.params, json=step.json
                    )
                except httpx.TransportError as exc:
                    outcome = exc
        except StopIteration as stop:
            return stop.value

    def close(self) -> None:
        """Close the connections."""
        self._http.close()

    def __enter__(self) -> MemoryClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    @overload
    def extract(
        self,
        user_id: UserId,
        conversation: Iterable[Mapping[str, str]],
        *,
        session_id: str | None = None,
        wait: Literal[True] = True,
    ) -> Extraction: ...
    @overload
    def extract(
        self,
        user_id: UserId,
        conversation: Iterable[Mapping[str, str]],
        *,
        session_id: str | None = None,
        wait: bool,
    ) -> Extraction | QueuedJob: ...
    def extract(
        self,
        user_id: UserId,
        conversation: Iterable[Mapping[str, str]],
        *,
        session_id: str | None = None,
        wait: bool = True,
    ) -> Extraction | QueuedJob:
        """Remember a finished conversation; wait=False queues it and may return a QueuedJob."""
        return self._run(self._ops.extract(user_id, conversation, session_id=session_id, wait=wait))

    def job(self, job_id: str | uuid.UUID) -> Job:
        """The state of an extraction job."""
        return self._run(self._ops.job(job_id))

    def wait_for_job(self, job_id: str | uuid.UUID, *, timeout: float = 120.0) -> Job:
        """Poll a job until it succeeds or fails (TimeoutError after `timeout` seconds)."""
        return self._run(self._ops.wait_for_job(job_id, timeout=timeout))

    def relevant(
        self, user_id: UserId, prompt: str, *, limit: int | None = None, explain: bool = False
    ) -> RelevantMemories:
        """The user's memories most relevant to a prompt, best first."""
        return self._run(self._ops.relevant(user_id, prompt, limit=limit, explain=explain))

    def full(self, user_id: UserId, ids: Iterable[str]) -> FullMemories:
        """The full text of the given memories of the user, in the order asked."""
        return self._run(self._ops.full(user_id, ids))

    def list_memories(
        self, user_id: UserId, *, limit: int | None = None, offset: int | None = None
    ) -> MemoryPage:
        """A page of the user's memories, newest first."""
        return self._run(self._ops.list_memories(user_id, limit=limit, offset=offset))

    def delete(self, user_id: UserId, memory_id: str) -> None:
        """Forget one memory of the user, for real (NotFoundError if not theirs)."""
        return self._run(self._ops.delete(user_id, memory_id))

    def context(
        self, user_id: UserId, prompt: str, *, max_tokens: int = 1000, session_id: str | None = None
    ) -> Context:
        """A context block of the user's memories for a prompt, within `max_tokens`."""
        return self._run(
            self._ops.context(user_id, prompt, max_tokens=max_tokens, session_id=session_id)
        )

    def erase_user(self, user_id: UserId) -> ErasureReceipt:
        """Erase everything the service holds about a user."""
        return self._run(self._ops.erase_user(user_id))

    def erase_session(self, user_id: UserId, session_id: str) -> ErasureReceipt:
        """Erase the memories that came from one session of a user."""
        return self._run(self._ops.erase_session(user_id, session_id))

    def tools(self) -> list[dict[str, Any]]:
        """The service's tools as OpenAI function-calling schemas."""
        return self._run(self._ops.tools())

    def call_tool(self, name: str, arguments: Mapping[str, Any]) -> Any:
        """Run one of the service's tools and return its JSON result."""
        return self._run(self._ops.call_tool(name, arguments))

    def health(self) -> Health:
        """The service's health report (no API key needed; a down database is status 'down')."""
        return self._run(self._ops.health())
