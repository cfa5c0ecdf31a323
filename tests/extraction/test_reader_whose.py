"""The offline reader on whose a clause is: "his/her/their" after someone was named, a person
someone else has ("my cousin has a new girlfriend, she's ..."), what someone is against a new
person ("my uncle is a dentist, he ..."), and a past verb with its "-ing" object against what
the user is ("started learning the cello", "retired teaching assistant")."""

from __future__ import annotations

import pytest

from extraction.reader import read_statements


def _read(user_says: str) -> list[str]:
    return [c.caption for c in read_statements([{"role": "user", "content": user_says}])]


@pytest.mark.parametrize(
    ("user_says", "caption"),
    [
        ("started learning the cello cos my aunt plays it", "User started learning the cello"),
        ("stopped drinking fizzy pop after new year",
         "User stopped drinking fizzy pop after new year"),
        ("teaching assistant at a secondary school in Derby",
         "User is a teaching assistant at a secondary school in Derby"),
        ("retired teaching assistant, 63", "User is a retired teaching assistant"),
    ],
)  # fmt: skip
def test_a_past_verb_and_its_ing_object_is_what_the_user_did_a_job_name_what_they_are(
    user_says, caption
):
    captions = _read(user_says)

    assert caption in captions
    assert not any(c.startswith("User is a started") or "teaches assistant" in c for c in captions)


@pytest.mark.parametrize(
    ("user_says", "caption"),
    [
        ("our eldest, Noor, has eczema", "User's eldest Noor has eczema"),
        ("my youngest, Kit, is dyslexic", "User's youngest Kit is dyslexic"),
    ],
)
def test_a_name_between_commas_after_the_word_a_family_uses_for_a_child_is_theirs(
    user_says, caption
):
    assert _read(user_says) == [caption]


@pytest.mark.parametrize(
    ("user_says", "caption"),
    [
        ("I have a tortoise, her name is Shelley", "User's tortoise's name is Shelley"),
        ("my parents retired to Portugal, their flat is near Faro",
         "User's parents' flat is near Faro"),
        ("my nephew is 9, his favourite band is Muse", "User's nephew's favourite band is Muse"),
    ],
)  # fmt: skip
def test_his_her_their_after_someone_named_is_theirs(user_says, caption):
    assert caption in _read(user_says)


def test_a_pronoun_that_cannot_be_the_person_named_reads_nothing_of_theirs():
    # "his" is never the sister's; "their" never one person's.
    assert _read("my sister moved to Cork, his flat is tiny") == ["User's sister moved to Cork"]
    assert _read("my uncle lives in Hull, their house is cold") == ["User's uncle lives in Hull"]


def test_someone_elses_new_person_is_theirs_not_the_users():
    captions = _read("my cousin has a new girlfriend, she's a vet")

    assert "User's cousin's girlfriend is a vet" in captions
    assert not any(c.startswith("User's girlfriend") for c in captions)


def test_what_someone_is_is_not_a_new_person_a_pronoun_goes_on_about():
    # "a teacher", "a therapist": words for one's people too, here what the uncle is.
    assert _read("my uncle is a teacher, he hates the marking") == [
        "User's uncle is a teacher",
        "User's uncle hates the marking",
    ]
    assert _read("my aunt's a therapist") == ["User's aunt is a therapist"]


def test_a_second_pet_named_is_not_the_first():
    assert "User's other greyhound is called Dot" in _read(
        "we rescued another greyhound, she's called Dot"
    )
    assert "User's second rabbit is called Clover" in _read(
        "we got a second rabbit, she's called Clover"
    )


@pytest.mark.parametrize(
    "user_says",
    [
        "my brother got me into bouldering, he's obsessed with it",
        "i do the school run, hate it tbh",
    ],
)
def test_a_short_clause_whose_object_is_only_it_is_not_stored(user_says):
    # "User's brother is obsessed with it": what "it" is the caption does not say.
    assert not any(c.endswith((" it", " it tbh")) for c in _read(user_says))
