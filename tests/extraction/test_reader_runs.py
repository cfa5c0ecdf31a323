"""The offline reader on the styles of chat a dense message comes in: a run-on without
punctuation, emoji between facts, states joined by "and", names listed after a count, and what
someone else said."""

from __future__ import annotations

import pytest

from extraction.reader import read_statements


def _read(*user_says: str) -> list[str]:
    messages = [{"role": "user", "content": text} for text in user_says]
    return [candidate.caption for candidate in read_statements(messages)]


_FIRST_PERSON = {"i", "im", "i'm", "me", "my", "we", "our", "us", "ive", "i've"}


def _no_first_person(captions: list[str]) -> None:
    for caption in captions:
        words = {w.strip(".,!").lower() for w in caption.split()}
        assert not words & _FIRST_PERSON, caption


@pytest.mark.parametrize(
    ("typed", "facts"),
    [
        (
            "im 29 i work in sales my husband is a teacher we have a cat",
            ["User is 29", "User works in sales", "User's husband is a teacher", "User has a cat"],
        ),
        (
            "ok so im a nurse my son is 7 he loves lego",
            ["User is a nurse", "User's son is 7", "User's son loves lego"],
        ),
        (
            "hi i live in leeds with my wife my wife is a vet she works weekends",
            [
                "User lives in Leeds with their wife",
                "User's wife is a vet",
                "User's wife works weekends",
            ],
        ),
    ],
)
def test_a_run_on_without_punctuation_is_read_as_its_clauses(typed, facts):
    captions = _read(typed)
    for fact in facts:
        assert fact in captions
    _no_first_person(captions)


@pytest.mark.parametrize(
    "typed",
    [
        "i think my sister is pregnant",  # a thought, not her fact
        "i hope my son gets the job",
        "a photo of my dog is on my desk",
    ],
)
def test_a_subject_a_clause_holds_open_is_not_a_new_statement(typed):
    captions = _read(typed)
    assert not any(
        c.startswith("User's sister is") or c.startswith("User's son gets") for c in captions
    )
    _no_first_person(captions)


def test_emoji_between_facts_end_each_clause():
    captions = _read("im 29 🙂 work in sales 💼 my husband is a teacher 🍎 we have a cat 🐱")
    assert captions == [
        "User is 29",
        "User works in sales",
        "User's husband is a teacher",
        "User has a cat",
    ]


@pytest.mark.parametrize(
    ("typed", "facts"),
    [
        (
            "my grandad is 94 and still drives lol",
            ["User's grandad is 94", "User's grandad still drives"],
        ),
        (
            "my uncle has gout and uses a cane",
            ["User's uncle has gout", "User's uncle uses a cane"],
        ),
        (
            "my aunt is 81 and wont move closer",
            ["User's aunt is 81", "User's aunt won't move closer"],
        ),
        (
            "my cousin is a pilot and lives in oslo",
            ["User's cousin is a pilot", "User's cousin lives in Oslo"],
        ),
        (
            "my nephew moved in with us. hes 19 and between jobs",
            ["User's nephew is 19", "User's nephew is between jobs"],
        ),
    ],
)
def test_a_state_or_verb_after_and_keeps_the_subject_before_it(typed, facts):
    captions = _read(typed)
    for fact in facts:
        assert fact in captions


def test_two_numbers_joined_by_and_stay_one_value():
    assert _read("my twins are 8 and my kids are 8 and 11")[-1] == "User's kids are 8 and 11"


@pytest.mark.parametrize(
    ("typed", "fact"),
    [
        ("our cat died last year", "User's cat died last year"),
        ("sadly my grandad died in march", "User's grandad died in march"),
        ("my brother fled the city", "User's brother fled the city"),
    ],
)
def test_a_short_past_tense_is_a_verb(typed, fact):
    assert fact in _read(typed)


def test_names_listed_after_a_count_name_the_group_and_each_one_later():
    captions = _read("we got two puppies, Max and Ruby. Ruby is a beagle and max is shy")
    assert "User's puppies are called Max and Ruby" in captions
    assert "User's puppy Ruby is a beagle" in captions
    assert "User's puppy max is shy" in captions or "User's puppy Max is shy" in captions


def test_they_after_a_count_is_the_group():
    captions = _read("divorced, 2 kids, they live with me on weekdays")
    assert "User's kids live with them on weekdays" in captions
    _no_first_person(captions)


def test_a_name_alone_is_no_list_without_a_count_before_it():
    assert _read("i walked to the shops. Pip and Squeak.") == ["User walked to the shops"]


def test_what_someone_said_about_a_pet_or_person_is_theirs_never_the_users():
    captions = _read("ugh the vet said our dog biscuit has a heart murmur :( hes only 4")
    assert "User's dog biscuit has a heart murmur" in captions
    assert "User's dog biscuit is 4" in captions or "User's dog biscuit is only 4" in captions
    assert _read("the doctor told us that our son has asthma") == ["User's son has asthma"]


@pytest.mark.parametrize(
    "typed", ["my sister says im lazy", "the nurse said i was lucky", "my boss said i'm slow"]
)
def test_what_someone_said_about_the_user_is_not_stored(typed):
    assert _read(typed) == []


@pytest.mark.parametrize(
    ("typed", "facts"),
    [
        ("greetings from leeds! im priyanka, 29", ["User is called priyanka", "User is 29"]),
        ("hello from porto 👋 im joao, 41, a baker", ["User is now based in Porto", "User is 41"]),
    ],
)
def test_an_introduction_after_an_opener_gives_the_name_and_age(typed, facts):
    captions = _read(typed)
    for fact in facts:
        assert fact in captions


@pytest.mark.parametrize(
    ("typed", "fact"),
    [
        ("im coeliac too, like my dad", "User's dad is coeliac"),
        ("I do not eat meat, and neither does my husband.", "User's husband does not eat meat"),
        ("i'm a night owl, same as my brother", "User's brother is a night owl"),
        ("i cant swim, neither can my sister", "User's sister can't swim"),
    ],
)
def test_a_fact_the_user_shares_with_one_of_their_people_is_theirs_too(typed, fact):
    assert fact in _read(typed)


def test_a_fact_shared_with_several_people_is_not_given_a_verb_that_disagrees():
    assert not any(c.startswith("User's parents") for c in _read("i love cats, like my parents"))


def test_a_state_the_user_and_one_of_their_people_share_is_a_fact_of_each():
    assert _read("me and my bf are both vegetarian lol") == [
        "User is vegetarian",
        "User's bf is vegetarian",
    ]
    # A plan of both stays one fact.
    assert _read("me and my bf are planning a trip to peru") == [
        "User and their bf are planning a trip to Peru"
    ]


def test_we_both_is_the_users_own_fact_without_the_both():
    assert "User works nights" in _read("we both work nights")


@pytest.mark.parametrize(
    ("typed", "facts"),
    [
        (
            "work is mad rn im a barista at a cafe my shifts are 10 hours my boss is nice tho",
            ["User is a barista at a cafe", "User's boss is nice"],
        ),
        ("i hate flying honestly i get anxious", ["User hates flying", "User gets anxious"]),
        ("i love my flat it is tiny tho", ["User loves their flat"]),
    ],
)
def test_a_run_on_breaks_after_chat_words_and_before_a_new_subject(typed, facts):
    captions = _read(typed)
    for fact in facts:
        assert fact in captions
    _no_first_person(captions)
    assert not any(" their " in c and c.startswith("User is") for c in captions)


def test_she_after_a_pet_the_user_named_is_the_pet_not_the_person_before():
    captions = _read(
        "i live with my boyfriend he works in finance and we have a cat called luna shes 3"
    )
    assert "User's cat Luna is 3" in captions
    assert not any(c.startswith("User's boyfriend is 3") for c in captions)


def test_a_closing_aside_is_dropped_and_one_with_a_number_kept():
    assert _read("i cant stand olives (dont judge me)") == ["User can't stand olives"]
    assert _read("i have twin girls (4)") == ["User has twin girls (4)"]


def test_does_most_of_is_a_verb_with_its_object_not_a_stand_in():
    captions = _read("My wife is a plumber, so she does most of the repairs herself.")
    assert "User's wife does most of the repairs herself" in captions
    assert _read("my partner does") == []


def test_a_new_subject_after_because_is_its_own_statement():
    assert "User's wife got a job in Leeds" in _read("we moved because my wife got a job in leeds")


@pytest.mark.parametrize(
    ("typed", "fact"),
    [
        ("i vape tho, trying to quit", "User is trying to quit"),
        ("learning japanese rn for fun", None),  # about now: not stored
        ("expecting our second baby in march!", "User is expecting their second baby in march"),
    ],
)
def test_an_undertaking_said_without_im_is_the_users(typed, fact):
    captions = _read(typed)
    if fact is None:
        assert not any("learning" in c for c in captions)
    else:
        assert fact in captions


def test_the_same_attribute_as_the_user_is_the_persons_fact_and_otherwise_not_stored():
    captions = _read("im allergic to penicillin. my daughter has the same allergy")
    assert "User's daughter is allergic to penicillin" in captions
    assert _read("im a nurse. my sister has the same allergy") == ["User is a nurse"]


def test_a_condition_in_a_list_is_had_unless_it_is_said_as_a_state():
    captions = _read("me: 51, hypertension, epileptic, arthritis")
    assert "User has hypertension" in captions
    assert "User is epileptic" in captions
    assert "User has arthritis" in captions
    assert not any(c in captions for c in ("User is hypertension", "User is arthritis"))


def test_a_pronoun_of_the_other_gender_is_never_the_person_named_before():
    captions = _read("i have a son hes 12 and a daughter shes 9")
    assert "User's son is 12" in captions
    assert "User's son is 9" not in captions
    assert not any("daughter" in c and c.startswith("User's son") for c in captions)


def test_a_run_on_never_joins_a_list_of_the_users_people_into_one_caption():
    captions = _read("we have 3 kids the oldest is 10 the youngest is 2")
    assert captions == ["User has 3 kids"]


def test_a_run_on_is_not_split_after_a_preposition_or_across_a_sentence():
    captions = _read(
        "My brother is a roofer, so he does most of the repairs himself. Could you help?"
    )
    assert "User's brother does most of the repairs himself" in captions


def test_a_persons_echo_of_the_users_fact_after_an_emoji_is_theirs_too():
    assert "User's son is allergic to nuts" in _read("im allergic to nuts 🥜 my son is too 😬")


def test_a_run_on_breaks_after_now_and_opens_with_me_and():
    captions = _read("im a chef now my shifts are 12 hours")
    assert "User is a chef now" in captions
    captions = _read("me and my sister are both nurses she works in leeds i work in york")
    assert "User's sister works in Leeds" in captions
    assert "User works in York" in captions
    _no_first_person(captions)


def test_they_after_one_person_is_never_that_person():
    captions = _read("my wife is a dentist 🦷 we have twins 👶👶 theyre 2")
    assert "User's twins are 2" in captions
    assert not any(c.startswith("User's wife is 2") for c in captions)
    assert _read("my boss is strict, they are never late") == ["User's boss is strict"]


def test_a_run_on_ends_after_a_time_word_and_before_they_are_in():
    captions = _read(
        "my grandparents are retired theyre in italy most of the year"
        " my grandad plays golf every day"
    )
    assert "User's grandparents are in Italy most of the year" in captions
    assert "User's grandad plays golf every day" in captions
    _no_first_person(captions)


def test_a_verb_chat_leaves_the_i_out_of_followed_by_is_is_a_noun_subject():
    captions = _read("ngl work has been a lot lately lol. im a nurse at a care home")
    assert captions == ["User is a nurse at a care home"]
