"""The retry policy both clients share, and the one send step every operation goes through.

Which requests are safe to retry: the reads and the deletions are idempotent, and
POST /memories/extract is too, because the service keeps one extraction job per (user,
SHA-256 of the conversation) (`extraction_job_submit` in the service's extraction/jobs.py): a
retried conversation finds the first job and answers its result (200) without extracting
again, even when the first attempt is still running (the retry waits for the user's lock).
"""

from __future__ import annotations

import random
from collections.abc import Collection, Generator
from dataclasses import dataclass
from typing import NamedTuple

import httpx

from ._errors import APIConnectionError, MemoryPlatformError, error_from_response

__all__ = ["RETRY_STATUSES", "Call", "Outcome", "Reply", "RetryPolicy", "Sleep", "Step", "send"]

# 429: rate limited; 502: the LLM (or a proxy's upstream) failed; 503: the database is down;
# 504: a proxy timed out. Other statuses would fail the same way again.
RETRY_STATUSES = frozenset({429, 502, 503, 504})

# Transport errors raised before the request left: the service cannot have acted on it.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


@dataclass(frozen=True)
class Call:
    """One HTTP request of an operation, relative to the client's base URL."""

    method: str
    path: str
    params: dict[str, str] | None = None
    json: object = None


@dataclass(frozen=True)
class Sleep:
    """A pause an operation asks its driver for (a backoff, or between polls of a job)."""

    seconds: float


Step = Call | Sleep
# What a driver sends back into an operation: the response or transport error of a Call,
# None after a Sleep.
Outcome = httpx.Response | httpx.TransportError | None


class Reply(NamedTuple):
    """A response, and whether an earlier attempt of the same call may have been carried out."""

    response: httpx.Response
    repeated: bool


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry: Retry-After when the service gives one, else backoff."""

    max_retries: int = 3
    # Longest Retry-After the client waits; a longer one is raised at once (RateLimitError),
    # since retrying sooner than the service asked would only be refused again.
    max_retry_wait: float = 30.0
    backoff_base: float = 0.5
    backoff_max: float = 8.0

    def backoff(self, attempt: int) -> float:
        """Exponential backoff with jitter, so that clients refused together spread out."""
        ceiling = min(self.backoff_max, self.backoff_base * 2**attempt)
        return ceiling / 2 + random.uniform(0, ceiling / 2)

    def delay(self, attempt: int, error: MemoryPlatformError) -> float | None:
        """Seconds to wait before retrying after `error` on attempt `attempt`, or None: raise."""
        if attempt >= self.max_retries:
            return None
        if isinstance(error, APIConnectionError):
            # A URL the client cannot speak (not http:// or https://) would fail the same again.
            unusable = isinstance(error.__cause__, httpx.UnsupportedProtocol)
            return None if unusable else self.backoff(attempt)
        if error.status not in RETRY_STATUSES:
            return None
        if error.retry_after is not None:
            return error.retry_after if error.retry_after <= self.max_retry_wait else None
        return self.backoff(attempt)


def send(
    call: Call, policy: RetryPolicy, *, accept: Collection[int] = ()
) -> Generator[Step, Outcome, Reply]:
    """Send `call` until it succeeds (2xx or a status in `accept`) or the policy gives up."""
    repeated = False
    attempt = 0
    while True:
        outcome = yield call
        if isinstance(outcome, httpx.Response):
            if outcome.is_success or outcome.status_code in accept:
                return Reply(outcome, repeated)
            error = error_from_response(outcome)
        elif isinstance(outcome, httpx.TransportError):
            error = APIConnectionError(
                f"{type(outcome).__name__}: {outcome}", code="connection_error"
            )
            error.__cause__ = outcome
        else:
            raise TypeError(f"a driver sent {outcome!r} for a call")
        wait = policy.delay(attempt, error)
        if wait is None:
            raise error
        # A 502/504 or a lost answer may come after the service acted on the request.
        lost = isinstance(outcome, httpx.TransportError) and not isinstance(outcome, _NOT_SENT)
        repeated = repeated or lost or error.status in (502, 504)
        yield Sleep(wait)
        attempt += 1
