"""A helper with no answer says None, not an empty string a caller could take for a text."""

import pytest

from extraction.clauses import statement_of
from extraction.people import named_last
from memories.facets import category_of


@pytest.mark.parametrize(
    "clause", ["what should I cook tonight?", "can you suggest a name for a bakery"]
)
def test_a_question_or_a_request_states_nothing(clause):
    assert statement_of(clause) is None


def test_a_statement_is_stated_without_the_words_that_ask_to_keep_it():
    assert statement_of("remember that my mum's birthday is 3 March") == (
        "my mum's birthday is 3 March"
    )


def test_a_clause_that_ends_naming_nobody_names_no_one():
    assert named_last("we went to the coast") is None
    assert named_last("we just got a puppy") == "puppy"


def test_a_caption_the_registry_cannot_file_has_no_category():
    assert category_of("the sky is blue") is None
    assert category_of("User prefers dark mode") == "preference"
