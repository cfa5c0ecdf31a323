"""The offline reader on chat asides: an adverb or filler between "and" and the next subject
("i'm a welder and honestly i love it"), chat shorthands ("rn", "atm", "tmrw"), and names
typed after a counted group no lexicon lists ("we've got three ferrets, Bo, Kit and Fig")."""

from __future__ import annotations

import pytest

from extraction.reader import read_statements


def _read(user_says: str) -> list[str]:
    return [c.caption for c in read_statements([{"role": "user", "content": user_says}])]


@pytest.mark.parametrize(
    ("user_says", "caption"),
    [
        ("im a welder and honestly im knackered", "User is a welder"),
        ("i do pottery on sundays and tbh my wife thinks its a waste of money",
         "User does pottery on sundays"),
        ("I'm a sous chef and actually my brother runs a bakery", "User's brother runs a bakery"),
    ],
)  # fmt: skip
def test_a_statement_before_and_an_aside_and_a_new_subject_is_kept(user_says, caption):
    assert caption in _read(user_says)


def test_a_chat_shorthand_is_read_as_the_words_it_stands_for():
    # "at the moment", "tomorrow": never a name or a word of a caption.
    assert not any("atm" in c for c in _read("im staying with my parents atm"))
    assert not any("tmrw" in c for c in _read("my sister Aoife flies in tmrw, she's a vet"))
    # Typed in capitals it is a word of its own: a registered nurse.
    assert _read("I'm an RN on a cardiac ward") == ["User is an RN on a cardiac ward"]
    # After a determiner it is the thing: a cash machine.
    assert "User's atm" not in " ".join(_read("the atm near my flat ate my card"))


@pytest.mark.parametrize(
    ("user_says", "caption"),
    [
        ("we've got three ferrets, Bo, Kit and Fig", "User's ferrets are called Bo, Kit and Fig"),
        ("I've got two sisters, Maeve and Orla", "User's sisters are called Maeve and Orla"),
        ("we keep two alpacas, Dolly and Juno", "User's alpacas are called Dolly and Juno"),
    ],
)
def test_names_typed_after_a_counted_group_name_the_group(user_says, caption):
    captions = _read(user_says)
    assert caption in captions
    assert not any(c.startswith("User has ") and c.split()[-1] in caption for c in captions[1:])


def test_a_counted_group_listed_in_lower_case_is_not_named():
    # Lower case after a group no lexicon lists: things, not names ("two jobs, barista and
    # tutor" are no job's names).
    assert not any("called" in c for c in _read("I have two jobs, barista and tutor"))


def test_a_plural_noun_after_the_is_no_new_clause_of_a_run_on():
    # "books" could be a verb ("she books the hall"), but nothing follows it: a plural noun.
    assert _read("i've read all the Wheel of Time books") == [
        "User has read all the Wheel of Time books"
    ]


def test_a_change_after_so_ive_is_an_event_of_its_own():
    captions = _read("my back went last year so I've given up squash")
    assert "User has given up squash" in captions
    # "so I quit" names nothing the user quit: no caption of it.
    assert not any(c.startswith("User quit") for c in _read("the fees went up so i quit"))


def test_names_between_commas_after_one_of_the_users_people_stay_with_their_sentence():
    assert _read("My nephew, Tariq, is a dentist in Hull") == [
        "User's nephew Tariq is a dentist in Hull"
    ]
    assert _read("my doctor, Dr Okafor, is brilliant") == ["User's doctor Dr Okafor is brilliant"]


def test_a_relative_clause_between_commas_is_of_the_person_it_follows():
    assert _read("My stepdad, who teaches judo, is a retired firefighter.") == [
        "User's stepdad is a retired firefighter",
        "User's stepdad teaches judo",
    ]


def test_what_the_user_has_after_an_as_a_opening_is_a_fact_of_its_own():
    assert _read("as a pescatarian with a shellfish allergy, what should i order?") == [
        "User is a pescatarian",
        "User has a shellfish allergy",
    ]


def test_the_s_before_a_described_relation_is_whose_not_is():
    assert _read("my son's best mate Ollie has coeliac disease") == [
        "User's son's best mate Ollie has coeliac disease"
    ]
    assert _read("my wife's older brother is a pilot") == ["User's wife's older brother is a pilot"]


def test_an_ing_form_that_is_the_subject_of_any_verb_is_no_statement_of_the_users():
    # Not "User rents costs them ...": the "-ing" form is the subject of "costs".
    assert _read("renting costs me 900 a month") == []
    assert _read("living near the coast costs a lot") == ["User lives near the coast"]


def test_a_profile_typed_as_a_list_keeps_every_item():
    assert _read("About me: retired postman, 71, widow.") == [
        "User is a retired postman",
        "User is 71",
        "User is a widow",
    ]
    assert "User is 34" in _read("quick bit of context: 34F, physio, live in Galway")


def test_a_bare_number_after_someone_named_is_not_the_users_age():
    assert _read("we have a tortoise, 40") == ["User has a tortoise"]
    assert _read("my uncle is a roofer, 58") == ["User's uncle is a roofer"]


def test_a_name_and_its_verb_is_no_description_of_the_user():
    assert not any(c.startswith("User is a") for c in _read("Marek retired at easter"))


def test_a_bar_or_a_bullet_ends_a_clause_and_a_clause_start_is_no_name():
    assert _read("vegan | 2 kids \u2022 night owl") == [
        "User is vegan",
        "User has 2 kids",
        "User is a night owl",
    ]
    assert "User is currently in Tbilisi" in _read("Currently in Tbilisi, teaching English")


def test_an_adverb_and_a_past_tense_after_a_comma_is_a_clause_not_a_list_item():
    captions = _read("I'm 31, just moved to Derby and starting a new job")
    assert any(c.startswith("User just moved to Derby") for c in captions)
    assert not any(c.startswith("User is just") for c in captions)


def test_a_description_that_runs_into_where_the_user_is_says_two_facts():
    assert _read("I'm a retired pharmacist based in Truro") == [
        "User is a retired pharmacist",
        "User is based in Truro",
    ]
    # "from" alone is no opening of a place: the music is from the 80s, not the user.
    assert _read("I'm a huge fan of synth music from the 80s") == [
        "User is a huge fan of synth music from the 80s"
    ]


def test_a_past_tense_with_no_subject_before_a_place_or_a_particle_is_the_users():
    assert _read("dropped to two days a week at the garden centre") == [
        "User dropped to two days a week at the garden centre"
    ]
    assert _read("ended up buying a campervan") == ["User ended up buying a campervan"]
    assert _read("it happened to me twice") == []


def test_an_apposition_after_someone_elses_clause_is_of_their_own():
    assert _read("my cousin adopted a kitten, a tabby called Moss") == [
        "User's cousin adopted a kitten",
        "User's cousin's kitten is a tabby called Moss",
    ]


def test_a_mood_said_beside_news_is_no_fact():
    assert not any("gutted" in c or "buzzing" in c for c in _read(
        "we lost the final on penalties, I'm gutted. my brother is buzzing though"
    ))  # fmt: skip


def test_ages_and_who_clauses_between_commas_are_of_the_people_they_follow():
    assert _read("I have three daughters, aged 6, 9 and 14, and a tortoise called Gus.") == [
        "User has three daughters",
        "User has a tortoise called Gus",
        "User's daughters are aged 6 and 9 and 14",
    ]
    assert _read("I look after my grandad, who has dementia.") == [
        "User looks after their grandad",
        "User's grandad has dementia",
    ]


def test_a_disclosure_opener_is_no_part_of_the_fact():
    assert _read("I should mention that I'm hard of hearing") == ["User is hard of hearing"]


def test_a_taste_said_as_a_fragment_is_the_users():
    assert _read("massive fan of cricket, not really into rugby") == [
        "User is a massive fan of cricket",
        "User is not really into rugby",
    ]
