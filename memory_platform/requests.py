"""Traceable requests: one id per request, in the response, the logs and the jobs it starts.

`RequestIdMiddleware` (first in MIDDLEWARE) takes the caller's `X-Request-ID` when it is sane,
else makes one, keeps it in a context variable while the request is served (every log line
carries it, see `memory_platform.jsonlog`), answers it in the `X-Request-ID` header of every
response, errors included, and logs one access line per request. An extraction enqueued by
the request passes the id on to its Celery task (a message header), which serves under it too.
"""

from __future__ import annotations

import contextlib
import logging
import re
import time
import uuid
from collections.abc import Callable, Iterator
from contextvars import ContextVar

from django.http import HttpRequest, HttpResponse

HEADER = "X-Request-ID"
_META_KEY = "HTTP_X_REQUEST_ID"
# What a caller's id may look like; anything else is replaced, never echoed.
_SANE = re.compile(r"[A-Za-z0-9._:@/+=-]{1,128}")
# The Celery message header that carries the id to a task.
TASK_HEADER = "memory_request_id"

access_logger = logging.getLogger("memory_platform.requests")

_request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
_tenant: ContextVar[str | None] = ContextVar("request_tenant", default=None)


def request_id_new() -> str:
    return uuid.uuid4().hex


def request_id_sane(value: str | None) -> bool:
    return bool(value) and _SANE.fullmatch(value) is not None


def request_id_get() -> str | None:
    """The id of the request (or task) being served in this context, if any."""
    return _request_id.get()


def request_tenant_get() -> str | None:
    return _tenant.get()


def request_context_set_tenant(name: str) -> None:
    """Record the authenticated tenant of the request being served (for its access line)."""
    _tenant.set(name)


@contextlib.contextmanager
def request_context(request_id: str | None) -> Iterator[str]:
    """Serve under `request_id` (a new one when missing or not sane); restore on exit."""
    rid = request_id if request_id_sane(request_id) else request_id_new()
    id_token = _request_id.set(rid)
    tenant_token = _tenant.set(None)
    try:
        yield rid
    finally:
        _tenant.reset(tenant_token)
        _request_id.reset(id_token)


def _endpoint(request: HttpRequest) -> str:
    """The route template (`/memories/relevant`), never the query string (it holds prompts)."""
    match = getattr(request, "resolver_match", None)
    if match is not None and match.route:
        return "/" + match.route.lstrip("^").rstrip("$")
    return request.path[:200]


class RequestIdMiddleware:
    """Give every request an id, answer it in `X-Request-ID`, log one access line."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        with request_context(request.META.get(_META_KEY)) as rid:
            request.request_id = rid
            response = self.get_response(request)
            response[HEADER] = rid
            duration_ms = round((time.perf_counter() - started) * 1000, 1)
            status = response.status_code
            endpoint = _endpoint(request)
            access_logger.log(
                logging.WARNING if status >= 500 else logging.INFO,
                "%s %s %s %sms",
                request.method,
                endpoint,
                status,
                duration_ms,
                extra={
                    "request_id": rid,
                    "method": request.method,
                    "endpoint": endpoint,
                    "status": status,
                    "duration_ms": duration_ms,
                    "tenant": request_tenant_get(),
                },
            )
        return response
