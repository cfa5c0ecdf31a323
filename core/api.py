"""The API plumbing every app's views share: the JSON error schema, strict input fields, and
validation that answers a 400 in that shape (through `core.exceptions`)."""

from __future__ import annotations

import contextlib
import datetime
import uuid
from collections.abc import Iterable
from typing import Any

from django.core.validators import RegexValidator
from django.http import QueryDict
from drf_spectacular.utils import OpenApiResponse, extend_schema_field
from rest_framework import serializers

from core.exceptions import InvalidInput, ServiceUnavailable
from core.user_ids import USER_ID_MAX_LENGTH, USER_ID_PATTERN, user_id_normal


class ErrorSerializer(serializers.Serializer):
    class ErrorBody(serializers.Serializer):
        code = serializers.CharField()
        message = serializers.CharField()

    error = ErrorBody()


_ERROR_DESCRIPTIONS = {
    400: "Invalid input (bad user_id, missing field, wrong type, bad ids, oversized, two "
    "different user_ids), or malformed (not JSON, nested too deep, a lone surrogate, a query "
    "string that is not UTF-8).",
    401: "Missing, unknown or revoked API key.",
    403: "A read-only API key (code `read_only_key`): this needs a read-write key.",
    404: "Unknown user_id, memory or session for this API key's tenant.",
    413: "Request body over the size limit.",
    429: "More than MEMORY_RATE_LIMIT requests a minute for this user_id (Retry-After).",
    502: "The LLM failed; the conversation is kept as a failed job for a retry.",
    503: ServiceUnavailable.default_message,
}


def error_responses(*statuses: int) -> dict[int, OpenApiResponse]:
    """The OpenAPI responses of the given error statuses, all in the JSON error shape."""
    return {
        status: OpenApiResponse(ErrorSerializer, description=_ERROR_DESCRIPTIONS[status])
        for status in statuses
    }


def query_given_once(query: QueryDict, names: Iterable[str] | None = None) -> None:
    """Refuse (400) a query parameter (of `names`, or any) given more than once: Django would
    read only the last of `?prompt=a&prompt=b`, which is ambiguous."""
    repeated = sorted(
        name
        for name, values in query.lists()
        if len(values) > 1 and (names is None or name in names)
    )
    if repeated:
        raise InvalidInput(f"Query parameter given more than once: {', '.join(repeated)}.")


def validated(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:
    """The validated data of `serializer_class` over `data`, or a 400."""
    if isinstance(data, QueryDict):
        query_given_once(data)
        if "" in data:
            # "?=x" names no parameter: a malformed query, refused rather than ignored.
            raise InvalidInput("A query parameter has no name (an '=' with nothing before it).")
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


class _GivenValue(serializers.Field):
    """A query parameter given blank ("limit=") is invalid, not left to its default."""

    def get_value(self, dictionary: Any) -> Any:
        if self.field_name in dictionary and dictionary[self.field_name] == "":
            return ""
        return super().get_value(dictionary)


class QueryIntegerField(_GivenValue, serializers.IntegerField):
    """An integer query parameter: absent takes the default, blank is a 400."""


class QueryBooleanField(_GivenValue, serializers.BooleanField):
    """A boolean query parameter: absent takes the default, blank is a 400."""


class StrictCharField(serializers.CharField):
    """Text given as a JSON string; DRF's own field would turn 5 or true into text."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # DRF already refuses NUL characters; as a validator the schema states it too.
        self.validators.append(
            RegexValidator(r"^[^\x00]*$", message="Null characters are not allowed.")
        )

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class QueryCharField(_GivenValue, StrictCharField):
    """An optional text query parameter: absent is absent, blank is a 400."""


class UserIdField(serializers.CharField):
    """A `user_id`: a JSON string of 1-128 printable characters, kept as given (no trimming:
    " alice" is not "alice"), a UUID in its canonical form."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", USER_ID_MAX_LENGTH)
        kwargs.setdefault("min_length", 1)
        kwargs.setdefault("trim_whitespace", False)
        kwargs.setdefault(
            "help_text",
            "The end user's id as your app keeps it: any 1-128 printable characters "
            '("alice", "tg:12345", a UUID).',
        )
        super().__init__(**kwargs)
        self.validators.append(
            RegexValidator(
                USER_ID_PATTERN,
                message="A user_id is 1-128 printable characters (no control characters).",
            )
        )

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return user_id_normal(super().to_internal_value(data))


def user_id_valid(value: Any) -> str | None:
    """`value` as stored (`user_id_normal`) if it is a valid user_id by UserIdField's rule,
    else None: for code that reads a user_id before the view validates it (the rate limit)."""
    try:
        return UserIdField().run_validation(value)
    except serializers.ValidationError:
        return None


class StrictUUIDField(serializers.UUIDField):
    """A UUID given as a string; DRF's own field would also take an integer."""

    def to_internal_value(self, data: Any) -> uuid.UUID:
        if not isinstance(data, str):
            self.fail("invalid", value=data)
        return super().to_internal_value(data)


class TimestampField(serializers.DateTimeField):
    """An ISO 8601 date-time given as a JSON string ("2025-01-14T09:30:00Z"); one without a
    zone is UTC's. Anything else is a 400 naming the field."""

    default_error_messages = {
        "invalid": "Not an ISO 8601 date-time (for example 2025-01-14T09:30:00Z).",
    }

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("input_formats", ["iso-8601"])
        kwargs.setdefault("default_timezone", datetime.UTC)
        super().__init__(**kwargs)

    def to_internal_value(self, value: Any) -> datetime.datetime:
        if not isinstance(value, str):
            self.fail("invalid")
        return super().to_internal_value(value)


AS_OF_HELP = (
    "Read the memories that held on this day (ISO 8601 date, 2025-03-01, or date-time, whose "
    "UTC day is read), including facts an update has replaced since. Default: today's."
)


def as_of_parse(value: Any) -> datetime.date | None:
    """An `as_of` as its UTC day: an ISO 8601 date or date-time; None when it is neither."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        pass
    try:
        moment = datetime.datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        return None
    if moment.tzinfo is not None:
        # On the first or last day of the calendar UTC may not exist: the day as given then.
        with contextlib.suppress(OverflowError):
            moment = moment.astimezone(datetime.UTC)
    return moment.date()


# What an `as_of` is, in the schema: a full date or an RFC 3339 date-time. No `example`: Swagger
# UI's "Try it out" fills a parameter's example in, and a past day would hide today's memories.
AS_OF_SCHEMA = {
    "type": "string",
    "anyOf": [{"format": "date"}, {"format": "date-time"}],
    "maxLength": 40,
}


@extend_schema_field({**AS_OF_SCHEMA, "description": AS_OF_HELP})
class AsOfField(_GivenValue, serializers.Field):
    """`as_of`: an ISO 8601 date or date-time, read as its UTC day; anything else is a 400."""

    default_error_messages = {
        "invalid": "as_of is an ISO 8601 date (2025-03-01) or date-time (2025-03-01T12:00:00Z).",
    }

    def to_internal_value(self, data: Any) -> datetime.date:
        day = as_of_parse(data) if isinstance(data, str) and len(data) <= 40 else None
        if day is None:
            self.fail("invalid")
        return day

    def to_representation(self, value: datetime.date) -> str:
        return value.isoformat()
