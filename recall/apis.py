"""The recall API: GET /memories/relevant and GET /memories/context."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from core.api import (
    AS_OF_HELP,
    AsOfField,
    QueryBooleanField,
    QueryCharField,
    QueryIntegerField,
    StrictCharField,
    UserIdField,
    error_responses,
    validated,
)
from memories.api_base import EvidenceSerializer, UserScopedApi
from recall.context import DEFAULT_CONTEXT_TOKENS, MAX_CONTEXT_TOKENS, memory_context
from recall.services import memory_recall
from tenants.authentication import request_tenant

MAX_PROMPT_CHARS = 4_000


class MemoryRelevantApi(UserScopedApi):
    """GET /memories/relevant: the user's memories most relevant to a prompt, best first."""

    class InputSerializer(serializers.Serializer):
        user_id = UserIdField()
        # Taken as sent: a prompt of spaces is valid and recalls nothing.
        prompt = StrictCharField(min_length=1, max_length=MAX_PROMPT_CHARS, trim_whitespace=False)
        limit = QueryIntegerField(min_value=1, max_value=100, default=10)
        explain = QueryBooleanField(
            default=False,
            help_text="Add each memory's ranking signals, and why nothing was returned.",
        )
        as_of = AsOfField(required=False, help_text=AS_OF_HELP)

    @extend_schema_serializer(component_name="MemoryRelevantOutput")
    class OutputSerializer(serializers.Serializer):
        @extend_schema_serializer(component_name="MemoryRelevant")
        class RelevantSerializer(serializers.Serializer):
            id = serializers.CharField()
            caption = serializers.CharField()
            score = serializers.FloatField(
                help_text="Relevance in [0, 1), higher first: 1 - exp(-raw) of the ranker's "
                "raw score. Every memory returned already cleared the relevance floor; scores "
                "compare memories within one answer (see docs/recall.md).",
            )
            signals = serializers.DictField(
                child=serializers.FloatField(),
                required=False,
                help_text="With explain=true: cosine, lexical (BM25), hubness_correction, "
                "domain (how much the prompt's life domains need this memory), standing (what "
                "a standing constraint gained for a request nothing else answered), context_boost "
                "(borrowed from memories of the same source session), raw_score (the ranker's "
                "unbounded sum) and score.",
            )
            evidence = EvidenceSerializer(
                many=True,
                required=False,
                help_text="With explain=true: what the user said that the memory came from, in "
                "the order it was said (the same as GET /memories/full).",
            )

        memories = RelevantSerializer(many=True)
        explain = serializers.DictField(
            required=False,
            help_text="With explain=true: the recall mode, whether the prompt reads as a "
            "request for personal help, and when nothing is returned why (the floor and the "
            "best score seen); `time` (`as of <day>`, or `past` for a prompt about the past), "
            '`periods` (memory id -> when it holds: "since October 2026", "from March 2021 '
            'to June 2024") and `past` (the ids of facts that no longer hold).',
        )

    @extend_schema(
        operation_id="memories_relevant",
        parameters=[InputSerializer],
        responses={200: OutputSerializer, **error_responses(400, 401, 429, 503)},
    )
    def get(self, request: Request) -> Response:
        data = validated(self.InputSerializer, request.query_params)
        # A user never seen, or another tenant's, reads as one with no memories (as
        # `end_user_or_none` reads it), looked up with its index's freshness in one query.
        recall = memory_recall(
            tenant=request_tenant(request),
            external_id=data["user_id"],
            prompt=data["prompt"],
            limit=data["limit"],
            explain=data["explain"],
            as_of=data.get("as_of"),
        )
        # Signals and the explanation only when asked for: the default answer is unchanged.
        body: dict = {
            "memories": [
                {"id": m.id, "caption": m.caption, "score": m.score}
                | ({"signals": m.signals} if data["explain"] and m.signals else {})
                | ({"evidence": m.evidence} if m.evidence is not None else {})
                for m in recall.memories
            ]
        }
        if data["explain"]:
            body["explain"] = recall.explanation
        return Response(self.OutputSerializer(body).data)


class MemoryContextApi(UserScopedApi):
    """GET /memories/context: a block to prepend to a prompt, never over max_tokens."""

    class InputSerializer(serializers.Serializer):
        user_id = UserIdField()
        prompt = StrictCharField(min_length=1, max_length=MAX_PROMPT_CHARS, trim_whitespace=False)
        max_tokens = QueryIntegerField(
            min_value=1,
            max_value=MAX_CONTEXT_TOKENS,
            default=DEFAULT_CONTEXT_TOKENS,
            help_text="Budget of the block in cl100k_base tokens (tiktoken).",
        )
        session_id = QueryCharField(
            max_length=255,
            required=False,
            help_text="Add the memories that came from this session (as sent to extract).",
        )
        as_of = AsOfField(required=False, help_text=AS_OF_HELP)

    @extend_schema_serializer(component_name="MemoryContextOutput")
    class OutputSerializer(serializers.Serializer):
        @extend_schema_serializer(component_name="MemoryContextItem")
        class ItemSerializer(serializers.Serializer):
            id = serializers.CharField()
            caption = serializers.CharField()
            tier = serializers.ChoiceField(choices=["profile", "relevant", "session"])
            score = serializers.FloatField()

        # The response's field `context`: DRF's metaclass moves declared fields out of the
        # class, so it does not shadow `Serializer.context` (the stubs cannot tell).
        context = serializers.CharField(  # type: ignore[assignment]
            allow_blank=True, help_text="Empty when the prompt needs none of the user's memories."
        )
        tokens = serializers.IntegerField(help_text="cl100k_base tokens of `context`.")
        truncated = serializers.BooleanField(help_text="Some candidate memories did not fit.")
        memories = ItemSerializer(many=True, help_text="The memories in the block, in order.")

    @extend_schema(
        operation_id="memories_context",
        parameters=[InputSerializer],
        responses={200: OutputSerializer, **error_responses(400, 401, 429, 503)},
    )
    def get(self, request: Request) -> Response:
        data = validated(self.InputSerializer, request.query_params)
        context = memory_context(
            tenant=request_tenant(request),
            external_id=data["user_id"],
            prompt=data["prompt"],
            max_tokens=data["max_tokens"],
            session_id=data.get("session_id") or None,
            as_of=data.get("as_of"),
        )
        return Response(self.OutputSerializer(context.as_json()).data)
