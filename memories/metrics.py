"""The memory domain's figures for Prometheus, read from the database at each scrape."""

from __future__ import annotations

import logging
from collections.abc import Iterator

from django.db import DatabaseError
from django.db.models import Count, Min, Q
from django.utils import timezone
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from memories.models import Memory, ReviewItem
from tenants import rls

logger = logging.getLogger(__name__)


class MemoriesCollector(Collector):
    """The review queue's size and oldest age, and memories per status: two queries."""

    def collect(self) -> Iterator[Metric]:
        try:
            # Every tenant's: a scrape is made by no tenant (row-level security, tenants.rls).
            with rls.rls_bypass("metrics scrape: review queue, memories", level=logging.INFO):
                queue = ReviewItem.objects.aggregate(
                    size=Count("id", filter=Q(status=ReviewItem.Status.PENDING)),
                    oldest=Min("created_at", filter=Q(status=ReviewItem.Status.PENDING)),
                )
                per_status = dict(
                    Memory.objects.order_by().values_list("status").annotate(n=Count("id"))
                )
        except DatabaseError:
            # A scrape while the database is down still answers the process metrics.
            logger.warning("metrics: could not read the review queue and memories", exc_info=True)
            return
        yield GaugeMetricFamily(
            "memory_review_queue_size", "Conflicts waiting for an operator.", value=queue["size"]
        )
        oldest = queue["oldest"]
        age = (timezone.now() - oldest).total_seconds() if oldest else 0.0
        yield GaugeMetricFamily(
            "memory_review_queue_oldest_age_seconds",
            "How long the oldest waiting conflict has waited (0 when none waits).",
            value=age,
        )
        memories = GaugeMetricFamily("memory_memories", "Memories by status.", labels=["status"])
        for status in Memory.Status.values:
            memories.add_metric([status], per_status.get(status, 0))
        yield memories
