"""The extraction API: POST /memories/extract and GET /memories/jobs/{id}."""

from __future__ import annotations

import uuid

from django.conf import settings
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_serializer,
)
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import (
    QueryBooleanField,
    StrictCharField,
    TimestampField,
    UserIdField,
    error_responses,
    validated,
)
from core.exceptions import NotFound
from extraction.jobs import extraction_job_memories, extraction_perform
from extraction.selectors import extraction_job_get
from memories.api_base import UserScopedApi
from memories.selectors import memory_visible_count
from tenants.authentication import request_tenant

MAX_MESSAGES = 500
MAX_MESSAGE_CHARS = 20_000
MAX_CONVERSATION_CHARS = 200_000


class MemorySavedSerializer(serializers.Serializer):
    id = serializers.CharField()
    caption = serializers.CharField()
    created_at = serializers.DateTimeField()


class MemoryExtractApi(UserScopedApi):
    """POST /memories/extract: remember the durable facts of a finished conversation."""

    @extend_schema_serializer(component_name="MemoryExtractInput")
    class InputSerializer(serializers.Serializer):
        @extend_schema_serializer(component_name="Message")
        class MessageSerializer(serializers.Serializer):
            role = serializers.ChoiceField(choices=["user", "assistant", "system"])
            # Taken as sent (spaces too), so that the schema's minLength is the whole rule.
            content = StrictCharField(
                min_length=1, max_length=MAX_MESSAGE_CHARS, trim_whitespace=False
            )
            timestamp = TimestampField(
                required=False,
                help_text="When the message was sent (ISO 8601); default: the conversation's "
                "timestamp, else the time of the request. Relative time phrases in it are "
                "read against this.",
            )

        user_id = UserIdField()
        # A ListField, so that the schema states the bounds (minItems, maxItems) it enforces.
        conversation = serializers.ListField(
            child=MessageSerializer(), min_length=1, max_length=MAX_MESSAGES
        )
        session_id = StrictCharField(
            max_length=255, required=False, allow_null=True, allow_blank=True
        )
        timestamp = TimestampField(
            required=False,
            help_text="When the conversation took place (ISO 8601): the time of each message "
            "without a timestamp of its own; default: the time of the request.",
        )

        def validate_conversation(self, value: list[dict[str, str]]) -> list[dict[str, str]]:
            if sum(len(message["content"]) for message in value) > MAX_CONVERSATION_CHARS:
                raise serializers.ValidationError(
                    f"The conversation is over {MAX_CONVERSATION_CHARS} characters."
                )
            return value

    class QuerySerializer(serializers.Serializer):
        # The parameter is `async`, a Python keyword: the field is declared as `run_async` and
        # takes the parameter's name in `get_fields` (what validation and the schema read).
        run_async = QueryBooleanField(
            source="run_async",
            default=False,
            help_text="Answer 202 with a job id; a worker extracts.",
        )

        def get_fields(self) -> dict[str, serializers.Field]:
            fields = super().get_fields()
            fields["async"] = fields.pop("run_async")
            return fields

    @extend_schema_serializer(component_name="MemoryExtractOutput")
    class OutputSerializer(serializers.Serializer):
        memories_saved = MemorySavedSerializer(many=True)
        total_user_memories = serializers.IntegerField()

    @extend_schema_serializer(component_name="ExtractionQueued")
    class QueuedSerializer(serializers.Serializer):
        job_id = serializers.UUIDField()

    @extend_schema(
        operation_id="memories_extract",
        request=InputSerializer,
        parameters=[QuerySerializer],
        responses={
            201: OutputSerializer,
            200: OpenApiResponse(OutputSerializer, description="The same conversation again."),
            202: QueuedSerializer,
            **error_responses(400, 401, 403, 413, 429, 502, 503),
        },
    )
    def post(self, request: Request) -> Response:
        data = validated(self.InputSerializer, request.data)
        run_async = validated(self.QuerySerializer, request.query_params)["run_async"]
        outcome = extraction_perform(
            tenant=request_tenant(request),
            external_id=data["user_id"],
            messages=data["conversation"],
            session_id=data.get("session_id") or None,
            run_async=run_async or settings.MEMORY_ASYNC_EXTRACTION,
            timestamp=data.get("timestamp"),
        )
        if outcome.state == "queued":
            return Response(self.QueuedSerializer({"job_id": outcome.job.id}).data, status=202)
        body = self.OutputSerializer(
            {"memories_saved": outcome.memories, "total_user_memories": outcome.total_user_memories}
        ).data
        return Response(body, status=201 if outcome.state == "extracted" else 200)


class ExtractionJobApi(APIView):
    """GET /memories/jobs/{id}: the state of an asynchronous extraction."""

    @extend_schema_serializer(component_name="ExtractionJob")
    class OutputSerializer(serializers.Serializer):
        job_id = serializers.UUIDField(source="job.id")
        status = serializers.CharField(source="job.status")
        memories_saved = MemorySavedSerializer(many=True)
        total_user_memories = serializers.IntegerField()
        error = serializers.CharField(source="job.error")
        # The X-Request-ID of the request that submitted the job.
        request_id = serializers.CharField(source="job.request_id")
        created_at = serializers.DateTimeField(source="job.created_at")
        finished_at = serializers.DateTimeField(source="job.finished_at", allow_null=True)

    @extend_schema(
        operation_id="memories_job",
        responses={200: OutputSerializer, **error_responses(401, 404, 503)},
    )
    def get(self, request: Request, job_id: uuid.UUID) -> Response:
        job = extraction_job_get(tenant=request_tenant(request), job_id=job_id)
        if job is None:
            raise NotFound("Unknown job id for this API key.")
        body = {
            "job": job,
            "memories_saved": extraction_job_memories(job=job),
            "total_user_memories": memory_visible_count(end_user=job.end_user),
        }
        return Response(self.OutputSerializer(body).data)
