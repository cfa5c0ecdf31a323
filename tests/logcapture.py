"""Log lines as the console writes them (JSON), captured from one logger for a test."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Iterator

from core.jsonlog import JsonFormatter


class Lines(logging.Handler):
    """Formats each record as it is emitted (in the emitting context), as the console does."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(JsonFormatter())
        self.lines: list[dict] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(json.loads(self.format(record)))


@contextlib.contextmanager
def json_lines(logger_name: str) -> Iterator[list[dict]]:
    """The JSON lines `logger_name` writes at INFO and above while the block runs."""
    handler = Lines()
    logger = logging.getLogger(logger_name)
    logger.addHandler(handler)
    previous = logger.level
    logger.setLevel(logging.INFO)
    try:
        yield handler.lines
    finally:
        logger.removeHandler(handler)
        logger.setLevel(previous)
