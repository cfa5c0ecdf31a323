"""A user's own words as a caption: the third person by closed-class rewrites, and the chat
that goes on after the fact cut off. Shared by the offline reader, the grounding check's
repairs and `remember`; it builds no caption from a template."""

from __future__ import annotations

import re
import unicodedata

from core.lexicon import lexicon, pairs, words_of
from memories.text import states_a_fact
from memories.values import lacks_value, waits_for_value

# Where a first-person clause starts ("I'm vegan" -> "User is vegan").
_OPENINGS = (
    (re.compile(r"^(?:i am|i'm|im)\b", re.I), "User is"),
    (re.compile(r"^(?:i have|i've|ive)\b", re.I), "User has"),
    (re.compile(r"^(?:i'd)\b", re.I), "User would"),
    (re.compile(r"^(?:i'll)\b", re.I), "User will"),
    (re.compile(r"^i\b", re.I), "User"),
    (re.compile(r"^(?:my|our)\b", re.I), "User's"),
    # "we" is the user with their household: "we moved to Lisbon" is "User moved to Lisbon".
    (re.compile(r"^(?:we're|we are)\b", re.I), "User is"),
    (re.compile(r"^(?:we've|we have)\b", re.I), "User has"),
    (re.compile(r"^we\b", re.I), "User"),
)
# Inside a clause: the user's own possessives and objects (closed classes).
_INSIDE = (
    (re.compile(r"\b(?:my|our)\b", re.I), "their"),
    (re.compile(r"\b(?:me|us)\b", re.I), "them"),
    (re.compile(r"\bmyself\b", re.I), "themselves"),
    (re.compile(r"\b(?:mine|ours)\b", re.I), "theirs"),
)


def third_person(text: str) -> str:
    """A first-person statement in the third person, by closed-class rewrites only: "I live in
    Leeds" is "User lives in Leeds", "my partner is a nurse" is "User's partner is a nurse"."""
    text = text.strip().rstrip(".!")
    for pattern, replacement in _OPENINGS:
        if pattern.search(text):
            text = pattern.sub(replacement, text, count=1)
            if replacement == "User":
                text = "User " + _agree(text[5:])
            break
    for pattern, replacement in _INSIDE:
        text = pattern.sub(replacement, text)
    return text


def _agree(rest: str) -> str:
    """The words after "I" with their verb in the third person ("really like" is "really
    likes"; "don't" is "doesn't"); a past tense, a modal or "used to" stays."""
    words = rest.split(" ")
    at = 0
    while at < len(words) and words[at].lower() in lexicon("adverbs"):
        at += 1
    if at == len(words):
        return rest
    verb = words[at]
    lowered = verb.lower().replace("\u2019", "'")
    forms = pairs("verb_forms")
    if lowered in forms:
        words[at] = forms[lowered]
    elif not lowered.endswith("ed") and lowered.isalpha():
        words[at] = _third_singular(verb)
    return " ".join(words)


def _third_singular(verb: str) -> str:
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(verb) > 2 and verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def tidy_caption(caption: str) -> str:
    """The caption up to where its fact ends and chat goes on (a lexicon of clause breaks),
    when what comes before is a statement of its own."""
    lowered = caption.lower()
    cut = len(caption)
    for phrase in lexicon("clause_breaks"):
        pattern = re.escape(phrase) if phrase.startswith(",") else rf"\s{re.escape(phrase)}\b"
        match = re.search(pattern, lowered)
        if match and match.start() < cut:
            head = caption[: match.start()].rstrip(" ,;:-")
            if len(head.split()) >= 3 and states_a_fact(head) and not lacks_value(head):
                cut = match.start()
    return _without_hedges(caption[:cut].rstrip(" ,;:-.!"))


def _without_hedges(caption: str) -> str:
    """The caption without the chat hedges of a lexicon ("like 50k a week" is "50k a week");
    "like" goes only before a number, where it cannot be the verb."""
    words = caption.split(" ")
    kept = []
    for at, word in enumerate(words):
        after = words[at + 1] if at + 1 < len(words) else ""
        hedge = at > 0 and word.lower() in lexicon("hedges")
        if hedge and (word.lower() != "like" or after[:1].isdigit()):
            continue
        kept.append(word)
    return " ".join(kept)


# Characters that join or vary an emoji ("👨\u200d👩", "❤\ufe0f", a keycap, a flag's tags).
_EMOJI_PARTS = frozenset("\u200d\ufe0e\ufe0f\u20e3")


def _symbol(char: str) -> bool:
    """An emoji or other symbol (a pictograph, a flag, a skin tone, a joiner): not a word."""
    if char in _EMOJI_PARTS or "\U000e0020" <= char <= "\U000e007f":
        return True
    category = unicodedata.category(char)
    return category == "So" or (category == "Sk" and not char.isascii())


def symbols_read(text: str) -> str:
    """The text with its emoji and other symbols read as the reader reads them: a symbol says
    nothing and ends a clause ("punk band 🤘 we're called ...", "moved to Leeds 🎉 boxes
    everywhere"), unless the words before it still wait for their value ("I love 🍕 pizza",
    "my dog is called 🐶Rex": `values.waits_for_value`), or it is written onto the word after
    it ("I collect ✨vinyl"). There it is dropped, so that the value after it stays whole."""
    out: list[str] = []
    at = 0
    while at < len(text):
        if not _symbol(text[at]):
            out.append(text[at])
            at += 1
            continue
        end = at
        while end < len(text) and _symbol(text[end]):
            end += 1
        before = text[max(0, at - 64) : at]
        said = words_of(before)
        waits = said and waits_for_value(said[-1]) and before.rstrip()[-1:].isalnum()
        # A symbol written onto the word after it, a space before ("collect ✨vinyl", "our
        # 🐶Rex"), decorates that word: it ends nothing.
        # A subject after it opens a clause of its own ("so happy 😊i got the job").
        after = words_of(text[end : end + 16])[:1]
        decorates = (
            text[end : end + 1].isalnum()
            and (not before or before[-1:].isspace())
            and not set(after) & lexicon("first_person")
        )
        if decorates and not waits:
            at = end
            continue
        if not waits:
            out.append(". ")
        elif before[-1:].isspace() and text[end : end + 1].isspace():
            end += 1  # "love 🍕 pizza" is "love pizza"
        elif not before[-1:].isspace() and not text[end : end + 1].isspace():
            out.append(" ")  # "called🐶Rex" is "called Rex"
        at = end
    return "".join(out)
