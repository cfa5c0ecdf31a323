"""Facts typed as a form, a label and its value: "Job: nurse. Location: Leeds. Kids: 2",
"my favourite band: radiohead", "allergies: nuts and shellfish".

Read as it stands, such a clause garbles ("User is a Job: nurse") or says nothing (the value
alone after its label). A label of at most four words with no verb, subject or question,
followed by a short value with none either, is the user's own thing of that name ("my job is
nurse", "my allergies are nuts and shellfish") when the label opens with "my" or names a thing
a person has (`_of_a_person`; "Banana bread: 3 ripe bananas" is pasted). A count of people or
pets is how many the user has ("Kids: 2" is "I have 2 kids"). A value that is a clause of its
own ("Change of plans: we're expecting a baby") is left as it was: the label announces it.
"""

from __future__ import annotations

from functools import cache

from core.lexicon import lexicon
from core.words import words_of
from extraction.verbs import finite
from memories.attributes import registry

# The most words a label and its value may have.
_LABEL_WORDS = 4
_VALUE_WORDS = 6


def plain(words: list[str], *, most: int) -> bool:
    """Whether words are a short noun phrase: no verb, subject, first person or question."""
    clause_words = (
        lexicon("copulas")
        | lexicon("auxiliaries")
        | lexicon("subject_pronouns")
        | lexicon("first_person")
        | lexicon("question_words")
    )
    return (
        0 < len(words) <= most
        and not {word.split("'")[0] for word in words} & clause_words
        and not any(finite(word) for word in words)
    )


def label_joined(label: str, value: str) -> bool:
    """Whether a clause that ends on a colon is a label whose value is the next clause."""
    named = _own(words_of(label))
    return (
        label.rstrip().endswith(":")
        and not set(named) & lexicon("headings")  # "quick intro: ana, 52"
        and (named != words_of(label) or bool(set(named) & _of_a_person()))
        and plain(named, most=_LABEL_WORDS)
        and plain(words_of(value), most=_VALUE_WORDS)
        and not value.rstrip().endswith("?")
    )


@cache
def _of_a_person() -> frozenset[str]:
    """Words that make a label without "my" one of the user's own ("Job:", "Kids:", "fav
    film:"), where any other ("Banana bread: 3 ripe bananas") labels something pasted."""
    return (
        lexicon("topic_nouns")
        | lexicon("people")
        | lexicon("category_preference")
        | frozenset(registry())
    )


def _own(words: list[str]) -> list[str]:
    return words[1:] if words[:1] in (["my"], ["our"]) else words


def labelled(statement: str) -> str:
    """The statement of a label and its value as the user's own sentence ("Job: nurse." is
    "my job is nurse."); any other statement as it was."""
    label, colon, value = statement.partition(": ")
    if not colon or not label_joined(f"{label}:", value):
        return statement
    key = " ".join(_own(label.split())).lower()
    said = words_of(value)
    counted = said[0].isdigit() or said[0] in lexicon("numerals")
    if (
        counted
        and len(said) == 1
        and words_of(key)[-1:]
        and words_of(key)[-1] in lexicon("people_plural")
    ):
        return f"I have {value.strip()} {key}"
    value = value.strip(" ,.;")
    several = " and " in f" {value} " or "," in value
    return f"my {key} {'are' if several else 'is'} {value}"
