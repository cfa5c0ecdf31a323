"""The LLM client against a real OpenAI-protocol server: usage, retries, timeouts, failures."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import openai
import pytest

from integrations.llm import (
    LLMBadResponse,
    LLMError,
    LLMRejected,
    LLMUnavailable,
    chat,
    llm_configured,
)
from testing.llm_stub import LLMStub, StubReply, content, empty_choices, error, malformed
from tests.processes import free_port

HELLO = [{"role": "user", "content": "Say hello"}]


def test_chat_returns_the_reply_text_and_its_token_usage(llm_settings):
    llm_settings.reply("Hello!", prompt_tokens=42, completion_tokens=3)

    result = chat(HELLO)

    assert result.content == "Hello!"
    assert (result.prompt_tokens, result.completion_tokens) == (42, 3)
    assert result.model == "stub-model"
    assert result.attempts == 1
    assert not result.truncated


def test_chat_sends_model_messages_and_sampling_settings_to_chat_completions(
    llm_settings, settings
):
    settings.MEMORY_LLM_MODEL = "zai-org/GLM-4.5-Air"

    chat(HELLO, max_tokens=1000, temperature=0.1)

    [request] = llm_settings.calls
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer test-key"
    assert request.body["model"] == "zai-org/GLM-4.5-Air"
    assert request.body["messages"] == HELLO
    assert request.body["temperature"] == 0.1
    assert request.body["max_tokens"] == 1000
    assert not request.body.get("stream")


def test_rate_limit_is_retried_after_the_servers_retry_after(llm_settings):
    llm_settings.fail(429, retry_after="0.05", retry_after_ms=None).reply("ok")

    started = time.monotonic()
    result = chat(HELLO)

    assert result.content == "ok"
    assert result.attempts == 2
    assert len(llm_settings.calls) == 2
    assert time.monotonic() - started >= 0.05


@pytest.mark.parametrize("status", [500, 502, 503])
def test_server_errors_are_retried_then_succeed(llm_settings, status):
    llm_settings.fail(status, times=2).reply("ok")

    result = chat(HELLO)

    assert result.content == "ok"
    assert result.attempts == 3
    assert len(llm_settings.calls) == 3


def test_persistent_server_errors_raise_unavailable_after_bounded_attempts(llm_settings):
    llm_settings.always(error(503))

    with pytest.raises(LLMUnavailable) as caught:
        chat(HELLO)

    assert caught.value.status_code == 503
    assert caught.value.attempts == 3
    assert len(llm_settings.calls) == 3


def test_max_retries_setting_bounds_the_number_of_attempts(llm_settings, settings):
    settings.MEMORY_LLM_MAX_RETRIES = 0
    llm_settings.always(error(500))

    with pytest.raises(LLMUnavailable):
        chat(HELLO)

    assert len(llm_settings.calls) == 1


def test_a_slow_reply_times_out_and_the_retry_succeeds(llm_settings, settings):
    settings.MEMORY_LLM_TIMEOUT = 0.2
    llm_settings.slow(2).reply("ok")

    result = chat(HELLO)

    assert result.content == "ok"
    assert result.attempts == 2


def test_timeouts_raise_unavailable_after_bounded_attempts(llm_settings, settings):
    settings.MEMORY_LLM_TIMEOUT = 0.2
    llm_settings.always(lambda request: content("late", delay=2))

    started = time.monotonic()
    with pytest.raises(LLMUnavailable, match="timed out") as caught:
        chat(HELLO)

    assert caught.value.attempts == 3
    assert len(llm_settings.calls) == 3
    assert time.monotonic() - started < 1.5


def test_an_unreachable_server_raises_unavailable_after_retries(llm_settings, settings):
    settings.OPENAI_BASE_URL = f"http://127.0.0.1:{free_port()}/v1"

    with pytest.raises(LLMUnavailable, match="connection failed") as caught:
        chat(HELLO)

    assert caught.value.attempts == 3


@pytest.mark.parametrize("status", [400, 401, 404, 422])
def test_client_errors_are_rejected_without_retry(llm_settings, status):
    llm_settings.fail(status, message="nope")

    with pytest.raises(LLMRejected) as caught:
        chat(HELLO)

    assert caught.value.status_code == status
    assert len(llm_settings.calls) == 1


def test_a_malformed_body_is_retried_then_succeeds(llm_settings):
    llm_settings.malformed().reply("ok")

    assert chat(HELLO).content == "ok"
    assert len(llm_settings.calls) == 2


@pytest.mark.parametrize(
    "reply",
    [
        malformed(b"<html>Bad gateway</html>"),
        malformed(b""),
        StubReply(200, b"plain text", {"Content-Type": "text/plain"}),
        StubReply(200, {"unexpected": "shape"}),
        empty_choices(),
        content(None),
        content("   "),
    ],
    ids=["html", "empty-body", "text-plain", "wrong-shape", "no-choices", "null", "blank"],
)
def test_unusable_replies_raise_bad_response_after_bounded_attempts(llm_settings, reply):
    llm_settings.always(reply)

    with pytest.raises(LLMBadResponse) as caught:
        chat(HELLO)

    assert caught.value.attempts == 3
    assert len(llm_settings.calls) == 3


def test_a_retry_after_beyond_a_minute_is_not_slept_through(llm_settings):
    llm_settings.fail(429, retry_after="120", retry_after_ms=None)

    started = time.monotonic()
    with pytest.raises(LLMUnavailable) as caught:
        chat(HELLO)

    assert time.monotonic() - started < 1
    assert caught.value.retry_after == 120
    assert len(llm_settings.calls) == 1


def test_a_model_that_refuses_max_tokens_is_asked_with_max_completion_tokens(llm_settings):
    llm_settings.fail(
        400,
        message="Unsupported parameter: 'max_tokens'. Use 'max_completion_tokens' instead.",
        param="max_tokens",
    ).reply("ok")

    assert chat(HELLO, max_tokens=321).content == "ok"

    first, second = llm_settings.calls
    assert first.body["max_tokens"] == 321
    assert second.body["max_completion_tokens"] == 321
    assert "max_tokens" not in second.body


SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


def test_a_schema_is_asked_for_as_structured_output(llm_settings):
    llm_settings.reply('{"ok": true}')

    chat(HELLO, json_schema=SCHEMA, schema_name="answer")

    [request] = llm_settings.calls
    assert request.body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": SCHEMA, "strict": True},
    }


def test_a_server_without_schemas_gets_json_mode_then_nothing_and_that_is_remembered(
    llm_settings,
):
    llm_settings.fail(400, message="response_format json_schema is not supported", times=1)
    llm_settings.fail(400, message="Invalid value for 'response_format'", times=1)
    llm_settings.reply('{"ok": true}').reply('{"ok": true}')

    assert chat(HELLO, json_schema=SCHEMA).content == '{"ok": true}'
    chat(HELLO, json_schema=SCHEMA)

    formats = [r.body.get("response_format", {}).get("type") for r in llm_settings.calls]
    assert formats == ["json_schema", "json_object", None, None]


def test_a_request_without_a_schema_sends_no_response_format(llm_settings):
    llm_settings.reply("hi")

    chat(HELLO)

    assert "response_format" not in llm_settings.calls[0].body


def test_every_failure_is_an_llm_error():
    for kind in (LLMUnavailable, LLMBadResponse, LLMRejected):
        assert issubclass(kind, LLMError)


def test_no_api_key_means_not_configured_and_no_request(llm_settings, settings):
    settings.OPENAI_API_KEY = ""

    assert not llm_configured()
    with pytest.raises(LLMUnavailable):
        chat(HELLO)
    assert llm_settings.calls == []


def test_a_settings_change_reaches_a_new_server(llm_settings, settings):
    chat(HELLO)
    other = LLMStub().start()
    try:
        settings.OPENAI_BASE_URL = other.base_url
        other.reply("from the other server")

        assert chat(HELLO).content == "from the other server"
        assert len(llm_settings.calls) == 1
        assert len(other.calls) == 1
    finally:
        other.stop()


def test_concurrent_calls_are_all_answered(llm_settings):
    llm_settings.always(lambda request: content(request.messages[0]["content"].upper()))
    prompts = [f"question {i}" for i in range(20)]

    with ThreadPoolExecutor(max_workers=20) as pool:
        answers = list(pool.map(lambda p: chat([{"role": "user", "content": p}]).content, prompts))

    assert answers == [p.upper() for p in prompts]
    assert len(llm_settings.calls) == 20


def test_the_stub_serves_deterministic_embeddings(llm_stub):
    client = openai.OpenAI(api_key="k", base_url=llm_stub.base_url, max_retries=0)

    first = client.embeddings.create(model="text-embedding-3-small", input=["a", "b"])
    again = client.embeddings.create(model="text-embedding-3-small", input="a")

    assert [len(item.embedding) for item in first.data] == [1536, 1536]
    assert first.data[0].embedding == again.data[0].embedding
    assert first.data[0].embedding != first.data[1].embedding
    assert len(llm_stub.embedding_calls) == 2
    assert llm_stub.calls == []
