"""Issue 33: a memory knows when it was said (`stated_at`, `last_stated_at`) and when it holds
(`valid_from`, `valid_to`); rows from before are stated when they were created, and the history
keeps each change of time as a version."""

from __future__ import annotations

import datetime

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from memories.models import Memory, MemoryVersion
from memories.services.memories import memory_create, memory_merge, memory_restate
from tests.factories import EndUserFactory, MemoryFactory

pytestmark = pytest.mark.django_db

SAID = datetime.datetime(2025, 1, 14, 9, 30, tzinfo=datetime.UTC)


def _create(end_user, text="User lives in Porto", **time):
    return memory_create(
        end_user=end_user,
        caption=text,
        full_text=text,
        category=Memory.Category.PERSONAL,
        confidence=0.9,
        content_hash=text,
        embedding=None,
        embedding_model="",
        **time,
    )


def test_a_validity_that_ends_before_it_starts_is_refused_by_the_schema():
    with pytest.raises(IntegrityError), transaction.atomic():
        MemoryFactory(valid_from=datetime.date(2024, 6, 1), valid_to=datetime.date(2023, 1, 1))

    MemoryFactory(valid_from=datetime.date(2023, 1, 1), valid_to=datetime.date(2023, 1, 1))
    MemoryFactory(valid_from=None, valid_to=datetime.date(2019, 1, 1))


def test_a_new_memory_is_stated_when_its_message_was_sent_and_its_version_records_it():
    memory = _create(
        EndUserFactory(), stated_at=SAID, valid_from=datetime.date(2024, 12, 1), valid_to=None
    )

    memory.refresh_from_db()
    assert (memory.stated_at, memory.last_stated_at) == (SAID, SAID)
    assert memory.valid_from == datetime.date(2024, 12, 1)
    version = memory.versions.get()
    assert (version.stated_at, version.valid_from, version.valid_to) == (
        SAID,
        datetime.date(2024, 12, 1),
        None,
    )


def test_without_a_time_a_memory_is_stated_now():
    before = datetime.datetime.now(datetime.UTC)

    memory = _create(EndUserFactory())

    assert memory.stated_at >= before
    assert memory.valid_from is None and memory.valid_to is None


def test_a_restatement_moves_last_stated_at_forward_and_keeps_the_first():
    memory = _create(EndUserFactory(), stated_at=SAID)
    later = SAID + datetime.timedelta(days=40)

    memory_merge(
        memory=memory,
        caption="User lives in Porto, Portugal",
        full_text="User lives in Porto, Portugal",
        confidence=0.9,
        content_hash="porto portugal",
        embedding=None,
        embedding_model="",
        stated_at=later,
    )
    memory_restate(memory=memory, stated_at=SAID + datetime.timedelta(days=10))

    memory.refresh_from_db()
    assert (memory.stated_at, memory.last_stated_at) == (SAID, later)
    merged = memory.versions.get(action=MemoryVersion.Action.MERGED)
    assert merged.last_stated_at == later


def test_a_merge_fills_in_a_validity_the_memory_did_not_know():
    memory = _create(EndUserFactory(), stated_at=SAID)

    memory_merge(
        memory=memory,
        caption="User lives in Porto",
        full_text="User lives in Porto since 2019",
        confidence=0.9,
        content_hash="since 2019",
        embedding=None,
        embedding_model="",
        stated_at=SAID,
        valid_from=datetime.date(2019, 1, 1),
    )

    memory.refresh_from_db()
    assert memory.valid_from == datetime.date(2019, 1, 1)


def test_a_merge_never_starts_a_memory_after_it_was_first_said():
    memory = _create(EndUserFactory(), text="User rows at a club", stated_at=SAID)

    memory_merge(
        memory=memory,
        caption="User rows at a club",
        full_text="User rows at a club since the spring",
        confidence=0.9,
        content_hash="rows since spring",
        embedding=None,
        embedding_model="",
        stated_at=SAID + datetime.timedelta(days=200),
        valid_from=datetime.date(2025, 4, 1),
    )

    memory.refresh_from_db()
    assert memory.valid_from is None  # it held on 14 January already


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("as_the_tables_owner")
def test_memories_stored_before_the_time_fields_were_stated_when_they_were_created():
    before = [("memories", "0011_memory_sources")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    executor.loader.build_graph()
    old = executor.loader.project_state(before).apps
    tenant = old.get_model("tenants", "Tenant").objects.create(name="janus")
    end_user = old.get_model("memories", "EndUser").objects.create(tenant=tenant, external_id="a")
    stored = old.get_model("memories", "Memory").objects.create(
        end_user=end_user, caption="User likes tea", full_text="User likes tea", content_hash="t"
    )
    created = datetime.datetime(2024, 3, 2, 8, 0, tzinfo=datetime.UTC)
    old.get_model("memories", "Memory").objects.filter(pk=stored.pk).update(created_at=created)

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    memory = Memory.objects.get(pk=stored.pk)
    assert (memory.stated_at, memory.last_stated_at) == (created, created)
    assert memory.valid_from is None and memory.valid_to is None
