"""The offline reader never raises, whatever the user writes, and every caption it gives has
its value: random text and adversarial pieces (dangling conjunctions, emoji, every script,
very long messages), under a fixed example budget so that it runs in seconds."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from extraction.reader import offline_candidates
from memories.text import states_a_fact
from memories.values import lacks_value

# Pieces a hostile or careless user writes, joined at random below.
PIECES = [
    "",
    " ",
    "and",
    "and ",
    "and and",
    ", and",
    " and ",
    "but",
    "&",
    "+",
    ",",
    ".",
    "?!",
    "\n",
    "I",
    "I'm",
    "my",
    "me",
    "we",
    "she's",
    "mum's",
    "sister's a",
    "is",
    "called",
    "named",
    "I work at Siemens and ",
    "I like tea, and ",
    "I live in",
    "my dog is called",
    "I love",
    "I live in Berlin",
    "my cat is named Mochi",
    "I'm vegan",
    "greetings from",
    "as a",
    "🍕",
    "🐶",
    "👩\u200d⚕️",
    "🇵🇹",
    "❤️",
    "1️⃣",
    "\u200d",
    "\ufe0f",
    "\U0001f3fd",
    "東京に住んでいます",
    "أنا أعيش في القاهرة",
    "मैं दिल्ली में रहता हूँ",
    "Я живу в Москве",
    "e\u0301\u0301\u0301",
    "Z\u0351\u0364\u0328a\u0350\u036cl\u0336go",
    "\u202eevil",
    "\x00",
    "'s",
    "'",
    "-",
    "—",
    "lol",
    "actually no,",
    "oops no",
    "sorry,",
    "remember that",
]
MESSAGE = st.lists(st.sampled_from(PIECES) | st.text(max_size=12), max_size=12).map(" ".join)
CONVERSATION = st.lists(
    st.fixed_dictionaries(
        {"role": st.sampled_from(["user", "user", "assistant"]), "content": MESSAGE}
    ),
    min_size=1,
    max_size=4,
)
BUDGET = settings(
    max_examples=400, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)


def _read(conversation: list[dict]) -> list:
    """The candidates; nothing may be skipped either: the reader reads these, it does not
    merely survive them (`read_statements` leaves out a clause that raises)."""
    skipped: list[str] = []
    candidates = offline_candidates(conversation, skipped=skipped)
    assert skipped == []
    return candidates


def _assert_whole(candidates) -> None:
    for candidate in candidates:
        assert states_a_fact(candidate.caption), candidate.caption
        assert not lacks_value(candidate.caption), candidate.caption


@BUDGET
@given(CONVERSATION)
def test_the_reader_never_raises_and_every_caption_has_its_value(conversation):
    _assert_whole(_read(conversation))


@BUDGET
@given(st.text(max_size=300))
def test_any_text_at_all_is_read_without_raising(text):
    _assert_whole(_read([{"role": "user", "content": text}]))


def test_a_message_of_twenty_thousand_characters_in_every_script_is_read():
    text = " ".join(PIECES * 200)[:20_000]
    _assert_whole(_read([{"role": "user", "content": text}]))
