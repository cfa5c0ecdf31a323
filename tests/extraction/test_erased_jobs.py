"""A job whose user was erased while it waited ends quietly: no crash, nothing recreated."""

from __future__ import annotations

import uuid

import pytest

from extraction.jobs import ExtractionJobGone, extraction_job_run, extraction_job_submit
from extraction.models import ExtractionJob
from extraction.tasks import extraction_job_run_task
from memories.models import EndUser, Memory
from memories.services.erasure import end_user_erase

pytestmark = pytest.mark.django_db

CONVERSATION = [{"role": "user", "content": "I moved to Porto last year."}]


@pytest.fixture
def erased_job(tenant, settings):
    settings.MEMORY_EXTRACTOR = "rules"
    external_id = uuid.uuid4()
    job, _ = extraction_job_submit(tenant=tenant, external_id=external_id, messages=CONVERSATION)
    end_user_erase(tenant=tenant, external_id=external_id, actor_type="api", actor="test")
    assert not ExtractionJob.objects.filter(pk=job.pk).exists()
    return job, external_id


def test_running_a_job_erased_with_its_user_says_so_and_stores_nothing(erased_job):
    job, external_id = erased_job

    with pytest.raises(ExtractionJobGone) as gone:
        extraction_job_run(job_id=job.pk)

    assert gone.value.status_code == 404
    assert not EndUser.objects.filter(external_id=external_id).exists()
    assert not Memory.objects.filter(end_user__external_id=external_id).exists()


def test_the_queued_task_of_an_erased_job_finishes_instead_of_failing(erased_job):
    job, _ = erased_job

    assert extraction_job_run_task.apply(args=[str(job.pk)]).get() == "erased"
