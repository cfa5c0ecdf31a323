"""`words_lost`: the words a resolution would drop, which the conflict page shows beside
*Keep new* and *Merge* (a pure function: no database)."""

from __future__ import annotations

import pytest

from memories.admin.losses import memory_text, words_lost

PORTO = "User lives in Porto with their husband and daughter Inês"


def test_keeping_the_new_memory_drops_the_family_the_old_one_named():
    assert words_lost("User moved to Lisbon", [PORTO]) == [
        "lives",
        "Porto",
        "husband",
        "daughter",
        "Inês",
    ]


def test_a_text_that_keeps_every_detail_drops_nothing():
    merged = "User moved from Porto to Lisbon, where they live with their husband and daughter Inês"
    assert words_lost(merged, [PORTO, "User moved to Lisbon"]) == []  # "live" is "lives"
    assert words_lost(PORTO, [PORTO]) == []


@pytest.mark.parametrize(
    ("kept", "dropped", "lost"),
    [
        ("User's daughter is named INES", "User has a daughter called Inês", ["called"]),
        ("User has two daughters", "User's daughter", []),
        ("the user is here", "The user is here.", []),
        ("User runs", "User ran 5 km", ["ran", "5", "km"]),
    ],
    ids=["case-and-accents", "plural-and-possessive", "function-words", "other-words-count"],
)
def test_words_match_without_case_accents_plurals_or_possessives(kept, dropped, lost):
    assert words_lost(kept, [dropped]) == lost


def test_a_dropped_negation_counts_because_it_reverses_the_fact():
    assert words_lost("User eats meat", ["User does not eat meat"]) == ["not"]


def test_each_word_is_listed_once_in_the_order_it_first_appears():
    lost = words_lost("User likes tea", ["User likes coffee and cake", "User likes Cake, coffee"])
    assert lost == ["coffee", "cake"]


def test_a_memory_text_is_its_caption_and_its_text_each_once():
    assert memory_text("User is 30", "User is 30") == "User is 30"
    assert memory_text("User is 30", "User turned 30 in May") == "User is 30\nUser turned 30 in May"
