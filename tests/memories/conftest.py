"""Fixtures the admin tests of the memory store share."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model


@pytest.fixture
def operator(db):
    """A superuser operator of the admin."""
    return get_user_model().objects.create_superuser("olga", password="not-used-here")


@pytest.fixture
def client_as_operator(client, operator):
    client.force_login(operator)
    return client
