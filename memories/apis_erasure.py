"""The erasure API: DELETE /users/{user_id} and DELETE /sessions/{session_id}."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from core.api import StrictCharField, UserIdField, error_responses, validated
from core.user_ids import USER_ID_SCHEMA
from memories.api_base import UserScopedApi
from memories.services.erasure import agent_session_erase, end_user_erase
from tenants.authentication import request_tenant

# A session id as POST /memories/extract accepts it (its `session_id`): up to 255 characters.
SESSION_ID_MAX_LENGTH = 255


@extend_schema_serializer(component_name="ErasureReceipt")
class ErasureReceiptSerializer(serializers.Serializer):
    """What an erasure deleted, by kind (the receipt of both erasures)."""

    @extend_schema_serializer(component_name="ErasureCounts")
    class DeletedSerializer(serializers.Serializer):
        memories = serializers.IntegerField(min_value=0)
        versions = serializers.IntegerField(min_value=0)
        jobs = serializers.IntegerField(min_value=0)
        sessions = serializers.IntegerField(min_value=0)
        reviews = serializers.IntegerField(min_value=0)

    user_id = serializers.CharField()
    deleted = DeletedSerializer()


def _actor(request: Request) -> str:
    return f"tenant {request_tenant(request).name}"


class EndUserEraseApi(UserScopedApi):
    """DELETE /users/{user_id}: erase everything held about the end user."""

    class InputSerializer(serializers.Serializer):
        user_id = UserIdField()

    OutputSerializer = ErasureReceiptSerializer

    @extend_schema(
        operation_id="users_erase",
        parameters=[
            OpenApiParameter(
                "user_id",
                USER_ID_SCHEMA,
                OpenApiParameter.PATH,
                description="The end user's id: any 1-128 printable characters.",
            )
        ],
        responses={200: OutputSerializer, **error_responses(400, 401, 403, 404, 429, 503)},
    )
    def delete(self, request: Request, user_id: str) -> Response:
        data = validated(self.InputSerializer, {"user_id": user_id})
        receipt = end_user_erase(
            tenant=request_tenant(request), external_id=data["user_id"], actor=_actor(request)
        )
        return Response(self.OutputSerializer(receipt).data)


class AgentSessionEraseApi(UserScopedApi):
    """DELETE /sessions/{session_id}?user_id=: erase the session and the memories from it."""

    class InputSerializer(serializers.Serializer):
        user_id = UserIdField()

    class PathSerializer(serializers.Serializer):
        # Read as POST /memories/extract reads `session_id` (trimmed), so the same id matches.
        session_id = StrictCharField(max_length=SESSION_ID_MAX_LENGTH, allow_blank=True)

    OutputSerializer = ErasureReceiptSerializer

    @extend_schema(
        operation_id="sessions_erase",
        parameters=[
            InputSerializer,
            OpenApiParameter(
                "session_id",
                {"type": "string", "maxLength": SESSION_ID_MAX_LENGTH, "pattern": r"^[^\x00]*$"},
                OpenApiParameter.PATH,
                description="The session_id given to POST /memories/extract.",
            ),
        ],
        responses={200: OutputSerializer, **error_responses(400, 401, 403, 404, 429, 503)},
    )
    def delete(self, request: Request, session_id: str) -> Response:
        data = validated(self.InputSerializer, request.query_params)
        session_id = validated(self.PathSerializer, {"session_id": session_id})["session_id"]
        receipt = agent_session_erase(
            tenant=request_tenant(request),
            external_id=data["user_id"],
            session_id=session_id,
            actor=_actor(request),
        )
        return Response(self.OutputSerializer(receipt).data)
