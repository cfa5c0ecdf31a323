"""Traceable requests: the X-Request-ID of every response and the JSON access log line."""

from __future__ import annotations

import json
import logging
import re
import sys
import uuid

import pytest
from rest_framework.test import APIClient

from core.jsonlog import JsonFormatter, PlainFormatter
from core.requests import request_context, request_id_get
from tests.logcapture import json_lines

pytestmark = pytest.mark.django_db

GENERATED = re.compile(r"[0-9a-f]{32}")


@pytest.fixture
def access_lines():
    with json_lines("core.requests") as lines:
        yield lines


def test_a_response_carries_a_new_id():
    first = APIClient().get("/health")
    second = APIClient().get("/health")

    assert GENERATED.fullmatch(first["X-Request-ID"])
    assert first["X-Request-ID"] != second["X-Request-ID"]


@pytest.mark.parametrize("sent", ["abc", "req-2024.11/23:x@y+z=1_", "a" * 128])
def test_a_sane_caller_id_is_echoed(sent):
    response = APIClient().get("/health", HTTP_X_REQUEST_ID=sent)

    assert response["X-Request-ID"] == sent


@pytest.mark.parametrize("sent", ["", "two words", "<script>", "a" * 129, "é", "x\r\nSet-Cookie"])
def test_a_garbage_caller_id_is_replaced(sent):
    response = APIClient().get("/health", HTTP_X_REQUEST_ID=sent)

    assert GENERATED.fullmatch(response["X-Request-ID"])


def test_errors_carry_the_id_too(api, settings):
    assert api.get("/no/such/path", HTTP_X_REQUEST_ID="r-404")["X-Request-ID"] == "r-404"
    assert api.get("/memories/relevant", HTTP_X_REQUEST_ID="r-400").status_code == 400
    assert api.get("/memories/relevant", HTTP_X_REQUEST_ID="r-400")["X-Request-ID"] == "r-400"
    unauthenticated = APIClient().get("/memories/list", HTTP_X_REQUEST_ID="r-401")
    assert (unauthenticated.status_code, unauthenticated["X-Request-ID"]) == (401, "r-401")
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024
    too_big = api.post(
        "/memories/extract",
        data=json.dumps({"user_id": str(uuid.uuid4()), "pad": "x" * 4096}),
        content_type="application/json",
        HTTP_X_REQUEST_ID="r-413",
    )
    assert (too_big.status_code, too_big["X-Request-ID"]) == (413, "r-413")


def test_one_json_access_line_per_request_without_the_prompt(api, tenant, access_lines):
    response = api.get(
        "/memories/relevant",
        {"user_id": str(uuid.uuid4()), "prompt": "my secret kayak plans"},
        HTTP_X_REQUEST_ID="caller-7",
    )

    assert response.status_code == 200
    [line] = access_lines
    assert line["request_id"] == "caller-7"
    assert line["method"] == "GET"
    assert line["endpoint"] == "/memories/relevant"
    assert line["status"] == 200
    assert line["tenant"] == tenant.name
    assert isinstance(line["duration_ms"], float) and line["duration_ms"] >= 0
    assert line["logger"] == "core.requests" and line["level"] == "INFO"
    assert line["time"].endswith("+00:00")
    assert "secret" not in json.dumps(line) and "kayak" not in json.dumps(line)


def test_the_access_line_names_the_route_not_the_path(api, access_lines):
    api.get(f"/memories/jobs/{uuid.uuid4()}")
    APIClient().get("/memories/list")

    assert [(line["endpoint"], line["status"]) for line in access_lines] == [
        ("/memories/jobs/<uuid:job_id>", 404),
        ("/memories/list", 401),
    ]
    assert "tenant" not in access_lines[1]  # not authenticated


def test_the_formatter_writes_the_context_id_the_exception_and_only_known_extras():
    formatter = JsonFormatter()
    logger = logging.getLogger("tests.request_ids")
    try:
        raise ValueError("boom")
    except ValueError:
        record = logger.makeRecord(
            logger.name, logging.ERROR, __file__, 1, "failed %s", ("x",), sys.exc_info(),
            extra={"job_id": "j1", "request": "GET /memories/relevant?prompt=secret"},
        )  # fmt: skip

    assert "request_id" not in json.loads(formatter.format(record))
    with request_context("ctx-1") as rid:
        assert request_id_get() == rid == "ctx-1"
        line = json.loads(formatter.format(record))
    assert request_id_get() is None
    assert line["request_id"] == "ctx-1"
    assert line["message"] == "failed x" and line["job_id"] == "j1"
    assert "ValueError: boom" in line["exc"]
    assert "secret" not in json.dumps(line)


def test_the_plain_log_format_names_the_request_id_too():
    record = logging.LogRecord("memories", logging.INFO, __file__, 1, "saved %s", ("x",), None)
    formatter = PlainFormatter()

    assert formatter.format(record).endswith(" INFO memories saved x")
    with request_context("caller-42"):
        assert formatter.format(record).endswith(" INFO memories [caller-42] saved x")
