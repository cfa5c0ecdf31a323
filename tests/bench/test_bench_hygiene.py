"""bench_hygiene on a small junk file: the seeded junk and pairs are scored per kind, the bench
tenant is removed, and the dev set is well formed."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from bench.hygiene import JUNK, clean_stores, junk_load
from bench.management.commands.bench_hygiene import Command as BenchHygiene
from memories.hygiene import CAPTION_KINDS
from tenants.models import Tenant

pytestmark = pytest.mark.django_db

SMALL = """
garbled = ["User lives in", "User smokes tho"]
general = ["The capital of France is Paris"]
stale_time = ["User moved to Lisbon two years ago"]
assistant = ["The assistant recommended trying yoga"]
duplicates = [["User lives in Porto", "User is living in Porto"]]
"""


@pytest.fixture(autouse=True)
def _hashing_embedder(settings):
    settings.MEMORY_EMBEDDER = "hashing"


def test_bench_hygiene_scores_each_kind_and_removes_its_tenant(tmp_path):
    junk = tmp_path / "junk.toml"
    junk.write_text(SMALL)
    out = StringIO()

    call_command(BenchHygiene(), "--data", str(junk), "--json", "--as-labelled", stdout=out)

    report = json.loads(out.getvalue())
    kinds = report["kinds"]
    assert kinds["garbled"] == {
        "seeded": 2, "flagged": 2, "found": 2, "recall": 1.0, "precision": 1.0
    }  # fmt: skip
    assert (kinds["duplicate"]["seeded"], kinds["duplicate"]["found"]) == (1, 1)
    assert kinds["general"]["found"] == kinds["assistant"]["found"] == 1
    assert report["junk"] == 5 and report["clean"] > 300
    assert not Tenant.objects.filter(name="bench-hygiene").exists()


def test_the_dev_set_has_twenty_of_each_junk_kind_and_its_relabelled_captions_are_clean_labels():
    junk = junk_load(JUNK)
    labels = {caption for store in clean_stores() for caption in store}

    assert all(len(junk[kind]) == 20 for kind in CAPTION_KINDS)
    assert len(junk["duplicates"]) == 30
    assert set(junk["clean_that_go_stale"]) <= labels
