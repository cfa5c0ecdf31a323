"""The one JSON parser of the API (REST_FRAMEWORK's DEFAULT_PARSER_CLASSES).

Whatever reads `request.data` first (a throttle, a permission, the view) gets the body through
here, so what it refuses is refused before any code of the service sees it:
- nesting deeper than MEMORY_MAX_JSON_DEPTH (Python's parser would recurse until a
  RecursionError, a 500, at about 1,000 levels: a 2 KB body);
- a lone surrogate (`"\\udfff"`): valid JSON syntax, but not text (RFC 7493, I-JSON), and
  it cannot be encoded to UTF-8 for a cache key, a log line or the database.
Both are a 400 `malformed_request`, like any other body that is not acceptable JSON.
"""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from rest_framework import parsers
from rest_framework.exceptions import ParseError

_SURROGATE = re.compile("[\ud800-\udfff]")


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, bounded in depth and refusing text that is not Unicode."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(_too_deep_message()) from None
        json_check(data)
        return data


def _too_deep_message() -> str:
    return f"JSON nested deeper than {settings.MEMORY_MAX_JSON_DEPTH} levels."


def json_check(data: Any) -> None:
    """Raise ParseError if parsed JSON nests deeper than the bound or holds a lone surrogate.

    Iterative, so that checking a deep value cannot itself recurse too deep."""
    limit = settings.MEMORY_MAX_JSON_DEPTH
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if _SURROGATE.search(value):
                raise ParseError(
                    "JSON text holds a lone surrogate (such as \\udfff): not a character."
                )
            continue
        if isinstance(value, dict):
            children: list[Any] = [*value.keys(), *value.values()]
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            raise ParseError(_too_deep_message())
        stack.extend((child, depth + 1) for child in children)
