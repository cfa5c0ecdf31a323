"""The one client for chat completions, against any OpenAI-compatible server.

It uses the Chat Completions API (not the Responses API) because that is what Chutes, Ollama
and vLLM implement. Every failure surfaces as an `LLMError`:

- `LLMUnavailable`: timeouts, connection errors, 408/409/429/5xx, after bounded retries.
- `LLMBadResponse`: the server answered 200 but the reply is unusable (not JSON, no choices,
  no content), after the same bounded retries.
- `LLMRejected`: any other 4xx (bad key, unknown model, request too large); never retried,
  because sending the same request again cannot succeed.

Retries are our own loop rather than the openai client's, so that every HTTP attempt is
counted (jobs record LLM calls) and malformed bodies are retried like transient errors.
"""

from __future__ import annotations

import email.utils
import json
import logging
import math
import random
import re
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypedDict, cast

import openai
from django.conf import settings
from openai.types.chat import ChatCompletionMessageParam

from core.metrics import LLM_CALLS, LLM_FAILURES, LLM_TOKENS
from core.requests import request_tenant_get

logger = logging.getLogger(__name__)

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
# Server-directed waits longer than this are not slept through: the caller retries later.
MAX_RETRY_AFTER = 60.0
MAX_BACKOFF = 8.0
_RETRYABLE_STATUSES = frozenset({408, 409, 429})


class LLMError(Exception):
    """Base of every LLM failure; `attempts` counts the HTTP requests made, tokens their cost."""

    def __init__(
        self,
        message: str,
        *,
        attempts: int = 0,
        status_code: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.attempts = attempts
        self.status_code = status_code
        # Seconds the server asked us to wait, so a task can schedule its retry accordingly.
        self.retry_after = retry_after
        # Usage of replies that were received but could not be used (set by callers).
        self.prompt_tokens = 0
        self.completion_tokens = 0


class LLMUnavailable(LLMError):
    """The server could not be reached or kept failing (timeouts, 429, 5xx)."""


class LLMBadResponse(LLMError):
    """The server answered but the reply cannot be used."""


class LLMRejected(LLMError):
    """The server refused the request itself (4xx); retrying the same request is pointless."""


@dataclass(frozen=True)
class ChatResult:
    """The assistant's text of one completion, with the usage it cost."""

    content: str
    prompt_tokens: int
    completion_tokens: int
    model: str
    attempts: int = 1
    finish_reason: str | None = None

    @property
    def truncated(self) -> bool:
        """True when the reply stopped at max_tokens."""
        return self.finish_reason == "length"


class UsageCounts(TypedDict):
    """LLM usage as a tenant's usage counters, by their names (`TenantUsage.COUNTERS`)."""

    llm_calls: int
    prompt_tokens: int
    completion_tokens: int


@dataclass
class LLMUsage:
    """What some LLM exchanges cost: HTTP requests made and the tokens the server reported."""

    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def add(self, *, llm_calls: int, prompt_tokens: int, completion_tokens: int) -> None:
        """Count one more LLM exchange."""
        self.llm_calls += llm_calls
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens

    def add_reply(self, result: ChatResult) -> None:
        """Count a completion, with every attempt it took."""
        self.add(
            llm_calls=result.attempts,
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
        )

    def add_error(self, error: LLMError) -> None:
        """Count a failed exchange: its attempts and the tokens of replies that were unusable."""
        self.add(
            llm_calls=error.attempts,
            prompt_tokens=error.prompt_tokens,
            completion_tokens=error.completion_tokens,
        )

    def counts(self) -> UsageCounts:
        """As a tenant's usage counters (`tenants.services.tenant_usage_add`)."""
        return {
            "llm_calls": self.llm_calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
        }


def llm_configured() -> bool:
    """True when an LLM server is configured (an API key is set; any key for local servers)."""
    return bool(settings.OPENAI_API_KEY)


# How a server takes `response_format`, from the most to the least structured. The first one
# a server refuses is remembered (per server and model) and the next one tried.
FORMAT_MODES = ("json_schema", "json_object", "none")
_format_modes: dict[tuple[str, str], str] = {}


def response_format_mode(base_url: str, model: str) -> str:
    """The structured-output mode this server and model are known to accept."""
    return _format_modes.get((base_url, model), FORMAT_MODES[0])


def _response_format(mode: str, name: str, schema: dict | None) -> dict[str, Any]:
    if schema is None or mode == "none":
        return {}
    if mode == "json_object":
        return {"response_format": {"type": "json_object"}}
    return {
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema, "strict": True},
        }
    }


def chat(
    messages: list[dict],
    *,
    max_tokens: int = 1000,
    temperature: float = 0.1,
    model: str | None = None,
    json_schema: dict | None = None,
    schema_name: str = "reply",
) -> ChatResult:
    """Run one chat completion with timeouts and bounded retries; raise LLMError on failure.

    With `json_schema` (an object schema) the reply is asked for as JSON through
    `response_format`: the schema where the server supports it, else a plain JSON object,
    else nothing (the prompt still asks for JSON and callers parse defensively).
    """
    if not llm_configured():
        raise LLMUnavailable("no LLM configured: OPENAI_API_KEY is empty")
    base_url = settings.OPENAI_BASE_URL or OPENAI_DEFAULT_BASE_URL
    client = _client(settings.OPENAI_API_KEY, base_url, float(settings.MEMORY_LLM_TIMEOUT))
    model = model or settings.MEMORY_LLM_MODEL
    max_attempts = 1 + max(0, int(settings.MEMORY_LLM_MAX_RETRIES))
    token_param = "max_tokens"
    mode = response_format_mode(base_url, model)
    attempt = 0
    tenant = request_tenant_get() or "unknown"
    while True:
        attempt += 1
        LLM_CALLS.labels(tenant, model).inc()
        try:
            options = {token_param: max_tokens, **_response_format(mode, schema_name, json_schema)}
            response = client.chat.completions.create(
                model=model,
                # The callers' {"role", "content"} dicts: the SDK's message params, untyped.
                messages=cast(list[ChatCompletionMessageParam], messages),
                temperature=temperature,
                **options,
            )
            result = _result(response, model, attempt)
            LLM_TOKENS.labels(tenant, model, "prompt").inc(result.prompt_tokens)
            LLM_TOKENS.labels(tenant, model, "completion").inc(result.completion_tokens)
            return result
        except openai.APIStatusError as exc:
            LLM_FAILURES.labels(tenant, model, _failure_kind(exc)).inc()
            if _wants_max_completion_tokens(exc, token_param):
                # Newer OpenAI models refuse `max_tokens`; everything else only knows it.
                token_param = "max_completion_tokens"
                max_attempts += 1
                continue
            if json_schema is not None and mode != "none" and _refuses_format(exc):
                mode = FORMAT_MODES[FORMAT_MODES.index(mode) + 1]
                _format_modes[(base_url, model)] = mode
                logger.info("LLM server refused that response_format; using %s from now", mode)
                max_attempts += 1
                continue
            failure = _status_failure(exc, attempt)
        except openai.APIConnectionError as exc:
            # APITimeoutError is a subclass: a slow server and a dead one are both unavailable.
            kind = "timed out" if isinstance(exc, openai.APITimeoutError) else "connection failed"
            failure = LLMUnavailable(f"LLM request {kind}: {exc}", attempts=attempt)
            LLM_FAILURES.labels(tenant, model, "unavailable").inc()
        except LLMBadResponse as exc:
            exc.attempts = attempt
            failure = exc
            LLM_FAILURES.labels(tenant, model, "bad_response").inc()
        except (openai.OpenAIError, ValueError) as exc:
            # A 200 whose body is not JSON surfaces from the client as a bare ValueError.
            failure = LLMBadResponse(f"LLM reply is not a completion: {exc}", attempts=attempt)
            LLM_FAILURES.labels(tenant, model, "bad_response").inc()

        if isinstance(failure, LLMRejected) or attempt >= max_attempts:
            raise failure
        delay = _retry_delay(attempt, failure.retry_after)
        if delay is None:
            raise failure
        logger.warning(
            "LLM attempt %d/%d failed (%s); retrying in %.2fs",
            attempt,
            max_attempts,
            type(failure).__name__,
            delay,
        )
        time.sleep(delay)


@lru_cache(maxsize=8)
def _client(api_key: str, base_url: str, timeout: float) -> openai.OpenAI:
    """One openai client per configuration; settings changes get a new one."""
    return openai.OpenAI(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0)


def _result(response: Any, requested_model: str, attempts: int) -> ChatResult:
    """Turn a completion into a ChatResult, or raise LLMBadResponse if it is unusable."""
    choices = getattr(response, "choices", None)
    if not choices:
        raise LLMBadResponse("LLM reply has no choices")
    choice = choices[0]
    message = getattr(choice, "message", None)
    text = getattr(message, "content", None)
    finish_reason = getattr(choice, "finish_reason", None)
    if not isinstance(text, str) or not text.strip():
        reason = (
            "it spent max_tokens reasoning"
            if getattr(message, "reasoning_content", None) or finish_reason == "length"
            else f"finish_reason={finish_reason!r}"
        )
        raise LLMBadResponse(f"LLM reply has no text content ({reason})")
    usage = getattr(response, "usage", None)
    return ChatResult(
        content=text,
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        model=getattr(response, "model", None) or requested_model,
        attempts=attempts,
        finish_reason=finish_reason,
    )


def _failure_kind(exc: openai.APIStatusError) -> str:
    """A refused request's kind (metrics label, and which error `_status_failure` raises)."""
    status = exc.status_code
    return "unavailable" if status in _RETRYABLE_STATUSES or status >= 500 else "rejected"


def _status_failure(exc: openai.APIStatusError, attempt: int) -> LLMError:
    status = exc.status_code
    detail = f"LLM server answered {status}: {exc.message}"
    if _failure_kind(exc) == "unavailable":
        retry_after = _parse_retry_after(exc.response.headers)
        return LLMUnavailable(detail, attempts=attempt, status_code=status, retry_after=retry_after)
    return LLMRejected(detail, attempts=attempt, status_code=status)


def _wants_max_completion_tokens(exc: openai.APIStatusError, token_param: str) -> bool:
    return (
        token_param == "max_tokens"
        and exc.status_code == 400
        and (exc.param == "max_tokens" or "max_completion_tokens" in str(exc.message))
    )


def _refuses_format(exc: openai.APIStatusError) -> bool:
    """Whether a 4xx says the server does not take this `response_format`."""
    if exc.status_code not in (400, 404, 415, 422, 501):
        return False
    text = f"{exc.param or ''} {exc.message or ''} {exc.body or ''}".lower()
    return any(word in text for word in ("response_format", "json_schema", "json_object"))


def _parse_retry_after(headers: Any) -> float | None:
    """Seconds the server asked us to wait (retry-after-ms, then Retry-After), if any."""
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / divisor
        except ValueError:
            parsed = email.utils.parsedate_tz(value)
            if parsed is None:
                continue
            seconds = email.utils.mktime_tz(parsed) - time.time()
        if math.isfinite(seconds):
            return max(0.0, seconds)
    return None


def _retry_delay(attempt: int, retry_after: float | None) -> float | None:
    """How long to wait before the next attempt; None when the server asks for too long."""
    if retry_after is not None:
        return retry_after if retry_after <= MAX_RETRY_AFTER else None
    base = float(settings.MEMORY_LLM_BACKOFF)
    delay = min(base * 2 ** (attempt - 1), MAX_BACKOFF)
    # Jitter spreads out workers that failed together so they don't retry in lockstep.
    return delay * (1 - 0.25 * random.random())


# --- quoting data into prompts and reading replies -------------------------------------------

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)


def quote_json(value: Any) -> str:
    """JSON with `<` and `>` escaped, so quoted text cannot open or close a delimiter."""
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e")


def strip_reasoning(text: str) -> str:
    """Remove reasoning-model <think> blocks; an unclosed one means there is no answer yet."""
    text = _THINK.sub("", text)
    opened = text.lower().find("<think>")
    return text[:opened] if opened != -1 else text
