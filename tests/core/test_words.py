"""The one tokenizer and the one stemmer (`core.words`) that every reader of text shares."""

import pytest

from core.words import stem, word_spans, words_of


def test_words_are_lower_cased_in_any_script_with_inner_apostrophes_and_hyphens():
    assert words_of("I\u2019m a full-time nurse in Zürich, near 東京!") == [
        "i'm",
        "a",
        "full-time",
        "nurse",
        "in",
        "zürich",
        "near",
        "東京",
    ]


def test_words_as_typed_keep_their_case_and_stay_aligned_with_the_words():
    text = "My sister Inês moved to São Paulo\u2019s centre"
    typed = words_of(text, case=True)
    assert typed == ["My", "sister", "Inês", "moved", "to", "São", "Paulo's", "centre"]
    assert [word.lower() for word in typed] == words_of(text)


def test_the_parts_an_index_matches_cut_hyphens_and_drop_an_apostrophes_tail():
    assert words_of("My kid's full-time e-mail: don't snake_case it", parts=True) == [
        "my",
        "kid",
        "full",
        "time",
        "e",
        "mail",
        "don",
        "snake",
        "case",
        "it",
    ]


def test_word_spans_are_the_words_where_they_stand():
    text = "moved to turin, finally"
    assert [text[m.start() : m.end()] for m in word_spans(text)] == words_of(text)


@pytest.mark.parametrize(
    ("words", "same"),
    [
        (["moved", "moving"], "mov"),
        (["puppies", "puppy"], "puppy"),
        (["watches", "watch"], "watch"),
        (["likes", "like"], "like"),
        (["running", "run", "runs"], "run"),
        (["planned", "plan"], "plan"),
        (["children", "child"], "child"),
        (["kid's", "kids", "kid"], "kid"),
    ],
)
def test_a_words_inflections_share_its_stem(words, same):
    assert {stem(word) for word in words} == {same}


@pytest.mark.parametrize("word", ["glass", "bus", "analysis", "2024", "tea"])
def test_a_word_that_only_ends_like_an_inflection_keeps_it(word):
    assert stem(word) == word


def test_a_loose_stem_meets_a_words_derivations_a_stem_does_not():
    assert stem("veganism") != stem("vegan")
    assert stem("veganism", loose=True) == stem("vegan", loose=True) == "vega"
    assert stem("moving", loose=True) == stem("moved", loose=True)
    assert stem("glasses", loose=True) == stem("glass", loose=True)
