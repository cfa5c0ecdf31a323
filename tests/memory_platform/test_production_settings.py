"""DJANGO_HTTPS=1, the documented production switch: `check --deploy` is clean but for the
embedded defaults, and HTTP is redirected to HTTPS with HSTS and secure cookies."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from tests.processes import ROOT, clean_env

# The variables README's "Security" section documents for a deployment behind a TLS proxy.
PRODUCTION = {
    "DJANGO_HTTPS": "1",
    "DJANGO_SECRET_KEY": "x7Vq3-production-secret-of-enough-length-and-variety-0123456789abcdef",
    "DJANGO_ALLOWED_HOSTS": "memory.example.com,testserver",
}
# What a deployment on the embedded PostgreSQL and without Redis is still told.
EMBEDDED_DEFAULTS = {"memory_platform.W001", "memory_platform.W002"}


def _run(args: list[str], **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=clean_env(DJANGO_SETTINGS_MODULE="memory_platform.settings", **env),
        capture_output=True,
        text=True,
        timeout=120,
    )


def _check_ids(output: str) -> set[str]:
    return set(re.findall(r"\(([a-z_]+\.[A-Z]\d{3})\)", output))


def test_check_deploy_reports_only_the_embedded_defaults_with_the_production_variables():
    result = _run(["manage.py", "check", "--deploy"], **PRODUCTION)

    assert result.returncode == 0, result.stderr
    assert _check_ids(result.stdout + result.stderr) == EMBEDDED_DEFAULTS


def test_without_the_switch_check_deploy_names_what_is_missing():
    env = {k: v for k, v in PRODUCTION.items() if k != "DJANGO_HTTPS"}

    result = _run(["manage.py", "check", "--deploy"], **env)

    ids = _check_ids(result.stdout + result.stderr)
    assert {"security.W004", "security.W008", "security.W012", "security.W016"} <= ids


def test_the_switch_redirects_http_and_sends_hsts_and_secure_cookies():
    code = """
import json, django
django.setup()
from django.conf import settings as s
from django.middleware.security import SecurityMiddleware
from django.test import Client, RequestFactory
c = Client()
plain = c.get("/memories/list?user_id=x")
secure = c.get("/memories/list?user_id=x", headers={"X-Forwarded-Proto": "https"})
# The middleware alone, so that no database is needed for the health view itself.
redirects = SecurityMiddleware(lambda r: None).process_request
health = redirects(RequestFactory().get("/health")) or redirects(RequestFactory().get("/metrics"))
print(json.dumps({
    "plain": [plain.status_code, plain.get("Location")],
    "secure": [secure.status_code, secure.get("Strict-Transport-Security")],
    "health": health is None,
    "cookies": [s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE],
    "proxies": s.PROXY_COUNT,
}))
"""
    result = _run(["-c", code], **PRODUCTION)

    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["plain"] == [301, "https://testserver/memories/list?user_id=x"]
    assert seen["secure"][0] == 401  # reached the API over HTTPS: asks for a key
    assert seen["secure"][1] == "max-age=31536000; includeSubDomains; preload"
    assert seen["health"] is True  # probes and scrapers inside the network stay on HTTP
    assert seen["cookies"] == [True, True]
    assert seen["proxies"] == 1  # the admin login guard counts the forwarded client
