"""A caption as a careful reader would write it (`extraction.wording`): the user's words in the
third person, without the chat around the fact, names kept capitalised, no passing state."""

from __future__ import annotations

import pytest

from extraction.wording import (
    hyphen_parts,
    names_capitalised,
    names_written,
    passing,
    text_tidied,
    third_person,
    tidy_caption,
)


@pytest.mark.parametrize(
    ("caption", "tidied"),
    [
        ("User smokes tho", "User smokes"),
        ("User broke up :(", "User broke up"),
        ("User is lactose intolerant too", "User is lactose intolerant"),
        ("User wants a dog too", "User wants a dog"),
        ("User plays bass as well lol", "User plays bass"),
        ("User has 3 kids fr", "User has 3 kids"),
        ("User's dad is a plumber ngl :/", "User's dad is a plumber"),
        ("User broke up :( last month", "User broke up last month"),
        ("User loves cats:) and dogs", "User loves cats and dogs"),
        ("User broke up :((", "User broke up"),
        ("User is vegan tooo lolll", "User is vegan"),
        ("User's nan is 90 xx", "User's nan is 90"),
        ("User's mum is 90 <3", "User's mum is 90"),
        ("User doesn't drink either, haha", "User doesn't drink"),
        # Inside the caption, the same words say something and stay.
        ("User is too tired to cook", "User is too tired to cook"),
        ("User eats too much sugar", "User eats too much sugar"),
        ("User's son is 12 though", "User's son is 12"),
    ],
)  # fmt: skip
def test_chat_debris_is_dropped_from_a_captions_end(caption, tidied):
    assert tidy_caption(caption) == tidied


def test_a_full_text_loses_the_debris_of_each_sentence():
    assert text_tidied("User smokes tho. They want to quit lol!") == (
        "User smokes. They want to quit!"
    )
    assert text_tidied("User lives in Berlin, Germany") == "User lives in Berlin, Germany"
    assert text_tidied("User is vegan too.\nSince 2019.") == "User is vegan.\nSince 2019."


@pytest.mark.parametrize(
    ("text", "third"),
    [
        ("I are vegetarian", "User is vegetarian"),
        ("we do yoga on fridays", "User does yoga on fridays"),
        ("we go to church", "User goes to church"),
        ("I be working weekends", "User is working weekends"),
        ("i breed labradors", "User breeds labradors"),
        ("I feed the ducks", "User feeds the ducks"),
        ("I tattoo people", "User tattoos people"),
        ("I veto every plan", "User vetoes every plan"),
        ("i quiz my kids", "User quizzes my kids".replace("my", "their")),
        ("I wash cars", "User washes cars"),
        ("I study law", "User studies law"),
        ("I play chess", "User plays chess"),
        ("I swam for my county", "User swam for their county"),
        ("i flew planes in the air force", "User flew planes in the air force"),
        ("I worked in a bank", "User worked in a bank"),
        ("i didnt finish uni", "User didn't finish uni"),
        ("i occasionally smoke", "User occasionally smokes"),
        ("i pretty much live at the gym", "User pretty much lives at the gym"),
    ],
)  # fmt: skip
def test_the_verb_after_i_agrees_by_a_closed_table_and_the_regular_rules(text, third):
    assert third_person(text) == third


@pytest.mark.parametrize(
    ("caption", "agreed"),
    [
        ("User are vegetarian", "User is vegetarian"),
        ("User have two cats", "User has two cats"),
        ("User do pilates", "User does pilates"),
        ("User really go hiking a lot", "User really goes hiking a lot"),
        ("User's brother have a band", "User's brother has a band"),
        ("User's best friend sam are a chef", "User's best friend Sam is a chef"),
        ("User's kids are 4 and 7", "User's kids are 4 and 7"),
        ("User's mum and dad are retired", "User's mum and dad are retired"),
        # A verb that agrees already is left alone: no rule guesses from an ending.
        ("User likes jazz", "User likes jazz"),
        ("User misses Leeds", "User misses Leeds"),
        # A caption that ends at the person: nothing to agree, and no crash.
        ("User's mum", "User's mum"),
        ("User's dad", "User's dad"),
    ],
)  # fmt: skip
def test_a_models_caption_gets_the_verb_that_agrees_with_user(caption, agreed):
    assert tidy_caption(caption) == agreed


@pytest.mark.parametrize(
    ("caption", "named"),
    [
        ("User's sister anna is a nurse in turin", "User's sister Anna is a nurse in Turin"),
        ("User's wife giulia is from milan", "User's wife Giulia is from Milan"),
        ("User's kids tom and sofia love lego", "User's kids Tom and Sofia love lego"),
        ("User's dog is called luna", "User's dog is called Luna"),
        ("User's name is marco", "User's name is Marco"),
        ("User is marco", "User is Marco"),
        ("User moved to new york in 2020", "User moved to New York in 2020"),
        ("User visited lisbon's old town", "User visited Lisbon's old town"),
        # Words that are names elsewhere, where the caption names nobody.
        ("User's sister will visit in may", "User's sister will visit in may"),
        ("User works in sales", "User works in sales"),
        ("User reads in bath", "User reads in bath"),
        ("User is allergic to turkey", "User is allergic to turkey"),
        ("User met anna at work", "User met anna at work"),
    ],
)  # fmt: skip
def test_a_person_or_place_keeps_its_capital_where_the_data_says_so(caption, named):
    assert names_capitalised(caption) == named


def test_the_users_own_capitals_are_kept():
    said = ["Met my partner Jo in Cardiff. Anyway i'm a Barista now", "I'm 34"]
    title_case = "I Am A Nurse And I Love Dogs"
    written = names_written([*said, "I work at Apple", "an apple a day, BEST DAY EVER", title_case])

    assert written == {"jo": "Jo", "cardiff": "Cardiff", "barista": "Barista"}
    assert names_capitalised("User's partner jo lives in cardiff", written) == (
        "User's partner Jo lives in Cardiff"
    )


@pytest.mark.parametrize(
    ("caption", "passes"),
    [
        ("User's knee has been sore since tuesday", True),
        ("User has had a migraine since yesterday", True),
        ("User's back has been stiff all week", True),
        ("User is sick", True),
        ("User has had asthma since 2019", False),
        ("User is on their feet all day", False),
        ("User moved to Leeds this week", False),
        ("User is a nurse", False),
    ],
)
def test_a_passing_state_is_told_by_its_time(caption, passes):
    assert passing(caption) is passes


def test_the_parts_of_a_hyphenated_word_the_user_never_wrote_alone_are_known():
    said = ["i'm a full-time carer", "x-ray was fine, all the time"]

    assert hyphen_parts(said) == {"full", "x", "ray"}
