"""The conversation budget: what of a conversation fits in one extraction prompt."""

from __future__ import annotations

from extraction.budget import MESSAGE_OVERHEAD, fit_to_budget
from integrations.tokens import count_tokens


def turns(count: int, words: int = 20) -> list[dict]:
    return [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i} " + "word " * words}
        for i in range(count)
    ]


def test_a_conversation_within_budget_is_kept_whole():
    messages = turns(4)

    assert fit_to_budget(messages, 6000) == (messages, 0)


def test_the_oldest_turns_are_dropped_and_counted():
    messages = turns(10)
    per_message = count_tokens(messages[0]["content"]) + MESSAGE_OVERHEAD

    kept, dropped = fit_to_budget(messages, per_message * 3 + 1)

    assert dropped == 7
    assert kept == messages[7:]


def test_the_kept_turns_fit_the_budget():
    messages = turns(30, words=37)

    kept, dropped = fit_to_budget(messages, 500)

    assert sum(count_tokens(m["content"]) + MESSAGE_OVERHEAD for m in kept) <= 500
    assert dropped == len(messages) - len(kept) > 0
    assert kept[-1] is messages[-1]


def test_a_newest_message_over_budget_keeps_its_end():
    newest = {"role": "user", "content": "start " + "filler " * 500 + "I live in Lisbon."}
    messages = [{"role": "user", "content": "older"}, newest]

    kept, dropped = fit_to_budget(messages, 50)

    assert dropped == 1
    [clipped] = kept
    assert clipped["role"] == "user"
    assert clipped["content"].endswith("I live in Lisbon.")
    assert not clipped["content"].startswith("start")
    assert count_tokens(clipped["content"]) + MESSAGE_OVERHEAD <= 50


def test_cutting_inside_multibyte_text_leaves_no_broken_character():
    newest = {"role": "user", "content": "日本語のテキスト、絵文字🙂も含む。" * 40}

    [clipped], _ = fit_to_budget([newest], 30)

    assert "\ufffd" not in clipped["content"]
    assert newest["content"].endswith(clipped["content"])


def test_the_default_budget_comes_from_settings(settings):
    settings.MEMORY_LLM_INPUT_BUDGET = 3 * (
        count_tokens("turn 0 " + "word " * 20) + MESSAGE_OVERHEAD
    )

    _, dropped = fit_to_budget(turns(5))

    assert dropped == 2


def test_an_empty_conversation_stays_empty():
    assert fit_to_budget([], 100) == ([], 0)
