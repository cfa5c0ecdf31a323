"""The write pipeline against the real database and a real OpenAI-protocol stub server."""

from __future__ import annotations

import io
import uuid
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from core.exceptions import UpstreamUnavailable
from extraction.jobs import extraction_job_submit, extraction_perform
from extraction.models import ExtractionJob
from extraction.tasks import extraction_stalled_jobs_retry_task
from memories.models import DeletionRecord, Memory, MemoryVersion, ReviewItem
from tests.scripted_llm import ScriptedLLM, fact

pytestmark = pytest.mark.django_db


@pytest.fixture
def llm(llm_settings) -> ScriptedLLM:
    return ScriptedLLM(llm_settings)


def _extract(tenant, user_id: uuid.UUID, text: str, **kwargs):
    return extraction_perform(
        tenant=tenant,
        external_id=user_id,
        messages=[{"role": "user", "content": text}, {"role": "assistant", "content": "Noted."}],
        **kwargs,
    )


def test_extract_same_conversation_twice_calls_llm_once(tenant, llm):
    user_id = uuid.uuid4()
    llm.learn("tea", fact("User drinks green tea every morning", "preference"))

    first = _extract(tenant, user_id, "I drink green tea every morning")
    second = _extract(tenant, user_id, "I drink green tea every morning")

    assert first.state == "extracted" and second.state == "replayed"
    assert [m.id for m in second.memories] == [m.id for m in first.memories]
    assert len(llm.extraction_calls) == 1
    assert ExtractionJob.objects.get().llm_calls == 1


def test_the_same_conversation_for_another_user_is_extracted_again(tenant, llm):
    llm.learn("tea", fact("User drinks green tea every morning", "preference"))

    _extract(tenant, uuid.uuid4(), "I drink green tea every morning")
    _extract(tenant, uuid.uuid4(), "I drink green tea every morning")

    assert len(llm.extraction_calls) == 2


def test_every_new_memory_starts_its_history_with_a_created_version(tenant, llm):
    llm.learn("berlin", fact("User lives in Berlin"))

    outcome = _extract(tenant, uuid.uuid4(), "I live in berlin")

    memory = outcome.memories[0]
    version = memory.versions.get()
    assert (version.version, version.action, version.caption) == (1, "created", memory.caption)
    assert memory.embedding_model and len(memory.embedding) == 384


def test_what_the_user_stated_and_the_model_left_out_is_kept_in_their_words(tenant, llm):
    llm.learn("vegan", fact("User is vegan", "preference"))

    outcome = _extract(tenant, uuid.uuid4(), "I'm vegan and my partner is a firefighter in Cork")

    assert [m.caption for m in outcome.memories] == [
        "User is vegan",
        "User's partner is a firefighter in Cork",
    ]
    assert ExtractionJob.objects.get().statements_added == 1


def test_a_model_caption_cut_before_its_value_is_never_stored(tenant, llm):
    llm.learn("pizza", fact("User loves"), fact("User's dog is called"))

    outcome = _extract(tenant, uuid.uuid4(), "I love 🍕 pizza and my dog is called 🐶Rex")

    # The model's captions say nothing; the user's own statements are kept whole instead.
    assert sorted(m.caption for m in outcome.memories) == [
        "User loves pizza",
        "User's dog is called Rex",
    ]


def test_a_statement_the_model_already_covered_is_not_stored_twice(tenant, llm):
    llm.learn("leeds", fact("User works as a nurse in Leeds"))

    outcome = _extract(tenant, uuid.uuid4(), "i'm a nurse in leeds, mostly nights")

    assert [m.caption for m in outcome.memories] == ["User works as a nurse in Leeds"]
    assert ExtractionJob.objects.get().statements_added == 0


def test_exact_duplicate_from_another_conversation_stores_nothing_new(tenant, llm):
    user_id = uuid.uuid4()
    llm.learn("first", fact("User lives in Berlin"))
    llm.learn("second", fact("user lives in berlin."))

    _extract(tenant, user_id, "first: I live in Berlin")
    outcome = _extract(tenant, user_id, "second: Berlin is where I live")

    assert outcome.memories == []
    assert outcome.total_user_memories == 1
    assert MemoryVersion.objects.count() == 1


def test_near_duplicate_is_merged_into_the_existing_memory_as_a_new_version(tenant, llm):
    user_id = uuid.uuid4()
    llm.learn("first", fact("User lives in Berlin"))
    llm.learn("second", fact("User lives in Berlin, Germany"))

    first = _extract(tenant, user_id, "first: I live in Berlin")
    second = _extract(tenant, user_id, "second: I live in Berlin, Germany")

    memory = Memory.objects.get()
    assert [m.id for m in second.memories] == [first.memories[0].id] == [memory.id]
    assert memory.full_text == "User lives in Berlin, Germany"
    merged = memory.versions.get(version=2)
    assert merged.action == "merged"
    assert (merged.full_text_before, merged.full_text) == (
        "User lives in Berlin",
        "User lives in Berlin, Germany",
    )


def test_contradiction_is_held_for_review_and_never_overwrites(tenant, llm):
    user_id = uuid.uuid4()
    llm.learn("first", fact("User likes coffee", "preference"))
    llm.learn("second", fact("User does not like coffee", "preference"))
    llm.contradict("User likes coffee", "User does not like coffee")

    _extract(tenant, user_id, "first: I like coffee")
    outcome = _extract(tenant, user_id, "second: I don't like coffee any more")

    old = Memory.objects.get(full_text="User likes coffee")
    new = Memory.objects.get(full_text="User does not like coffee")
    assert old.status == Memory.Status.ACTIVE and old.versions.count() == 1
    assert new.status == Memory.Status.PENDING_REVIEW
    review = ReviewItem.objects.get()
    assert review.new_memory == new and list(review.existing_memories.all()) == [old]
    assert review.reason == "scripted verdict" and review.signal == ReviewItem.Signal.LLM
    assert [m.id for m in outcome.memories] == [new.id]
    assert len(llm.decision_calls) == 1


def test_a_compatible_similar_fact_is_stored_alongside(tenant, llm):
    user_id = uuid.uuid4()
    llm.learn("first", fact("User prefers Python", "technical"))
    llm.learn("second", fact("User prefers Python for scripting", "technical"))

    _extract(tenant, user_id, "first: I prefer Python")
    _extract(tenant, user_id, "second: I prefer Python for scripting")

    assert Memory.objects.filter(status=Memory.Status.ACTIVE).count() == 2
    assert not ReviewItem.objects.exists()
    # The stored fact was shown to the LLM as a neighbour, and it answered "new".
    [call] = llm.decision_calls
    [shown] = llm.shown(call)
    assert shown["stored"] == "User prefers Python"


def test_rules_judge_the_conflict_when_the_llm_advice_is_down(tenant, llm):
    user_id = uuid.uuid4()
    llm.learn("first", fact("User lives in Berlin"))
    llm.learn("second", fact("User lives in Munich"))
    llm.judge_available = False

    _extract(tenant, user_id, "first: I live in Berlin")
    _extract(tenant, user_id, "second: I live in Munich")

    review = ReviewItem.objects.get()
    assert review.new_memory.full_text == "User lives in Munich"
    assert review.signal == ReviewItem.Signal.RULES
    assert "where the user lives" in review.reason and "munich" in review.reason


def test_cap_evicts_the_oldest_active_memories_with_an_audit_record(tenant, llm, settings):
    settings.MEMORY_USER_CAP = 5
    user_id = uuid.uuid4()
    hobbies = ["chess", "rowing", "pottery", "origami", "salsa", "karate", "birdwatching"]
    llm.learn(
        "first",
        *(fact(f"User's hobby number {i} is {h}", "preference") for i, h in enumerate(hobbies[:4])),
    )
    llm.learn(
        "second",
        *(
            fact(f"User's hobby number {i} is {h}", "preference")
            for i, h in enumerate(hobbies[4:], start=4)
        ),
    )

    said = [f"my hobby number {i} is {h}" for i, h in enumerate(hobbies)]
    _extract(tenant, user_id, "first: " + ", ".join(said[:4]))
    outcome = _extract(tenant, user_id, "second: " + ", ".join(said[4:]))

    assert outcome.total_user_memories == 5
    kept = set(Memory.objects.values_list("caption", flat=True))
    assert kept == {f"User's hobby number {i} is {h}" for i, h in enumerate(hobbies)} - {
        "User's hobby number 0 is chess",
        "User's hobby number 1 is rowing",
    }
    assert DeletionRecord.objects.filter(reason="evicted").count() == 2
    assert not DeletionRecord.objects.filter(memory_id__in=kept).exists()


def test_a_pending_conflict_is_never_evicted_by_the_cap(tenant, llm, settings):
    settings.MEMORY_USER_CAP = 2
    user_id = uuid.uuid4()
    llm.learn("first", fact("User likes coffee", "preference"))
    llm.learn("second", fact("User does not like coffee", "preference"))
    llm.contradict("User likes coffee", "User does not like coffee")
    llm.learn("third", fact("User plays the cello", "personal"), fact("User owns a red kayak"))

    _extract(tenant, user_id, "first: I like coffee")
    _extract(tenant, user_id, "second: I don't like coffee any more")
    outcome = _extract(tenant, user_id, "third: I play the cello and I own a red kayak")

    assert outcome.total_user_memories == 2
    assert Memory.objects.filter(status=Memory.Status.PENDING_REVIEW).count() == 1
    assert ReviewItem.objects.get().status == ReviewItem.Status.PENDING


def test_llm_down_keeps_the_conversation_and_retry_failed_jobs_replays_it(tenant, llm):
    user_id = uuid.uuid4()
    llm.learn("remember", fact("User's locker code is blue", "other"))
    llm.stub.fail(503, times=3)

    with pytest.raises(UpstreamUnavailable) as failure:
        _extract(tenant, user_id, "remember my locker is blue")

    job = ExtractionJob.objects.get(pk=failure.value.extra["job_id"])
    assert job.status == ExtractionJob.Status.FAILED
    assert job.conversation[0]["content"] == "remember my locker is blue"
    # Every HTTP attempt counts, failed ones too: they are what the tenant was charged for.
    assert "LLMUnavailable" in job.error and job.llm_calls == 3
    assert not Memory.objects.exists()

    call_command("retry_failed_jobs", stdout=io.StringIO())

    job.refresh_from_db()
    assert job.status == ExtractionJob.Status.SUCCEEDED and job.attempts == 2
    assert list(job.memories_saved.values_list("caption", flat=True)) == [
        "User's locker code is blue"
    ]
    assert job.conversation == []  # kept only until the job succeeded


def test_retry_failed_jobs_dry_run_changes_nothing(tenant, llm):
    llm.stub.fail(500, times=3)
    with pytest.raises(UpstreamUnavailable):
        _extract(tenant, uuid.uuid4(), "anything")
    out = io.StringIO()

    call_command("retry_failed_jobs", "--dry-run", stdout=out)

    assert "1 jobs (0 stalled, the rest failed) would be retried" in out.getvalue()
    assert ExtractionJob.objects.get().status == ExtractionJob.Status.FAILED


def _job_left_behind(tenant, text: str, **state) -> ExtractionJob:
    """A job as a killed process leaves it: submitted, then stuck in `state`."""
    job, _ = extraction_job_submit(
        tenant=tenant, external_id=uuid.uuid4(), messages=[{"role": "user", "content": text}]
    )
    ExtractionJob.objects.filter(pk=job.pk).update(**state)
    return job


def test_a_job_whose_worker_died_mid_run_is_replayed_once_it_is_stale(tenant, llm, settings):
    settings.MEMORY_JOB_STALE_MINUTES = 10
    llm.learn("locker", fact("User's locker code is blue", "other"))
    llm.learn("bike", fact("User rides a red bike", "other"))
    stalled = _job_left_behind(
        tenant, "my locker is blue", status="running",
        started_at=timezone.now() - timedelta(minutes=11),
    )  # fmt: skip
    busy = _job_left_behind(
        tenant, "my bike is red", status="running",
        started_at=timezone.now() - timedelta(minutes=2),
    )  # fmt: skip

    call_command("retry_failed_jobs", stdout=io.StringIO())

    stalled.refresh_from_db()
    busy.refresh_from_db()
    assert stalled.status == ExtractionJob.Status.SUCCEEDED
    assert stalled.memories_saved.get().caption == "User's locker code is blue"
    assert busy.status == ExtractionJob.Status.RUNNING  # still within its time: left alone


def test_beat_replays_stalled_jobs_but_leaves_failed_ones_to_the_operator(tenant, llm, settings):
    settings.MEMORY_JOB_STALE_MINUTES = 10
    llm.learn("locker", fact("User's locker code is blue", "other"))
    an_hour_ago = timezone.now() - timedelta(hours=1)
    lost = _job_left_behind(tenant, "my locker is blue", created_at=an_hour_ago)  # queued
    failed = _job_left_behind(tenant, "anything", status="failed", created_at=an_hour_ago)

    summary = extraction_stalled_jobs_retry_task.apply().get()

    lost.refresh_from_db()
    failed.refresh_from_db()
    assert summary["stalled"] == 1 and summary["succeeded"] == 1
    assert lost.status == ExtractionJob.Status.SUCCEEDED
    assert failed.status == ExtractionJob.Status.FAILED


def test_async_extraction_without_a_broker_runs_inline_after_commit(
    tenant, llm, django_capture_on_commit_callbacks
):
    llm.learn("tea", fact("User drinks green tea", "preference"))

    with django_capture_on_commit_callbacks(execute=True):
        outcome = _extract(tenant, uuid.uuid4(), "tea please, I drink green tea", run_async=True)

    assert outcome.state == "queued"
    outcome.job.refresh_from_db()
    assert outcome.job.status == ExtractionJob.Status.SUCCEEDED


# --- decisions: one call per conversation, the policy, the offline path -------------------


def test_all_candidates_of_a_conversation_are_decided_in_one_call(tenant, llm):
    user_id = uuid.uuid4()
    llm.learn("first", fact("User lives in Berlin"), fact("User works at Acme"))
    llm.learn(
        "second",
        fact("User moved to Munich"),
        fact("User started a new job at Initech"),
        fact("User has a dog called Rex"),
    )
    llm.contradict("User lives in Berlin", "User moved to Munich")
    llm.contradict("User works at Acme", "User started a new job at Initech")

    _extract(tenant, user_id, "first: I live in Berlin and I work at Acme")
    _extract(
        tenant,
        user_id,
        "second: I moved to Munich, I started a new job at Initech and I have a dog called Rex",
    )

    assert len(llm.decision_calls) == 1
    held = ReviewItem.objects.order_by("pk")
    assert [item.new_memory.full_text for item in held] == [
        "User moved to Munich",
        "User started a new job at Initech",
    ]
    job = ExtractionJob.objects.order_by("created_at").last()
    assert job.llm_calls == 2  # the extraction and the one decision call


def test_an_unusable_decision_reply_leaves_each_candidate_to_the_rules(tenant, llm, llm_settings):
    user_id = uuid.uuid4()
    llm.learn("first", fact("User is vegetarian", "preference"))
    llm.learn("second", fact("User mentioned they eat meat most days now", "preference"))
    _extract(tenant, user_id, "first: I'm vegetarian")
    llm_settings.always(
        lambda request: "I'm not sure." if "<pairs>" in request.prompt_text else llm(request)
    )

    _extract(tenant, user_id, "second: I eat meat most days now")

    review = ReviewItem.objects.get()
    assert review.signal == ReviewItem.Signal.RULES and "diet" in review.reason


@pytest.mark.parametrize(("policy", "tenant_policy"), [("supersede", ""), ("review", "supersede")])
def test_an_announced_change_supersedes_at_once_under_the_supersede_policy(
    tenant, llm, settings, policy, tenant_policy
):
    settings.MEMORY_CONFLICT_POLICY = policy
    tenant.conflict_policy = tenant_policy
    tenant.save()
    user_id = uuid.uuid4()
    llm.learn("first", fact("User lives in Berlin"))
    llm.learn("second", fact("User moved to Munich last month"))
    # The decision reads the fact without its relative time ("last month" sets valid_from).
    llm.contradict("User lives in Berlin", "User moved to Munich")

    _extract(tenant, user_id, "first: I live in Berlin")
    outcome = _extract(tenant, user_id, "second: I moved to Munich last month")

    old = Memory.objects.get(full_text="User lives in Berlin")
    new = Memory.objects.get(full_text="User moved to Munich")
    assert (old.status, new.status) == (Memory.Status.SUPERSEDED, Memory.Status.ACTIVE)
    assert old.versions.last().action == MemoryVersion.Action.SUPERSEDED
    review = ReviewItem.objects.get()
    assert review.status == ReviewItem.Status.RESOLVED and review.auto_resolved
    assert review.resolution == ReviewItem.Resolution.KEEP_NEW
    assert outcome.total_user_memories == 1


def test_a_tenant_may_keep_review_when_the_service_supersedes(tenant, llm, settings):
    settings.MEMORY_CONFLICT_POLICY = "supersede"
    tenant.conflict_policy = "review"
    tenant.save()
    user_id = uuid.uuid4()
    llm.learn("first", fact("User lives in Berlin"))
    llm.learn("second", fact("User moved to Munich"))
    llm.contradict("User lives in Berlin", "User moved to Munich")

    _extract(tenant, user_id, "first: I live in Berlin")
    _extract(tenant, user_id, "second: I moved to Munich")

    assert ReviewItem.objects.get().status == ReviewItem.Status.PENDING


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("i live in leeds btw", "We moved to Bristol last month! any good coffee spots?"),
        ("I smoke about a pack a day, I know.", "Quit smoking!! three weeks without a cigarette"),
        ("we don't have kids", "my son just started kindergarten, any tips for the first week?"),
        ("I'm 41.", "just turned 42 yesterday, feeling old"),
        ("honestly I can't stand running", "I've come to love running, I go out 3x a week now"),
        # An idiom of giving up, on a topic no rule names.
        ("I sing in a barbershop quartet", "called it a day with the quartet, too many late gigs"),
        ("i play water polo on thursdays", "packed in the water polo, my knees cant take it"),
    ],
)
def test_offline_a_contradiction_in_everyday_words_is_held(tenant, settings, first, second):
    settings.MEMORY_EXTRACTOR = "rules"
    user_id = uuid.uuid4()

    _extract(tenant, user_id, first)
    outcome = _extract(tenant, user_id, second)

    review = ReviewItem.objects.get()
    assert review.new_memory in outcome.memories
    assert review.new_memory.status == Memory.Status.PENDING_REVIEW
    assert review.signal == ReviewItem.Signal.RULES


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I live in Berlin.", "My sister lives in Oslo, I'm visiting her in May."),
        ("I grew up in Lyon.", "I live in Paris now."),
        ("I have a dog called Rex.", "We got a second dog, her name is Luna."),
        ("I'm allergic to peanuts.", "I'm also allergic to shellfish."),
    ],
)
def test_offline_compatible_facts_are_both_kept(tenant, settings, first, second):
    settings.MEMORY_EXTRACTOR = "rules"
    user_id = uuid.uuid4()

    _extract(tenant, user_id, first)
    _extract(tenant, user_id, second)

    assert not ReviewItem.objects.exists()


def test_the_category_follows_the_registry_where_it_reads_the_fact(tenant, llm):
    llm.learn(
        "job",
        fact("User quit their job", "preference"),
        fact("User is training for a marathon", "preference"),
        fact("User prefers window seats", "preference"),
    )

    saved = _extract(
        tenant,
        uuid.uuid4(),
        "job: I quit my job, I'm training for a marathon, I prefer window seats",
    ).memories

    assert {m.caption: m.category for m in saved} == {
        "User quit their job": "personal",
        "User is training for a marathon": "personal",
        "User prefers window seats": "preference",
    }
