"""Memory as agent tools: remember, recall, forget and context, for one tenant's end users.

One definition serves both front doors: OpenAI function-calling (`GET /tools`,
`POST /tools/call`) and the MCP server (`agents.mcp`). Each tool validates its arguments with a
serializer, so a model's malformed call gets the same 400 message whichever door it used.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rest_framework import serializers

from core.api import AS_OF_SCHEMA, AsOfField, StrictCharField, UserIdField
from core.exceptions import InvalidInput, NotFound, ReadOnlyKey
from core.user_ids import USER_ID_SCHEMA
from extraction.remember import memory_remember
from memories.api_base import MEMORY_ID_PATTERN
from memories.selectors import end_user_get
from memories.services.memories import memory_delete
from memories.text import FULL_TEXT_MAX_LENGTH
from recall.context import DEFAULT_CONTEXT_TOKENS, MAX_CONTEXT_TOKENS, memory_context
from recall.services import memory_recall
from tenants.models import Tenant

# The longest note `remember` takes: one memory's full text, not a transcript (send those to
# POST /memories/extract).
MAX_REMEMBER_CHARS = FULL_TEXT_MAX_LENGTH
MAX_QUERY_CHARS = 4_000
MAX_RECALL_LIMIT = 50

_USER_ID = {
    **USER_ID_SCHEMA,
    "description": "The end user's id: any 1-128 printable characters, as your app keeps it "
    '("alice", "tg:12345", a UUID).',
}
# What the argument fields refuse besides length: a NUL character (as StrictCharField does).
_NO_NUL = "^[^\\x00]*$"


@dataclass(frozen=True)
class Tool:
    """One operation an agent can call: its schema for the model, and how it runs."""

    name: str
    description: str
    parameters: dict[str, Any]
    arguments: type[serializers.Serializer]
    run: Callable[..., dict[str, Any]]
    # Whether it changes memories: a read-only API key may call only the tools that do not.
    writes: bool

    def openai_schema(self) -> dict[str, Any]:
        """The tool as OpenAI's chat-completions `tools` list takes it."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


class _RememberArguments(serializers.Serializer):
    user_id = UserIdField()
    # Taken as sent: a note of spaces is valid and remembers nothing.
    text = StrictCharField(min_length=1, max_length=MAX_REMEMBER_CHARS, trim_whitespace=False)


class _RecallArguments(serializers.Serializer):
    user_id = UserIdField()
    query = StrictCharField(min_length=1, max_length=MAX_QUERY_CHARS, trim_whitespace=False)
    limit = serializers.IntegerField(min_value=1, max_value=MAX_RECALL_LIMIT, default=10)
    as_of = AsOfField(required=False)


class _ForgetArguments(serializers.Serializer):
    user_id = UserIdField()
    memory_id = serializers.RegexField(MEMORY_ID_PATTERN)


class _ContextArguments(serializers.Serializer):
    user_id = UserIdField()
    prompt = StrictCharField(min_length=1, max_length=MAX_QUERY_CHARS, trim_whitespace=False)
    max_tokens = serializers.IntegerField(
        min_value=1, max_value=MAX_CONTEXT_TOKENS, default=DEFAULT_CONTEXT_TOKENS
    )


def _remember(*, tenant: Tenant, user_id: Any, text: str) -> dict[str, Any]:
    # The note is one candidate: redaction, dedup, the conflict checks and the cap apply as
    # to a conversation's, and a note that cannot be stored is a 400 naming why.
    outcome = memory_remember(
        tenant=tenant, external_id=user_id, text=text, actor=f"tool remember, {tenant.name}"
    )
    return {
        "memories": [
            {"id": m.id, "caption": m.caption, "status": m.status} for m in outcome.memories
        ],
        "total_user_memories": outcome.total_user_memories,
    }


def _recall(
    *, tenant: Tenant, user_id: Any, query: str, limit: int, as_of: datetime.date | None = None
) -> dict[str, Any]:
    recall = memory_recall(
        tenant=tenant, external_id=user_id, prompt=query, limit=limit, as_of=as_of
    )
    # A fact's period with as_of, or when it no longer holds (a question about the past): a
    # past fact is never handed over as a current one.
    return {
        "memories": [
            {"id": m.id, "caption": m.caption, "score": m.score}
            | ({"period": m.period} if m.period and (as_of or m.past) else {})
            | ({"past": True} if m.past and not as_of else {})
            for m in recall.memories
        ]
    }


def _forget(*, tenant: Tenant, user_id: Any, memory_id: str) -> dict[str, Any]:
    end_user = end_user_get(tenant=tenant, external_id=user_id)
    if end_user is None:
        raise NotFound("Unknown user_id for this API key.")
    memory_delete(end_user=end_user, memory_id=memory_id, actor=f"tool forget, {tenant.name}")
    return {"forgotten": memory_id}


def _context(*, tenant: Tenant, user_id: Any, prompt: str, max_tokens: int) -> dict[str, Any]:
    return memory_context(
        tenant=tenant, external_id=user_id, prompt=prompt, max_tokens=max_tokens
    ).as_json()


TOOLS: dict[str, Tool] = {
    tool.name: tool
    for tool in (
        Tool(
            name="remember",
            description=(
                "Store a durable fact about the user (who they are, what they prefer, what "
                "changed), in their words ('I moved to Lisbon') or as a note ('User moved to "
                "Lisbon'), one fact per call. It is stored as you write it; duplicates are "
                "merged, and a contradiction of a stored fact may be held for review (status "
                "pending_review). Returns the memory that holds it; an error (never an empty "
                "success) when it is not stored: empty, a question, an instruction, or too long."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "user_id": _USER_ID,
                    "text": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": MAX_REMEMBER_CHARS,
                        "pattern": _NO_NUL,
                        "description": "The fact to remember about the user.",
                    },
                },
                "required": ["user_id", "text"],
                "additionalProperties": False,
            },
            arguments=_RememberArguments,
            run=_remember,
            writes=True,
        ),
        Tool(
            name="recall",
            description=(
                "Find what you know about the user that matters for a question or task, best "
                "first. Returns memory ids, captions and scores; nothing when none applies."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "user_id": _USER_ID,
                    "query": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": MAX_QUERY_CHARS,
                        "pattern": _NO_NUL,
                        "description": "The question or task, in plain words.",
                    },
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": MAX_RECALL_LIMIT,
                        "default": 10,
                        "description": "At most this many memories.",
                    },
                    "as_of": {
                        **AS_OF_SCHEMA,
                        "description": "Optional: what held on this day (ISO 8601 date or "
                        "date-time), facts replaced since included, each with its period.",
                    },
                },
                "required": ["user_id", "query"],
                "additionalProperties": False,
            },
            arguments=_RecallArguments,
            run=_recall,
            writes=False,
        ),
        Tool(
            name="forget",
            description=(
                "Delete one memory of the user for good, by the id recall or context gave, "
                "when the user asks you to forget it or it is wrong."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "user_id": _USER_ID,
                    "memory_id": {
                        "type": "string",
                        "pattern": MEMORY_ID_PATTERN.pattern,
                        "description": "The memory's id, mem_ and 16 letters or digits.",
                    },
                },
                "required": ["user_id", "memory_id"],
                "additionalProperties": False,
            },
            arguments=_ForgetArguments,
            run=_forget,
            writes=True,
        ),
        Tool(
            name="context",
            description=(
                "A block of what you remember about the user, ready to read before answering "
                "a prompt, never longer than max_tokens (cl100k_base). Empty when the prompt "
                "needs nothing about the user."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "user_id": _USER_ID,
                    "prompt": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": MAX_QUERY_CHARS,
                        "pattern": _NO_NUL,
                        "description": "The prompt about to be answered.",
                    },
                    "max_tokens": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": MAX_CONTEXT_TOKENS,
                        "default": DEFAULT_CONTEXT_TOKENS,
                        "description": "Budget of the block in tokens.",
                    },
                },
                "required": ["user_id", "prompt"],
                "additionalProperties": False,
            },
            arguments=_ContextArguments,
            run=_context,
            writes=False,
        ),
    )
}

# The tools a read-only API key may call.
READING_TOOLS = [tool.name for tool in TOOLS.values() if not tool.writes]


# The Python types json.loads gives for the JSON schema types (numbers are told apart below).
_JSON_TYPES: dict[str, type] = {
    "string": str,
    "boolean": bool,
    "object": dict,
    "array": list,
    "null": type(None),
}


def _json_type_is(value: Any, json_type: str) -> bool:
    """Whether a parsed JSON value is of the JSON schema type `json_type`.

    true is not an integer (Python's bool is an int); an integer is any number without a
    fraction (JSON schema's rule: 5.0 is one, 1e400, read as infinity, is not)."""
    if json_type == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if json_type == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, _JSON_TYPES[json_type])


def tool_call(*, tenant: Tenant, name: str, arguments: Any, may_write: bool) -> dict[str, Any]:
    """Run the tool `name` with `arguments` (a JSON object) for the tenant; return its result.

    may_write: whether the caller's key may write; if not, a writing tool raises ReadOnlyKey.
    Raises InvalidInput for an unknown tool or bad arguments, NotFound for an unknown memory.
    """
    tool = TOOLS.get(name)
    if tool is None:
        raise InvalidInput(f"Unknown tool {name!r}; the tools are: {', '.join(TOOLS)}.")
    if tool.writes and not may_write:
        raise ReadOnlyKey(
            f"This API key is read-only: it may call {', '.join(READING_TOOLS)}, not {name}. "
            "Use a read-write key (an operator makes one in the admin, or with "
            "`manage.py create_api_key`)."
        )
    if not isinstance(arguments, dict):
        raise InvalidInput("The tool's arguments must be a JSON object.")
    properties = tool.parameters["properties"]
    unknown = sorted(set(arguments) - set(properties))
    if unknown:
        raise InvalidInput(f"Unknown argument(s) for {name}: {', '.join(unknown)}.")
    # The schema's JSON types, as stated: the serializers alone would take "5" for 5.
    mistyped = [
        f"{field}: must be a JSON {properties[field]['type']}"
        for field, value in arguments.items()
        if not _json_type_is(value, properties[field]["type"])
    ]
    if mistyped:
        raise InvalidInput(f"Invalid arguments for {name}: {'; '.join(mistyped)}.")
    serializer = tool.arguments(data=arguments)
    if not serializer.is_valid():
        problems = "; ".join(
            f"{field}: {' '.join(str(m) for m in messages)}"
            for field, messages in serializer.errors.items()
        )
        raise InvalidInput(f"Invalid arguments for {name}: {problems}")
    return tool.run(tenant=tenant, **serializer.validated_data)
