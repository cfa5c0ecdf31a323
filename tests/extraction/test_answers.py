"""A user's short answer to the assistant's question is read as the statement it makes:
"Where are you based?" "Leeds" is "User is based in Leeds". A question about the conversation
itself, or an answer that is a sentence of its own, is read as it always was."""

from __future__ import annotations

import pytest

from extraction.reader import read_statements


def _read(*turns: tuple[str, str]) -> list[str]:
    messages = [{"role": role, "content": content} for role, content in turns]
    return [c.caption for c in read_statements(messages)]


@pytest.mark.parametrize(
    ("asked", "answer", "caption"),
    [
        ("Great question! Where are you living these days?", "Tallinn",
         "User is living in Tallinn these days"),
        ("Where do you work?", "at a vet surgery", "User works at a vet surgery"),
        ("And how old is your grandson?", "he's 14", "User's grandson is 14"),
        ("How old are you?", "58", "User is 58"),
        ("What's your parrot called?", "Kiwi", "User's parrot is called Kiwi"),
        ("What's your tortoise's name?", "Shelby!", "User's tortoise is called Shelby"),
        ("Do you have any kids?", "nope", "User has no kids"),
        ("Do you have any kids?", "yes, three boys", "User has three boys"),
        ("Are you married?", "yes", "User is married"),
        ("What are your hobbies?", "bouldering and baking",
         "User's hobbies are bouldering and baking"),
    ],
)  # fmt: skip
def test_a_short_answer_states_what_the_question_asked(asked, answer, caption):
    assert _read(("assistant", asked), ("user", answer)) == [caption]


@pytest.mark.parametrize(
    ("asked", "answer"),
    [
        ("Any other questions?", "no thanks"),
        ("Does that make sense?", "yes"),
        ("Are you ready to start?", "yep"),
        ("Do you like the second layout?", "yes"),
        ("Do you have a moment?", "no"),
        ("Where would you like to go?", "Rome"),
        ("Would you like me to add that?", "yes please"),
    ],
)
def test_a_question_about_the_conversation_gets_no_fact(asked, answer):
    assert _read(("assistant", asked), ("user", answer)) == []


def test_an_answer_that_is_a_sentence_of_its_own_is_read_as_it_is():
    assert _read(("assistant", "Any dietary needs?"), ("user", "yeah im coeliac")) == [
        "User is coeliac"
    ]
    # No question before it: a name alone is no fact.
    assert _read(("assistant", "Thanks, noted."), ("user", "Tallinn")) == []


def test_odd_turns_are_read_as_they_came():
    # No content, a list for content, no role: nothing breaks, nothing is made up.
    assert _read(("assistant", ""), ("user", "")) == []
    messages = [
        {"role": "assistant", "content": ["Where are you based?"]},
        {"content": "Leeds"},
        {"role": "assistant"},
        {"role": "user", "content": "?"},
    ]
    assert [c.caption for c in read_statements(messages)] == []
