"""The recall API: GET /memories/relevant."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from memories.api_base import StrictUUIDField, UserScopedApi, error_responses, validated
from recall.selectors import memory_relevant_list

MAX_PROMPT_CHARS = 4_000


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
        responses={200: OutputSerializer, **error_responses(400, 401, 404, 429, 503)},
    )
    def get(self, request: Request) -> Response:
        data = validated(self.InputSerializer, request.query_params)
        memories = memory_relevant_list(
            end_user=self.end_user(data["user_id"]), prompt=data["prompt"], limit=data["limit"]
        )
        return Response(self.OutputSerializer({"memories": memories}).data)
