"""An extraction that fails, for any reason, keeps its conversation on a `failed` job (never a
`running` one), and the replay takes each job on its own, up to a bound of attempts."""

from __future__ import annotations

import io
import logging
import uuid
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import OperationalError
from django.utils import timezone

from extraction.jobs import extraction_job_submit, extraction_jobs_retry
from extraction.models import ExtractionJob
from extraction.tasks import extraction_stalled_jobs_retry_task

pytestmark = pytest.mark.django_db


@pytest.fixture
def offline(settings):
    settings.MEMORY_EXTRACTOR = "rules"


@pytest.fixture
def faulty_decisions(monkeypatch):
    """A fault of the service itself inside the pipeline (any bug after the reader)."""

    def decide(**kwargs):
        raise RuntimeError("a fault of the service")

    monkeypatch.setattr("extraction.pipeline.decide", decide)
    return monkeypatch


def _body(text: str, user_id: str = "") -> dict:
    return {
        "user_id": user_id or str(uuid.uuid4()),
        "conversation": [{"role": "user", "content": text}],
    }


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        ("I work at Siemens and \nI live in Berlin and my dog is called Rex.",
         {"User lives in Berlin", "User's dog is called Rex"}),
        ("I like tea, and \nmy sister is a nurse and I live in Porto",
         {"User's sister is a nurse", "User lives in Porto"}),
        ("we moved to Lyon and \n\nmy cat is named Miso, and ",
         {"User moved to Lyon", "User's cat is named Miso"}),
    ],
)  # fmt: skip
def test_a_message_ending_in_and_loses_nothing_of_the_conversation(api, offline, text, facts):
    response = api.post("/memories/extract", _body(text), format="json")

    assert response.status_code == 201, response.content
    assert facts <= {memory["caption"] for memory in response.json()["memories_saved"]}


def test_async_extraction_of_it_leaves_no_job_running(
    api, offline, django_capture_on_commit_callbacks
):
    text = "I'm a nurse and \nmy son is called Tom and I live in Leeds"
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post("/memories/extract?async=1", _body(text), format="json")
    assert response.status_code == 202

    job = api.get(f"/memories/jobs/{response.json()['job_id']}").json()

    assert job["status"] == "succeeded"
    assert {"User's son is called Tom", "User lives in Leeds"} <= {
        memory["caption"] for memory in job["memories_saved"]
    }
    assert not ExtractionJob.objects.filter(status=ExtractionJob.Status.RUNNING).exists()


def test_a_fault_of_the_service_fails_the_job_with_a_json_error_and_keeps_the_conversation(
    api, offline, faulty_decisions
):
    body = _body("I live in Graz and my daughter is called Lena")

    response = api.post("/memories/extract", body, format="json")

    assert response.status_code == 500
    error = response.json()["error"]
    assert error["code"] == "extraction_failed" and "kept" in error["message"]
    job = ExtractionJob.objects.get(pk=error["job_id"])
    assert job.status == ExtractionJob.Status.FAILED
    assert job.error == "RuntimeError: a fault of the service"
    assert job.conversation == body["conversation"] and job.attempts == 1

    faulty_decisions.undo()  # the fault is fixed: the replay stores the conversation
    call_command("retry_failed_jobs", stdout=io.StringIO(), stderr=io.StringIO())

    job.refresh_from_db()
    assert job.status == ExtractionJob.Status.SUCCEEDED
    assert "User lives in Graz" in job.memories_saved.values_list("caption", flat=True)


def test_an_async_extraction_that_fails_on_a_fault_shows_the_failure_on_its_job(
    api, offline, faulty_decisions, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post("/memories/extract?async=1", _body("I'm a chef"), format="json")

    job = api.get(f"/memories/jobs/{response.json()['job_id']}").json()

    assert job["status"] == "failed"
    assert job["error"] == "RuntimeError: a fault of the service"


def test_a_run_the_database_cuts_short_waits_again_for_the_stalled_job_sweep(
    api, offline, monkeypatch
):
    def decide(**kwargs):
        raise OperationalError("deadlock detected")

    monkeypatch.setattr("extraction.pipeline.decide", decide)

    response = api.post("/memories/extract", _body("I live in Tartu"), format="json")

    assert response.status_code == 503
    job = ExtractionJob.objects.get()
    assert job.status == ExtractionJob.Status.QUEUED  # never left running
    assert job.error == "OperationalError: deadlock detected"

    monkeypatch.undo()  # the database is back; the sweep finds the job once it is stale
    ExtractionJob.objects.update(created_at=timezone.now() - timedelta(hours=1))
    extraction_stalled_jobs_retry_task.apply().get()

    job.refresh_from_db()
    assert job.status == ExtractionJob.Status.SUCCEEDED


def _job(tenant, conversation, *, created: timedelta, **state) -> ExtractionJob:
    """A job as a killed process (or an older release) left it, created `created` ago."""
    job, _ = extraction_job_submit(
        tenant=tenant,
        external_id=str(uuid.uuid4()),
        messages=[{"role": "user", "content": str(uuid.uuid4())}],
    )
    ExtractionJob.objects.filter(pk=job.pk).update(
        conversation=conversation, created_at=timezone.now() - created, **state
    )
    return job


# A conversation no run can read: kept in a shape the pipeline does not take.
POISON = {"messages": "kept by an older release"}
GOOD = [{"role": "user", "content": "I live in Bergen and my dog is called Fjord"}]


def test_a_poison_job_does_not_stop_the_replay_of_another_stalled_job(tenant, offline):
    poison = _job(tenant, POISON, created=timedelta(hours=2), status="running")
    lost = _job(tenant, GOOD, created=timedelta(hours=1), status="running")

    summary = extraction_stalled_jobs_retry_task.apply().get()

    poison.refresh_from_db()
    lost.refresh_from_db()
    assert lost.status == ExtractionJob.Status.SUCCEEDED
    assert "User lives in Bergen" in lost.memories_saved.values_list("caption", flat=True)
    assert poison.status == ExtractionJob.Status.FAILED and poison.error
    assert poison.conversation == POISON  # kept for a replay once the cause is fixed
    assert summary["succeeded"] == 1 and summary["failed"] == 1


def test_retry_failed_jobs_replays_the_others_after_a_poison_job(tenant, offline):
    _job(tenant, POISON, created=timedelta(hours=2), status="failed")
    failed = _job(tenant, GOOD, created=timedelta(hours=1), status="failed")
    out = io.StringIO()

    call_command("retry_failed_jobs", stdout=out, stderr=io.StringIO())

    failed.refresh_from_db()
    assert failed.status == ExtractionJob.Status.SUCCEEDED
    assert "1 succeeded, 1 failed again" in out.getvalue()


def test_a_job_that_keeps_failing_is_given_up_after_the_bound_and_reported(
    tenant, offline, settings, caplog
):
    settings.MEMORY_JOB_MAX_ATTEMPTS = 2
    poison = _job(tenant, POISON, created=timedelta(hours=2), status="failed")
    runs = []
    for _ in range(3):
        out, err = io.StringIO(), io.StringIO()
        with caplog.at_level(logging.ERROR, logger="extraction.jobs"):
            call_command("retry_failed_jobs", stdout=out, stderr=err)
        poison.refresh_from_db()
        runs.append((poison.attempts, out.getvalue(), err.getvalue()))

    assert [attempts for attempts, _, _ in runs] == [1, 2, 2]  # the third run leaves it
    assert "0 jobs" in runs[2][1]
    assert "1 jobs given up after 2 attempts" in runs[2][2]
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert any(str(poison.pk) in e and "no longer replayed" in e for e in errors)
    assert poison.status == ExtractionJob.Status.FAILED and poison.conversation == POISON


def test_a_stalled_job_at_the_bound_is_failed_and_reported_not_run_again(
    tenant, offline, settings, caplog
):
    settings.MEMORY_JOB_MAX_ATTEMPTS = 3
    dies = _job(tenant, GOOD, created=timedelta(hours=2), status="running", attempts=3)

    with caplog.at_level(logging.ERROR, logger="extraction.jobs"):
        summary = extraction_stalled_jobs_retry_task.apply().get()

    dies.refresh_from_db()
    assert dies.status == ExtractionJob.Status.FAILED and dies.attempts == 3
    assert "Given up after 3 attempts" in dies.error
    assert summary["found"] == 0 and summary["given_up"] == 1
    assert any(str(dies.pk) in record.getMessage() for record in caplog.records)

    call_command("retry_failed_jobs", "--given-up", stdout=io.StringIO(), stderr=io.StringIO())

    dies.refresh_from_db()
    assert dies.status == ExtractionJob.Status.SUCCEEDED  # once its cause is fixed


def test_jobs_that_keep_failing_go_after_the_others(tenant, offline):
    _job(tenant, POISON, created=timedelta(hours=3), status="running", attempts=4)
    newer = _job(tenant, GOOD, created=timedelta(hours=1), status="running")

    summary = extraction_jobs_retry(failed=False, limit=1)

    newer.refresh_from_db()
    assert summary["succeeded"] == 1 and newer.status == ExtractionJob.Status.SUCCEEDED
