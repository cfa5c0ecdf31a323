"""Logging an operator into the admin from the browser tests."""

from __future__ import annotations

from django.contrib.auth import get_user_model

PASSWORD = "a-long-operator-passphrase"


def operator_create():
    """The superuser the browser tests log in as."""
    return get_user_model().objects.create_superuser("operator", password=PASSWORD)


def log_in(page, live_server) -> None:
    """Log the operator in through the admin's login form."""
    page.goto(f"{live_server.url}/admin/")
    page.fill("#id_username", "operator")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{live_server.url}/admin/")
