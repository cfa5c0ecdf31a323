import pytest

from extraction.conflicts import rules_contradiction, shares_single_valued_attribute


@pytest.mark.parametrize(
    ("new", "existing"),
    [
        ("User lives in Munich", "User lives in Berlin"),
        ("User recently moved to Munich", "User lives in Berlin"),
        ("User lives in New York", "User lives in Berlin"),
        ("User works at Initech", "User works at Acme"),
        ("User's dog is called Max", "User's dog is called Rex"),
        ("User prefers light mode", "User prefers dark mode"),
        ("User is vegan", "User is vegetarian"),
        ("User does not like coffee", "User likes coffee"),
        ("User hates coffee", "User likes coffee"),
        ("User no longer lives in Berlin", "User lives in Berlin"),
        ("User doesn't use vim", "User uses vim"),
    ],
)
def test_contradictions_are_recognised(new, existing):
    assert rules_contradiction(new, existing)


@pytest.mark.parametrize(
    ("new", "existing"),
    [
        ("User lives in Berlin, Germany", "User lives in Berlin"),
        ("User lives in Berlin with his wife", "User lives in Berlin"),
        ("User moved to Munich in 2019", "User lives in Munich"),
        ("User works at Acme since May", "User works at Acme"),
        ("User likes tea", "User likes coffee"),
        ("User loves coffee", "User likes coffee"),
        ("User's cat is called Max", "User's dog is called Rex"),
        ("User is allergic to shellfish", "User is allergic to peanuts"),
        ("User prefers Python for scripting", "User prefers Python"),
    ],
)
def test_compatible_statements_are_not_contradictions(new, existing):
    assert rules_contradiction(new, existing) is None


def test_a_new_city_shares_the_lives_in_attribute_whatever_the_similarity():
    assert shares_single_valued_attribute("User lives in Munich", "User lives in Berlin")
    assert not shares_single_valued_attribute("User likes tea", "User lives in Berlin")


def test_the_reason_names_the_attribute_and_both_values():
    reason = rules_contradiction("User lives in Munich", "User lives in Berlin")

    assert reason == "different value of 'lives in': 'berlin' before, 'munich' now"
