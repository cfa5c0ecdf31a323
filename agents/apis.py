"""The tools API: GET /tools (OpenAI function schemas) and POST /tools/call (run one)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from agents.tools import READING_TOOLS, TOOLS, tool_call
from core.api import StrictCharField, error_responses, validated
from memories.api_base import UserScopedApi
from tenants.authentication import request_principal
from tenants.permissions import key_may_write
from tenants.schema import AutoSchema


class ToolListApi(APIView):
    """GET /tools: the memory tools as OpenAI function-calling schemas, to hand to a model."""

    @extend_schema_serializer(component_name="ToolListOutput")
    class OutputSerializer(serializers.Serializer):
        tools = serializers.ListField(
            child=serializers.DictField(),
            help_text='Each {"type": "function", "function": {"name", "description", '
            '"parameters"}}, as the chat-completions `tools` parameter takes them.',
        )

    @extend_schema(
        operation_id="tools_list",
        responses={200: OutputSerializer, **error_responses(401)},
    )
    def get(self, request: Request) -> Response:
        return Response({"tools": [tool.openai_schema() for tool in TOOLS.values()]})


TOOL_CALL_SCHEMA = {
    "oneOf": [
        {
            "type": "object",
            "title": f"{tool.name} call",
            "properties": {
                "name": {"type": "string", "enum": [tool.name]},
                "arguments": tool.parameters,
            },
            "required": ["name", "arguments"],
        }
        for tool in TOOLS.values()
    ]
}


class _RequiredBodySchema(AutoSchema):
    """drf-spectacular leaves a raw request schema optional; this body is required."""

    def _get_request_body(self, direction: str = "request") -> dict | None:
        body = super()._get_request_body(direction)
        if body:
            body["required"] = True
        return body


class ToolCallApi(UserScopedApi):
    """POST /tools/call: run one tool call a model made, for this key's tenant."""

    schema = _RequiredBodySchema()
    # Reading and writing tools share the POST: each call is checked against the key's scope.
    key_scope_per_call = True

    class InputSerializer(serializers.Serializer):
        name = StrictCharField(help_text=f"One of: {', '.join(TOOLS)}.")
        arguments = serializers.DictField(
            help_text="The call's arguments, as the model gave them (a JSON object; "
            "OpenAI's string-encoded arguments are decoded first by the caller)."
        )

    @extend_schema(
        operation_id="tools_call",
        description=(
            "Run one tool call a model made, for this key's tenant. Read-only API keys may call "
            f"{', '.join(READING_TOOLS)}; the other tools need a read-write key (a read-only "
            "key is answered 403 with the code `read_only_key`)."
        ),
        # The body as the schema states it: one of the tools, with that tool's arguments.
        request={"application/json": TOOL_CALL_SCHEMA},
        responses={
            200: OpenApiResponse(OpenApiTypes.OBJECT, description="The tool's result."),
            **error_responses(400, 401, 403, 404, 429, 502, 503),
        },
    )
    def post(self, request: Request) -> Response:
        data = validated(self.InputSerializer, request.data)
        caller = request_principal(request)
        result = tool_call(
            tenant=caller.tenant,
            name=data["name"],
            arguments=data["arguments"],
            may_write=key_may_write(caller.key),
        )
        return Response(result)
