"""Issue 32, fifth round, with the real local embedder: a prompt about the user is answered by
their own facts before their people's however it is written: with a word of the family domain
("my weekend plans", "Friday afternoon"), a mixed-case word ("PhD"), in no person at all
("warm boots for the school run?") or of "the user" as a tool-calling model writes it. A
prompt naming one of their people, speaking of someone else ("her", "we") or needing them by
what it means ("what's a good anniversary gift idea?") is not about the user alone."""

from __future__ import annotations

import pytest

from memories.models import Memory
from recall.domains import about_self
from recall.services import memory_recall_for_end_user

pytestmark = pytest.mark.django_db

STUDENT = (
    "User is doing a PhD in medieval history at Durham",
    "User was born on 9 October 1998",
    "User has Raynaud's and gets very cold hands and feet",
    "User works part-time as a barista",
    "User's brother Tariq just finished his PhD in chemistry",
    "User's flatmate Jo has her birthday party on Saturday",
    "User's girlfriend Lina works nights as a midwife",
    "User is running a half marathon on Sunday",
    "User has a dentist appointment on Friday afternoon",
    "User's girlfriend Lina is visiting her parents in Leeds this weekend",
)


@pytest.fixture
def student(settings, end_user, remember):
    settings.MEMORY_EMBEDDER = "local"  # the floors are calibrated for MiniLM
    remember(end_user, *STUDENT, category=Memory.Category.PERSONAL)
    return end_user


def _recall(end_user, prompt: str):
    return memory_recall_for_end_user(end_user=end_user, prompt=prompt, limit=10, explain=True)


@pytest.mark.parametrize(
    ("prompt", "own"),
    [
        # "weekend", "afternoon" and "date" are words of the family domain: they name no one.
        ("what are my plans for the weekend", "User is running a half marathon on Sunday"),
        ("my weekend plans", "User is running a half marathon on Sunday"),
        (
            "what am I doing on Friday afternoon?",
            "User has a dentist appointment on Friday afternoon",
        ),
        ("what am i up to friday afternoon", "User has a dentist appointment on Friday afternoon"),
        ("when is my date of birth", "User was born on 9 October 1998"),
        # "PhD" is no name, however it is capitalised.
        ("what's my PhD on?", "User is doing a PhD in medieval history at Durham"),
        ("what's my PhD on", "User is doing a PhD in medieval history at Durham"),
        # Of "the user", as a tool-calling model asks.
        ("User's date of birth", "User was born on 9 October 1998"),
    ],
)
def test_a_question_about_the_user_puts_their_own_fact_first(student, prompt, own):
    recall = _recall(student, prompt)

    assert recall.explanation["about_self"] is True
    assert recall.memories[0].caption == own, [m.caption for m in recall.memories]


@pytest.mark.parametrize(
    "prompt",
    [
        "what should I get Tariq for finishing his PhD?",
        "when is Jo's birthday",
        "a birthday present for my flatmate",
        "what should I get her for her birthday",
        "how should we celebrate my girlfriend's birthday",
        "a surprise for my other half",
        # What it means needs the user's people, naming none of them.
        "what's a good anniversary gift idea?",
    ],
)
def test_a_prompt_naming_or_speaking_of_someone_else_is_not_about_the_user_alone(student, prompt):
    assert _recall(student, prompt).explanation["about_self"] is False


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("warm boots for the school run?", True),
        ("what should I cook on Sunday", True),
        ("my plans for May", True),
        ("plan my weekend", True),
        ("User's current place of employment", True),
        ("what does my iPad need", True),
        ("help Priya with her cover letter", False),
        ("gift for my youngest", False),
        ("any ideas for my parent's anniversary?", False),
        ("things to do with them this weekend", False),
    ],
)
def test_about_self_reads_who_a_prompt_is_about(prompt, expected):
    assert about_self(prompt) is expected
