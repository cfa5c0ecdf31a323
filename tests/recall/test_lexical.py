"""Recall's terms are the words of `core.words`, stemmed, without stopwords."""

from recall.lexical import tokenize


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
