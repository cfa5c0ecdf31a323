"""Async extraction through a real Redis-protocol broker and a real Celery worker."""

from __future__ import annotations

import contextlib
import importlib
import json
import logging
import time
import uuid

import pytest
from celery.contrib.testing.worker import start_worker

from core.jsonlog import JsonFormatter
from core.requests import request_context
from extraction.jobs import JOB_RUN_TASK, extraction_perform
from extraction.models import ExtractionJob
from extraction.tasks import extraction_job_run_task
from memory_platform.celery import app as celery_app
from tests.factories import TenantFactory
from tests.scripted_llm import ScriptedLLM, fact


def _drop_broker_connections() -> None:
    """Forget pooled connections so that the next publish uses the configured broker."""
    celery_app._after_fork()


@pytest.fixture
def celery_on_redis(redis_url, settings):
    """Point Celery at the embedded Valkey and run a worker thread, no eager execution."""
    keys = ("broker_url", "broker_read_url", "broker_write_url", "task_always_eager")
    previous = {key: celery_app.conf[key] for key in keys}
    celery_app.conf.update(
        broker_url=redis_url,
        broker_read_url=redis_url,
        broker_write_url=redis_url,
        task_always_eager=False,
    )
    _drop_broker_connections()
    assert celery_app.pool.connection.as_uri().startswith("redis://")
    settings.MEMORY_TASK_MAX_RETRIES = 2
    settings.MEMORY_TASK_RETRY_BACKOFF = 0.1
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        yield
    celery_app.conf.update(previous)
    _drop_broker_connections()


@pytest.fixture
def task_log():
    """The extraction task's log lines, formatted as JSON in the worker's thread."""
    lines: list[dict] = []

    class Lines(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(json.loads(JsonFormatter().format(record)))

    logger = logging.getLogger("extraction.tasks")
    handler, previous = Lines(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield lines
    logger.removeHandler(handler)
    logger.setLevel(previous)


def _wait_for(job_id, statuses: set[str], timeout: float = 30) -> ExtractionJob:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = ExtractionJob.objects.get(pk=job_id)
        if job.status in statuses:
            return job
        time.sleep(0.1)
    raise AssertionError(f"job stayed {job.status}")


def test_jobs_enqueue_the_task_by_the_name_it_is_registered_under():
    # Enqueueing looks the task up by name (the task module imports the jobs module, never the
    # other way), and a missing name would silently degrade every enqueue to an inline run.
    assert celery_app.tasks[JOB_RUN_TASK].name == extraction_job_run_task.name == JOB_RUN_TASK


@pytest.mark.django_db(transaction=True)
def test_a_queued_job_is_run_by_a_worker_through_the_broker(llm_settings, celery_on_redis):
    llm = ScriptedLLM(llm_settings)
    llm.learn("kayak", fact("User owns a red kayak", "personal"))

    outcome = extraction_perform(
        tenant=TenantFactory(),
        external_id=uuid.uuid4(),
        messages=[{"role": "user", "content": "I own a red kayak"}],
        run_async=True,
    )

    assert outcome.state == "queued"
    job = _wait_for(outcome.job.id, {"succeeded", "failed"})
    assert job.status == "succeeded"
    assert list(job.memories_saved.values_list("caption", flat=True)) == ["User owns a red kayak"]


@pytest.mark.django_db(transaction=True)
def test_the_worker_retries_while_the_llm_is_down_then_succeeds(
    llm_settings, celery_on_redis, task_log
):
    llm = ScriptedLLM(llm_settings)
    llm.learn("kayak", fact("User owns a red kayak", "personal"))
    llm_settings.fail(503, times=3)  # the first task attempt exhausts its HTTP retries

    with request_context("caller-42"):  # the request that enqueued the job
        outcome = extraction_perform(
            tenant=TenantFactory(),
            external_id=uuid.uuid4(),
            messages=[{"role": "user", "content": "I own a red kayak"}],
            run_async=True,
        )

    job = _wait_for(outcome.job.id, {"succeeded"})
    assert job.attempts == 2
    assert job.memories_saved.count() == 1
    # The id follows the job onto its row and, through a retry, into the worker's log lines.
    assert job.request_id == "caller-42"
    _wait_until(lambda: task_log)
    assert [(line["request_id"], line["job_id"]) for line in task_log] == [
        ("caller-42", str(job.id))
    ]


def _wait_until(condition, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)


@pytest.mark.django_db(transaction=True)
def test_a_job_whose_llm_stays_down_ends_failed_with_its_conversation(
    llm_settings, celery_on_redis
):
    llm_settings.fail(503, times=100)

    outcome = extraction_perform(
        tenant=TenantFactory(),
        external_id=uuid.uuid4(),
        messages=[{"role": "user", "content": "I own a kayak"}],
        run_async=True,
    )

    deadline = time.monotonic() + 30
    job = ExtractionJob.objects.get(pk=outcome.job.id)
    # Each run is counted as it starts: the job is done when its third run has failed.
    while time.monotonic() < deadline and (job.attempts < 3 or job.status != "failed"):
        time.sleep(0.1)
        job.refresh_from_db()
    assert job.status == "failed" and job.attempts == 3  # the first run and two retries
    assert job.conversation == [{"role": "user", "content": "I own a kayak"}]


@pytest.mark.django_db(transaction=True)
def test_a_job_that_fails_on_a_fault_of_the_service_is_left_failed_without_retries(
    celery_on_redis, task_log, settings, monkeypatch
):
    settings.MEMORY_EXTRACTOR = "rules"

    def decide(**kwargs):
        raise RuntimeError("a fault of the service")

    monkeypatch.setattr("extraction.pipeline.decide", decide)

    outcome = extraction_perform(
        tenant=TenantFactory(),
        external_id=uuid.uuid4(),
        messages=[{"role": "user", "content": "I live in Turku"}],
        run_async=True,
    )

    job = _wait_for(outcome.job.id, {"failed"})
    assert job.error == "RuntimeError: a fault of the service"
    assert job.conversation == [{"role": "user", "content": "I live in Turku"}]
    _wait_until(lambda: task_log)
    # It would fail the same way again: the task leaves it to the replay at once.
    assert "failed for good after 0 retries" in task_log[0]["message"]
    assert ExtractionJob.objects.get(pk=job.pk).attempts == 1


def test_every_scheduled_task_is_registered_under_its_name():
    from django.conf import settings

    # What the worker's autodiscovery imports: each installed app's tasks module.
    for app_name in settings.INSTALLED_APPS:
        with contextlib.suppress(ModuleNotFoundError):
            importlib.import_module(f"{app_name}.tasks")
    for entry in settings.CELERY_BEAT_SCHEDULE.values():
        assert entry["task"] in celery_app.tasks, entry["task"]
