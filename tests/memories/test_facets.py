"""A memory's facets: read from captions by the registry, stored on the row, compared by the
judge."""

from __future__ import annotations

import pytest

from memories.attributes import registry
from memories.comparison import Verdict, compare
from memories.facets import Facet, facets_read, read, subject_of
from memories.services.memories import memory_create, memory_merge
from memories.text import content_hash
from tests.factories import EndUserFactory


def relation(old: str, new: str) -> Verdict | None:
    found = compare(facets_read(new), facets_read(old))
    return found.verdict if found else None


def test_a_registry_entry_is_a_new_kind_of_fact():
    # docs/architecture.md, "A new kind of fact": one table in memories/attributes.toml.
    entry = registry()["password_manager"]
    assert entry.single and entry.value_of("bitwarden") == "bitwarden"

    assert read("User uses LastPass") == (Facet("user", "password_manager", "lastpass"),)
    assert relation("User uses LastPass", "User moved all their passwords to Bitwarden") == (
        Verdict.CONTRADICTS
    )
    # The same verb with a value of another class is another attribute.
    assert relation("User uses LastPass", "User uses Linux") is None


@pytest.mark.parametrize(
    ("caption", "facet"),
    [
        ("User's partner is a nurse", Facet("partner", "job", "nurse")),
        ("User is fully plant-based", Facet("user", "diet", "vegan")),
        ("User is not a morning person", Facet("user", "chronotype", "morning person", False)),
        (
            "User moved up to Edinburgh in March",
            Facet("user", "residence", "edinburgh", True, True),
        ),
        ("User used to be a chef", Facet("user", "job", "chef", past=True)),
        ("The user mentioned being 42", Facet("user", "age", "42")),
        ("User's shellfish allergy is gone", Facet("user", "allergy", "shellfish", False)),
    ],
)
def test_a_caption_is_read_as_the_facets_it_states(caption, facet):
    assert facet in read(caption)


def test_an_open_class_is_never_guessed_from_a_word():
    # "lactose" is no diet and "morning" no job: only listed values are read as such.
    assert not any(f.attribute in {"diet", "job"} for f in read("User is lactose intolerant"))
    assert not any(f.attribute == "nationality" for f in read("User is learning Japanese"))


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("User smokes", "User quit smoking", Verdict.CONTRADICTS),
        ("User is vegetarian", "User started eating meat again", Verdict.CONTRADICTS),
        ("User is vegetarian", "User doesn't eat meat", Verdict.SAME),
        ("User plays the cello", "User sold their cello", Verdict.CONTRADICTS),
        ("User is single", "User has a girlfriend now", Verdict.CONTRADICTS),
        ("User lives in Munich", "User's brother lives in Bergen", None),
        ("User grew up in Manila", "User lives in Toronto", None),
        ("User uses a Mac at work", "User uses Windows for gaming at home", None),
        ("User has two kids", "The user mentioned their two daughters", None),
    ],
)
def test_the_judge_compares_facets(old, new, expected):
    assert relation(old, new) == expected


@pytest.mark.django_db
def test_a_memory_stores_its_facets_and_a_merge_keeps_both_readings():
    end_user = EndUserFactory()
    memory = memory_create(
        end_user=end_user,
        caption="User is vegetarian",
        full_text="User is vegetarian.",
        category="preference",
        confidence=0.8,
        content_hash=content_hash("User is vegetarian."),
        embedding=None,
        embedding_model="",
    )
    assert memory.facets == [Facet("user", "diet", "vegetarian").as_json()]

    memory_merge(
        memory=memory,
        caption="User doesn't eat meat",
        full_text="User doesn't eat meat.",
        confidence=0.8,
        content_hash=content_hash("User doesn't eat meat."),
        embedding=None,
        embedding_model="",
    )
    memory.refresh_from_db()
    stored = {Facet.of(data) for data in memory.facets}
    assert Facet("user", "diet", "vegetarian") in stored
    assert Facet("user", "practice:eat", "meat", False) in stored


def test_a_person_written_two_ways_is_one_person_but_two_pets_stay_two():
    assert subject_of("User's mother is a retired judge") == subject_of("User's mum lives alone")
    assert subject_of("User's children are 4 and 6") == subject_of("User's kids love Lego")
    assert subject_of("User's kitten is called Mo") != subject_of("User's cat is called Bo")
    stored = Facet.of({"subject": "mother", "attribute": "age", "value": "70"})
    assert stored.subject == subject_of("User's mum is 70")


@pytest.mark.parametrize(
    "caption",
    [
        "User never eats mushrooms",
        "User stated they never eat mushrooms",
        "User honestly never eats mushrooms",
    ],
)
def test_never_is_read_as_a_negation_not_dropped_as_an_adverb(caption):
    [facet] = [f for f in facets_read(caption) if f.attribute == "practice:eat"]

    assert (facet.value, facet.positive) == ("mushroom", False)


def test_a_fact_said_with_never_restates_one_said_with_not():
    found = compare(
        facets_read("User stated they never eat mushrooms"),
        facets_read("User does not eat mushrooms"),
    )

    assert found is not None and found.verdict == Verdict.SAME
