"""Pruning, re-embedding and statistics: the services, the commands and the scheduled task."""

from __future__ import annotations

import io
import json
from datetime import timedelta

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from extraction.selectors import tenant_stats_with_jobs_list
from integrations.embeddings import HASHING_MODEL_ID
from memories.models import DeletionRecord, Memory
from memories.services.maintenance import memory_prune, memory_reembed
from memories.tasks import prune_memories
from tests.factories import (
    EndUserFactory,
    ExtractionJobFactory,
    TenantFactory,
    conflict_make,
    memory_make,
)


@pytest.fixture(autouse=True)
def _hashing_embedder(settings):
    settings.MEMORY_EMBEDDER = "hashing"


def _age(memory: Memory, *, days: int, accessed_days_ago: int | None = None) -> Memory:
    now = timezone.now()
    accessed = None if accessed_days_ago is None else now - timedelta(days=accessed_days_ago)
    Memory.objects.filter(pk=memory.pk).update(
        created_at=now - timedelta(days=days), last_accessed_at=accessed
    )
    return memory


def _run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def _ids(**filters) -> set[str]:
    return set(Memory.objects.filter(**filters).values_list("id", flat=True))


# --- pruning --------------------------------------------------------------------------------


def test_prune_by_age_deletes_old_memories_for_real_and_keeps_recent_ones(end_user):
    old = _age(memory_make(end_user, "User likes jazz"), days=200)
    old_superseded = _age(memory_make(end_user, "User likes rock", status="superseded"), days=300)
    recent = _age(memory_make(end_user, "User likes tea"), days=3)

    result = memory_prune(older_than=timedelta(days=90))

    assert (result.by_criteria, result.users) == (2, 1)
    assert _ids() == {recent.id}
    records = DeletionRecord.objects.filter(memory_id__in=[old.id, old_superseded.id])
    assert {(r.reason, r.actor_type, r.actor) for r in records} == {
        ("pruned", "system", "prune_memories")
    }


def test_prune_never_touches_a_pending_conflict(end_user):
    item = conflict_make(end_user)
    for memory in Memory.objects.all():
        _age(memory, days=400)

    result = memory_prune(older_than=timedelta(days=1), cap=0)

    assert result.total == 0
    assert _ids() == {item.new_memory_id, *item.existing_memories.values_list("id", flat=True)}


def test_prune_by_last_access_keeps_memories_recalled_recently(end_user):
    never = _age(memory_make(end_user, "User likes jazz"), days=100)
    long_ago = _age(memory_make(end_user, "User likes rock"), days=100, accessed_days_ago=60)
    lately = _age(memory_make(end_user, "User likes tea"), days=100, accessed_days_ago=2)
    new = _age(memory_make(end_user, "User likes pop"), days=5)

    memory_prune(unused_for=timedelta(days=30))

    assert _ids() == {lately.id, new.id}
    assert not _ids(pk__in=[never.id, long_ago.id])


def test_prune_by_age_and_access_needs_both(end_user):
    old_but_used = _age(memory_make(end_user, "User likes jazz"), days=400, accessed_days_ago=1)
    old_unused = _age(memory_make(end_user, "User likes rock"), days=400)

    memory_prune(older_than=timedelta(days=365), unused_for=timedelta(days=30))

    assert _ids() == {old_but_used.id}
    assert old_unused.id not in _ids()


def test_prune_only_the_given_users_and_statuses(tenant):
    alice, bob = EndUserFactory(tenant=tenant), EndUserFactory(tenant=tenant)
    alice_active = _age(memory_make(alice, "User likes jazz"), days=100)
    alice_superseded = _age(memory_make(alice, "User likes rock", status="superseded"), days=100)
    bob_superseded = _age(memory_make(bob, "User likes tea", status="superseded"), days=100)

    memory_prune(older_than=timedelta(days=30), statuses=["superseded"], end_user_ids=[alice.pk])

    assert _ids() == {alice_active.id, bob_superseded.id}
    assert alice_superseded.id not in _ids()


def test_prune_to_cap_evicts_the_oldest_active_memories_and_counts_pending_ones(end_user):
    conflict_make(end_user, "User lives in Munich", ("User lives in Berlin",))
    extra = [_age(memory_make(end_user, f"User likes band {n}"), days=50 - n) for n in range(4)]
    # Visible: 1 pending + 5 active = 6; cap 4 evicts the two oldest unprotected active ones.

    result = memory_prune(cap=4)

    assert result.over_cap == 2
    assert not _ids(pk__in=[extra[0].id, extra[1].id])
    assert (
        Memory.objects.filter(end_user=end_user, status__in=["active", "pending_review"]).count()
        == 4
    )


def test_prune_dry_run_counts_and_deletes_nothing(end_user):
    for n in range(3):
        _age(memory_make(end_user, f"User likes band {n}"), days=100)

    result = memory_prune(older_than=timedelta(days=30), cap=1, dry_run=True)

    assert (result.by_criteria, result.dry_run) == (3, True)
    assert Memory.objects.count() == 3
    assert not DeletionRecord.objects.exists()


def test_prune_in_small_batches_deletes_everything_that_matches(end_user):
    for n in range(7):
        _age(memory_make(end_user, f"User likes band {n}"), days=100)

    result = memory_prune(older_than=timedelta(days=30), batch_size=2)

    assert result.by_criteria == 7
    assert not Memory.objects.exists()


def test_prune_memories_command_prints_one_summary_line(end_user):
    for n in range(2):
        _age(memory_make(end_user, f"User likes band {n}"), days=100)

    dry = _run("prune_memories", "--older-than", "30d", "--dry-run")
    assert Memory.objects.count() == 2
    done = _run("prune_memories", "--older-than", "30d", "--user", str(end_user.external_id))

    assert dry.strip() == (
        "Would prune 2 memories of 1 user(s): 2 by age/access, 0 over the cap "
        "(dry run: nothing deleted)."
    )
    assert done.strip() == "Pruned 2 memories of 1 user(s): 2 by age/access, 0 over the cap."
    assert not Memory.objects.exists()


def test_prune_memories_to_cap_defaults_to_the_setting(end_user, settings):
    settings.MEMORY_USER_CAP = 1
    for n in range(3):
        _age(memory_make(end_user, f"User likes band {n}"), days=10 - n)

    output = _run("prune_memories", "--to-cap")

    assert "2 over the cap" in output
    assert Memory.objects.count() == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give --older-than"),
        (["--older-than", "soon"], "duration"),
        (["--older-than", "1d", "--tenant", "nobody"], "no tenant"),
        (["--older-than", "1d", "--user", "8f1c3a52-43c4-4b31-9bd5-0a1d3f2b9c77"], "none of"),
    ],
)
@pytest.mark.django_db
def test_prune_memories_refuses_unclear_requests(args, message):
    with pytest.raises(CommandError, match=message):
        call_command("prune_memories", *args, stdout=io.StringIO(), stderr=io.StringIO())


def test_the_scheduled_prune_applies_the_rules_from_settings(end_user, settings):
    settings.MEMORY_USER_CAP = 2
    settings.MEMORY_PRUNE_SUPERSEDED_DAYS = 30
    settings.MEMORY_PRUNE_UNUSED_DAYS = 0  # off
    old_superseded = _age(memory_make(end_user, "User liked rock", status="superseded"), days=40)
    kept_superseded = _age(memory_make(end_user, "User liked pop", status="superseded"), days=5)
    active = [_age(memory_make(end_user, f"User likes band {n}"), days=90 - n) for n in range(3)]

    summary = prune_memories.delay().get()

    assert summary == {"by_criteria": 1, "over_cap": 1, "users": 2}
    assert _ids() == {kept_superseded.id, active[1].id, active[2].id}
    assert old_superseded.id not in _ids()


# --- re-embedding ---------------------------------------------------------------------------


def _stale(end_user, text: str) -> Memory:
    memory = memory_make(end_user, text)
    Memory.objects.filter(pk=memory.pk).update(embedding=[1.0, 0.0, 0.0], embedding_model="old-3d")
    return memory


def test_reembed_recomputes_stale_vectors_with_the_current_model(end_user):
    stale = [_stale(end_user, f"User likes band {n}") for n in range(5)]
    missing = memory_make(end_user, "User likes tea")  # no vector at all
    progress = []

    result = memory_reembed(batch_size=2, on_batch=lambda done, total: progress.append(done))

    assert (result.stale, result.embedded, result.batches) == (6, 6, 3)
    assert progress == [2, 4, 6]
    for memory in [*stale, missing]:
        memory.refresh_from_db()
        assert memory.embedding_model == HASHING_MODEL_ID
        assert len(memory.embedding) == 384
        assert np.isclose(np.linalg.norm(memory.embedding), 1.0, atol=1e-4)


def test_reembed_leaves_up_to_date_vectors_alone_unless_asked(end_user):
    _stale(end_user, "User likes jazz")
    memory_reembed()

    assert memory_reembed().stale == 0
    assert memory_reembed(everything=True).embedded == 1


def test_reembed_skips_a_memory_whose_text_changed_while_it_was_embedded(end_user, monkeypatch):
    memory = _stale(end_user, "User likes jazz")
    from memories.services import maintenance

    real = maintenance.embed_texts

    def embed_while_someone_edits(texts):
        Memory.objects.filter(pk=memory.pk).update(full_text="User likes free jazz")
        return real(texts)

    monkeypatch.setattr(maintenance, "embed_texts", embed_while_someone_edits)

    result = memory_reembed()

    memory.refresh_from_db()
    assert (result.stale, result.embedded) == (1, 0)
    assert memory.embedding_model == "old-3d"


def test_reembed_command_dry_run_and_summary_with_progress(end_user):
    for n in range(3):
        _stale(end_user, f"User likes band {n}")

    dry = _run("reembed", "--dry-run")
    err = io.StringIO()
    out = io.StringIO()
    call_command("reembed", "--batch-size", "2", stdout=out, stderr=err)

    assert dry.strip() == f"Would re-embed 3 stale memories with {HASHING_MODEL_ID} (dry run)."
    assert out.getvalue().strip() == (
        f"Re-embedded 3 of 3 stale memories with {HASHING_MODEL_ID} in 2 batch(es)."
    )
    assert err.getvalue().splitlines()[-1].endswith("] 3/3")


# --- statistics -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_tenant_stats_count_users_memories_reviews_and_jobs_per_tenant_in_one_query():
    acme, globex = TenantFactory(name="acme"), TenantFactory(name="globex")
    alice, bob = EndUserFactory(tenant=acme), EndUserFactory(tenant=acme)
    EndUserFactory(tenant=globex)
    conflict_make(alice)  # 1 active + 1 pending memory, 1 pending review
    memory_make(bob, "User likes tea")
    memory_make(bob, "User liked coffee", status="superseded")
    for status in ("failed", "succeeded", "succeeded"):
        ExtractionJobFactory(end_user=alice, status=status)

    with CaptureQueriesContext(connection) as queries:
        stats = {tenant.name: tenant for tenant in tenant_stats_with_jobs_list()}

    assert len(queries) == 1
    a, g = stats["acme"], stats["globex"]
    assert (a.users, a.memories_active, a.memories_pending_review, a.memories_superseded) == (
        2,
        2,
        1,
        1,
    )
    assert (a.reviews_pending, a.jobs_failed, a.jobs_succeeded, a.jobs_queued) == (1, 1, 2, 0)
    assert (g.users, g.memories_active, g.reviews_pending, g.jobs_failed) == (1, 0, 0, 0)


def test_memory_stats_command_prints_a_table_and_a_summary(end_user):
    conflict_make(end_user)

    lines = _run("memory_stats").strip().splitlines()

    assert lines[0].split() == [
        "tenant",
        "users",
        "active",
        "pending",
        "superseded",
        "reviews",
        "queued",
        "running",
        "succeeded",
        "failed",
    ]
    assert lines[1].split()[:6] == [end_user.tenant.name, "1", "1", "1", "0", "1"]
    assert lines[-1] == (
        "1 tenant(s), 1 user(s), 2 memories (1 active, 1 pending review, 0 superseded), "
        "1 pending review(s), 0 failed job(s); in the last 30 day(s) 0 extraction(s), "
        "0 recall(s), 0 LLM call(s)."
    )


def test_memory_stats_command_json_for_one_tenant(end_user):
    TenantFactory(name="other")

    lines = _run("memory_stats", "--json", "--tenant", end_user.tenant.name).splitlines()

    row = json.loads(lines[0])
    assert row["tenant"] == end_user.tenant.name
    assert row["users"] == 1
    assert lines[-1].startswith("1 tenant(s)")


def test_celery_beat_runs_the_pruning_on_a_schedule_from_settings(settings):
    schedule = {entry["task"]: entry for entry in settings.CELERY_BEAT_SCHEDULE.values()}

    assert prune_memories.name in schedule, "CELERY_BEAT_SCHEDULE must run the pruning task"
    every = schedule[prune_memories.name]["schedule"]
    assert every == timedelta(hours=settings.MEMORY_PRUNE_EVERY_HOURS)
