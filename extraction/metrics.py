"""Extraction's figures for Prometheus, read from the database at each scrape."""

from __future__ import annotations

import logging
from collections.abc import Iterator

from django.db import DatabaseError
from django.db.models import Count
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from extraction.models import ExtractionJob
from tenants import rls

logger = logging.getLogger(__name__)


class ExtractionJobsCollector(Collector):
    """Extraction jobs by status now (a backlog of queued or failed jobs shows here): one query."""

    def collect(self) -> Iterator[Metric]:
        try:
            # Every tenant's: a scrape is made by no tenant (row-level security, tenants.rls).
            with rls.rls_bypass("metrics scrape: extraction jobs", level=logging.INFO):
                per_status = dict(
                    ExtractionJob.objects.order_by().values_list("status").annotate(n=Count("id"))
                )
        except DatabaseError:
            logger.warning("metrics: could not read the extraction jobs", exc_info=True)
            return
        jobs = GaugeMetricFamily(
            "memory_extraction_jobs_by_status", "Extraction jobs by status.", labels=["status"]
        )
        for status in ExtractionJob.Status.values:
            jobs.add_metric([status], per_status.get(status, 0))
        yield jobs
