"""The admin login is guarded: repeated failures lock an account and an address for a while."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse

LOGIN = reverse("admin:login")
PASSWORD = "the-right-passphrase"


@pytest.fixture
def operator(db):
    return get_user_model().objects.create_superuser("olga", password=PASSWORD)


def _log_in(client, username: str, password: str, address: str = "203.0.113.7"):
    return client.post(
        LOGIN,
        {"username": username, "password": password, "next": "/admin/"},
        REMOTE_ADDR=address,
    )


def _fail(client, times: int, username: str = "olga", address: str = "203.0.113.7") -> None:
    """`times` failed logins: the form again, or the lockout page once the limit is hit."""
    for _ in range(times):
        assert _log_in(client, username, "wrong guess", address).status_code in (200, 429)


def test_the_right_password_after_a_few_mistakes_still_logs_in(client, operator, settings):
    _fail(client, settings.AXES_FAILURE_LIMIT - 1)

    response = _log_in(client, "olga", PASSWORD)

    assert response.status_code == 302 and response["Location"] == "/admin/"


def test_at_the_limit_even_the_right_password_is_refused_with_a_clear_page(
    client, operator, settings
):
    _fail(client, settings.AXES_FAILURE_LIMIT - 1)
    locked = _log_in(client, "olga", "one more wrong guess")

    response = _log_in(client, "olga", PASSWORD)

    assert locked.status_code == response.status_code == 429
    page = response.content.decode()
    assert "Too many failed logins for “olga”" in page
    assert "axes_reset_username" in page
    assert "_auth_user_id" not in client.session


def test_the_account_is_locked_from_any_address(client, operator, settings):
    _fail(client, settings.AXES_FAILURE_LIMIT, address="203.0.113.7")

    assert _log_in(client, "olga", PASSWORD, address="198.51.100.20").status_code == 429


def test_an_address_that_keeps_failing_is_locked_for_every_account(client, operator, settings):
    get_user_model().objects.create_superuser("sam", password=PASSWORD)
    for n in range(settings.AXES_FAILURE_LIMIT):
        _fail(client, 1, username=f"guess-{n}", address="192.0.2.66")

    assert _log_in(client, "sam", PASSWORD, address="192.0.2.66").status_code == 429
    assert _log_in(client, "sam", PASSWORD, address="198.51.100.20").status_code == 302


def test_an_operator_unlocks_an_account_with_a_command(client, operator, settings):
    _fail(client, settings.AXES_FAILURE_LIMIT)
    assert _log_in(client, "olga", PASSWORD).status_code == 429

    call_command("axes_reset_username", "olga", stdout=StringIO())
    call_command("axes_reset_ip", "203.0.113.7", stdout=StringIO())

    assert _log_in(client, "olga", PASSWORD).status_code == 302


def test_api_keys_are_not_logins_and_are_never_locked(client, operator, settings, tenant):
    from tests.factories import api_key_for

    key = api_key_for(tenant)
    _fail(client, settings.AXES_FAILURE_LIMIT, address="127.0.0.1")

    response = client.get(
        "/memories/list",
        {"user_id": "6f1c2f0e-4a53-4a59-9d55-0f6b7f0b2c11"},
        HTTP_AUTHORIZATION=f"Bearer {key}",
        REMOTE_ADDR="127.0.0.1",
    )
    assert response.status_code == 200


def test_behind_the_tls_proxy_clients_are_told_apart_by_the_address_it_forwards(
    client, operator, settings
):
    settings.PROXY_COUNT = 1  # what DJANGO_HTTPS sets (test_production_settings checks it)
    get_user_model().objects.create_superuser("sam", password=PASSWORD)

    def via_proxy(username: str, password: str, client_address: str, forged: str = ""):
        forwarded = f"{forged}, {client_address}" if forged else client_address
        return client.post(
            LOGIN,
            {"username": username, "password": password, "next": "/admin/"},
            REMOTE_ADDR="10.0.0.2",  # the proxy, for everyone
            HTTP_X_FORWARDED_FOR=forwarded,
        )

    for n in range(settings.AXES_FAILURE_LIMIT):
        # An attacker forging the left of the header is still one address: the proxy's entry.
        assert via_proxy(
            f"guess-{n}", "wrong", "198.51.100.9", forged=f"1.2.3.{n}"
        ).status_code in (
            200,
            429,
        )

    assert via_proxy("sam", PASSWORD, "198.51.100.9").status_code == 429
    assert via_proxy("sam", PASSWORD, "203.0.113.50").status_code == 302
