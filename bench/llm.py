"""Which LLM a bench talks to, and what the LLM cost it item by item.

Every bench that has an LLM path takes the same options (`llm_arguments_add`): a real
OpenAI-compatible server (`--llm-base-url`, `--llm-model`, `--llm-api-key`, `--llm-timeout`,
each falling back to the service's own variable: OPENAI_BASE_URL, MEMORY_LLM_MODEL,
OPENAI_API_KEY, MEMORY_LLM_TIMEOUT). With no base URL from either (or `--llm-base-url stub`)
the bench keeps its in-process stub, as CI runs it.

Usage is read from what the service itself counts (`integrations.llm.LLMUsage`: the attempts
and tokens of every `ChatResult` or `LLMError`), never from the HTTP layer.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.management.base import CommandError, CommandParser
from django.test.utils import override_settings

from integrations.llm import LLMUsage

DEFAULT_API_KEY = "local"
# `--llm-base-url stub` keeps the stub even when OPENAI_BASE_URL is set.
STUB = "stub"


@dataclass(frozen=True)
class LLMServer:
    """A real OpenAI-compatible chat server the bench runs against."""

    base_url: str
    model: str
    api_key: str
    timeout: float

    def describe(self) -> str:
        """How the output names it: base URL and model."""
        return f"{self.base_url} (model {self.model})"

    @contextmanager
    def configured(self, **extra: Any) -> Iterator[None]:
        """The Django settings `integrations.llm` reads, pointed at this server for the run."""
        with override_settings(
            OPENAI_BASE_URL=self.base_url,
            OPENAI_API_KEY=self.api_key,
            MEMORY_LLM_MODEL=self.model,
            MEMORY_LLM_TIMEOUT=self.timeout,
            **extra,
        ):
            yield


def llm_arguments_add(parser: CommandParser) -> None:
    """The options that point a bench at a real server instead of its stub."""
    group = parser.add_argument_group(
        "LLM server",
        "Run the LLM path against an OpenAI-compatible server instead of the in-process stub. "
        "Each option falls back to the service's own variable; with no base URL at all (or "
        f"--llm-base-url {STUB}) the stub answers.",
    )
    group.add_argument(
        "--llm-base-url",
        help="e.g. http://127.0.0.1:8080/v1 (default: OPENAI_BASE_URL; unset: the stub)",
    )
    group.add_argument("--llm-model", help="model name (default: MEMORY_LLM_MODEL)")
    group.add_argument(
        "--llm-api-key",
        help=f"API key (default: OPENAI_API_KEY, else {DEFAULT_API_KEY!r}, which local "
        "servers accept)",
    )
    group.add_argument(
        "--llm-timeout",
        type=float,
        help="seconds per HTTP request (default: MEMORY_LLM_TIMEOUT); a small model on a "
        "busy CPU needs more than the service's 30",
    )


def llm_server(options: dict[str, Any]) -> LLMServer | None:
    """The server the options (or the service's variables) name; None for the stub."""
    base_url = (options.get("llm_base_url") or settings.OPENAI_BASE_URL or "").strip()
    if not base_url or base_url == STUB:
        return None
    if not base_url.startswith(("http://", "https://")):
        raise CommandError(f"--llm-base-url {base_url!r} is not an http(s) URL (or {STUB!r})")
    timeout = options.get("llm_timeout")
    timeout = float(settings.MEMORY_LLM_TIMEOUT) if timeout is None else timeout
    if timeout <= 0:
        raise CommandError("--llm-timeout must be positive")
    return LLMServer(
        base_url=base_url.rstrip("/"),
        model=options.get("llm_model") or settings.MEMORY_LLM_MODEL,
        api_key=options.get("llm_api_key") or settings.OPENAI_API_KEY or DEFAULT_API_KEY,
        timeout=timeout,
    )


@dataclass
class ItemCost(LLMUsage):
    """What one bench item cost: LLM requests and tokens (as the service counts them) and
    wall-clock seconds."""

    seconds: float = 0.0

    def add_usage(self, usage: LLMUsage) -> None:
        """Count what another usage counted."""
        self.add(
            llm_calls=usage.llm_calls,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
        )

    def as_dict(self) -> dict[str, Any]:
        """The per-item figures of the JSON output."""
        return {**self.counts(), "seconds": round(self.seconds, 3)}


def cost_summary(costs: Iterable[ItemCost]) -> dict[str, Any]:
    """Totals over the items, and means per item."""
    costs = list(costs)
    count = len(costs)
    totals = {
        "llm_calls": sum(c.llm_calls for c in costs),
        "prompt_tokens": sum(c.prompt_tokens for c in costs),
        "completion_tokens": sum(c.completion_tokens for c in costs),
        "seconds": sum(c.seconds for c in costs),
    }
    means = {key: value / count if count else 0.0 for key, value in totals.items()}
    return {
        "items": count,
        **{key: round(value, 3) if key == "seconds" else value for key, value in totals.items()},
        "mean": {key: round(value, 3) for key, value in means.items()},
    }


def cost_line(summary: dict[str, Any], *, item: str = "item") -> str:
    """One line of totals and means, for the text output."""
    mean = summary["mean"]
    return (
        f"LLM calls {summary['llm_calls']}, tokens {summary['prompt_tokens']} prompt + "
        f"{summary['completion_tokens']} completion, {summary['seconds']:.2f} s over "
        f"{summary['items']} {item}s; per {item}: {mean['llm_calls']:.2f} calls, "
        f"{mean['prompt_tokens']:.1f} + {mean['completion_tokens']:.1f} tokens, "
        f"{mean['seconds']:.3f} s"
    )
