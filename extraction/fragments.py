"""A subjectless fragment the registry recognises, read as the user's own clause: "backend
dev at Acme" is "I'm a backend dev at Acme", "no kids" is "I have no kids", "peanut allergy
here" is "I have peanut allergy". Any other fragment, a clause of its own ("one guest is
vegan") or someone else's ("shes vegan", "hates the vet"), is not the user's.
"""

from __future__ import annotations

import re

from core.lexicon import lexicon
from core.words import words_of
from extraction.kept import caption_of
from extraction.time_phrases import says_how_long
from extraction.verbs import base_of, gerund, past_tense, third_singular
from memories.attributes import PRACTICE, attribute
from memories.facets import kind_of
from memories.facets import read as read_facets

# What a fragment about the user may state: an attribute the registry closes by its values or
# phrases. An open reading (a practice of some verb, a stray number read as an age, a noun's
# "about") is no evidence that a fragment without a subject is about the user.
_OPEN_READINGS = frozenset({"age", "likes", "about", "name"})


def fragment(part: str) -> str | None:
    """A subjectless fragment the registry recognises, as the user's own clause ("backend dev
    at Acme" is "I'm a backend dev at Acme", "no kids" is "I have no kids", "peanut allergy
    here" is "I have peanut allergy"); None for any other fragment."""
    words = part.split()
    while words:
        if " ".join(words[-2:]).lower().strip(",.!") in lexicon("fragment_tails"):
            words = words[:-2]
        elif words[-1].lower().strip(",.!") in lexicon("fragment_tails"):
            words = words[:-1]
        else:
            break
    if not words or len(words) > 8:
        return None
    if says_how_long([word.lower().strip(",.!") for word in words[:2]]):
        return None  # "ten years a midwife"
    if len(words) == 1 and words[0].strip(",.!").istitle():
        return None  # "Pixel": a name alone, never a condition or a thing the user is
    text = " ".join(words).strip(" ,.!;:")
    if text.split(" ", 1)[0].lower() in lexicon("adverbs") | lexicon("function_words"):
        text = text[:1].lower() + text[1:]  # "Currently in Lisbon": no name, the clause's start
    adverb, _, rest = text.partition(" ")
    if adverb in lexicon("adverbs") and rest and (read := fragment(rest)):
        # "currently based in Singapore": what the rest says, the adverb where "I'm" leaves it
        opening = "I'm " if read.startswith("I'm ") else "I have "
        return read.replace(opening, f"{opening}{adverb} ", 1) if read.startswith(opening) else read
    said = words_of(text)
    if (
        not said
        # "hates the vet": a verb of someone else's; "shes vegan" with no one named before it,
        # "it's a proper allergy": a pronoun's clause, about someone or something else.
        or third_singular(said[0])
        # "Ruth retired in the summer": a subject and its verb, a clause of someone's own.
        or (len(said) > 1 and (past_tense(said[1]) or third_singular(said[1])))
        or {word.split("'")[0] for word in said} & (lexicon("subject_pronouns") - {"i"} | {"it"})
        or said[0] in lexicon("value_breaks")
        # "mum's a GP": one of the user's people, the "my" left out
        or (said[0].endswith("'s") and said[0].removesuffix("'s") in lexicon("people"))
        or set(said)
        & (
            lexicon("negators")
            | lexicon("auxiliaries")
            | lexicon("first_person")
            | {"is", "are", "was", "were", "am"}
        )
    ):
        # A clause of its own ("one guest is vegan", "light mode hurts my eyes") or a place
        # ("at sea level"), not a fragment about the user.
        return None
    # "no kids" is "I have no kids"; else what the user is ("night owl") or has ("a peanut
    # allergy"), an open "has" (anything at all) aside.
    article = "" if said[0] in {"a", "an", "the"} else "an " if text[0] in "aeiouAEIOU" else "a "
    openings = ("I have ",) if said[0] == "no" else ("I'm ", f"I'm {article}", "I have ")
    if any(f.attribute == "condition" for f in read_facets(f"User has {text}")):
        openings = ("I'm ",) if text.lower() in lexicon("condition_states") else ("I have ",)
    # "learning portuguese", "started learning portuguese": a verb's "-ing" form, never a
    # thing one is unless it names the registry's job ("a teaching assistant"), tried first.
    verbal = gerund(said[0]) or (
        len(said) > 1
        and past_tense(said[0])
        and gerund(said[1])
        and not (fragment(text.split(None, 1)[1]) or "").startswith(("I'm a ", "I'm an "))
    )
    if verbal and said[0] != "no":
        openings = (f"I'm {article}", "I'm ", "I have ")
    for opening in openings:
        for facet in read_facets(caption_of(f"{opening}{text}")):
            name = facet.attribute.split(":")[0]
            if facet.subject != "user" or name in _OPEN_READINGS:
                continue
            verb = verbal and not (name == "job" and _named_by(said[:2], facet.value))
            if verb and opening.endswith(f" {article}"):
                continue
            stated = {f"is {text}".lower(), f"is {article}{text}".lower()}
            if name == PRACTICE and not stated & set(attribute(name).fixed):
                continue  # a practice only from a state the registry lists ("teetotal")
            counted = said[0].isdigit() or said[0] in lexicon("numerals")
            if name == "owns" and (
                (facet.positive and not counted) or not kind_of_person(facet.value)
            ):
                continue  # "has" anything at all; "no kids", "two daughters" but not "no pork"
            # A noun the registry lists with its article ("a widower") keeps it too.
            listed = f"{article}{text}".lower() in attribute(name).values
            if (
                (attribute(name).article or listed)
                and not verb
                and not opening.endswith(f" {article}")
            ):
                opening = f"I'm {article}"
            return f"{opening}{text}"
    return None


def job_named(text: str) -> bool:
    """Whether words open with the name of a job the registry reads, named by their first
    word, an "-ing" form ("teaching assistant at a school", "nursing assistant"): a thing one
    is, not a verb and its object."""
    said = words_of(text)
    return bool(said) and any(
        facet.attribute == "job" and _named_by(said[:1], facet.value)
        for facet in read_facets(f"User is a {text}")
    )


def _named_by(words: list[str], value: str) -> bool:
    """Whether a value has one of the words, or a verb's base they come from ("nursing" in
    "nurse")."""
    return bool({*words, *map(base_of, words)} & set(value.split()))


def kind_of_person(value: str) -> bool:
    """Whether a value names people or pets ("kids", "pets", "a cat")."""
    return any(word in lexicon("people") or kind_of(word) != word for word in value.split())


# An age typed in a profile list, the sex after it or not ("67", "29F", "32 m").
_AGE = re.compile(r"^\s*(\d{1,3})\s?([mfMF])?\s*[,.;!]?\s*$")


def age_listed(statement: str, last: str) -> str | None:
    """The user's age, from a clause that is a number alone right after a fact the user
    stated of themselves ("retired firefighter, 67, widower": in a list that describes the
    user, a bare number is how old they are), or a number with the sex after it anywhere
    ("29F, software tester"). None for any other clause."""
    match = _AGE.match(statement)
    mine = last.startswith("User ") and not last.startswith("User and ")
    if not match or not (mine or match.group(2)):
        return None
    age = int(match.group(1))
    return f"User is {age}" if 13 <= age <= 110 else None
