"""Facts on open topics, read by structure: a slot of the user's ("my <noun phrase>") and its
value, whatever the slot names, so that a topic no registry entry or lexicon was written for
is still stored ("my blood group is O positive", "my shoe size is 42").

Two word orders chat uses besides "my <slot> is <value>", each turned into it:
- the value first: "Lloyds is my bank", "EU 42 is my shoe size", "hiking's my favourite thing";
- a verbless fragment that a chat word at its end marks as said by the way ("blood group B+
  btw", "locker 42 fyi"): the slot, then a value typed as a code (a number, a symbol, short
  capitals).

What may be a value or a slot is closed by its words, never guessed from a topic: a value does
not open with a function word or a pronoun ("that's my problem", "he's my brother" are no
slot's value), and a slot holds no verb of the closed classes.
"""

from __future__ import annotations

import re
from functools import cache

from core.lexicon import lexicon
from core.words import words_of

# "<value> is my <slot>": up to four words of value, up to six of slot ("my favourite movie of
# all time").
_VALUE_FIRST = re.compile(
    r"^(?P<value>\S+(?: \S+){0,3}?)(?:'s| is| are) (?P<slot>(?:my|our) \S+(?: \S+){0,5})$", re.I
)


@cache
def _hedged() -> re.Pattern[str]:
    """An adverb between the verb and the slot ("lasagna is hands down my favourite food",
    "podcasts are basically my cooking soundtrack"): said for emphasis, no word of the slot."""
    adverbs = sorted(lexicon("adverbs"), key=len, reverse=True)
    said = "|".join(re.escape(adverb) for adverb in adverbs)
    return re.compile(rf"('s| is| are)(?: (?:{said}))+ (my|our) ", re.I)


@cache
def _not_values() -> frozenset[str]:
    """Words a value never opens with, and words a slot never holds."""
    found: set[str] = set()
    for name in ("function_words", "determiners", "subject_pronouns", "first_person",
                 "question_words", "auxiliaries", "negators", "copulas", "temporary"):  # fmt: skip
        found |= {entry for entry in lexicon(name) if " " not in entry}
    return frozenset(found)


@cache
def _chat_words() -> frozenset[str]:
    """Words of a greeting, thanks or address, and the user's people: no slot of theirs."""
    found: set[str] = set(lexicon("people"))
    for name in ("fillers", "addressees", "chat_debris", "emoticons"):
        found |= {word for entry in lexicon(name) for word in entry.split()}
    return frozenset(found)


@cache
def _not_in_slot() -> frozenset[str]:
    return frozenset(
        lexicon("auxiliaries") | lexicon("negators") | lexicon("copulas") | lexicon("first_person")
    ) - {"my"}


def value_first(part: str) -> str | None:
    """ "Lloyds is my bank" as "my bank is Lloyds" (and "Octopus is basically our energy
    supplier" as "our energy supplier is Octopus"); None for any other clause."""
    found = _VALUE_FIRST.match(_hedged().sub(r"\1 \2 ", part.strip(" ,.!"), count=1))
    if not found:
        return None
    value = words_of(found["value"])
    if not value or (
        (value[0] in _not_values() or set(value) & _not_in_slot()) and not _title(found["value"])
    ):
        return None  # "that's my problem", "he's my brother", "it is my"
    slot = _slot_cut(found["slot"].split())
    if len(slot) < 2 or set(words_of(" ".join(slot[1:]))) & _not_in_slot():
        return None
    return f"{' '.join(slot)} is {found['value']}"


def _title(value: str) -> bool:
    """Whether a value is a name as typed, each word capitalised after an opening "the" ("The
    Rest Is History", "the Telegraph"): its function words are the name's."""
    typed = value.split()
    typed = typed[1:] if typed[:1] == ["the"] else typed
    if not typed or not all(word[:1].isupper() for word in typed):
        return False
    # One word capitalised at a sentence's start is no name ("It is my birthday").
    return len(typed) > 1 or typed[0].lower() not in _not_values()


def _slot_cut(words: list[str]) -> list[str]:
    """A slot's words up to a mark that ends it ("my shoe size - would these ..."), without
    the chat words it may end on ("my everyday uniform honestly")."""
    kept: list[str] = []
    for word in words:
        if not any(ch.isalnum() for ch in word):
            break
        kept.append(word)
        if word[-1:] in {",", ";", ":"}:
            break
    while kept and kept[-1].lower().strip(",;:") in lexicon("fragment_tails"):
        kept.pop()
    return [word.strip(",;:") for word in kept]


def in_passing(part: str) -> str | None:
    """ "blood group B+ btw" as "my blood group is B+": a fragment of two to four words that a
    chat word marks as said in passing, its last word a value typed as a code and the words
    before it the slot; None for any other."""
    words = part.strip(" ,.!").split()
    # At its end: one the fragment opens with is taken off with the other chat openings.
    if not words or words[-1].lower().strip(",.!:") not in lexicon("in_passing"):
        return None
    words = words[:-1]
    words = [word.strip(",:") for word in words if word.strip(",:")]
    if not 2 <= len(words) <= 4:
        return None
    *slot, value = words
    # A code, not a word: a number, a symbol or a short capital code ("42", "B+", "AB"); a
    # capitalised word may be whom the message greets ("thanks Sam btw").
    typed = any(ch.isdigit() or not ch.isalnum() for ch in value) or (
        value.isupper() and len(value) <= 3
    )
    lowered = [word.lower() for word in slot]
    if not typed or set(lowered) & (_not_values() | _not_in_slot() | _chat_words()):
        return None
    if not all(word.isalpha() for word in lowered):
        return None
    return f"my {' '.join(lowered)} is {value}"
