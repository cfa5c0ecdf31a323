"""The memory API's reads and deletion: GET full and list, DELETE /memories/{id}."""

from __future__ import annotations

from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    extend_schema_serializer,
)
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from core.api import (
    AS_OF_HELP,
    AsOfField,
    QueryIntegerField,
    UserIdField,
    error_responses,
    validated,
)
from core.exceptions import InvalidInput
from memories.api_base import (
    MEMORY_ID_PATTERN,
    MEMORY_IDS_PATTERN,
    EvidenceSerializer,
    UserScopedApi,
)
from memories.evidence import EVIDENCE_PER_MEMORY
from memories.models import Memory
from memories.selectors import (
    memory_as_of_list,
    memory_full_list,
    memory_visible_count,
    memory_visible_list,
)
from memories.services.memories import memory_delete
from tenants.authentication import request_tenant

MAX_IDS = 100
# Room for MAX_IDS ids and their commas (mem_ + 16 characters + ","), and no more.
MAX_IDS_CHARS = MAX_IDS * 21


@extend_schema_field({"type": "string", "pattern": MEMORY_IDS_PATTERN, "maxLength": MAX_IDS_CHARS})
class MemoryIdsField(serializers.CharField):
    """Comma-separated memory ids; the schema states their shape, `validate_ids` explains."""


class MemoryFullApi(UserScopedApi):
    """GET /memories/full: the full text of the given memories of the user."""

    class InputSerializer(serializers.Serializer):
        user_id = UserIdField()
        ids = MemoryIdsField(max_length=MAX_IDS_CHARS)

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

    @extend_schema_serializer(component_name="MemoryFullOutput")
    class OutputSerializer(serializers.Serializer):
        @extend_schema_serializer(component_name="MemoryFull")
        class FullSerializer(serializers.Serializer):
            id = serializers.CharField()
            caption = serializers.CharField()
            full_text = serializers.CharField()
            created_at = serializers.DateTimeField()
            evidence = EvidenceSerializer(
                many=True,
                required=False,
                help_text="What the user said that the memory came from, in the order it was "
                f"said: the first statement and the latest ones (at most {EVIDENCE_PER_MEMORY})."
                " Empty for a memory stored before evidence was kept.",
            )

        memories = FullSerializer(many=True)

    @extend_schema(
        operation_id="memories_full",
        parameters=[InputSerializer],
        responses={200: OutputSerializer, **error_responses(400, 401, 429, 503)},
    )
    def get(self, request: Request) -> Response:
        data = validated(self.InputSerializer, request.query_params)
        end_user = self.end_user_or_none(data["user_id"])
        if end_user is None:
            return Response(self.OutputSerializer({"memories": []}).data)
        found = {
            memory.id: memory for memory in memory_full_list(end_user=end_user, ids=data["ids"])
        }
        memories = [found[memory_id] for memory_id in data["ids"] if memory_id in found]
        return Response(self.OutputSerializer({"memories": memories}).data)


class MemoryListApi(UserScopedApi):
    """GET /memories/list: a page of the user's memories, newest first."""

    class InputSerializer(serializers.Serializer):
        user_id = UserIdField()
        limit = QueryIntegerField(min_value=1, max_value=500, default=50)
        offset = QueryIntegerField(min_value=0, default=0)
        as_of = AsOfField(
            required=False,
            help_text=AS_OF_HELP + " Each memory then says when it was said and when it holds.",
        )

    @extend_schema_serializer(component_name="MemoryListOutput")
    class OutputSerializer(serializers.Serializer):
        @extend_schema_serializer(component_name="MemoryListed")
        class ListedSerializer(serializers.Serializer):
            id = serializers.CharField()
            caption = serializers.CharField()
            category = serializers.ChoiceField(choices=Memory.Category.choices)
            status = serializers.ChoiceField(choices=Memory.Status.choices)
            created_at = serializers.DateTimeField()
            # Only with as_of: a caller that sends none gets the answer of before.
            stated_at = serializers.DateTimeField(
                required=False, help_text="With as_of: when the user said it."
            )
            valid_from = serializers.DateField(
                required=False, allow_null=True, help_text="With as_of: when it began to hold."
            )
            valid_to = serializers.DateField(
                required=False,
                allow_null=True,
                help_text="With as_of: the day it stopped holding (null: it still holds).",
            )

            def to_representation(self, instance: Memory) -> dict:
                shown = super().to_representation(instance)
                if not self.context.get("timed"):
                    for name in ("stated_at", "valid_from", "valid_to"):
                        shown.pop(name, None)
                return shown

        memories = ListedSerializer(many=True)
        total = serializers.IntegerField()
        limit = serializers.IntegerField()
        offset = serializers.IntegerField()

    @extend_schema(
        operation_id="memories_list",
        parameters=[InputSerializer],
        responses={200: OutputSerializer, **error_responses(400, 401, 429, 503)},
    )
    def get(self, request: Request) -> Response:
        data = validated(self.InputSerializer, request.query_params)
        end_user = self.end_user_or_none(data["user_id"])
        limit, offset = data["limit"], data["offset"]
        as_of = data.get("as_of")
        if end_user is None:
            page, total = [], 0
        elif as_of is not None:
            held = memory_as_of_list(end_user=end_user, day=as_of)
            page, total = list(held[offset : offset + limit]), held.count()
        else:
            page = list(memory_visible_list(end_user=end_user)[offset : offset + limit])
            total = memory_visible_count(end_user=end_user)
        body = {"memories": page, "total": total, "limit": limit, "offset": offset}
        timed = {"timed": as_of is not None}
        return Response(self.OutputSerializer(body, context=timed).data)


class MemoryDeleteApi(UserScopedApi):
    """DELETE /memories/{id}: forget one memory of the user, for real."""

    class InputSerializer(serializers.Serializer):
        user_id = UserIdField()

    @extend_schema(
        operation_id="memories_delete",
        parameters=[
            InputSerializer,
            OpenApiParameter(
                "memory_id", str, OpenApiParameter.PATH, pattern=MEMORY_ID_PATTERN.pattern
            ),
        ],
        responses={204: None, **error_responses(400, 401, 403, 404, 429, 503)},
    )
    def delete(self, request: Request, memory_id: str) -> Response:
        # `memory_id` is well formed: the route's converter matched it (memories.converters).
        data = validated(self.InputSerializer, request.query_params)
        memory_delete(
            end_user=self.end_user(data["user_id"]),
            memory_id=memory_id,
            actor=f"tenant {request_tenant(request).name}",
        )
        return Response(status=204)


@extend_schema(exclude=True)  # the path is documented once, with MemoryDeleteApi's pattern
class MemoryIdMalformedApi(UserScopedApi):
    """DELETE /memories/{id} with a malformed id (memories.urls_fallback): 400, not 404."""

    def delete(self, request: Request, memory_id: str) -> Response:
        validated(MemoryDeleteApi.InputSerializer, request.query_params)
        raise InvalidInput("Not a memory id (expected mem_ and 16 letters or digits).")
