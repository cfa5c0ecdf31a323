"""The API's paths resolve to their views whatever the order of the apps' includes."""

from __future__ import annotations

import uuid

import pytest
from django.urls import resolve, reverse

from memories.models import new_memory_id

MEMORY_ID = "mem_AbCdEfGh12345678"
JOB_ID = uuid.UUID("3f1c2d4e-0000-4000-8000-000000000001")


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/memories/extract", "memories-extract"),
        (f"/memories/jobs/{JOB_ID}", "memories-job"),
        ("/memories/relevant", "memories-relevant"),
        ("/memories/context", "memories-context"),
        ("/memories/full", "memories-full"),
        ("/memories/list", "memories-list"),
        (f"/memories/{MEMORY_ID}", "memories-delete"),
        # Anything else is a malformed memory id: a 400 from the fallback, not the router's 404.
        ("/memories/mem_short", "memories-delete-malformed"),
        ("/memories/not-a-memory", "memories-delete-malformed"),
    ],
)
def test_each_path_under_memories_reaches_its_own_view(path, name):
    # memories.urls is included first: a memory id must shadow none of the other apps' paths.
    assert resolve(path).url_name == name


def test_every_new_memory_id_is_routed_to_the_deletion():
    assert resolve(f"/memories/{new_memory_id()}").url_name == "memories-delete"


def test_a_memory_id_round_trips_through_the_converter():
    path = reverse("memories-delete", kwargs={"memory_id": MEMORY_ID})

    assert path == f"/memories/{MEMORY_ID}"
    assert resolve(path).kwargs == {"memory_id": MEMORY_ID}
