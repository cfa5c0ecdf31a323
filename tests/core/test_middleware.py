"""Refusals before any view: a query string that is not UTF-8, and bodies sent chunked
(Transfer-Encoding), which Django alone would read as empty. (Under real gunicorn:
tests/core/test_body_http.py.)"""

from __future__ import annotations

import io
import json
import uuid

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def offline(settings):
    settings.MEMORY_EXTRACTOR = "rules"
    settings.MEMORY_EMBEDDER = "local"


@pytest.mark.parametrize(
    "query",
    [
        "user_id=%ff%fe",
        "user_id=alice&prompt=caf%e9",  # Latin-1, not UTF-8
        "user_id=alice&prompt=%ed%bf%bf",  # a surrogate, encoded
        "user_id=alice&prompt=%c3",  # a truncated sequence
        "user_id=al%80ice",
        "%ff=1&user_id=alice",  # in a name
    ],
)
def test_a_query_string_that_is_not_utf8_is_a_400(api, query):
    response = api.get(f"/memories/relevant?{query}")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "malformed_request" and "UTF-8" in error["message"]


def test_a_utf8_query_string_is_served(api):
    user_id = f"Zoë-{uuid.uuid4().hex}-\U0001f600"

    response = api.get("/memories/relevant", {"user_id": user_id, "prompt": "où j'habite ?"})

    assert response.status_code == 200


def _chunked(api, path: str, body: bytes, *, terminated: bool = True):
    """POST `body` as a WSGI server hands a chunked request to Django: no CONTENT_LENGTH, the
    decoded body in wsgi.input, and (gunicorn) wsgi.input_terminated."""
    extra = {
        "CONTENT_LENGTH": "",
        "HTTP_TRANSFER_ENCODING": "chunked",
        "wsgi.input": io.BytesIO(body),
    }
    if terminated:
        extra["wsgi.input_terminated"] = True
    return api.generic("POST", path, body, content_type="application/json", **extra)


def _conversation(user_id: str) -> bytes:
    talk = [{"role": "user", "content": "I live in Lisbon and my cat is called Miso."}]
    return json.dumps({"user_id": user_id, "conversation": talk}).encode()


def test_a_chunked_body_is_read(api):
    response = _chunked(api, "/memories/extract", _conversation(str(uuid.uuid4())))

    assert response.status_code == 201, response.json()
    captions = {m["caption"] for m in response.json()["memories_saved"]}
    assert captions == {"User lives in Lisbon", "User's cat is called Miso"}


def test_a_chunked_body_over_the_limit_is_a_413(api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 4096
    body = _conversation(str(uuid.uuid4())) + b" " * 4096

    response = _chunked(api, "/memories/extract", body)

    assert response.status_code == 413
    assert response.json()["error"]["code"] == "payload_too_large"
    assert "4096" in response.json()["error"]["message"]


def test_a_chunked_body_at_the_limit_is_read(api, settings):
    body = _conversation(str(uuid.uuid4()))
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = len(body)

    assert _chunked(api, "/memories/extract", body).status_code == 201


def test_a_chunked_body_a_server_cannot_end_is_a_411(api):
    response = _chunked(api, "/memories/extract", _conversation("x"), terminated=False)

    assert response.status_code == 411
    assert response.json()["error"]["code"] == "length_required"
