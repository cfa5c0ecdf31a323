"""The memory domain: end users, their sessions, memories, versions, reviews and erasures."""

from __future__ import annotations

import string
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models.functions import Length
from django.db.models.lookups import GreaterThan
from django.utils import timezone
from nanoid import generate
from pgvector.django import VectorField

from core.user_ids import USER_ID_MAX_LENGTH
from memories.text import (
    CAPTION_MAX_LENGTH,
    FULL_TEXT_MAX_LENGTH,
    QUOTE_MAX_LENGTH,
    USE_WHEN_MAX_LENGTH,
)
from tenants.models import Tenant

MEMORY_ID_PREFIX = "mem_"
_MEMORY_ID_ALPHABET = string.ascii_letters + string.digits


def new_memory_id() -> str:
    """Return a public memory id, `mem_` and 16 URL-safe characters (20 in all)."""
    return MEMORY_ID_PREFIX + generate(_MEMORY_ID_ALPHABET, 16)


class EndUser(models.Model):
    """An end user of a tenant's agent; the API's `user_id` is `external_id`."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="end_users")
    # Any 1-128 printable characters (`core.api.UserIdField`); a UUID in its canonical form.
    external_id = models.CharField(max_length=USER_ID_MAX_LENGTH)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            # Also the index behind every API lookup of `user_id` within a tenant.
            models.UniqueConstraint(
                fields=["tenant", "external_id"], name="enduser_unique_external_id_per_tenant"
            ),
            # The key a memory's (end_user, tenant) refers to (migration 0015): a memory's
            # tenant is always its end user's.
            models.UniqueConstraint(fields=["id", "tenant"], name="enduser_unique_id_tenant"),
        ]

    def __str__(self) -> str:
        return str(self.external_id)


class AgentSession(models.Model):
    """The caller's conversation or session id that memories came from."""

    end_user = models.ForeignKey(EndUser, on_delete=models.CASCADE, related_name="sessions")
    external_id = models.CharField(max_length=255)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["end_user", "external_id"], name="agentsession_unique_per_user"
            ),
        ]

    def __str__(self) -> str:
        return self.external_id


class Memory(models.Model):
    """One durable fact about an end user."""

    class Category(models.TextChoices):
        PREFERENCE = "preference", "Preference"
        PERSONAL = "personal", "Personal"
        TECHNICAL = "technical", "Technical"
        PROJECT = "project", "Project"
        OTHER = "other", "Other"

    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        PENDING_REVIEW = "pending_review", "Pending review"
        SUPERSEDED = "superseded", "Superseded"

    id = models.CharField(primary_key=True, max_length=20, default=new_memory_id, editable=False)
    end_user = models.ForeignKey(EndUser, on_delete=models.CASCADE, related_name="memories")
    # The end user's tenant, copied on save: the tenant walls (row-level security) test a
    # memory's own column instead of looking its end user up for every row a recall reads
    # (that cost a fifth of /memories/relevant's p95). A foreign key on (end_user, tenant)
    # holds it equal to the end user's (migration 0015).
    tenant = models.ForeignKey(
        Tenant, on_delete=models.CASCADE, related_name="+", editable=False, db_index=False
    )
    caption = models.CharField(max_length=CAPTION_MAX_LENGTH)
    full_text = models.CharField(max_length=FULL_TEXT_MAX_LENGTH)
    # The situations where the memory matters ("cooking, restaurants, food gifts"), written by
    # the LLM at extraction: embedded and indexed with the text, so that a prompt that needs
    # the memory without naming it finds it.
    use_when = models.CharField(max_length=USE_WHEN_MAX_LENGTH, blank=True, default="")
    category = models.CharField(max_length=20, choices=Category.choices, default=Category.OTHER)
    confidence = models.FloatField(default=1.0)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.ACTIVE)
    content_hash = models.CharField(max_length=64)
    # What the memory states, as the extractor read it (`memories.facets`: whose fact, which
    # attribute, what value, polarity); the conflict judge compares these. NULL for a row stored
    # before facets were: read from its text when first compared.
    facets = models.JSONField(null=True, blank=True, default=None)
    # Dimension-free so that a change of embedding model needs a `reembed`, not a migration.
    embedding = VectorField(null=True, blank=True)
    embedding_model = models.CharField(max_length=100, blank=True)
    source_session = models.ForeignKey(
        AgentSession, null=True, blank=True, on_delete=models.SET_NULL, related_name="memories"
    )
    # Every source of the fact, through restatements and operator merges, so that erasing one
    # session removes only its contribution: the sessions that stated it, and whether a
    # conversation without a session or an agent's note (`remember`) stated it too.
    sessions = models.ManyToManyField(AgentSession, blank=True, related_name="memories_stated")
    stated_outside_sessions = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    last_accessed_at = models.DateTimeField(null=True, blank=True)
    access_count = models.PositiveIntegerField(default=0)
    # When it was said (issue 33): the time of the message that first stated it (the request's
    # `timestamp`, else the time the request came), and of the latest restatement.
    stated_at = models.DateTimeField(default=timezone.now)
    last_stated_at = models.DateTimeField(default=timezone.now)
    # When it holds: NULL is open or unknown. `valid_to` is exclusive (the day the next fact
    # took over); an applied update sets it on the fact it replaced (`memories.validity`).
    valid_from = models.DateField(null=True, blank=True)
    valid_to = models.DateField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "memories"
        constraints = [
            models.UniqueConstraint(
                fields=["end_user", "content_hash"],
                condition=models.Q(status="active"),
                name="memory_unique_active_hash_per_user",
            ),
            models.CheckConstraint(
                condition=GreaterThan(Length("caption"), 0), name="memory_caption_not_empty"
            ),
            models.CheckConstraint(
                condition=GreaterThan(Length("full_text"), 0), name="memory_full_text_not_empty"
            ),
            models.CheckConstraint(
                condition=models.Q(confidence__gte=0) & models.Q(confidence__lte=1),
                name="memory_confidence_between_0_and_1",
            ),
            models.CheckConstraint(
                condition=models.Q(status__in=["active", "pending_review", "superseded"]),
                name="memory_status_valid",
            ),
            models.CheckConstraint(
                condition=models.Q(
                    category__in=["preference", "personal", "technical", "project", "other"]
                ),
                name="memory_category_valid",
            ),
            models.CheckConstraint(
                condition=models.Q(valid_from__isnull=True)
                | models.Q(valid_to__isnull=True)
                | models.Q(valid_from__lte=models.F("valid_to")),
                name="memory_valid_from_not_after_valid_to",
            ),
        ]
        indexes = [
            # GET /memories/list, the per-user candidate scan of recall and the cap's eviction
            # of the oldest active memories all filter on (end_user, status) by creation time.
            # `as_of` reads (list, relevant, context) use it too: they scan one user's active and
            # superseded rows, a few hundred at most, and test the dates on those, so a date
            # index would not narrow what this one finds.
            models.Index(
                fields=["end_user", "status", "created_at"], name="memory_user_status_created"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.id}: {self.caption}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.tenant_id is None and self.end_user_id is not None:
            self.tenant_id = self.end_user.tenant_id
        super().save(*args, **kwargs)


class MemoryEvidence(models.Model):
    """The words a memory came from: one clause of one message of the user (after redaction),
    or the note an agent stored with `remember`, with where and when it was said.

    A memory keeps one per statement (the first, each restatement, what an operator merged
    into it), bounded by `memories.evidence.EVIDENCE_PER_MEMORY`. Deleting the memory deletes
    its quotes; erasing a session deletes the quotes said in it.
    """

    class Source(models.TextChoices):
        USER = "user", "The user's message"
        AGENT = "agent", "The agent's note"

    # Not indexed alone: the named index below leads with it.
    memory = models.ForeignKey(
        Memory, on_delete=models.CASCADE, related_name="evidence", db_index=False
    )
    # NULL: a conversation sent without a session_id, or an agent's note. CASCADE: a session's
    # erasure takes what was said in it (its FK index finds them).
    session = models.ForeignKey(
        AgentSession, null=True, blank=True, on_delete=models.CASCADE, related_name="evidence"
    )
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.USER)
    # The message's index in the conversation as sent (0-based, every role counted); an
    # agent's note is no message of a conversation.
    position = models.PositiveIntegerField(null=True, blank=True)
    said_at = models.DateTimeField()
    quote = models.CharField(max_length=QUOTE_MAX_LENGTH)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "memory evidence"
        constraints = [
            models.CheckConstraint(
                condition=GreaterThan(Length("quote"), 0), name="memoryevidence_quote_not_empty"
            ),
            models.CheckConstraint(
                condition=models.Q(source__in=["user", "agent"]),
                name="memoryevidence_source_valid",
            ),
            models.CheckConstraint(
                condition=models.Q(source="user", position__isnull=False)
                | models.Q(source="agent", position__isnull=True),
                name="memoryevidence_position_iff_user",
            ),
        ]
        indexes = [
            # A memory's quotes in the order they were said: GET /memories/full, explain=true
            # on /memories/relevant, the admin's memory and conflict pages, and the bound's
            # trim (`memory_evidence_add`).
            models.Index(fields=["memory", "said_at"], name="memoryevidence_memory_said"),
        ]

    def __str__(self) -> str:
        return f"{self.memory_id}: {self.quote[:60]}"


class MemoryVersion(models.Model):
    """One change to a memory, with its text after the change and who made it."""

    class Action(models.TextChoices):
        CREATED = "created", "Created"
        MERGED = "merged", "Merged"
        SUPERSEDED = "superseded", "Superseded"
        EDITED = "edited", "Edited"
        RESOLVED = "resolved", "Resolved"
        # A session that stated it was erased; it stays because another source stated it too.
        SOURCE_ERASED = "source_erased", "Source erased"

    class Actor(models.TextChoices):
        SYSTEM = "system", "System"
        OPERATOR = "operator", "Operator"
        API = "api", "API"

    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="versions")
    version = models.PositiveIntegerField()
    action = models.CharField(max_length=20, choices=Action.choices)
    status = models.CharField(max_length=20, choices=Memory.Status.choices)
    caption_before = models.CharField(max_length=CAPTION_MAX_LENGTH, blank=True)
    full_text_before = models.CharField(max_length=FULL_TEXT_MAX_LENGTH, blank=True)
    caption = models.CharField(max_length=CAPTION_MAX_LENGTH)
    full_text = models.CharField(max_length=FULL_TEXT_MAX_LENGTH)
    actor_type = models.CharField(max_length=20, choices=Actor.choices)
    actor = models.CharField(max_length=150, blank=True)
    note = models.CharField(max_length=255, blank=True)
    # The memory's time after the change (issue 33), so the history shows when it was said
    # and each change of when it holds.
    stated_at = models.DateTimeField(null=True, blank=True)
    last_stated_at = models.DateTimeField(null=True, blank=True)
    valid_from = models.DateField(null=True, blank=True)
    valid_to = models.DateField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["memory", "version"]
        constraints = [
            # Also the index behind the admin's version history of one memory.
            models.UniqueConstraint(fields=["memory", "version"], name="memoryversion_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.memory_id} v{self.version} {self.action}"


class ReviewItem(models.Model):
    """A contradiction between a new memory and existing ones, for an operator to resolve."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        RESOLVED = "resolved", "Resolved"

    class Resolution(models.TextChoices):
        KEEP_NEW = "keep_new", "Keep new"
        KEEP_EXISTING = "keep_existing", "Keep existing"
        KEEP_BOTH = "keep_both", "Keep both"
        MERGE = "merge", "Merge"

    class Signal(models.TextChoices):
        """Who found the contradiction."""

        LLM = "llm", "LLM decision"
        RULES = "rules", "Rule"
        # The store's audit (`memories.services.audit`): a near-duplicate or junk memory,
        # proposed for an operator to decide; nothing is merged or deleted on its own.
        AUDIT = "audit", "Store audit"

    end_user = models.ForeignKey(EndUser, on_delete=models.CASCADE, related_name="review_items")
    new_memory = models.ForeignKey(
        Memory, null=True, blank=True, on_delete=models.SET_NULL, related_name="review_items"
    )
    existing_memories = models.ManyToManyField(Memory, related_name="conflicting_reviews")
    similarity = models.FloatField()
    reason = models.CharField(max_length=500)
    signal = models.CharField(max_length=10, choices=Signal.choices, default=Signal.RULES)
    # Resolved by the supersede policy when it was filed, not by an operator.
    auto_resolved = models.BooleanField(default=False)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.PENDING)
    resolution = models.CharField(max_length=20, choices=Resolution.choices, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=(
                    models.Q(status="pending", resolution="")
                    | (models.Q(status="resolved") & ~models.Q(resolution=""))
                ),
                name="reviewitem_resolution_iff_resolved",
            ),
            models.CheckConstraint(
                condition=models.Q(signal__in=["llm", "rules", "audit"]),
                name="reviewitem_signal_valid",
            ),
            models.UniqueConstraint(
                fields=["new_memory"],
                condition=models.Q(status="pending"),
                name="reviewitem_one_pending_per_memory",
            ),
        ]
        indexes = [
            # The admin's review queue: pending items, oldest first.
            models.Index(fields=["status", "created_at"], name="reviewitem_status_created"),
        ]

    def __str__(self) -> str:
        return f"Review {self.pk} ({self.status})"


class DeletionRecord(models.Model):
    """A content-free trace that a memory existed and was deleted: id, user, when, by whom."""

    class Reason(models.TextChoices):
        API = "api", "Deleted through the API"
        EVICTED = "evicted", "Evicted by the per-user cap"
        PRUNED = "pruned", "Pruned by an operator command"
        OPERATOR = "operator", "Deleted by an operator"
        DISCARDED = "discarded", "Discarded in review"
        ERASED = "erased", "Erased with its session"

    memory_id = models.CharField(max_length=20)
    end_user = models.ForeignKey(EndUser, on_delete=models.CASCADE, related_name="deletions")
    reason = models.CharField(max_length=20, choices=Reason.choices)
    actor_type = models.CharField(max_length=20, choices=MemoryVersion.Actor.choices)
    actor = models.CharField(max_length=150, blank=True)
    deleted_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [
            # Audit look-ups of what happened to one memory id.
            models.Index(fields=["memory_id"], name="deletionrecord_memory_id"),
        ]

    def __str__(self) -> str:
        return f"{self.memory_id} deleted ({self.reason})"


class ErasureRecord(models.Model):
    """A content-free trace that an end user, or one of their sessions, was erased on request.

    Not tied to the EndUser row, which an erasure of the whole user deletes: it keeps the
    tenant, the user's id (and the session's), how many rows of each kind went, when and who
    asked, and never any text.
    """

    class Scope(models.TextChoices):
        USER = "user", "The whole end user"
        SESSION = "session", "One session of the end user"

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="erasures")
    external_id = models.CharField(
        max_length=USER_ID_MAX_LENGTH, help_text="The erased user's user_id."
    )
    scope = models.CharField(max_length=20, choices=Scope.choices)
    session_external_id = models.CharField(max_length=255, blank=True)
    # The receipt's counts: {"memories": n, "versions": n, "jobs": n, "sessions": n, ...}.
    deleted = models.JSONField(default=dict)
    actor_type = models.CharField(max_length=20, choices=MemoryVersion.Actor.choices)
    actor = models.CharField(max_length=150, blank=True)
    erased_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=(
                    models.Q(scope="user", session_external_id="")
                    | (models.Q(scope="session") & ~models.Q(session_external_id=""))
                ),
                name="erasurerecord_session_iff_session_scope",
            ),
        ]
        indexes = [
            # Audit look-ups of what was erased of one user.
            models.Index(fields=["tenant", "external_id"], name="erasurerecord_user"),
        ]

    def __str__(self) -> str:
        where = f" session {self.session_external_id}" if self.session_external_id else ""
        return f"{self.external_id}{where} erased"
