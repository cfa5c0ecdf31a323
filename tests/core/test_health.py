import json

import pytest
from django.test import Client

from tests.processes import clean_env, free_port, gunicorn, http_get


@pytest.mark.django_db
def test_health_reports_each_dependency_without_auth(settings):
    settings.OPENAI_API_KEY = ""
    settings.MEMORY_EXTRACTOR = "rules"
    settings.MEMORY_EMBEDDER = "local"

    response = Client().get("/health")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["database"]["status"] == "ok"
    assert body["database"]["pgvector"]
    assert body["cache"]["status"] == "ok"
    assert body["embedder"]["provider"] == "local"
    assert body["llm"]["status"] == "not_configured"
    assert body["llm"]["extractor"] == "rules"


def test_health_is_503_when_the_database_is_unreachable():
    port = free_port()
    closed = free_port()
    env = clean_env(DATABASE_URL=f"postgresql://nobody@127.0.0.1:{closed}/nothing")

    with gunicorn(port, env, workers=1):
        status, body = http_get(f"http://127.0.0.1:{port}/health")

    assert status == 503
    payload = json.loads(body)
    assert payload["status"] == "down"
    assert payload["database"]["status"] == "down"


@pytest.mark.django_db
def test_unknown_path_is_a_json_404_not_a_redirect():
    response = Client().get("/memories/relevant/")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
