"""The request id follows an extraction: onto its job row and into its Celery task's logs."""

from __future__ import annotations

import uuid

import pytest
from rest_framework.test import APIClient

from core.requests import TASK_HEADER
from extraction.models import ExtractionJob
from extraction.tasks import extraction_job_run_task
from tests.logcapture import json_lines
from tests.scripted_llm import ScriptedLLM, fact


@pytest.fixture
def task_lines():
    with json_lines("extraction.tasks") as lines:
        yield lines


def _extract(api: APIClient, user_id, request_id: str, path: str = "/memories/extract"):
    body = {
        "user_id": str(user_id),
        "conversation": [{"role": "user", "content": "I own a red kayak"}],
    }
    return api.post(path, body, format="json", HTTP_X_REQUEST_ID=request_id)


@pytest.mark.django_db
def test_the_job_row_keeps_the_id_of_the_request_that_submitted_it(api, llm_settings):
    ScriptedLLM(llm_settings).learn("kayak", fact("User owns a red kayak", "personal"))
    user_id = uuid.uuid4()

    first = _extract(api, user_id, "caller-1")
    replay = _extract(api, user_id, "caller-2")

    assert (first.status_code, replay.status_code) == (201, 200)
    job = ExtractionJob.objects.get()
    assert job.request_id == "caller-1"  # a replay keeps the first
    assert api.get(f"/memories/jobs/{job.id}").json()["request_id"] == "caller-1"


@pytest.mark.django_db
def test_the_task_serves_under_the_id_of_its_header(end_user, llm_settings, task_lines):
    ScriptedLLM(llm_settings).learn("kayak", fact("User owns a red kayak", "personal"))
    job = ExtractionJob.objects.create(
        end_user=end_user,
        conversation_hash="h",
        conversation=[{"role": "user", "content": "I own a red kayak"}],
    )

    extraction_job_run_task.apply(args=[str(job.id)], headers={TASK_HEADER: "caller-9"})

    [line] = task_lines
    assert line["request_id"] == "caller-9"
    assert line["job_id"] == str(job.id)
    assert line["message"] == f"job {job.id} succeeded"
