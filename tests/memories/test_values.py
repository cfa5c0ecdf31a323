"""A caption that ends before its value says nothing; one whose last words close a clause of
their own still has it."""

from __future__ import annotations

import pytest

from memories.values import lacks_value


@pytest.mark.parametrize(
    "caption",
    [
        "User loves",
        "User's dog is called",
        "User lives in",
        "User's sister is",
        "User goes by",
        "User is now",
        "User works as a",
        "User is vegan and",
        "User loves pizza and hates",
        "User uses it for",
        "",
    ],
)
def test_a_caption_that_ends_before_its_value_lacks_it(caption):
    assert lacks_value(caption)


@pytest.mark.parametrize(
    "caption",
    [
        "User loves pizza",
        "User's dog is called Rex",
        "User runs",
        "User made a will",
        "User's birthday is in May",
        "User prefers dark mode in every app I use",
        "User loves the city they live in",
        "User is not a morning person and never will be",
        "User got laid off",
    ],
)
def test_a_caption_with_its_value_or_a_clause_that_closes_it_does_not(caption):
    assert not lacks_value(caption)
