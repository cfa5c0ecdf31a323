"""Extraction jobs: one per (end user, conversation), keeping the conversation until done."""

from __future__ import annotations

import uuid

from django.db import models

from memories.models import AgentSession, EndUser, Memory


class ExtractionJob(models.Model):
    """One extraction of one conversation for one end user, with its cost and outcome."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    end_user = models.ForeignKey(EndUser, on_delete=models.CASCADE, related_name="extraction_jobs")
    session = models.ForeignKey(
        AgentSession, null=True, blank=True, on_delete=models.SET_NULL, related_name="jobs"
    )
    conversation_hash = models.CharField(max_length=64)
    # Kept so that a job whose LLM call failed can be replayed and nothing is lost.
    conversation = models.JSONField()
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.QUEUED)
    extractor = models.CharField(max_length=20, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    llm_calls = models.PositiveIntegerField(default=0)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    # Messages dropped from the oldest end to fit the LLM's token budget.
    truncated_messages = models.PositiveIntegerField(default=0)
    # Candidates the LLM proposed that the grounding check refused (extraction.grounding).
    candidates_refused = models.PositiveIntegerField(default=0)
    # Candidates the offline reader added from the user's own statements that the LLM left
    # out (extraction.safety_net.statements_missed).
    statements_added = models.PositiveIntegerField(default=0)
    # Clauses the offline reader could not read and left out; the rest was still read.
    clauses_skipped = models.PositiveIntegerField(default=0)
    # Each message is read once: a short hash of every message this job read (kept after the
    # conversation is dropped), and how many leading messages earlier jobs had already read
    # (given to the extractor as context only). See extraction.selectors.messages_read_count.
    message_hashes = models.JSONField(default=list, blank=True)
    messages_read_before = models.PositiveIntegerField(default=0)
    memories_saved = models.ManyToManyField(Memory, blank=True, related_name="extraction_jobs")
    error = models.TextField(blank=True)
    # The X-Request-ID of the request that submitted the job (a replay keeps the first).
    request_id = models.CharField(max_length=128, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # One extraction per conversation: also the index of the idempotency look-up.
            models.UniqueConstraint(
                fields=["end_user", "conversation_hash"], name="extractionjob_unique_conversation"
            ),
            models.CheckConstraint(
                condition=models.Q(status__in=["queued", "running", "succeeded", "failed"]),
                name="extractionjob_status_valid",
            ),
        ]
        indexes = [
            # retry_failed_jobs and the admin's job list: jobs by status, oldest first.
            models.Index(fields=["status", "created_at"], name="extractionjob_status_created"),
            # messages_read_count: a user's latest succeeded jobs.
            models.Index(
                fields=["end_user", "status", "-finished_at"], name="extractionjob_user_done"
            ),
        ]

    def __str__(self) -> str:
        return f"Job {self.id} ({self.status})"
