"""Chat's contractions typed without their apostrophe, read as the words they are.

People type "shes vegan", "im 34", "dont drink", "cant drive". Read as typed, "shes" is no
pronoun, so "she" does not find the person last named and the fact lands on the user
("User is a shes vegan"). Each form is restored from a closed lexicon
(`core/lexicons/unapostrophed.txt`) before a message is split into clauses; a form that is
also a word of its own ("ill", "id", "cant", "wont", "were") is restored only where its
position says it is the contraction ("were" only where a clause opens, no "you" after it:
"were moving to bristol"), and "its", "well", "hell", "shell", "wed" never are. A possessive
typed without its apostrophe after "my" is restored where the relation says so ("my wifes
job", not "my sisters", a plural the people lexicon lists).
"""

from __future__ import annotations

import re
from functools import cache

from core.lexicon import lexicon, pairs

# A word as typed, and what follows it up to the next word.
_TOKEN = re.compile(r"[^\W_][\w'\u2019]*|[^\w]+")


@cache
def _forms() -> dict[str, tuple[str, str]]:
    """Each typed form to what it means and when ("" for always)."""
    found = {}
    for entry in lexicon("unapostrophed"):
        typed, meant, *when = entry.split()
        found[typed] = (meant, when[0] if when else "")
    return found


def _restored(typed: str, meant: str) -> str:
    """`meant` cased as the user typed it ("Im" is "I'm", "IM" is "I'M")."""
    if typed.isupper() and len(typed) > 1:
        return meant.upper()
    return meant[:1].upper() + meant[1:] if typed[:1].isupper() else meant


def apostrophes_restored(text: str) -> str:
    """The text with each contraction typed without its apostrophe restored ("shes vegan" is
    "she's vegan"); a word that only may be one is restored where its neighbours say so."""
    tokens = _TOKEN.findall(text)
    words = [at for at, token in enumerate(tokens) if token[:1].isalnum()]
    for place, at in enumerate(words):
        form = _forms().get(tokens[at].lower())
        if form is None:
            continue
        meant, when = form
        before = tokens[words[place - 1]].lower() if place else ""
        after = tokens[words[place + 1]].lower() if place + 1 < len(words) else ""
        # Only a space between two words counts as adjacent: "ill. be" is no "I'll be".
        joined = place + 1 < len(words) and tokens[at + 1].isspace()
        if when == "before_verb" and not (joined and after in lexicon("after_modal")):
            continue
        if when == "not_noun" and before in lexicon("determiners"):
            continue
        if when == "opening" and not (
            (not place or set(tokens[at - 1]) & set(".!?,;:\n") or _opener(tokens, words, place))
            and after
            and after not in lexicon("subject_pronouns") | {"there", "u", "ya"}
        ):
            continue  # "were moving to bristol": "we're" only where a clause opens
        tokens[at] = _restored(tokens[at], meant)
    return "".join(_possessives_restored(tokens, words))


def shorthands_expanded(text: str) -> str:
    """The text with each chat shorthand typed in lower case read as the words it stands for
    (`chat_shorthands.txt`: "rn" is "right now"), except after a determiner ("the atm")."""
    tokens = _TOKEN.findall(text)
    words = [at for at, token in enumerate(tokens) if token[:1].isalnum()]
    for place, at in enumerate(words):
        meant = pairs("chat_shorthands").get(tokens[at])
        before = tokens[words[place - 1]].lower() if place else ""
        if meant and before not in lexicon("determiners"):
            tokens[at] = meant
    return "".join(tokens)


def _opener(tokens: list[str], words: list[int], place: int) -> bool:
    """Whether the words before word `place` are chat fillers that open its clause ("lol were
    vegan now"), after the message's start or a mark."""
    start = place
    while start and tokens[words[start - 1]].lower() in lexicon("fillers"):
        start -= 1
        if not start or set(tokens[words[start] - 1]) & set(".!?,;:\n"):
            return start < place
    return False


def _possessives_restored(tokens: list[str], words: list[int]) -> list[str]:
    """The tokens with "my wifes job" as "my wife's job": after "my" or "our", one of the
    user's people (`people.txt`) with an "s" that makes no relation of the list ("wives",
    "sisters" and "kids" are listed as they are) is theirs."""
    for place, at in enumerate(words[1:], start=1):
        word = tokens[at]
        lowered = word.lower()
        if (
            tokens[words[place - 1]].lower() in {"my", "our"}
            and lowered.endswith("s")
            and lowered[:-1] in lexicon("people")
            and lowered not in lexicon("people")
        ):
            tokens[at] = f"{word[:-1]}'s"
    return tokens
