"""Where one clause holds two statements, and what joins them.

A clause goes on with another subject after "and" or "but" ("I'm vegan and my partner is a
nurse"), an aside between them or not ("... and honestly i'm exhausted"); before "so I" and a
past tense or "so I've" and a participle ("the civic died so I bought a kia"); and in the
user's own clause before "but" and a verb ("I grew up in Manila but moved to Toronto"). Each
is a statement of its own. A part that ends on the words that joined it ("I'm vegan and")
ends before them.
"""

from __future__ import annotations

import re

from core.lexicon import lexicon, pairs
from core.words import words_of
from extraction.verbs import base_form, past_tense

# A clause goes on with another subject after "and" / "but" ("I'm vegan and my partner is a
# nurse"), an adverb or a chat filler between them or not ("... and honestly i'm exhausted",
# "... and tbh my boss is great"): each is its own statement.
ASIDES = lexicon("adverbs") | lexicon("fillers") | {"then", "since"}
_BETWEEN = "|".join(re.escape(word) for word in sorted(ASIDES, key=len)[::-1])
SUBJECT_BREAK = re.compile(
    r"\s*(?:\s(?:and|but|while|plus|because|cause|cos)|&|\+|\sso(?=\s+(?:my|our|she|he)\b))"
    rf"(?:\s+(?:{_BETWEEN}),?)?\s+"
    r"(?=(?:i|i'm|im|i've|ive|my|our|we|we're|it|it's|its|she|she's|he|he's|they|they're)\b)",
    re.I,
)


# The most statements one clause joins with "and" that are split apart.
MOST_JOINED = 12
# The words that join statements (`SUBJECT_BREAK`): one left at a part's end joins nothing,
# and "and" or "but" opening a sentence ("And I sold the car in March") joins it to nothing.
JOINERS = frozenset({"and", "but", "while", "plus", "&", "+"})
# The forms after "I've" that past_tense does not make: irregular participles ("given") and
# pasts that are their base too ("cut", "put").
_PARTICIPLES = frozenset(pairs("participles")) | frozenset(pairs("irregular_pasts").values())


def events_apart(part: str) -> list[str]:
    """The part split before "so I <past tense>" ("the civic died so I bought a kia") and, in
    the user's own clause, before "but <verb>" ("I grew up in Manila but moved to Toronto"): a
    statement of its own. "so I never cook", "so I sit all day" stay with the clause they
    follow: they say what follows from it, not a fact of the user's life on their own."""
    words = part.split()
    mine = words_of(part)[:1] in (["i"], ["i've"], ["i'm"])
    for at in range(1, len(words) - 2):
        said = [words[at].lower(), words[at + 1].lower(), *words_of(words[at + 2])[:1]]
        if (
            said[:2] in (["so", "i"], ["so", "i've"])
            and any(past_tense(word) or word in _PARTICIPLES for word in said[2:])
            and len(words) > at + 3  # what was done: "so I quit" names nothing
        ):  # "so I bought a heat pump", "so I've cut out alcohol": an event
            return [" ".join(words[:at]), " ".join(words[at + 1 :])]
        verb = said[2] if said[1] in lexicon("adverbs") and len(said) > 2 else said[1]
        if mine and said[0] == "but" and (past_tense(verb) or base_form(verb)):
            return [" ".join(words[:at]), " ".join(["I", *words[at + 1 :]])]  # "but moved to"
    return [part]


def undangled(part: str) -> str:
    """The part without the joining words it ends on ("I'm vegan and and" is "I'm vegan"), or
    a joining word and an aside where the clause was cut after them ("i'm a nurse and
    honestly, | i love it")."""
    words = part.split()
    while words:
        said = [word.lower().strip(",;") for word in words[-2:]]
        if said[-1] in JOINERS:
            words.pop()
        elif len(said) == 2 and said[0] in JOINERS and said[1] in ASIDES:
            del words[-2:]
        else:
            break
    return " ".join(words)
