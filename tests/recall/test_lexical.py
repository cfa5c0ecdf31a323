"""Recall's terms are the words of `core.words`, stemmed, without stopwords."""

import pytest

from recall.lexical import query_terms, tokenize
from recall.services import memory_recall


def test_a_word_with_an_accent_is_one_term_not_pieces_of_other_words():
    # Cut at its "ü", "Zürich" gave the term "rich", which a prompt about rich food matched.
    assert tokenize("My fianc\u00e9e lives in Z\u00fcrich") == [
        "fianc\u00e9e",
        "live",
        "z\u00fcrich",
    ]
    assert "rich" not in tokenize("Z\u00fcrich")


def test_a_hyphenated_word_is_matched_by_its_parts_and_a_contraction_by_its_head():
    assert tokenize("I'm working full-time, don't ask") == ["work", "full", "time", "ask"]


def test_a_prompt_asking_with_a_base_form_meets_the_memory_saying_it_in_the_past():
    # "move" is stemmed "move", "moved" and "moving" are "mov": the prompt carries both.
    assert "mov" in query_terms("when did I move?")
    assert "mov" in tokenize("User moved to Leeds in March")
    assert "invit" in query_terms("who should I invite?")


def test_only_the_prompt_gains_the_form_so_a_memory_of_planes_is_no_plan():
    assert "plan" not in tokenize("User is afraid of planes")
    assert "plane" not in query_terms("make me a workout plan")
    # A generic word of captions ("likes", "name") gains no form either.
    assert query_terms("my likes") == ["like"]


@pytest.mark.django_db
def test_a_question_about_a_move_recalls_the_move_the_user_told(tenant, end_user, remember):
    remember(end_user, "User's house has a big garden in Leeds")
    (moved,) = remember(end_user, "User moved house in the spring of last year")

    recall = memory_recall(
        tenant=tenant, external_id=end_user.external_id, prompt="when did I move house?"
    )

    assert recall.memories[0].id == moved.id
