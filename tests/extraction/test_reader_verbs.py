"""The offline reader's third round on dense chat: where a clause turns on its verb (a closed
list of verbs and the regular rules of their forms, `extraction.verbs`: a run-on's clauses, a
name before a verb, whom a clause without a subject is about, `extraction.subjectless`), and
what a clause points back at ("she" after "my wifes job", "there" after a place,
`extraction.places`)."""

from __future__ import annotations

import pytest

from extraction.reader import read_statements
from extraction.verbs import finite, past_tense, third_singular


def _read(*user_says: str) -> list[str]:
    messages = [{"role": "user", "content": text} for text in user_says]
    return [candidate.caption for candidate in read_statements(messages)]


@pytest.mark.parametrize(
    ("word", "third", "past"),
    [
        ("carries", True, False),
        ("watches", True, False),
        ("takes", True, False),
        ("stopped", False, True),
        ("died", False, True),
        ("went", False, True),
        ("broke", False, True),
        # Made by no listed base: never a verb, whatever its ending.
        ("news", False, False),
        ("boss", False, False),
        ("bed", False, False),
        # Present forms the irregular table keeps are no past.
        ("is", False, False),
        ("has", False, False),
    ],
)
def test_a_verb_is_a_form_of_a_listed_base(word: str, third: bool, past: bool) -> None:
    assert third_singular(word) is third
    assert past_tense(word) is past


def test_a_base_form_is_a_verb_only_after_several_people() -> None:
    assert finite("love", plural=True)
    assert not finite("love")


@pytest.mark.parametrize(
    ("typed", "facts"),
    [
        (
            "i drive an old volvo estate my husband takes the train to york our daughter just "
            "passed her test",
            [
                "User drives an old volvo estate",
                "User's husband takes the train to York",
                "User's daughter just passed her test",
            ],
        ),
        (
            "my dad has parkinsons and lives with us now my mum died two years ago",
            [
                "User's dad has parkinsons",
                "User's dad lives with them now",
                "User's mum died two years ago",
            ],
        ),
        (
            "we have 2 kids theyre 5 and 7 my partner drives a bus",
            ["User has 2 kids", "User's kids are 5 and 7", "User's partner drives a bus"],
        ),
    ],
)
def test_a_run_on_opens_a_clause_at_a_person_and_their_verb(typed: str, facts: list[str]) -> None:
    assert _read(typed) == facts


def test_a_given_name_before_a_verb_is_the_persons_name() -> None:
    assert _read("my sister anna cooks for the whole family every sunday") == [
        "User's sister Anna cooks for the whole family every sunday"
    ]


@pytest.mark.parametrize(
    ("typed", "fact"),
    [
        ("my cat miso is diabetic, needs insulin twice a day", "User's cat miso needs insulin"),
        ("my dad is 70. still works full time at the garage", "User's dad still works full time"),
    ],
)
def test_a_third_person_verb_without_a_subject_goes_on_about_the_person(
    typed: str, fact: str
) -> None:
    captions = _read(typed)

    assert any(caption.startswith(fact) for caption in captions), captions
    assert not any(caption.startswith(("User needs", "User works")) for caption in captions)


def test_a_third_person_verb_with_nobody_before_it_says_nothing() -> None:
    assert _read("needs a new boiler tbh") == []


def test_a_past_tense_with_an_object_is_the_users() -> None:
    assert _read("broke my wrist last month 🙃 so typing is slow") == [
        "User broke their wrist last month"
    ]
    assert _read("cant really work outside the house") == [
        "User can't really work outside the house"
    ]


@pytest.mark.parametrize(
    "typed",
    [
        "my wife is a nurse. crashed the car last year",  # hers or the user's: unsure
        "painted her room last weekend",  # someone else's room
    ],
)
def test_a_past_tense_that_could_be_someone_elses_says_nothing(typed: str) -> None:
    assert not any(c.startswith(("User crashed", "User painted")) for c in _read(typed))


def test_an_ing_form_that_is_the_subject_states_only_what_it_heads() -> None:
    assert _read("honestly renting in london is a joke lol") == ["User rents in London"]
    assert _read("moving is hard") == []


def test_so_before_one_of_the_users_people_opens_their_own_clause() -> None:
    assert _read("i work nights so my husband does the school run") == [
        "User works nights",
        "User's husband does the school run",
    ]
    # The user's own consequence stays with the clause it follows.
    assert _read("im a chef so i never cook at home") == ["User is a chef"]


def test_a_pet_named_before_a_time_is_whom_she_means() -> None:
    assert _read("we got a kitten last week, shes called mabel") == [
        "User got a kitten last week",
        "User's kitten is called mabel",
    ]


def test_the_user_inside_their_own_clause_agrees_with_they() -> None:
    assert _read("i have had my tortoise since i was a kid") == [
        "User has had their tortoise since they were a kid"
    ]


def test_a_caption_ending_on_her_says_nothing_a_reader_can_follow() -> None:
    captions = _read("we got a kitten last week shes called mabel our older cat hates her")

    assert "User's kitten is called mabel" in captions
    assert not any(caption.endswith(" her") for caption in captions)


@pytest.mark.parametrize(
    ("typed", "facts"),
    [
        (
            "my grandad is 91 he still drives and plays bowls every week my nan died last year",
            [
                "User's grandad is 91",
                "User's grandad still drives",
                "User's grandad plays bowls every week",
                "User's nan died last year",
            ],
        ),
        (
            "i work in a call centre its mostly night shifts my wife works at the same place",
            ["User works in a call centre", "User's wife works at the same place"],
        ),
        (
            "we have three daughters the eldest lives in berlin",
            ["User has three daughters"],
        ),
    ],
)
def test_a_run_on_ends_its_clause_before_a_new_subject(typed: str, facts: list[str]) -> None:
    assert _read(typed) == facts


def test_its_before_a_noun_stays_a_possessive() -> None:
    assert _read("our dog wags its tail all day") == ["User's dog wags its tail all day"]


@pytest.mark.parametrize(
    ("typed", "fact"),
    [
        ("were moving to bristol next month, bought a 3 bed terrace", "User is moving to Bristol"),
        ("lol were vegan now", "User is vegan now"),
    ],
)
def test_were_opening_a_clause_is_we_are(typed: str, fact: str) -> None:
    assert any(caption.startswith(fact) for caption in _read(typed))


@pytest.mark.parametrize("typed", ["my parents were teachers", "were you ever in leeds?"])
def test_were_after_a_subject_or_before_you_stays_as_typed(typed: str) -> None:
    assert not any(caption.startswith("User is") for caption in _read(typed))


def test_a_relation_chat_uses_is_one_of_the_users_people() -> None:
    assert _read("my nan is 97. shes a retired midwife") == [
        "User's nan is 97",
        "User's nan is a retired midwife",
    ]


@pytest.mark.parametrize(
    ("typed", "fact"),
    [
        ("go to the gym 4 times a week 💪", "User goes to the gym 4 times a week"),
        ("visit my mum every weekend, shes 80", "User visits their mum every weekend"),
    ],
)
def test_a_base_form_with_how_often_is_the_users_habit(typed: str, fact: str) -> None:
    assert fact in _read(typed)


@pytest.mark.parametrize(
    "typed",
    [
        "remind me every day to take my pills",  # a request
        "my kids are 8 and 10. go to the same school every day",  # theirs or the user's
        "im a massive coffee person, like 5 a day",  # chat's "like"
    ],
)
def test_a_base_form_that_may_be_a_request_or_someone_elses_is_no_habit(typed: str) -> None:
    assert not any(
        caption.startswith(("User reminds", "User goes", "User likes")) for caption in _read(typed)
    )


@pytest.mark.parametrize(
    ("typed", "facts"),
    [
        (
            "i work from home and cook most nights",
            ["User works from home", "User cooks most nights"],
        ),
        (
            "we live in leeds and rent a tiny flat",
            ["User lives in Leeds", "User rents a tiny flat"],
        ),
        (
            "my kids love trains and play football",
            ["User's kids love trains", "User's kids play football"],
        ),
    ],
)
def test_a_base_form_after_and_keeps_the_subject_it_agrees_with(
    typed: str, facts: list[str]
) -> None:
    assert _read(typed) == facts


def test_a_possessive_typed_without_its_apostrophe_names_whom_she_means() -> None:
    assert "User's wife is a professor" in _read(
        "moved to edinburgh 🏴 in march for my wifes job. shes a professor 🎓"
    )


def test_a_plural_relation_stays_a_plural() -> None:
    assert _read("my sisters are twins") == ["User's sisters are twins"]


@pytest.mark.parametrize(
    ("typed", "fact"),
    [
        (
            "my sister lives in athens 🇬🇷 she teaches english there",
            "User's sister teaches english in Athens",
        ),
        (
            "now we live in a village near york, my partner grew up there tbh",
            "User's partner grew up in a village near York",
        ),
        (
            "im a bus driver, been at arriva 12 years. my daughter works there too",
            "User's daughter works at arriva",
        ),
    ],
)
def test_there_is_the_place_the_fact_before_named(typed: str, fact: str) -> None:
    assert fact in _read(typed)


@pytest.mark.parametrize(
    "typed",
    [
        "i live in leeds. there is a great market",  # "there is"
        "my sister lives in bergen, moved there for uni",  # a journey's end
        "i love my job. my boss works there too",  # no place before it
    ],
)
def test_there_without_a_place_to_stand_for_stays_unstored(typed: str) -> None:
    assert not any(" there" in caption or "market" in caption for caption in _read(typed))


def test_the_pet_the_user_said_they_have_is_theirs() -> None:
    captions = _read(
        "we have a cat, two guinea pigs and a very old goldfish 🐟 the cat is called toast 😂"
    )

    assert "User's cat is called toast" in captions
    assert _read("we have 2 kids. the kids love lego") == [
        "User has 2 kids",
        "User's kids love lego",
    ]


def test_the_pet_nobody_gave_the_user_is_nobodys() -> None:
    assert _read("the cat next door is loud") == []
    assert _read("i have a dog. the cat next door hates him") == ["User has a dog"]
