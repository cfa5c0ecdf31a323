"""Stored text is cleaned of what does not show: control characters, terminal escapes,
bidirectional overrides, zero-width characters; every script and emoji sequence is kept."""

from __future__ import annotations

import pytest

from memories.text import text_clean


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("User lives in Ber\u200blin", "User lives in Berlin"),
        ("User's sister is called \x1b[31mAnna\x1b[0m", "User's sister is called Anna"),
        ("User likes \x1b[1;38;5;208mbold\x1b[m tea", "User likes bold tea"),
        ("\x1b]0;pwned\x07User is vegan", "User is vegan"),
        ("User\x9b31m is vegan", "User is vegan"),
        ("User's PIN is \u202e1234\u202c", "User's PIN is 1234"),
        ("User \u2066lives\u2069 in \u200fRome\u200e", "User lives in Rome"),
        ("\ufeffUser is\u2060 a nurse\u00ad", "User is a nurse"),
        ("User\u200c likes\u200d tea", "User likes tea"),
        ("User is vegan\x00\x07\x08", "User is vegan"),
        ("User has\U000e0041\U000e0042 tags", "User has tags"),
    ],
)
def test_invisible_and_control_characters_are_stripped(text, stored):
    assert text_clean(text) == stored


@pytest.mark.parametrize(
    "text",
    [
        "Our family \U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466 loves hiking",
        "User is a \U0001f469\U0001f3fd\u200d\U0001f4bb developer",
        "User flies the \U0001f3f3\ufe0f\u200d\U0001f308 flag",
        "User supports \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
        "User \u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u062f",  # Persian, with its ZWNJ
        "User \u0915\u094d\u200d\u0937",  # Devanagari, with its ZWJ
        "User's name is Zoe\u0308 (combining diaeresis)",
        "User lives in \u6771\u4eac and speaks \u0440\u0443\u0441\u0441\u043a\u0438\u0439",
        "User's daughter In\u00eas lives in Z\u00fcrich",
    ],
)
def test_scripts_marks_and_emoji_sequences_are_kept(text):
    assert text_clean(text) == text


def test_line_breaks_stay_in_a_full_text_and_are_spaces_in_a_caption():
    text = "User moved to Lyon.\r\nUser works at a bakery.\u2028Since May."

    assert text_clean(text) == "User moved to Lyon.\nUser works at a bakery.\nSince May."
    assert "\n" not in text_clean(text, lines=False)
