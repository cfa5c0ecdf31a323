"""Installs made before the wiring was renamed (`config` to `memory_platform`) keep working:
the dotted paths their environment and start commands name still load the same objects."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from tests.processes import ROOT, clean_env


def test_an_install_that_names_config_settings_still_boots():
    done = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "shell",
            "-c",
            "import os; from django.conf import settings; "
            "print(os.environ['DJANGO_SETTINGS_MODULE'], settings.ROOT_URLCONF)",
        ],
        cwd=ROOT,
        env=clean_env(DJANGO_SETTINGS_MODULE="config.settings"),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-2:] == ["config.settings", "memory_platform.urls"]

    checked = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=clean_env(DJANGO_SETTINGS_MODULE="config.settings"),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr[-2000:]
    assert "no issues" in checked.stdout


@pytest.mark.parametrize(
    ("old", "new", "name"),
    [
        # `gunicorn config.wsgi --config python:config.gunicorn_conf`
        ("config.wsgi", "memory_platform.wsgi", "application"),
        ("config.gunicorn_conf", "memory_platform.gunicorn_conf", "on_starting"),
        ("config.gunicorn_conf", "memory_platform.gunicorn_conf", "limit_request_line"),
        # `celery -A config`: Celery finds the app on the package or its `celery` module.
        ("config", "memory_platform", "celery_app"),
        ("config.celery", "memory_platform.celery", "app"),
        ("config.asgi", "memory_platform.asgi", "application"),
        ("config.urls", "memory_platform.urls", "urlpatterns"),
        ("config.settings", "memory_platform.settings", "INSTALLED_APPS"),
    ],
)
def test_each_old_module_serves_what_its_new_one_does(old, new, name):
    assert getattr(importlib.import_module(old), name) is getattr(
        importlib.import_module(new), name
    )
