"""System checks that find startup problems and say how to fix them."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, Warning, register


@register()
def check_llm_configuration(app_configs: Any = None, **kwargs: Any) -> list:
    """The LLM extractor and rerank modes need an API key."""
    problems = []
    if settings.MEMORY_EXTRACTOR == "llm" and not settings.OPENAI_API_KEY:
        problems.append(
            Error(
                "MEMORY_EXTRACTOR=llm but OPENAI_API_KEY is not set.",
                hint="Set OPENAI_API_KEY (and OPENAI_BASE_URL for a non-OpenAI server), "
                "or use MEMORY_EXTRACTOR=rules for the offline extractor.",
                id="memory_platform.E001",
            )
        )
    if settings.RECALL_MODE in {"llm", "hybrid+llm"} and not settings.OPENAI_API_KEY:
        problems.append(
            Error(
                f"RECALL_MODE={settings.RECALL_MODE} needs an LLM but OPENAI_API_KEY is not set.",
                hint="Set OPENAI_API_KEY or use RECALL_MODE=hybrid.",
                id="memory_platform.E002",
            )
        )
    if settings.MEMORY_EMBEDDER == "openai" and not settings.OPENAI_API_KEY:
        problems.append(
            Error(
                "MEMORY_EMBEDDER=openai but OPENAI_API_KEY is not set.",
                hint="Set OPENAI_API_KEY or use MEMORY_EMBEDDER=local (offline, the default).",
                id="memory_platform.E003",
            )
        )
    return problems


@register(deploy=True)
def check_production_services(app_configs: Any = None, **kwargs: Any) -> list:
    """A deployment should run on real PostgreSQL and Redis, not the embedded defaults."""
    problems = []
    if settings.EMBEDDED_POSTGRES:
        problems.append(
            Warning(
                "The embedded PostgreSQL is meant for local use.",
                hint="Set DATABASE_URL to a PostgreSQL server with the pgvector extension.",
                id="memory_platform.W001",
            )
        )
    if settings.EMBEDDED_REDIS:
        problems.append(
            Warning(
                "The embedded Valkey is meant for local use: it runs on this machine only.",
                hint="Set REDIS_URL to a Redis server that every web and worker machine reaches.",
                id="memory_platform.W003",
            )
        )
    elif not settings.REDIS_URL:
        problems.append(
            Warning(
                "Without REDIS_URL the recall cache is per process, rate limits are counted in "
                "files under the data directory and tasks run inline.",
                hint="Set REDIS_URL so that every web and worker process shares them.",
                id="memory_platform.W002",
            )
        )
    return problems


@register()
def check_embedded_redis(app_configs: Any = None, **kwargs: Any) -> list:
    """An embedded Valkey that was asked for but could not start is said, with the fallback."""
    if not settings.EMBEDDED_REDIS_ERROR:
        return []
    return [
        Warning(
            f"The embedded Valkey could not start: {settings.EMBEDDED_REDIS_ERROR}",
            hint="Running without it: rate limits are counted in files under the data "
            "directory, the recall cache is per process and tasks run inline. Fix the cause, "
            "or set REDIS_URL to a Redis server.",
            id="memory_platform.W004",
        )
    ]
