"""The exceptions the clients raise: one per kind of failure, each carrying the service's code."""

from __future__ import annotations

import email.utils
import math
import time
from typing import Any

import httpx

__all__ = [
    "APIConnectionError",
    "AuthenticationError",
    "MemoryPlatformError",
    "NotFoundError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "RateLimitError",
    "ServerError",
    "ValidationError",
    "error_from_response",
    "parse_retry_after",
]


class MemoryPlatformError(Exception):
    """A request the service refused or could not answer; `code` is its machine-readable reason."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str = "error",
        request_id: str | None = None,
        retry_after: float | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.request_id = request_id
        self.retry_after = retry_after
        # The error body's other fields: `fields` of a 400, `job_id` of a failed extraction.
        self.details: dict[str, Any] = details or {}

    def __str__(self) -> str:
        status = f"{self.status} " if self.status is not None else ""
        return f"{status}{self.code}: {self.message}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status!r}, code={self.code!r})"


class ValidationError(MemoryPlatformError):
    """400: the request was malformed (bad user_id, empty conversation, bad limit...)."""


class AuthenticationError(MemoryPlatformError):
    """401: the API key is missing, unknown or revoked."""


class PermissionDeniedError(MemoryPlatformError):
    """403: the API key may not do this."""


class NotFoundError(MemoryPlatformError):
    """404: no such memory or job for this API key's tenant (or no such endpoint)."""


class PayloadTooLargeError(MemoryPlatformError):
    """413: the request body is over the service's size limit."""


class RateLimitError(MemoryPlatformError):
    """429: too many requests for this user_id; `retry_after` says how many seconds to wait."""


class ServerError(MemoryPlatformError):
    """5xx: the service or one of its dependencies (LLM, database) failed."""


class APIConnectionError(MemoryPlatformError):
    """The service could not be reached, or did not answer in time."""


_BY_STATUS: dict[int, type[MemoryPlatformError]] = {
    400: ValidationError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    413: PayloadTooLargeError,
    429: RateLimitError,
}


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date), or None."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    return max(0.0, seconds) if math.isfinite(seconds) else None


def error_from_response(response: httpx.Response) -> MemoryPlatformError:
    """The exception for an error response, from the service's `{"error": {...}}` body."""
    status = response.status_code
    try:
        body = response.json()["error"]
        code, message = str(body["code"]), str(body["message"])
        details = {k: v for k, v in body.items() if k not in ("code", "message")}
    except (ValueError, KeyError, TypeError):
        # Not the service's shape: a proxy or load balancer answered.
        code = f"http_{status}"
        message = response.text[:200].strip() or response.reason_phrase or "HTTP error"
        details = {}
    cls = _BY_STATUS.get(status) or (ServerError if status >= 500 else MemoryPlatformError)
    return cls(
        message,
        status=status,
        code=code,
        request_id=response.headers.get("X-Request-ID"),
        retry_after=parse_retry_after(response.headers.get("Retry-After")),
        details=details,
    )
