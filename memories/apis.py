"""The memory API (DESIGN.md section 5): one view per operation, thin over services/selectors."""

from __future__ import annotations

import re
import uuid
from typing import Any

from django.conf import settings
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from extraction.selectors import extraction_job_get
from extraction.services import extraction_job_memories, extraction_perform
from memories.models import EndUser, Memory
from memories.ratelimit import rate_limit_enforce
from memories.selectors import end_user_get, memory_visible_count, memory_visible_list
from memories.services.memories import memory_delete
from memory_platform.exceptions import InvalidInput, NotFound
from recall.selectors import memory_relevant_list

MAX_MESSAGES = 500
MAX_MESSAGE_CHARS = 20_000
MAX_CONVERSATION_CHARS = 200_000
MAX_PROMPT_CHARS = 4_000
MAX_IDS = 100
MEMORY_ID_PATTERN = re.compile(r"^mem_[A-Za-z0-9]{16}$")


class ErrorSerializer(serializers.Serializer):
    class ErrorBody(serializers.Serializer):
        code = serializers.CharField()
        message = serializers.CharField()

    error = ErrorBody()


def _errors(*statuses: int) -> dict[int, OpenApiResponse]:
    descriptions = {
        400: "Invalid input (bad UUID, missing field, wrong type, bad ids, oversized).",
        401: "Missing, unknown or revoked API key.",
        404: "Unknown user_id or memory for this API key's tenant.",
        413: "Request body over the size limit.",
        429: "More than MEMORY_RATE_LIMIT requests a minute for this user_id (Retry-After).",
        502: "The LLM failed; the conversation is kept as a failed job for a retry.",
        503: "The database is unavailable.",
    }
    return {s: OpenApiResponse(ErrorSerializer, description=descriptions[s]) for s in statuses}


def _validated(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


class StrictUUIDField(serializers.UUIDField):
    """A UUID given as a string; DRF's own field would also take an integer."""

    def to_internal_value(self, data: Any) -> uuid.UUID:
        if not isinstance(data, str):
            self.fail("invalid", value=data)
        return super().to_internal_value(data)


class UserScopedApi(APIView):
    """Base of the endpoints that act for one end user: rate limited per user_id."""

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        user_id = request.query_params.get("user_id")
        if user_id is None and request.method == "POST" and isinstance(request.data, dict):
            user_id = request.data.get("user_id")
        if isinstance(user_id, str) and user_id:
            rate_limit_enforce(request=request, tenant_id=request.user.tenant.pk, user_id=user_id)

    def end_user(self, external_id: uuid.UUID) -> EndUser:
        """The tenant's end user, or 404: another tenant's user is never revealed."""
        end_user = end_user_get(tenant=self.request.user.tenant, external_id=external_id)
        if end_user is None:
            raise NotFound("Unknown user_id for this API key.")
        return end_user


class MemorySavedSerializer(serializers.Serializer):
    id = serializers.CharField()
    caption = serializers.CharField()
    created_at = serializers.DateTimeField()


class MemoryExtractApi(UserScopedApi):
    """POST /memories/extract: remember the durable facts of a finished conversation."""

    class InputSerializer(serializers.Serializer):
        class MessageSerializer(serializers.Serializer):
            role = serializers.ChoiceField(choices=["user", "assistant", "system"])
            content = serializers.CharField(max_length=MAX_MESSAGE_CHARS)

        user_id = StrictUUIDField()
        conversation = MessageSerializer(many=True, allow_empty=False, max_length=MAX_MESSAGES)
        session_id = serializers.CharField(
            max_length=255, required=False, allow_null=True, allow_blank=True
        )

        def validate_conversation(self, value: list[dict[str, str]]) -> list[dict[str, str]]:
            if sum(len(message["content"]) for message in value) > MAX_CONVERSATION_CHARS:
                raise serializers.ValidationError(
                    f"The conversation is over {MAX_CONVERSATION_CHARS} characters."
                )
            return value

    class OutputSerializer(serializers.Serializer):
        memories_saved = MemorySavedSerializer(many=True)
        total_user_memories = serializers.IntegerField()

    class QueuedSerializer(serializers.Serializer):
        job_id = serializers.UUIDField()

    @extend_schema(
        operation_id="memories_extract",
        request=InputSerializer,
        parameters=[
            OpenApiParameter(
                "async", bool, description="Answer 202 with a job id; a worker extracts."
            )
        ],
        responses={
            201: OutputSerializer,
            200: OpenApiResponse(OutputSerializer, description="The same conversation again."),
            202: QueuedSerializer,
            **_errors(400, 401, 413, 429, 502, 503),
        },
    )
    def post(self, request: Request) -> Response:
        data = _validated(self.InputSerializer, request.data)
        run_async = request.query_params.get("async", "").lower() in {"1", "true", "yes"}
        outcome = extraction_perform(
            tenant=request.user.tenant,
            external_id=data["user_id"],
            messages=data["conversation"],
            session_id=data.get("session_id") or None,
            run_async=run_async or settings.MEMORY_ASYNC_EXTRACTION,
        )
        if outcome.state == "queued":
            return Response(self.QueuedSerializer({"job_id": outcome.job.id}).data, status=202)
        body = self.OutputSerializer(
            {"memories_saved": outcome.memories, "total_user_memories": outcome.total_user_memories}
        ).data
        return Response(body, status=201 if outcome.state == "extracted" else 200)


class MemoryRelevantApi(UserScopedApi):
    """GET /memories/relevant: the user's memories most relevant to a prompt, best first."""

    class InputSerializer(serializers.Serializer):
        user_id = StrictUUIDField()
        prompt = serializers.CharField(max_length=MAX_PROMPT_CHARS)
        limit = serializers.IntegerField(min_value=1, max_value=100, default=10)

    class OutputSerializer(serializers.Serializer):
        class RelevantSerializer(serializers.Serializer):
            id = serializers.CharField()
            caption = serializers.CharField()
            score = serializers.FloatField()

        memories = RelevantSerializer(many=True)

    @extend_schema(
        operation_id="memories_relevant",
        parameters=[InputSerializer],
        responses={200: OutputSerializer, **_errors(400, 401, 404, 429, 503)},
    )
    def get(self, request: Request) -> Response:
        data = _validated(self.InputSerializer, request.query_params)
        memories = memory_relevant_list(
            end_user=self.end_user(data["user_id"]), prompt=data["prompt"], limit=data["limit"]
        )
        return Response(self.OutputSerializer({"memories": memories}).data)


class MemoryFullApi(UserScopedApi):
    """GET /memories/full: the full text of the given memories of the user."""

    class InputSerializer(serializers.Serializer):
        user_id = StrictUUIDField()
        ids = serializers.CharField(max_length=MAX_IDS * 21)

        def validate_ids(self, value: str) -> list[str]:
            ids = list(dict.fromkeys(part.strip() for part in value.split(",") if part.strip()))
            if not ids:
                raise serializers.ValidationError("Give at least one memory id.")
            if len(ids) > MAX_IDS:
                raise serializers.ValidationError(f"At most {MAX_IDS} ids per request.")
            bad = [memory_id for memory_id in ids if not MEMORY_ID_PATTERN.match(memory_id)]
            if bad:
                raise serializers.ValidationError(
                    f"Not memory ids (expected mem_ and 16 letters or digits): {', '.join(bad[:5])}"
                )
            return ids

    class OutputSerializer(serializers.Serializer):
        class FullSerializer(serializers.Serializer):
            id = serializers.CharField()
            caption = serializers.CharField()
            full_text = serializers.CharField()
            created_at = serializers.DateTimeField()

        memories = FullSerializer(many=True)

    @extend_schema(
        operation_id="memories_full",
        parameters=[InputSerializer],
        responses={200: OutputSerializer, **_errors(400, 401, 404, 429, 503)},
    )
    def get(self, request: Request) -> Response:
        data = _validated(self.InputSerializer, request.query_params)
        found = {
            memory.id: memory
            for memory in memory_visible_list(end_user=self.end_user(data["user_id"])).filter(
                id__in=data["ids"]
            )
        }
        memories = [found[memory_id] for memory_id in data["ids"] if memory_id in found]
        return Response(self.OutputSerializer({"memories": memories}).data)


class MemoryListApi(UserScopedApi):
    """GET /memories/list: a page of the user's memories, newest first."""

    class InputSerializer(serializers.Serializer):
        user_id = StrictUUIDField()
        limit = serializers.IntegerField(min_value=1, max_value=500, default=50)
        offset = serializers.IntegerField(min_value=0, default=0)

    class OutputSerializer(serializers.Serializer):
        class ListedSerializer(serializers.Serializer):
            id = serializers.CharField()
            caption = serializers.CharField()
            category = serializers.ChoiceField(choices=Memory.Category.choices)
            status = serializers.ChoiceField(choices=Memory.Status.choices)
            created_at = serializers.DateTimeField()

        memories = ListedSerializer(many=True)
        total = serializers.IntegerField()
        limit = serializers.IntegerField()
        offset = serializers.IntegerField()

    @extend_schema(
        operation_id="memories_list",
        parameters=[InputSerializer],
        responses={200: OutputSerializer, **_errors(400, 401, 404, 429, 503)},
    )
    def get(self, request: Request) -> Response:
        data = _validated(self.InputSerializer, request.query_params)
        end_user = self.end_user(data["user_id"])
        limit, offset = data["limit"], data["offset"]
        page = list(memory_visible_list(end_user=end_user)[offset : offset + limit])
        total = memory_visible_count(end_user=end_user)
        body = {"memories": page, "total": total, "limit": limit, "offset": offset}
        return Response(self.OutputSerializer(body).data)


class MemoryDeleteApi(UserScopedApi):
    """DELETE /memories/{id}: forget one memory of the user, for real."""

    class InputSerializer(serializers.Serializer):
        user_id = StrictUUIDField()

    @extend_schema(
        operation_id="memories_delete",
        parameters=[InputSerializer],
        responses={204: None, **_errors(400, 401, 404, 429, 503)},
    )
    def delete(self, request: Request, memory_id: str) -> Response:
        data = _validated(self.InputSerializer, request.query_params)
        if not MEMORY_ID_PATTERN.match(memory_id):
            raise InvalidInput("Not a memory id (expected mem_ and 16 letters or digits).")
        memory_delete(
            end_user=self.end_user(data["user_id"]),
            memory_id=memory_id,
            actor=f"tenant {request.user.tenant.name}",
        )
        return Response(status=204)


class ExtractionJobApi(APIView):
    """GET /memories/jobs/{id}: the state of an asynchronous extraction."""

    class OutputSerializer(serializers.Serializer):
        job_id = serializers.UUIDField(source="job.id")
        status = serializers.CharField(source="job.status")
        memories_saved = MemorySavedSerializer(many=True)
        total_user_memories = serializers.IntegerField()
        error = serializers.CharField(source="job.error")
        created_at = serializers.DateTimeField(source="job.created_at")
        finished_at = serializers.DateTimeField(source="job.finished_at", allow_null=True)

    @extend_schema(
        operation_id="memories_job",
        responses={200: OutputSerializer, **_errors(401, 404, 503)},
    )
    def get(self, request: Request, job_id: uuid.UUID) -> Response:
        job = extraction_job_get(tenant=request.user.tenant, job_id=job_id)
        if job is None:
            raise NotFound("Unknown job id for this API key.")
        body = {
            "job": job,
            "memories_saved": extraction_job_memories(job=job),
            "total_user_memories": memory_visible_count(end_user=job.end_user),
        }
        return Response(self.OutputSerializer(body).data)
