"""Notes an agent writes about the user, read back in the user's own words."""

from __future__ import annotations

import pytest

from agents.speech import as_said_by_user


@pytest.mark.parametrize(
    ("note", "said"),
    [
        ("User is vegetarian", "I am vegetarian"),
        ("The user moved to Lisbon last month.", "I moved to Lisbon last month."),
        (
            "user prefers short answers without bullet points",
            "I prefer short answers without bullet points",
        ),
        ("User often cycles to work", "I often cycle to work"),
        ("User studies law at UCL", "I study law at UCL"),
        ("User watches anime every weekend", "I watch anime every weekend"),
        ("User has two cats", "I have two cats"),
        ("User doesn't drink coffee", "I don't drink coffee"),
        ("User loves their dog Rex", "I love my dog Rex"),
        ("The user's sister lives in Oslo", "My sister lives in Oslo"),
    ],
)
def test_a_note_about_the_user_is_read_as_the_user_saying_it(note, said):
    assert as_said_by_user(note) == said


@pytest.mark.parametrize(
    "text",
    [
        "I moved to Lisbon",
        "My partner is a chef",
        "Users of Vim often prefer tabs",
        "Userland apps",
    ],
)
def test_what_the_user_said_themselves_is_left_alone(text):
    assert as_said_by_user(text) == text
