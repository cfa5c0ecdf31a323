"""GET /metrics: the Prometheus exposition, protected, summed over processes, and true to what
the service did (requests, jobs, the LLM's calls and tokens, the review queue)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families
from rest_framework.test import APIClient

from core.requests import request_tenant_get
from extraction.jobs import extraction_job_run, extraction_job_submit
from integrations.llm import chat
from memory_platform.embedded import stop_embedded_postgres
from memory_platform.management.commands.run_local import metrics_files_clear
from testing.llm_stub import content
from tests.factories import api_key_for, conflict_make
from tests.processes import REQUEST_SECONDS, ROOT, clean_env, free_port, gunicorn, manage

TOKEN = "scrape-token-of-the-tests"


def samples(text: str) -> dict[tuple[str, tuple], float]:
    """Every sample of an exposition, by name and sorted labels."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(text: str, name: str, **labels: str) -> float:
    """The sample with exactly these labels (0 when absent)."""
    return samples(text).get((name, tuple(sorted(labels.items()))), 0.0)


def total(text: str, name: str, **labels: str) -> float:
    """The sum of the samples that carry these labels, whatever their others."""
    wanted = set(labels.items())
    return sum(v for (n, ls), v in samples(text).items() if n == name and wanted <= set(ls))


@pytest.fixture
def scrape(client, settings):
    settings.METRICS_TOKEN = TOKEN

    def get() -> str:
        response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
        assert response.status_code == 200
        assert response["Content-Type"].startswith("text/plain")
        return response.content.decode()

    return get


# --- protection --------------------------------------------------------------------------


def test_metrics_are_off_until_a_token_or_addresses_are_set(client, settings):
    settings.METRICS_TOKEN, settings.METRICS_ALLOWED_IPS = "", []

    response = client.get("/metrics")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert "METRICS_TOKEN" in response.json()["error"]["message"]


def test_a_scraper_without_the_token_is_asked_for_it(client, settings):
    settings.METRICS_TOKEN = TOKEN

    response = client.get("/metrics")

    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert response.json()["error"]["code"] == "unauthorized"
    assert "Authorization: Bearer <METRICS_TOKEN>" in response.json()["error"]["message"]


@pytest.mark.parametrize("header", ["Bearer wrong-token", f"Token {TOKEN}", "Bearer "])
def test_a_wrong_token_is_refused_in_the_json_shape(client, settings, header):
    settings.METRICS_TOKEN = TOKEN

    response = client.get("/metrics", HTTP_AUTHORIZATION=header)

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "forbidden"
    assert "not METRICS_TOKEN" in response.json()["error"]["message"]


@pytest.mark.django_db
def test_an_allowed_address_scrapes_without_a_token(client, settings):
    settings.METRICS_TOKEN, settings.METRICS_ALLOWED_IPS = "", ["10.0.0.0/8", "192.0.2.7"]

    assert client.get("/metrics", REMOTE_ADDR="10.20.30.40").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="192.0.2.7").status_code == 200
    refused = client.get("/metrics", REMOTE_ADDR="192.0.2.8")
    assert refused.status_code == 403
    assert "192.0.2.8 is not in METRICS_ALLOWED_IPS" in refused.json()["error"]["message"]


@pytest.mark.django_db
def test_the_token_and_the_addresses_each_let_a_scraper_in(client, settings):
    settings.METRICS_TOKEN, settings.METRICS_ALLOWED_IPS = TOKEN, ["10.0.0.0/8"]
    bearer = f"Bearer {TOKEN}"

    assert client.get("/metrics", REMOTE_ADDR="10.1.1.1").status_code == 200
    assert (
        client.get("/metrics", REMOTE_ADDR="192.0.2.8", HTTP_AUTHORIZATION=bearer).status_code
        == 200
    )
    assert client.get("/metrics", REMOTE_ADDR="192.0.2.8").status_code == 401


def test_an_address_that_is_no_network_stops_startup_naming_the_variable(tmp_path: Path):
    env = clean_env(MEMORY_DATA_DIR=str(tmp_path), METRICS_ALLOWED_IPS="10.0.0.0/8,10.0.0.0/33")

    result = subprocess.run(
        [sys.executable, "-c", "import memory_platform.settings"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip

    assert result.returncode != 0
    assert "METRICS_ALLOWED_IPS: '10.0.0.0/33' is neither an IP address nor a network" in (
        result.stderr
    )


# --- what is counted ---------------------------------------------------------------------


@pytest.mark.django_db
def test_an_extraction_counts_its_request_job_and_the_llm_tokens_reported(
    scrape, tenant, llm_settings
):
    llm_settings.always(content('[{"caption": "User lives in Porto", "full_text": '
                                '"User lives in Porto", "category": "personal"}]',
                                prompt_tokens=321, completion_tokens=54))  # fmt: skip
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key_for(tenant)}")
    model, name = "gpt-4o-mini", tenant.name
    before = scrape()

    response = api.post(
        "/memories/extract",
        {
            "user_id": str(uuid.uuid4()),
            "conversation": [{"role": "user", "content": "I live in Porto"}],
        },
        format="json",
    )

    assert response.status_code == 201
    after = scrape()
    calls = len(llm_settings.calls)

    def delta(metric: str, **labels: str) -> float:
        return value(after, metric, **labels) - value(before, metric, **labels)

    assert delta("memory_llm_calls_total", tenant=name, model=model) == calls >= 1
    assert delta("memory_llm_tokens_total", tenant=name, model=model, kind="prompt") == 321 * calls
    assert delta("memory_llm_tokens_total", tenant=name, model=model, kind="completion") == (
        54 * calls
    )
    assert delta("memory_extraction_jobs_total", outcome="succeeded") == 1
    assert delta("memory_extraction_job_duration_seconds_count", outcome="succeeded") == 1
    labels = {"method": "POST", "endpoint": "/memories/extract"}
    assert delta("memory_http_requests_total", status="201", **labels) == 1
    assert delta("memory_http_request_duration_seconds_count", **labels) == 1
    # The candidate was embedded (by whichever embedder the settings name).
    embedded = total(after, "memory_embedding_texts_total") - total(
        before, "memory_embedding_texts_total"
    )
    assert embedded >= 1
    assert total(after, "memory_embedding_duration_seconds_count") > total(
        before, "memory_embedding_duration_seconds_count"
    )


@pytest.mark.django_db
def test_a_job_run_by_a_worker_labels_its_llm_calls_with_the_jobs_tenant(
    scrape, tenant, llm_settings
):
    llm_settings.always(content("[]", prompt_tokens=100, completion_tokens=7))
    job, _ = extraction_job_submit(
        tenant=tenant,
        external_id=uuid.uuid4(),
        messages=[{"role": "user", "content": "I keep bees"}],
    )
    before = scrape()

    # As the Celery task runs it: no request, so nothing named the tenant before the run.
    extraction_job_run(job_id=job.id)

    after = scrape()
    labels = {"tenant": tenant.name, "model": "gpt-4o-mini"}
    calls = len(llm_settings.calls)
    assert calls >= 1
    assert (
        value(after, "memory_llm_calls_total", **labels)
        - value(before, "memory_llm_calls_total", **labels)
        == calls
    )
    assert (
        value(after, "memory_llm_tokens_total", kind="prompt", **labels)
        - value(before, "memory_llm_tokens_total", kind="prompt", **labels)
        == 100 * calls
    )
    assert request_tenant_get() is None


@pytest.mark.django_db
def test_an_llm_call_for_no_tenant_is_labelled_unknown(scrape, llm_settings):
    llm_settings.always(content("hello", prompt_tokens=5, completion_tokens=1))
    labels = {"tenant": "unknown", "model": "gpt-4o-mini"}
    before = scrape()

    chat([{"role": "user", "content": "hi"}])

    after = scrape()
    assert (
        value(after, "memory_llm_calls_total", **labels)
        - value(before, "memory_llm_calls_total", **labels)
        == 1
    )
    assert (
        value(after, "memory_llm_tokens_total", kind="completion", **labels)
        - value(before, "memory_llm_tokens_total", kind="completion", **labels)
        == 1
    )


@pytest.mark.django_db
def test_recalls_are_timed_by_kind(scrape, tenant, end_user):
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key_for(tenant)}")
    before = scrape()
    query = {"user_id": str(end_user.external_id), "prompt": "what do I drink?"}

    assert api.get("/memories/relevant", query).status_code == 200
    assert api.get("/memories/context", query).status_code == 200
    assert api.get("/memories/context", query).status_code == 200

    after = scrape()
    for kind, times in (("relevant", 1), ("context", 2)):
        metric = "memory_recall_duration_seconds_count"
        assert value(after, metric, kind=kind) - value(before, metric, kind=kind) == times


@pytest.mark.django_db
def test_llm_failures_are_counted_by_kind(scrape, tenant, llm_settings):
    llm_settings.fail(503, times=10)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key_for(tenant)}")
    before = scrape()

    api.post(
        "/memories/extract",
        {"user_id": str(uuid.uuid4()), "conversation": [{"role": "user", "content": "hi"}]},
        format="json",
    )

    after = scrape()
    labels = {"tenant": tenant.name, "model": "gpt-4o-mini", "kind": "unavailable"}
    assert (
        value(after, "memory_llm_failures_total", **labels)
        - value(before, "memory_llm_failures_total", **labels)
        == 3
    )
    assert (
        value(after, "memory_extraction_jobs_total", outcome="failed")
        - value(before, "memory_extraction_jobs_total", outcome="failed")
        == 1
    )


@pytest.mark.django_db
def test_a_path_that_matches_no_route_is_one_label_not_one_per_path(scrape):
    before = scrape()
    for n in range(3):
        APIClient().get(f"/wp-admin/probe-{n}.php")

    after = scrape()
    labels = {"method": "GET", "endpoint": "unmatched", "status": "404"}
    assert (
        value(after, "memory_http_requests_total", **labels)
        - value(before, "memory_http_requests_total", **labels)
        == 3
    )
    assert "probe-0" not in after


@pytest.mark.django_db
def test_the_review_queue_and_memories_per_status_are_read_at_scrape_time(scrape, end_user):
    assert value(scrape(), "memory_review_queue_size") == 0
    assert value(scrape(), "memory_review_queue_oldest_age_seconds") == 0

    conflict_make(end_user)

    text = scrape()
    assert value(text, "memory_review_queue_size") == 1
    assert value(text, "memory_review_queue_oldest_age_seconds") >= 0
    assert value(text, "memory_memories", status="active") == 1
    assert value(text, "memory_memories", status="pending_review") == 1
    assert value(text, "memory_memories", status="superseded") == 0
    assert value(text, "memory_extraction_jobs_by_status", status="failed") == 0


# --- several processes -------------------------------------------------------------------


def _get(url: str, token: str) -> str:
    request = urllib.request.Request(
        url, headers={"Authorization": f"Bearer {token}", "Connection": "close"}
    )
    with urllib.request.urlopen(request, timeout=REQUEST_SECONDS) as response:
        assert response.status == 200
        return response.read().decode()


def _workers(master: int) -> set[int]:
    """The pids of a gunicorn master's workers."""
    return {int(pid) for pid in Path(f"/proc/{master}/task/{master}/children").read_text().split()}


def test_one_scrape_sums_every_process_web_workers_and_others(tmp_path: Path):
    data_dir = tmp_path / "data"
    env = clean_env(MEMORY_DATA_DIR=str(data_dir), METRICS_TOKEN=TOKEN, MEMORY_EMBEDDER="hashing")
    manage("migrate", "--noinput", env=env)
    key = manage("create_api_key", "--tenant", "m", env=env).stdout.strip().splitlines()[-1]
    # Another process (as a Celery worker would be) runs an extraction, behind its tenant's
    # walls (a shell sees no tenant until it names one), and exits.
    extract = (
        "import uuid; from memories.models import Tenant; from tenants import rls; "
        "from extraction.jobs import extraction_perform; tenant = Tenant.objects.get(name='m'); "
        "scope = rls.tenant_scope([tenant.pk]); scope.__enter__(); "
        "extraction_perform(tenant=tenant, external_id=uuid.uuid4(), "
        "messages=[{'role': 'user', 'content': 'I live in Porto and work as a nurse'}])"
    )
    manage("shell", "-c", extract, env=env)
    port = free_port()
    try:
        with gunicorn(port, env, workers=2) as server:
            base = f"http://127.0.0.1:{port}"
            list_url = f"{base}/memories/list?user_id={uuid.uuid4()}"
            # A request whose headers are not finished keeps one sync worker reading it, so
            # the 20 after it are served by the other worker: two processes count.
            held = socket.create_connection(("127.0.0.1", port), timeout=10)
            held.sendall(
                f"GET {list_url.removeprefix(base)} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                f"Authorization: Bearer {key}\r\n".encode()
            )
            time.sleep(0.5)
            for _ in range(20):
                json.loads(_get(list_url, key))
            held.sendall(b"Connection: close\r\n\r\n")
            assert held.makefile("rb").readline().split()[1] == b"200"
            held.close()
            # A worker that dies keeps its counts in the sum; the master replaces it.
            before = _workers(server.pid)
            os.kill(min(before), signal.SIGKILL)
            deadline = time.monotonic() + 30
            while len(_workers(server.pid) - before) < 1 or len(_workers(server.pid)) < 2:
                assert time.monotonic() < deadline, "gunicorn did not replace the killed worker"
                time.sleep(0.1)
            text = _get(f"{base}/metrics", TOKEN)
            assert server.poll() is None
    finally:
        stop_embedded_postgres(data_dir / "pg")

    labels = {"method": "GET", "endpoint": "/memories/list", "status": "200"}
    assert value(text, "memory_http_requests_total", **labels) == 21
    timed = {"method": "GET", "endpoint": "/memories/list"}
    assert value(text, "memory_http_request_duration_seconds_count", **timed) == 21
    # Counted by a process that has exited, read by a web worker that never extracted.
    assert value(text, "memory_extraction_jobs_total", outcome="succeeded") == 1
    assert value(text, "memory_memories", status="active") == 2
    assert value(text, "memory_extraction_jobs_by_status", status="succeeded") == 1


def test_make_run_starts_with_no_samples_of_an_earlier_run(tmp_path: Path, monkeypatch):
    (tmp_path / "counter_4242.db").write_bytes(b"stale")
    (tmp_path / "notes.txt").write_text("not a sample file")
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))

    metrics_files_clear()

    assert sorted(path.name for path in tmp_path.iterdir()) == ["notes.txt"]
