"""The offline reader on words chat leaves out or puts first: "no longer" before the verb,
"my" left out before a verb of one person ("nan passed away"), a quantifier before the group
("both my kids"), and a passive with no "I" ("was made redundant")."""

from __future__ import annotations

import pytest

from extraction.reader import read_statements


def _read(user_says: str) -> list[str]:
    return [c.caption for c in read_statements([{"role": "user", "content": user_says}])]


def test_no_longer_before_the_verb_keeps_the_verb_agreeing_and_the_fact():
    assert _read("I no longer play the bagpipes, but I still teach the chanter.") == [
        "User no longer plays the bagpipes",
        "User still teaches the chanter",
    ]
    assert _read("i no longer rent, we bought a place in Hove") == [
        "User no longer rents",
        "User bought a place in Hove",
    ]


@pytest.mark.parametrize(
    ("user_says", "caption"),
    [
        ("grandad passed away in the spring so its been hard",
         "User's grandad passed away in the spring"),
        ("hubby drives a forklift for a living", "User's hubby drives a forklift for a living"),
    ],
)  # fmt: skip
def test_one_of_the_users_people_with_the_my_left_out_before_a_verb_is_theirs(user_says, caption):
    assert caption in _read(user_says)


@pytest.mark.parametrize(
    "user_says", ["dad jokes are the worst", "nan says i should wear a coat", "mum said no"]
)
def test_a_noun_before_a_verb_or_what_someone_said_is_no_fact_of_theirs(user_says):
    assert _read(user_says) == []


def test_a_quantifier_before_the_users_group_leaves_the_group_the_subject():
    assert _read("both my sons have eczema") == ["User's sons have eczema"]
    assert _read("all three of our cats are deaf") == ["User's cats are deaf"]
    # Its people named after it are each their own.
    assert _read("both my grandparents are farmers, nan's a nurse too") == [
        "User's grandparents are farmers",
        "User's nan is a nurse",
    ]


@pytest.mark.parametrize(
    ("user_says", "caption"),
    [
        ("was made redundant in the summer, looking for work now",
         "User was made redundant in the summer"),
        ("was diagnosed with psoriasis at 19", "User was diagnosed with psoriasis at 19"),
    ],
)  # fmt: skip
def test_a_passive_with_no_subject_and_nobody_before_it_is_the_users(user_says, caption):
    assert caption in _read(user_says)


def test_a_passive_after_a_clause_about_someone_else_is_not_the_users():
    assert not any(c.startswith("User was") for c in _read("my uncle is 80, was born in Malta"))


@pytest.mark.parametrize(
    ("user_says", "caption"),
    [
        ("5 months vape free today!!", "User has been vape free for 5 months"),
        ("two years gambling-free", "User has been gambling-free for two years"),
    ],
)
def test_how_long_the_user_has_been_free_of_something_is_kept(user_says, caption):
    assert _read(user_says) == [caption]


def test_how_long_alone_is_no_fact():
    assert _read("3 weeks now") == []
    assert _read("6 months free") == []


def test_a_past_with_no_subject_before_a_determined_place_is_the_users():
    assert _read("swapped in the old van for an e-bike last month") == [
        "User swapped in the old van for an e-bike last month"
    ]


def test_a_name_in_lower_case_before_one_of_the_users_pets_in_brackets_is_its_name():
    assert _read("pickle (my terrier) hates the rain") == ["User's terrier pickle hates the rain"]
    # Not someone's thing: nothing of the user's is named.
    assert _read("the stew (my nan's recipe) is amazing") == []


def test_a_relative_clause_after_the_one_is_not_a_clause_of_the_users():
    # "User takes to the beach": the object was the relative clause's gap.
    assert not any(
        "takes to" in c for c in _read("its the sony one i take to the allotment for photos")
    )


def test_more_like_a_number_is_about_it():
    assert _read("my handicap is more like 18 tbh") == ["User's handicap is about 18"]


def test_a_message_of_thousands_of_clauses_is_read_up_to_the_cap():
    message = "I'm a welder. " + "x, " * 6000 + "I'm also a poet."

    captions = [c.caption for c in read_statements([{"role": "user", "content": message}])]

    assert "User is a welder" in captions
    assert "User is also a poet" not in captions  # past the cap, left unread


@pytest.mark.parametrize(
    ("user_says", "caption"),
    [
        ("i work in IT support at a uni", "User works in IT support at a uni"),
        ("my brother works in customer support", "User's brother works in customer support"),
        ("our youngest has special needs", "User's youngest has special needs"),
    ],
)
def test_a_word_that_also_ends_a_noun_is_no_verb_waiting_for_its_value(user_says, caption):
    assert caption in _read(user_says)


def test_an_adverb_before_a_fragment_stays_with_it():
    assert _read("Currently based in Valletta") == ["User is currently based in Valletta"]
    assert _read("recently widowed") == ["User is recently widowed"]


def test_a_count_after_what_someone_is_is_not_what_they_are():
    captions = _read("we're a household of five, three adults and two teens")

    assert "User is a household of five" in captions
    assert not any(c.startswith("User is three") or c.startswith("User is two") for c in captions)


def test_being_what_the_user_is_before_their_clause_is_a_statement_of_its_own():
    assert _read("being coeliac, i avoid most bakeries") == [
        "User is coeliac",
        "User avoids most bakeries",
    ]
    # A manner of saying it is not what they are.
    assert _read("being honest, i find golf boring") == ["User finds golf boring"]
