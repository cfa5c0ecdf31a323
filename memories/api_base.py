"""The base of the API views that act for one end user: tenant scoping and the per-user limit.

Views of `memories`, `extraction` and `recall` build on it, so both are defined once, as is the
shape of a memory's evidence that `full` and `relevant` return; the error schema and strict
input fields they share are the kernel's (`core.api`).
"""

from __future__ import annotations

import re

from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers
from rest_framework.views import APIView

from core.exceptions import NotFound
from memories.models import EndUser, MemoryEvidence
from memories.selectors import end_user_get
from tenants.authentication import request_tenant
from tenants.throttling import EndUserRateThrottle

MEMORY_ID_PATTERN = re.compile(r"^mem_[A-Za-z0-9]{16}$")
# A comma-separated list of memory ids, as /memories/full reads it (blanks around commas and
# empty items are ignored): the pattern the schema states.
MEMORY_IDS_PATTERN = r"^[\s,]*mem_[A-Za-z0-9]{16}(?:\s*,[\s,]*mem_[A-Za-z0-9]{16})*[\s,]*$"


class UserScopedApi(APIView):
    """Base of the endpoints that act for one end user: rate limited per user_id."""

    throttle_classes = [EndUserRateThrottle]

    def end_user(self, external_id: str) -> EndUser:
        """The tenant's end user, or 404: another tenant's user is never revealed."""
        end_user = self.end_user_or_none(external_id)
        if end_user is None:
            raise NotFound("Unknown user_id for this API key.")
        return end_user

    def end_user_or_none(self, external_id: str) -> EndUser | None:
        """The tenant's end user, or None for one it has never seen (or another tenant's).

        Reads answer an unknown user with nothing, not 404: callers ask for memories before a
        new user's first conversation. A read never creates the user."""
        return end_user_get(tenant=request_tenant(self.request), external_id=external_id)


@extend_schema_serializer(component_name="MemoryEvidence")
class EvidenceSerializer(serializers.Serializer):
    """What the user said that a memory came from: one quote of one message, or an agent's
    note (`memories.models.MemoryEvidence`)."""

    quote = serializers.CharField(
        help_text="The words, redacted as the memory is: an email, a phone, card or id number "
        "is a placeholder ([email], [phone], [card], [id])."
    )
    # The response's field `source`: DRF's metaclass moves declared fields out of the class, so
    # it does not shadow `Field.source` (the stubs cannot tell).
    source = serializers.ChoiceField(  # type: ignore[assignment]
        choices=MemoryEvidence.Source.choices,
        help_text="user: a message of the user; agent: a note the agent stored with remember.",
    )
    session_id = serializers.CharField(
        source="session.external_id",
        allow_null=True,
        help_text="The session_id the conversation was sent with; null without one.",
    )
    position = serializers.IntegerField(
        min_value=0,
        allow_null=True,
        help_text="The message's index in the conversation as sent (0-based, every role "
        "counted); null for an agent's note.",
    )
    said_at = serializers.DateTimeField(help_text="When the message was sent.")
