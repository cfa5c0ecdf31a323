"""The offline reader on chat as people type it: contractions without apostrophes, several
facts in one message, introductions, the people in the user's life and requests at the end."""

from __future__ import annotations

import pytest

from extraction.chat_forms import apostrophes_restored
from extraction.reader import read_statements


def _read(*user_says: str) -> list[str]:
    messages = [{"role": "user", "content": text} for text in user_says]
    return [candidate.caption for candidate in read_statements(messages)]


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("shes vegan", "she's vegan"),
        ("im 34 and ive got a dog", "i'm 34 and i've got a dog"),
        ("Hes a chef, theyre twins", "He's a chef, they're twins"),
        ("i dont drive and i cant swim", "i don't drive and i can't swim"),
        ("ill be 40 in may", "i'll be 40 in may"),
        ("id rather not", "i'd rather not"),
        # Words of their own stay as typed.
        ("i was ill for a week", "i was ill for a week"),
        ("my photo id expired", "my photo id expired"),
        ("as is his wont", "as is his wont"),
        ("its fur is grey and we were in rome, well", "its fur is grey and we were in rome, well"),
    ],
)  # fmt: skip
def test_a_contraction_typed_without_its_apostrophe_is_read_as_the_words_it_is(typed, meant):
    assert apostrophes_restored(typed) == meant


def test_a_pronoun_without_its_apostrophe_is_the_person_last_named_not_the_user():
    captions = _read("me and my gf priya are planning a trip to japan in october. shes vegan")
    assert "User's gf Priya is vegan" in captions
    assert not any("shes" in caption or caption.startswith("User is") for caption in captions)


@pytest.mark.parametrize(
    "user_says",
    ["shes vegan btw so no cheese on hers", "he's a night owl", "theyre teetotal", "hes diabetic"],
)
def test_a_pronoun_with_no_one_named_before_it_is_never_the_user(user_says):
    assert not [caption for caption in _read(user_says) if caption.startswith("User ")]


@pytest.mark.parametrize(
    ("user_says", "caption"),
    [
        ("me and my gf priya are planning a trip to japan in october",
         "User and their gf Priya are planning a trip to Japan in october"),
        ("Tom and I got engaged last spring", "User and Tom got engaged last spring"),
        ("my husband and i run a bakery in york", "User and their husband run a bakery in York"),
        ("my girlfriend Zoe and I live together in Leeds",
         "User and their girlfriend Zoe live together in Leeds"),
    ],
)  # fmt: skip
def test_a_subject_of_the_user_and_someone_else_is_a_fact_of_both(user_says, caption):
    assert _read(user_says) == [caption]


def test_a_name_after_a_comma_is_no_joint_subject():
    assert _read("I live in Austin, Texas and I work at Dell.") == [
        "User lives in Austin",
        "User works at Dell",
    ]


def test_a_dense_introduction_is_read_as_a_list_of_facts():
    captions = _read("ciao! im marco, 34, living in milan with my wife giulia and our 2 kids")
    assert captions == [
        "User is called marco",
        "User is 34",
        "User's wife is called giulia",
        "User has 2 kids",
        "User lives in Milan",
    ]


@pytest.mark.parametrize(
    ("user_says", "caption"),
    [
        ("22, uni student in manchester", "User is 22"),
        ("hey im sam, 41, i work nights", "User is 41"),
        ("hiya! 58, just retired", "User is 58"),
    ],
)
def test_a_bare_number_that_opens_an_introduction_is_the_age(user_says, caption):
    assert caption in _read(user_says)


@pytest.mark.parametrize(
    "user_says",
    [
        "i need 3, maybe 4 of them",
        "i live at number 42, near the park",
        "im sam, 7 of us are coming",
        "5, 6, 7 or 8?",
        "hey, 250 is too much",
    ],
)
def test_a_stray_number_is_no_age(user_says):
    assert not any(
        caption.startswith("User is") and caption[8:].isdigit() for caption in _read(user_says)
    )


def test_a_request_at_the_end_does_not_hide_the_statements_before_it():
    captions = _read(
        "on the bright side i got a dog, a rescue greyhound called pepper. "
        "can you suggest some walks near clifton?"
    )
    assert captions == ["User got a dog", "User's dog is a rescue greyhound called pepper"]


def test_a_new_job_after_the_old_one_is_read():
    assert _read("i left the fintech", "now im a product manager at a startup") == [
        "User left the fintech",
        "User is now a product manager at a startup",
    ]


def test_a_verb_after_and_keeps_the_person_it_is_about():
    assert _read("my dad was a firefighter, hes retired now and lives in cork") == [
        "User's dad was a firefighter",
        "User's dad is retired now",
        "User's dad lives in cork",
    ]


@pytest.mark.parametrize(
    "user_says",
    [
        "ciao! im marco, 34, living in milan with my wife giulia and our 2 kids",
        "theyre called biscuit and mochi, my two cats",
        "havent for years. my partner does",
    ],
)
def test_no_caption_is_a_mention_or_an_auxiliary_without_its_verb(user_says):
    for caption in _read(user_says):
        assert caption not in {"User's 2 kids", "User's two cats", "User hasn't for years"}
        assert not caption.endswith(" does")


@pytest.mark.parametrize(
    ("user_says", "captions"),
    [
        ("hey, tom here. 41, accountant",
         ["User is called tom", "User is 41", "User is an accountant"]),
        ("quick intro: ana, 52", ["User is called ana", "User is 52"]),
        ("me: 38, only child", ["User is 38"]),
        ("I'm Sam, what's up", ["User is called Sam"]),
    ],
)  # fmt: skip
def test_a_name_is_read_where_an_introduction_marks_it(user_says, captions):
    assert _read(user_says) == captions


@pytest.mark.parametrize("user_says", ["Hi, I'm Tired", "hi im new here", "im vegan, 34"])
def test_a_state_is_never_read_as_a_name(user_says):
    assert not any(caption.startswith("User is called") for caption in _read(user_says))


def test_they_after_several_people_keeps_are():
    assert _read("my parents live in leeds. theyre retiring to spain next year") == [
        "User's parents live in Leeds",
        "User's parents are retiring to Spain next year",
    ]


def test_two_states_after_one_is_are_two_facts():
    assert _read("I am 67 and recently widowed.") == ["User is 67", "User is recently widowed"]


def test_a_clause_that_leaves_its_subject_out_after_a_comma_goes_on_about_the_same_person():
    captions = _read("my sister lives in bergen, moved there for uni and never left")
    assert "User's sister never left" in captions
    assert not any(caption.startswith(("User never", "User is never")) for caption in captions)


@pytest.mark.parametrize(
    ("user_says", "caption"),
    [
        ("hello, 45, divorced, two teenage daughters", "User has two teenage daughters"),
        ("dont eat meat, havent for years", "User doesn't eat meat"),
        (
            "ugh my brother just moved back in with us",
            "User's brother just moved back in with them",
        ),
        ("im a full-time carer for my mum, shes got ms", "User's mum has got ms"),
    ],
)
def test_a_fact_in_chat_debris_is_still_read(user_says, caption):
    assert caption in _read(user_says)


def test_no_caption_has_the_user_in_the_first_person_after_user():
    assert _read("my dad thinks i should retrain tho") == []
    assert _read("quick intro: ana, 52, retired police officer") == [
        "User is called ana",
        "User is 52",
        "User is a retired police officer",
    ]
