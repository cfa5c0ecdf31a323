import json
import subprocess
import sys

import pytest
from django.core.exceptions import ImproperlyConfigured

from memory_platform import settings as app_settings
from tests.processes import ROOT, clean_env


def _settings_in_subprocess(**env: str) -> dict:
    code = (
        "import json; from django.conf import settings as s; "
        "print(json.dumps({'db': s.DATABASES['default']['HOST'], "
        "'name': s.DATABASES['default']['NAME'], "
        "'cache': s.CACHES['default']['BACKEND'], 'broker': s.CELERY_BROKER_URL, "
        "'eager': s.CELERY_TASK_ALWAYS_EAGER, 'extractor': s.MEMORY_EXTRACTOR, "
        "'embedded': s.EMBEDDED_POSTGRES}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=clean_env(DJANGO_SETTINGS_MODULE="memory_platform.settings", **env),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_no_environment_means_embedded_postgres_local_cache_and_eager_tasks():
    loaded = _settings_in_subprocess()

    assert loaded["embedded"] is True
    assert loaded["db"].startswith("/")  # the embedded server's Unix socket directory
    assert loaded["cache"].endswith("LocMemCache")
    assert loaded["broker"] == "memory://"
    assert loaded["eager"] is True
    assert loaded["extractor"] == "rules"


def test_database_and_redis_urls_switch_to_external_servers():
    loaded = _settings_in_subprocess(
        DATABASE_URL="postgresql://app:secret@db.internal:5432/memories",
        REDIS_URL="redis://cache.internal:6379/0",
        OPENAI_API_KEY="sk-test",
    )

    assert loaded["embedded"] is False
    assert (loaded["db"], loaded["name"]) == ("db.internal", "memories")
    assert loaded["cache"].endswith("RedisCache")
    assert loaded["broker"] == "redis://cache.internal:6379/0"
    assert loaded["eager"] is False
    assert loaded["extractor"] == "llm"


def test_a_bad_value_fails_at_startup_naming_the_variable():
    with pytest.raises(subprocess.CalledProcessError) as failure:
        _settings_in_subprocess(RECALL_MODE="fuzzy")

    assert "RECALL_MODE='fuzzy' is not one of" in failure.value.stderr


@pytest.mark.parametrize(
    ("raw", "expected"), [("1", True), ("yes", True), ("off", False), ("", False)]
)
def test_env_bool_reads_the_usual_spellings(monkeypatch, raw, expected):
    monkeypatch.setenv("SOME_FLAG", raw)

    assert app_settings.env_bool("SOME_FLAG") is expected


def test_env_int_names_the_variable_when_it_is_not_a_number(monkeypatch):
    monkeypatch.setenv("MEMORY_USER_CAP", "lots")

    with pytest.raises(ImproperlyConfigured, match="MEMORY_USER_CAP"):
        app_settings.env_int("MEMORY_USER_CAP", 100)


def test_llm_extractor_without_a_key_is_a_system_check_error(settings):
    from memory_platform.checks import check_llm_configuration

    settings.MEMORY_EXTRACTOR = "llm"
    settings.OPENAI_API_KEY = ""

    errors = check_llm_configuration()

    assert [error.id for error in errors] == ["memory_platform.E001"]
    assert "MEMORY_EXTRACTOR=rules" in errors[0].hint
