"""Log lines as one JSON object each (LOG_FORMAT=json, the default) or as text for humans
(LOG_FORMAT=plain), both with the request id."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

from core.requests import request_id_get

# The `extra` fields a line carries when given. A whitelist: other extras (Django passes the
# whole request object, whose repr holds the query string, so the prompt) are never written.
FIELDS = (
    "request_id",
    "method",
    "endpoint",
    "status",
    "status_code",
    "duration_ms",
    "tenant",
    "job_id",
)


def _request_id(record: logging.LogRecord) -> str | None:
    """The id a record was logged with, else the one of the request (or task) being served."""
    return getattr(record, "request_id", None) or request_id_get()


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (ISO 8601, UTC), level, logger, message, request_id,
    the known extra fields, and the exception's traceback if any."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        rid = _request_id(record)
        if rid:
            line["request_id"] = rid
        for field in FIELDS:
            value = getattr(record, field, None)
            if value is not None and field not in line:
                line[field] = value
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        elif record.exc_text:
            line["exc"] = record.exc_text
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line, ensure_ascii=False, default=str)


class PlainFormatter(logging.Formatter):
    """`time level logger [request id] message`: the text format, still traceable."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s%(rid)s %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        rid = _request_id(record)
        record.rid = f" [{rid}]" if rid else ""
        return super().format(record)
