"""A restatement where each wording says a word the other does not merges when those words
mean the same (issue 31: "films" and "movies", "uses" and "runs"), and never when they are two
values: a number, a day, a name, two members of one kind."""

from __future__ import annotations

import uuid

import pytest

from extraction.jobs import extraction_perform
from extraction.restatements import reworded
from extraction.updates import reading
from extraction.word_alignment import WORD_ALIGN_SIMILARITY, word_similarity
from memories.models import Memory, MemoryEvidence, ReviewItem

# A close wording: above the rewording floor, below the near-duplicate one.
CLOSE = 0.85


def _alike(*pairs: tuple[str, str]):
    """A word similarity that puts the given pairs of words together and no others."""
    together = {frozenset(pair) for pair in pairs}

    def similar(first: str, second: str) -> float:
        return 1.0 if first == second or {first, second} in together else 0.1

    return similar


def test_words_of_one_meaning_one_on_each_side_are_one_fact():
    stored = reading("User naps on the sofa after lunch")
    new = reading("User naps on the couch after lunch")

    assert reworded(new, stored, CLOSE, _alike(("couch", "sofa")))
    # Without the counterpart, each says a word the other does not: two facts.
    assert not reworded(new, stored, CLOSE, _alike())


@pytest.mark.parametrize(
    ("stored", "new", "pair"),
    [
        # Two members of one kind, close as the embedder may put them.
        ("User feeds the cat before work", "User feeds the dog before work", ("dog", "cat")),
        # A day, a number: values, never one meaning.
        ("User swims on Mondays at the lido", "User swims on Thursdays at the lido",
         ("thursdays", "mondays")),
        ("User cycles 20 miles to the depot", "User cycles 30 miles to the depot", ("30", "20")),
        # Two points of one scale, which the embedder puts close ("cheap"/"expensive" 0.79).
        ("User books the cheap seats at the opera", "User books the expensive seats at the opera",
         ("expensive", "cheap")),
        ("User walks the spaniel in the mornings", "User walks the spaniel in the evenings",
         ("evenings", "mornings")),
    ],
)  # fmt: skip
def test_two_values_are_never_counterparts(stored, new, pair):
    assert not reworded(reading(new), reading(stored), CLOSE, _alike(pair))


def test_a_verb_that_only_ties_the_user_to_a_thing_is_no_word_apart():
    stored = reading("User uses a Garmin watch for triathlon training")

    assert reworded(reading("User has a Garmin watch for triathlon training"), stored, CLOSE)
    # Another relation is another fact.
    assert not reworded(reading("User sells a Garmin watch for triathlon training"), stored, CLOSE)


def test_a_counterpart_never_merges_another_polarity_or_a_change():
    stored = reading("User naps on the sofa after lunch")
    similar = _alike(("couch", "sofa"))

    never = reading("User doesn't nap on the couch after lunch")
    assert not reworded(never, stored, CLOSE, similar)
    assert not reworded(reading("User sold the couch after lunch"), stored, CLOSE, similar)


@pytest.fixture
def local(settings):
    """The offline reader and the local MiniLM embedder the floors were measured with."""
    settings.MEMORY_EXTRACTOR = "rules"
    settings.MEMORY_EMBEDDER = "local"
    settings.MEMORY_ASYNC_EXTRACTION = False


def test_the_embedder_puts_synonyms_together_and_siblings_apart(local):
    assert word_similarity("films", "movies") >= WORD_ALIGN_SIMILARITY
    assert word_similarity("cat", "dog") < WORD_ALIGN_SIMILARITY
    # Opposites sit close: a scale of their own keeps them apart (`core/lexicons/scales.txt`).
    assert word_similarity("upstairs", "downstairs") >= WORD_ALIGN_SIMILARITY
    upstairs = reading("User always sits upstairs on the night bus")
    assert not reworded(reading("User always sits downstairs on the night bus"), upstairs, 0.9)


@pytest.mark.django_db
def test_films_and_movies_said_twice_are_one_memory_that_keeps_both_sayings(tenant, local):
    user_id = uuid.uuid4()
    said = ("I watch a lot of films on my projector", "i watch loads of movies on my projector")
    for text in said:
        extraction_perform(tenant=tenant, external_id=user_id,
                           messages=[{"role": "user", "content": text}])  # fmt: skip

    memories = Memory.objects.filter(end_user__external_id=user_id)
    assert memories.count() == 1
    assert not ReviewItem.objects.exists()
    # The merge keeps what each message said as evidence.
    assert MemoryEvidence.objects.filter(memory=memories.get()).count() == 2


def test_a_relation_verb_against_another_verb_is_another_relation():
    # "owns" is a relation verb, "rents" is not: two facts, whatever the cosine.
    stored = reading("User rents a garage near the allotment")

    assert not reworded(reading("User owns a garage near the allotment"), stored, 0.9)
    assert not reworded(reading("User uses a garage near the allotment"), stored, 0.9)


def test_a_cue_verb_one_wording_says_is_another_fact():
    stored = reading("User sells the narrowboat in the spring")

    assert not reworded(reading("User has the narrowboat in the spring"), stored, 0.9)
