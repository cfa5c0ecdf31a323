"""Prometheus metrics: every metric defined once, and the protected `/metrics` view.

Several processes serve (gunicorn workers, Celery workers), so the client runs in its
multi-process mode: each process writes its samples to files under `PROMETHEUS_MULTIPROC_DIR`
(set by the settings before anything imports prometheus_client) and a scrape sums them. Figures
that live in the database (the review queue, memories per status, jobs per status) are read at
scrape time by collectors the apps register (`scrape_collector_register`), never kept in a
process. No metric is a per-process gauge, so nothing needs gunicorn's `child_exit` hook
(`mark_process_dead`): a dead worker's counters stay summed, as Prometheus expects.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
from collections.abc import Iterable, Iterator

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from core.exceptions import error_body

# Request latencies are milliseconds to seconds; extraction jobs (LLM calls) seconds to minutes.
_FAST = (0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_SLOW = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)

HTTP_REQUESTS = Counter(
    "memory_http_requests",
    "HTTP requests served, by method, route and status.",
    ["method", "endpoint", "status"],
)
HTTP_DURATION = Histogram(
    "memory_http_request_duration_seconds",
    "Time to serve an HTTP request, by method and route.",
    ["method", "endpoint"],
    buckets=_FAST,
)
EXTRACTION_JOBS = Counter(
    "memory_extraction_jobs",
    "Extraction job runs by outcome (succeeded, failed, replayed, erased).",
    ["outcome"],
)
CANDIDATES_REFUSED = Counter(
    "memory_candidates_refused",
    "Candidates refused before storage, by reason: the grounding check of the LLM's "
    "(first_person, no_value, not_about_user, not_durable, ungrounded, corrected) and the "
    "screening of every candidate (template_token, role_marker, instruction, "
    "authority_claim, empty).",
    ["reason"],
)
READER_CLAUSES_SKIPPED = Counter(
    "memory_reader_clauses_skipped",
    "What the offline reader could not read and left out, the rest still read, by what it "
    "left out (clause, or message when a whole message could not be split).",
    ["unit"],
)
EXTRACTION_DURATION = Histogram(
    "memory_extraction_job_duration_seconds",
    "Time to run one extraction job, by outcome.",
    ["outcome"],
    buckets=_SLOW,
)
LLM_CALLS = Counter(
    "memory_llm_calls",
    "HTTP requests made to the LLM, by tenant and model (retries counted).",
    ["tenant", "model"],
)
LLM_FAILURES = Counter(
    "memory_llm_failures",
    "LLM requests that failed, by tenant, model and kind (unavailable, bad_response, rejected).",
    ["tenant", "model", "kind"],
)
LLM_TOKENS = Counter(
    "memory_llm_tokens",
    "Tokens the LLM server reported, by tenant, model and kind (prompt, completion).",
    ["tenant", "model", "kind"],
)
EMBEDDING_DURATION = Histogram(
    "memory_embedding_duration_seconds",
    "Time to embed one batch of texts, by provider model.",
    ["model"],
    buckets=_FAST,
)
EMBEDDED_TEXTS = Counter("memory_embedding_texts", "Texts embedded, by model.", ["model"])
RECALL_DURATION = Histogram(
    "memory_recall_duration_seconds",
    "Time to recall memories for a prompt (the index and the ranking), by kind: relevant "
    "(/memories/relevant, the recall tool) or context (/memories/context, the context tool).",
    ["kind"],
    buckets=_FAST,
)

_scrape_collectors: list[Collector] = []


def scrape_collector_register(collector: Collector) -> None:
    """Add a collector read at every scrape (an app's figures from the database)."""
    if collector not in _scrape_collectors:
        _scrape_collectors.append(collector)


def metrics_enabled() -> bool:
    """Whether anyone may read /metrics: off while neither setting names a scraper."""
    return bool(settings.METRICS_TOKEN or settings.METRICS_ALLOWED_IPS)


def _refusal(request: HttpRequest) -> JsonResponse | None:
    """None when the scraper is let in (by the bearer token or by its address), else why not."""
    header = request.META.get("HTTP_AUTHORIZATION", "")
    token = settings.METRICS_TOKEN
    sent = header[7:].strip() if header.startswith("Bearer ") else ""
    if token and sent and hmac.compare_digest(sent.encode(), token.encode()):
        return None
    try:
        address = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        address = None
    if address is not None and any(address in network for network in allowed_networks()):
        return None
    if token and not header:
        response = JsonResponse(
            error_body(
                "unauthorized",
                "Metrics need a token: send 'Authorization: Bearer <METRICS_TOKEN>'.",
            ),
            status=401,
        )
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    reason = (
        "the token sent is not METRICS_TOKEN"
        if token and header
        else f"{address or 'this address'} is not in METRICS_ALLOWED_IPS"
    )
    return JsonResponse(
        error_body(
            "forbidden",
            f"Not allowed to read metrics: {reason}. Send 'Authorization: Bearer "
            "<METRICS_TOKEN>' or scrape from an address in METRICS_ALLOWED_IPS.",
        ),
        status=403,
    )


def allowed_networks() -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """METRICS_ALLOWED_IPS as networks (a bare address is a network of one)."""
    return [ipaddress.ip_network(item, strict=False) for item in settings.METRICS_ALLOWED_IPS]


def _registry() -> CollectorRegistry:
    """Every process's samples (summed from the files), or this process's alone."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        MultiProcessCollector(registry)
    else:
        registry = REGISTRY
    return registry


class _Scrape:
    """The process samples and the apps' database figures as one collector set."""

    def __init__(self, base: CollectorRegistry, extra: Iterable[Collector]):
        self.base, self.extra = base, list(extra)

    def collect(self) -> Iterator[Metric]:
        yield from self.base.collect()
        for collector in self.extra:
            yield from collector.collect()


def metrics_view(request: HttpRequest) -> HttpResponse:
    """GET /metrics in the Prometheus text format, for allowed scrapers only."""
    if not metrics_enabled():
        return JsonResponse(
            error_body(
                "not_found",
                "Metrics are disabled: set METRICS_TOKEN or METRICS_ALLOWED_IPS to enable them.",
            ),
            status=404,
        )
    refusal = _refusal(request)
    if refusal is not None:
        return refusal
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Scrape(_registry(), _scrape_collectors))
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
