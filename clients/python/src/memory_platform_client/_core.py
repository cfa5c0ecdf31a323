"""What the sync and async clients share: settings, and every endpoint as an *operation*.

An operation is a generator that yields the HTTP calls and pauses it needs and is sent back
their outcomes, the way httpx's own auth flows work. It builds the requests, retries them
(`_retry.send`), polls jobs and parses the responses; it does no I/O. The clients only drive
operations: `MemoryClient` with httpx.Client and time.sleep, `AsyncMemoryClient` with
httpx.AsyncClient and asyncio.sleep. So both behave the same by construction.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Generator, Iterable, Mapping
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx

from ._errors import MemoryPlatformError, ServerError, error_from_response
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
from ._retry import Call, Outcome, RetryPolicy, Sleep, Step, send

__all__ = ["VERSION", "ClientBase", "Operation", "Operations", "UserId"]

DISTRIBUTION = "memory-platform-client"
# When the package runs from a source tree (the service's tests put src/ on the path), it has
# no installed metadata: a local version that no release can be mistaken for.
UNKNOWN_VERSION = "0+unknown"


def _installed_version() -> str:
    """The installed distribution's version: pyproject.toml's, the one place it is written."""
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return UNKNOWN_VERSION


VERSION = _installed_version()
DEFAULT_BASE_URL = "http://127.0.0.1:8000"
URL_ENV = "MEMORY_PLATFORM_URL"
API_KEY_ENV = "MEMORY_PLATFORM_API_KEY"
# How long extract(wait=True) polls a job when the service extracts asynchronously anyway.
JOB_WAIT_SECONDS = 120.0

T = TypeVar("T")
H = TypeVar("H", httpx.Client, httpx.AsyncClient)
Operation = Generator[Step, Outcome, T]
UserId = str | uuid.UUID


def _segment(value: object) -> str:
    """A value as one path segment, whatever characters it holds."""
    return quote(str(value), safe="")


def _parsed(response: httpx.Response, parse: Callable[[Any], T]) -> T:
    """The response's JSON parsed, or an error naming what the service answered instead."""
    try:
        return parse(response.json())
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise MemoryPlatformError(
            f"Unexpected answer to {response.request.method} {response.request.url.path} "
            f"({response.status_code}): {type(exc).__name__}: {exc}",
            status=response.status_code,
            code="invalid_response",
            request_id=response.headers.get("X-Request-ID"),
        ) from exc


def _tool_list(data: Any) -> list[dict[str, Any]]:
    tools = data["tools"] if isinstance(data, dict) else data
    if not isinstance(tools, list):
        raise TypeError(f"expected a list of tools, got {type(tools).__name__}")
    return tools


class Operations:
    """Every endpoint of the service as an operation, under one retry policy."""

    def __init__(self, policy: RetryPolicy) -> None:
        self.policy = policy

    def _fetch(self, call: Call, parse: Callable[[Any], T]) -> Operation[T]:
        reply = yield from send(call, self.policy)
        return _parsed(reply.response, parse)

    def extract(
        self,
        user_id: UserId,
        conversation: Iterable[Mapping[str, str]],
        *,
        session_id: str | None,
        wait: bool,
    ) -> Operation[Extraction | QueuedJob]:
        """POST /memories/extract; with `wait`, follow a job the service queued to its end."""
        body: dict[str, Any] = {
            "user_id": str(user_id),
            "conversation": [{"role": m["role"], "content": m["content"]} for m in conversation],
        }
        if session_id is not None:
            body["session_id"] = session_id
        call = Call("POST", "/memories/extract", None if wait else {"async": "1"}, body)
        reply = yield from send(call, self.policy)
        status = reply.response.status_code
        if status != 202:
            # 200: the service had extracted this conversation before (maybe on a lost attempt).
            replayed = status == 200
            return _parsed(reply.response, lambda d: Extraction.from_json(d, replayed=replayed))
        queued = _parsed(reply.response, QueuedJob.from_json)
        if not wait:
            return queued
        # The service extracts asynchronously by configuration (MEMORY_ASYNC_EXTRACTION).
        job = yield from self.wait_for_job(queued.job_id, timeout=JOB_WAIT_SECONDS)
        if job.status != "succeeded":
            raise ServerError(
                job.error or "The extraction failed; the service kept the conversation.",
                status=502,
                code="upstream_unavailable",
                details={"job_id": job.job_id},
            )
        return Extraction(job.memories_saved, job.total_user_memories, job_id=job.job_id)

    def job(self, job_id: str | uuid.UUID) -> Operation[Job]:
        """GET /memories/jobs/{id}."""
        return self._fetch(Call("GET", f"/memories/jobs/{_segment(job_id)}"), Job.from_json)

    def wait_for_job(
        self, job_id: str | uuid.UUID, *, timeout: float, interval: float = 0.25
    ) -> Operation[Job]:
        """Poll a job until it succeeds or fails; TimeoutError after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            job = yield from self.job(job_id)
            if job.done:
                return job
            if time.monotonic() + interval > deadline:
                raise TimeoutError(f"Job {job_id} is still {job.status} after {timeout:g} s.")
            yield Sleep(interval)
            interval = min(interval * 2, 2.0)

    def relevant(
        self, user_id: UserId, prompt: str, *, limit: int | None, explain: bool
    ) -> Operation[RelevantMemories]:
        """GET /memories/relevant."""
        params = {"user_id": str(user_id), "prompt": prompt}
        if limit is not None:
            params["limit"] = str(limit)
        if explain:
            params["explain"] = "true"
        call = Call("GET", "/memories/relevant", params)
        return self._fetch(call, RelevantMemories.from_json)

    def full(self, user_id: UserId, ids: Iterable[str]) -> Operation[FullMemories]:
        """GET /memories/full; asking for no ids answers nothing without a request."""
        ids = [ids] if isinstance(ids, str) else list(ids)  # one id given as a string
        if not ids:
            return FullMemories(())
        call = Call("GET", "/memories/full", {"user_id": str(user_id), "ids": ",".join(ids)})
        return (yield from self._fetch(call, FullMemories.from_json))

    def list_memories(
        self, user_id: UserId, *, limit: int | None, offset: int | None
    ) -> Operation[MemoryPage]:
        """GET /memories/list."""
        params = {"user_id": str(user_id)}
        if limit is not None:
            params["limit"] = str(limit)
        if offset is not None:
            params["offset"] = str(offset)
        return self._fetch(Call("GET", "/memories/list", params), MemoryPage.from_json)

    def _delete(self, call: Call) -> Operation[httpx.Response | None]:
        """Send a deletion; None when it is a 404 to a retry (the thing is gone either way)."""
        reply = yield from send(call, self.policy, accept={404})
        if reply.response.status_code != 404:
            return reply.response
        if reply.repeated:
            return None  # an earlier attempt, whose answer was lost, may have deleted it
        raise error_from_response(reply.response)

    def delete(self, user_id: UserId, memory_id: str) -> Operation[None]:
        """DELETE /memories/{id}."""
        call = Call("DELETE", f"/memories/{_segment(memory_id)}", {"user_id": str(user_id)})
        yield from self._delete(call)

    def context(
        self, user_id: UserId, prompt: str, *, max_tokens: int, session_id: str | None
    ) -> Operation[Context]:
        """GET /memories/context."""
        params = {"user_id": str(user_id), "prompt": prompt, "max_tokens": str(max_tokens)}
        if session_id is not None:
            params["session_id"] = session_id
        return self._fetch(Call("GET", "/memories/context", params), Context.from_json)

    def _erase(self, call: Call, user_id: UserId) -> Operation[ErasureReceipt]:
        response = yield from self._delete(call)
        if response is None:
            return ErasureReceipt(str(user_id), {})  # erased by an attempt whose receipt was lost
        return _parsed(response, ErasureReceipt.from_json)

    def erase_user(self, user_id: UserId) -> Operation[ErasureReceipt]:
        """DELETE /users/{user_id}."""
        return self._erase(Call("DELETE", f"/users/{_segment(user_id)}"), user_id)

    def erase_session(self, user_id: UserId, session_id: str) -> Operation[ErasureReceipt]:
        """DELETE /sessions/{session_id}?user_id=."""
        call = Call("DELETE", f"/sessions/{_segment(session_id)}", {"user_id": str(user_id)})
        return self._erase(call, user_id)

    def tools(self) -> Operation[list[dict[str, Any]]]:
        """GET /tools."""
        return self._fetch(Call("GET", "/tools"), _tool_list)

    def call_tool(self, name: str, arguments: Mapping[str, Any]) -> Operation[Any]:
        """POST /tools/call."""
        call = Call("POST", "/tools/call", json={"name": name, "arguments": dict(arguments)})
        return self._fetch(call, lambda data: data)

    def health(self) -> Operation[Health]:
        """GET /health; a 503 (database down) is a report, not an error, and is not retried."""
        reply = yield from send(Call("GET", "/health"), self.policy, accept={503})
        return _parsed(reply.response, Health.from_json)


class ClientBase(Generic[H]):
    """What both clients take; base_url and api_key default to the MEMORY_PLATFORM_* variables."""

    _http_class: type[H]

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = 10.0,
        max_retries: int = 3,
        max_retry_wait: float = 30.0,
    ) -> None:
        api_key = api_key if api_key is not None else os.environ.get(API_KEY_ENV)
        headers = {"User-Agent": f"memory-platform-client/{VERSION}", "Accept": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._http: H = self._http_class(
            base_url=base_url or os.environ.get(URL_ENV) or DEFAULT_BASE_URL,
            headers=headers,
            timeout=timeout,
        )
        self._ops = Operations(RetryPolicy(max_retries=max_retries, max_retry_wait=max_retry_wait))

    @property
    def base_url(self) -> str:
        """The service's address."""
        return str(self._http.base_url)
