"""Issue 32, implicit needs: a request reaches the fact that shapes its answer through a kind of
fact (recall.shaping) that names neither, with the real local embedder; a request about
nothing the user said still gets nothing. Topics of no bench prompts set."""

from __future__ import annotations

import numpy as np
import pytest

from integrations.embeddings import embed_texts
from memories.models import Memory
from recall import shaping
from recall.services import memory_recall_for_end_user

pytestmark = pytest.mark.django_db

PRIYA = (
    "User is allergic to sesame",
    "User is Hindu and doesn't eat beef",
    "User is a long-haul pilot and flies every other week",
    "User doesn't drink alcohol",
    "User suffers badly from hay fever",
    "User has a heart condition",
    "User lives in Coventry",
    "User's sister Meera is a pharmacist",
)


@pytest.fixture
def priya(settings, end_user, remember):
    settings.MEMORY_EMBEDDER = "local"  # the kinds' scales are MiniLM's
    remember(end_user, *PRIYA, category=Memory.Category.PERSONAL)
    return end_user


def _top3(end_user, prompt: str) -> list[str]:
    recall = memory_recall_for_end_user(end_user=end_user, prompt=prompt, limit=10)
    return [memory.caption for memory in recall.memories[:3]]


@pytest.mark.parametrize(
    ("prompt", "fact"),
    [
        ("what should I order from the Lebanese takeaway", "User is allergic to sesame"),
        ("recommend a burger place for Saturday", "User is Hindu and doesn't eat beef"),
        (
            "when could I fit in a weekly pottery class",
            "User is a long-haul pilot and flies every other week",
        ),
        ("cocktail ideas for my party", "User doesn't drink alcohol"),
        ("should we have a picnic in the meadow in June", "User suffers badly from hay fever"),
        ("is it safe for me to use the sauna at the gym", "User has a heart condition"),
    ],
)
def test_a_request_reaches_the_fact_that_shapes_its_answer_without_a_shared_word(
    priya, prompt, fact
):
    assert fact in _top3(priya, prompt)


def test_a_request_without_i_or_my_reads_as_one_by_what_it_means(priya):
    # Seven words, no "I", "my" or "we", not a question: only its meaning makes it a request.
    recall = memory_recall_for_end_user(
        end_user=priya, prompt="a good pudding to bring to the street party", explain=True
    )

    assert recall.explanation["personal_request"] is True
    assert "User is allergic to sesame" in [m.caption for m in recall.memories[:3]]


@pytest.mark.parametrize(
    "prompt",
    [
        "how do I get rid of limescale in the shower",
        "which bike lock is best",
        "how do I fix a dripping tap",
        "tips to grow tomatoes on a windowsill",
        "help me write a thank you note to a neighbour",
    ],
)
def test_a_request_about_nothing_the_user_said_still_gets_nothing(priya, prompt):
    assert _top3(priya, prompt) == []


def test_a_memory_is_of_the_kinds_its_prototype_facts_are_close_to(settings):
    from integrations.embeddings import current_model_id

    settings.MEMORY_EMBEDDER = "local"
    vectors = embed_texts(["User is allergic to kiwi fruit"])
    kinds = dict(
        zip(shaping.NAMES, shaping.fact_kinds(vectors, current_model_id())[0], strict=True)
    )

    assert kinds["food_allergy"] >= 0.8
    assert kinds["tools_at_work"] == 0.0 and kinds["getting_around"] == 0.0


def test_another_models_vectors_and_the_hashing_embedders_are_of_no_kind(settings):
    settings.MEMORY_EMBEDDER = "hashing"
    other = shaping.fact_kinds(np.ones((2, 1536), np.float32), "text-embedding-3-small")
    hashed = shaping.fact_kinds(embed_texts(["User is allergic to peanuts"]), "hashing-384-v1")

    assert other.shape == (2, len(shaping.KINDS)) and not other.any()
    assert not hashed.any()  # its cosines count shared words with the prototypes, not kinds


def test_the_prototypes_are_embedded_once_and_read_back_from_disk(settings, tmp_path, monkeypatch):
    settings.MEMORY_EMBEDDER = "hashing"
    settings.DATA_DIR = tmp_path
    texts = ["User keeps bees", "User is vegan"]
    first = shaping._embedded("hashing-384-v1", "facts", texts)

    def embed_again(_texts):
        raise AssertionError("kept prototypes were embedded again")

    monkeypatch.setattr(shaping, "embed_texts", embed_again)
    again = shaping._embedded("hashing-384-v1", "facts", texts)

    assert np.array_equal(first, again)


GARETH = (
    "User keeps a pet cockatiel",
    "User works as an electrician",
    "User lives in Swansea",
    "User plays darts on Thursdays",
    "User's brother Rhys is a chef",
    "User is learning Welsh",
    "User drives a van",
    "User supports Swansea City",
)


@pytest.fixture
def gareth(settings, end_user, remember):
    settings.MEMORY_EMBEDDER = "local"
    remember(end_user, *GARETH, category=Memory.Category.PERSONAL)
    return end_user


@pytest.mark.parametrize(
    "prompt", ["is it ok to spray oven cleaner in the kitchen", "which scented candle smells best"]
)
def test_a_kind_matched_on_both_sides_answers_though_the_memory_is_far_in_words(gareth, prompt):
    # The bird is further from fumes than the user's average memory: only the kind (a pet in
    # the home; household products) says the answer depends on it.
    assert _top3(gareth, prompt)[:1] == ["User keeps a pet cockatiel"]


def test_a_household_request_the_pet_does_not_change_gets_nothing(gareth):
    assert _top3(gareth, "how do I get red wine out of a carpet") == []
