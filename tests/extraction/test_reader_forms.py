"""The offline reader on facts typed as a form or a list after a thing of the user's: "Job:
nurse. Location: Leeds", "my hobbies are climbing, chess and baking", "a bit about me: I'm
Priya, 41". Every item is kept, and no label is read as the value ("User is a Job: nurse")."""

from __future__ import annotations

import pytest

from extraction.reader import read_statements


def _read(user_says: str) -> list[str]:
    return [c.caption for c in read_statements([{"role": "user", "content": user_says}])]


@pytest.mark.parametrize(
    ("user_says", "captions"),
    [
        ("Occupation: paramedic. City: Dundee. Kids: 3",
         ["User's occupation is paramedic", "User's city is Dundee", "User has 3 kids"]),
        ("my favourite podcast: no such thing as a fish",
         ["User's favourite podcast is no such thing as a fish"]),
        ("allergies: gluten and soy", ["User's allergies are gluten and soy"]),
        ("favourite film: alien", ["User's favourite film is alien"]),
        ("Age: 61", ["User's age is 61"]),
    ],
)  # fmt: skip
def test_a_label_and_its_value_is_the_users_thing_of_that_name(user_says, captions):
    assert _read(user_says) == captions


@pytest.mark.parametrize(
    ("user_says", "caption"),
    [
        ("Big news: we're adopting a puppy", "User is adopting a puppy"),
        ("quick intro: ana, 52", "User is called ana"),
        ("a bit about me: I'm Priya, 41, I work in procurement", "User is 41"),
    ],
)
def test_a_heading_before_a_clause_or_an_introduction_is_no_label(user_says, caption):
    captions = _read(user_says)
    assert caption in captions
    assert not any(":" in c for c in captions)


def test_every_item_of_a_list_after_a_thing_of_the_users_is_kept():
    assert _read("my weekend hobbies are pottery, sea swimming and chess") == [
        "User's weekend hobbies are pottery",
        "User's weekend hobbies are sea swimming",
        "User's weekend hobbies are chess",
    ]


def test_a_label_of_something_pasted_is_not_the_users():
    assert _read("can you check this for me\n\nLemon drizzle: 2 lemons, 200g sugar") == []


@pytest.mark.parametrize(
    ("user_says", "captions"),
    [
        ("my brother, a plumber in Hull, is coming to stay. cant wait",
         ["User's brother is coming to stay", "User's brother is a plumber in Hull"]),
        ("my van, a 2011 transit, failed its MOT",
         ["User's van failed its MOT", "User's van is a 2011 transit"]),
        ("I walk my dog, a deaf old collie called Moss, by the canal",
         ["User walks their dog by the canal", "User's dog is a deaf old collie called Moss"]),
    ],
)  # fmt: skip
def test_a_description_between_commas_is_of_the_one_it_follows_never_the_user(user_says, captions):
    assert _read(user_says) == captions


@pytest.mark.parametrize(
    ("user_says", "caption"),
    [
        ("we rent a flat where we keep bees on the roof",
         "User rents a flat where they keep bees on the roof"),
    ],
)  # fmt: skip
def test_we_inside_a_caption_is_the_users_household(user_says, caption):
    captions = _read(user_says)
    assert caption in captions
    assert not any(" we " in f" {c} " for c in captions)


def test_so_i_can_says_what_something_is_for_not_a_fact():
    assert "User can walk to work" not in _read("I moved to the centre so I can walk to work")


def test_a_clause_about_it_is_never_what_the_user_has():
    captions = _read("I can't eat sesame - it's a proper allergy, epipen and all")
    assert not any("it's" in c or "it is" in c for c in captions)


def test_a_description_after_the_users_name_is_what_they_are_each_fact_apart():
    captions = _read("Hi! I'm Marisol, a 33-year-old midwife living in Cork with my husband")
    assert captions == [
        "User is called Marisol",
        "User is a 33-year-old midwife",
        "User lives in Cork with their husband",
    ]


def test_a_word_after_im_that_is_no_name_opens_no_description():
    assert not any("long day" in c for c in _read("I'm exhausted, a long day at the depot"))


def test_a_thing_of_theirs_at_the_end_of_a_with_list_is_kept():
    captions = _read("I live on a narrowboat with my partner and our lurcher")
    assert captions == ["User lives on a narrowboat with their partner and their lurcher"]


def test_a_fronted_condition_is_the_users():
    assert _read("As someone with coeliac disease, I check every label") == [
        "User has coeliac disease",
        "User checks every label",
    ]


def test_ages_in_brackets_after_names_are_kept_with_the_names():
    assert _read("we have three girls, Ada (11), Bea (7) and Cleo (2)") == [
        "User has three girls",
        "User's girls are called Ada, Bea and Cleo",
        "User's girl Ada is 11",
        "User's girl Bea is 7",
        "User's girl Cleo is 2",
    ]
    assert _read("my daughter Ines (15) plays the cello") == [
        "User's daughter Ines plays the cello",
        "User's daughter Ines is 15",
    ]


def test_a_list_of_names_cut_at_its_commas_names_the_whole_group():
    assert _read("I keep three hens, Dot, Flo and Peggy") == [
        "User keeps three hens",
        "User's hens are called Dot, Flo and Peggy",
    ]


@pytest.mark.parametrize(
    ("user_says", "captions"),
    [
        ("Pickle, my cockatiel, screams at 6am", ["User's cockatiel Pickle screams at 6am"]),
        ("pickle, my cockatiel, screams at 6am", []),
        ("Honestly, my landlord, a nightmare", []),
    ],
)
def test_a_name_before_my_thing_names_it_and_a_verb_of_someone_elses_is_never_the_users(
    user_says, captions
):
    assert _read(user_says) == captions


@pytest.mark.parametrize(
    ("user_says", "captions"),
    [
        ("my flatmate is coeliac, allergic to sesame and hates olives",
         ["User's flatmate is coeliac", "User's flatmate is allergic to sesame",
          "User's flatmate hates olives"]),
        ("my nan is 88, diabetic, lives alone",
         ["User's nan is 88", "User's nan is diabetic", "User's nan lives alone"]),
    ],
)  # fmt: skip
def test_a_fragment_after_a_clause_about_someone_goes_on_about_them(user_says, captions):
    assert _read(user_says) == captions


@pytest.mark.parametrize(
    ("user_says", "captions"),
    [
        ("Dev (my stepdad) is a plasterer", ["User's stepdad Dev is a plasterer"]),
        ("my niece (Orla) plays the harp", ["User's niece Orla plays the harp"]),
    ],
)
def test_whose_a_name_is_in_brackets_is_read(user_says, captions):
    assert _read(user_says) == captions


def test_a_name_between_commas_names_what_the_clause_before_ended_on():
    assert _read("we adopted a kitten, Pixel, from a shelter in Kent") == [
        "User adopted a kitten",
        "User's kitten is called Pixel",
    ]
    # Mid-sentence, "from" goes on with the clause before; a name alone is nobody's condition;
    # a kind of pet ("a greyhound" is a dog) is named like the pet.
    assert _read("we rescued a greyhound, Pixel, from a shelter in Kent") == [
        "User rescued a greyhound",
        "User's greyhound is called Pixel",
    ]


def test_how_long_something_has_gone_on_is_not_what_the_user_is():
    captions = _read("im a dental nurse at a practice in Hove, 6 yrs now")
    assert not any("yrs" in c and c.startswith("User is 6") for c in captions)
    assert "User is a dental nurse at a practice in Hove" in captions


def test_a_persons_clause_run_into_its_verb_is_no_thing_of_a_with_list():
    assert _read("i work from home, my wife is a gp and my son's 8") == [
        "User works from home",
        "User's wife is a gp",
        "User's son is 8",
    ]


@pytest.mark.parametrize(
    ("user_says", "caption"),
    [
        ("I grew up in Porto but moved to Lyon at 19", "User moved to Lyon at 19"),
        ("I like jazz but hate opera", "User hates opera"),
        ("we have a collie named Moss who needs a lot of walking",
         "User has a collie named Moss who needs a lot of walking"),
    ],
)  # fmt: skip
def test_a_statement_after_but_or_inside_a_relative_clause_is_kept(user_says, caption):
    assert caption in _read(user_says)


def test_an_abbreviation_ends_no_clause_and_an_adverb_before_a_dropped_i_stays():
    captions = _read("I've been a midwife ten years, currently working nights at St. Mary's")
    assert "User currently works nights at St. Mary's" in captions
    assert _read("Dr. Okafor is my GP") == ["User's GP is Dr. Okafor"]


def test_how_long_opening_a_fragment_is_no_value():
    assert not any("ten years a" in c for c in _read("ten years a midwife, still love it"))


def test_a_name_after_a_heading_opens_its_sentence():
    assert _read("Big news: Priya and I got engaged in Goa!") == [
        "User and Priya got engaged in Goa"
    ]


def test_a_capital_opening_a_clause_without_i_is_no_name_in_the_caption():
    assert _read("Cancelled my Audible subscription last week") == [
        "User cancelled their Audible subscription last week"
    ]
