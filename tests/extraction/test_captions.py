"""What the assistant reads is clean, through POST /memories/extract, on both paths: no chat
debris, no word cut at its hyphen, verbs that agree, the names the user gave kept capitalised,
no passing state (issue 30, "Captions a careful reader would write")."""

from __future__ import annotations

import uuid

import pytest

from memories.models import ReviewItem
from tests.extraction.extract_helpers import extract
from tests.scripted_llm import ScriptedLLM, fact

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("said", "stored"),
    [
        ("i smoke tho", ["User smokes"]),
        ("ngl i still bite my nails lol", ["User still bites their nails"]),
        ("we got divorced last year :(", ["User got divorced"]),  # the year: valid_from
        ("im allergic to shellfish too haha", ["User is allergic to shellfish"]),
        ("my brother is a chef as well", ["User's brother is a chef"]),
        ("i play the drums :)", ["User plays the drums"]),
        ("i dont eat meat either", ["User doesn't eat meat"]),
        # "too" inside a caption says how much, and stays.
        ("im too shy to sing in public", ["User is too shy to sing in public"]),
    ],
)  # fmt: skip
def test_chat_debris_is_not_stored(api, offline, said, stored):
    assert extract(api, said) == stored


@pytest.mark.parametrize(
    ("said", "stored"),
    [
        ("i work as a full-time carer for my dad",
         ["User works as a full-time carer for their dad"]),
        ("my son is colour-blind", ["User's son is colour-blind"]),
        ("im self-employed", ["User is self-employed"]),
        ("my wife is a co-founder of a bakery", ["User's wife is a co-founder of a bakery"]),
        ("i ride an e-bike to work", ["User rides an e-bike to work"]),
        ("i work 9\u20135 at a bank", ["User works 9\u20135 at a bank"]),
        # A spaced dash still ends a clause.
        ("im a nurse - love nights tho", ["User is a nurse", "User loves nights"]),
    ],
)  # fmt: skip
def test_a_word_is_never_cut_at_its_hyphen(api, offline, said, stored):
    assert extract(api, said) == stored


@pytest.mark.parametrize(
    ("said", "stored"),
    [
        ("we go climbing every sunday", ["User goes climbing every sunday"]),
        ("i breed cocker spaniels", ["User breeds cocker spaniels"]),
        ("i fly drones on weekends", ["User flies drones on weekends"]),
        ("i feed the stray cats on my street", ["User feeds the stray cats on their street"]),
        ("my dad have a allotment", ["User's dad has a allotment"]),
        # A possessive before one of the user's people is not "is".
        ("my partner's parents live in cork", ["User's partner's parents live in cork"]),
        ("my wife's sister runs a bakery", ["User's wife's sister runs a bakery"]),
    ],
)  # fmt: skip
def test_the_verb_agrees_with_user(api, offline, said, stored):
    assert extract(api, said) == stored


@pytest.mark.parametrize(
    ("said", "stored"),
    [
        ("my sister anna is a nurse in turin", ["User's sister Anna is a nurse in Turin"]),
        ("my best friend priya lives in leeds", ["User's best friend Priya lives in Leeds"]),
        ("we adopted a rescue greyhound called luna",
         ["User adopted a rescue greyhound called Luna"]),
        ("my husband is from new york", ["User's husband is from New York"]),
        # A common word is not a name: nothing is capitalised for its shape or its place.
        ("i work in sales", ["User works in sales"]),
        ("i mark essays for a living", ["User marks essays for a living"]),
    ],
)  # fmt: skip
def test_a_person_or_place_the_user_names_keeps_its_capital(api, offline, said, stored):
    assert extract(api, said) == stored


@pytest.mark.parametrize(
    ("said", "stored"),
    [
        ("my knee has been sore since tuesday tho", []),
        ("my shoulder has been stiff since the weekend", []),
        ("my back has been killing me all week", []),
        # A year is not a passing time, and a change stays a change.
        ("ive had asthma since 2019", ["User has had asthma since 2019"]),
        ("i moved to bristol this week", ["User moved to Bristol"]),  # the week: valid_from
    ],
)  # fmt: skip
def test_a_passing_state_is_not_stored(api, offline, said, stored):
    assert extract(api, said) == stored


def test_the_conflict_reason_quotes_no_debris(api, offline):
    user_id = uuid.uuid4()
    extract(api, "i smoke tho", user_id=user_id)
    extract(api, "i quit smoking last month", user_id=user_id)

    # It was "does (smok…) 'tho': yes before, no now".
    assert list(ReviewItem.objects.values_list("reason", flat=True)) == [
        "does (smok…): yes before, no now"
    ]


def test_on_the_llm_path_the_models_captions_are_cleaned_the_same_way(api, llm_settings):
    llm = ScriptedLLM(llm_settings)
    llm.learn(
        "turin",
        fact("User smokes tho"),
        fact("User are lactose intolerant too"),
        fact("User's sister anna is a nurse in Turin"),
        fact("User's knee has been sore since tuesday"),
        fact("User is a full"),  # cut at the hyphen of "full-time"
        fact("User go bouldering every sunday lol"),
    )

    stored = extract(
        api,
        "i smoke tho and im lactose intolerant too. my sister Anna is a nurse in turin. "
        "i work as a full-time carer. my knee has been sore since tuesday. "
        "i go bouldering every sunday lol",
    )

    assert "User is a full" not in stored
    assert {
        "User is lactose intolerant",
        "User smokes",
        "User goes bouldering every sunday",
        "User's sister Anna is a nurse in Turin",
    } <= set(stored)
    assert not any("tho" in caption or "sore" in caption for caption in stored)


def test_on_the_llm_path_a_name_keeps_the_capital_the_user_gave_it(api, llm_settings):
    llm = ScriptedLLM(llm_settings)
    # Neither name is in the lists kept as data: the user's own capitals say so.
    llm.learn("bakery", fact("User's partner sunniva runs a bakery in tromsø"))

    stored = extract(api, "my partner Sunniva runs a bakery in Tromsø, i help out on saturdays")

    assert "User's partner Sunniva runs a bakery in Tromsø" in stored
