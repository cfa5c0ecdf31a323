"""The offline reader's captions: a part of a clause in the third person (`caption_of`), and
whether it is kept (`caption_kept`): a durable fact, with its verb and its value, short enough
to store; and the category it is filed under (`category`). Never a mention of someone and no
more ("User's 2 kids"), an auxiliary left without the verb it stands for ("User hasn't for
years"), nor the user in the first person after "User" ("User's dad thinks i should
retrain")."""

from __future__ import annotations

import re

from core.lexicon import has_phrase, lexicon
from core.words import words_of
from extraction.people import mention_at
from extraction.time_phrases import untimed_length
from extraction.verbs import base_form
from extraction.wording import passing, third_person, tidy_caption
from memories.facets import category_of
from memories.models import Memory
from memories.text import CAPTION_MAX_LENGTH, states_a_fact
from memories.values import lacks_value


def caption_kept(caption: str, *, verb: bool = True) -> bool:
    """Whether a caption states a durable fact with its value, short enough to store (`verb`:
    whether its verb is still to be found)."""
    return not (
        # Judged without the time it ends on, which `extraction.timing` takes out.
        untimed_length(caption) > CAPTION_MAX_LENGTH
        or (verb and not states_a_fact(caption))
        or lacks_value(caption)
        or has_phrase(_main_clause(caption), "not_durable")
        or passing(caption)
        or len(words_of(caption)) < 2
        or has_phrase(_joint_resolved(caption), "vague")
        or _elliptic(caption)
        # The user in the first person after "User" ("User's dad thinks i should retrain"):
        # what someone else thinks of them, and no caption a reader could follow.
        or bool(set(words_of(caption)[1:]) & _FIRST_PERSON_SUBJECTS)
        # "User's cat hates her": whose or whom the caption does not say; "User loves it",
        # "User is good at it": what it is, it does not say either.
        or _object_unsaid(words_of(caption))
    )


# The words that stand for a thing or person the caption does not name ("User got loads").
_UNSAID = frozenset({"her", "his", "it", "that", "this", "loads", "lots", "heaps", "tons", "some"})
# What may follow the object without naming it ("loves it so much", "hates it now").
_TRAILING = frozenset({"now", "too", "so", "much", "a", "lot", "anymore", "though", "tbh"})


# A caption longer than this says more than its pronoun ("User went vegan in january and
# honestly loving it").
_UNSAID_MOST_WORDS = 6


def _object_unsaid(words: list[str]) -> bool:
    """Whether a short caption ends on a pronoun for what it is about ("User's mum runs it"),
    never "in it" (chat's "works in IT")."""
    while len(words) > 2 and (words[-1] in _TRAILING or words[-1] in lexicon("adverbs")):
        words = words[:-1]
    if words[-2:] == ["in", "it"] or len(words) > _UNSAID_MOST_WORDS:
        return words[-1:] in (["her"], ["his"])
    return bool(words) and words[-1] in _UNSAID


def _main_clause(caption: str) -> str:
    """The caption before a relative clause: "a husky named Koda who needs a lot of exercise"
    is a lasting fact, whatever "needs a" says of the dog."""
    for relative in (" who ", " which "):
        caption = caption.split(relative, 1)[0]
    return caption


def _joint_resolved(caption: str) -> str:
    """The caption without a "together" its joint subject resolves: "User and their wife live
    together in Leeds" says with whom, where "User lives together" does not."""
    if caption.startswith("User and "):
        return " ".join(word for word in caption.split() if word.lower() != "together")
    return caption


# The verbs that stand for another left out ("hasn't for years", "my partner does"): after the
# subject with no value of their own, the caption says nothing.
_STAND_INS = frozenset({"has", "have", "had", "hasn't", "haven't", "hadn't", "does", "do", "did",
                        "doesn't", "don't", "didn't", "can", "can't", "will", "won't", "would",
                        "wouldn't"})  # fmt: skip


def _elliptic(caption: str) -> bool:
    """Whether a caption is a mention of someone and no more ("User's 2 kids"), or an
    auxiliary left without its verb or value ("User hasn't for years", "User's partner does")."""
    words = words_of(caption)
    at = 1
    if words[:1] == ["user's"]:
        mention = mention_at(f"my {' '.join(words[1:])}", 0)
        if mention is not None and mention.end == len(words):
            return True
        at = mention.end if mention is not None else 1
    rest = words[at:]
    if rest[1:3] and rest[1] == "to" and base_form(rest[2]):
        return False  # "User had to switch to aldi": a verb after "to"
    return bool(rest) and rest[0] in _STAND_INS and (len(rest) == 1 or rest[1] in _NO_VERBS)


# What cannot be the verb an auxiliary takes: a preposition or a break ("like" is a verb too).
_NO_VERBS = (lexicon("value_breaks") | lexicon("clause_breaks")) - {"like", "most", "each", "every"}


# The user as a subject in the first person: never after "User" in a caption.
_FIRST_PERSON_SUBJECTS = frozenset({"i", "i'm", "i've", "i'd", "i'll", "im", "ive"})


# "my dad's a firefighter", "my gf's vegetarian": the 's of "is" after the person.
# "my dad's a chef" is "dad is", but "my son's favourite thing is lego" is the son's thing:
# the 's is his when a verb of its own follows a noun or two.
_IS = re.compile(
    r"^(User's \S+?)'s\b(?!\s+(?:a|an|the)?\s*"
    r"(?:(?!(?:who|that|which|and|but|so)\b)[\w-]+\s+){1,2}(?:is|are|was)\b)"
)


def caption_of(part: str) -> str:
    """A first-person part as the reader's caption ("my dad's a chef" is "User's dad is a
    chef")."""
    # "we both work shifts": the user's own fact, the "both" a fact of someone unnamed.
    caption = _BOTH.sub("User ", tidy_caption(third_person(part)))
    match = _IS.match(caption)
    # "my partner's parents live in Cork", "my daughter's best friend Zara has ...": the 's
    # before one of the user's people is theirs.
    rest = caption[match.end() :].strip() if match else ""
    after = words_of(rest)[:1]
    theirs = bool(after) and (
        after[0].removesuffix("'s") in lexicon("people")
        # never after an article: "my dad's a teacher" is what he is
        or (after[0] not in {"a", "an"} and mention_at(f"my {rest}", 0) is not None)
    )
    if match and not theirs:
        caption = _IS.sub(r"\1 is", caption)
    if caption.startswith("User ") and not caption.startswith("User and "):
        # The user again inside their own clause ("every app I use") is "they"; inside a
        # clause about someone else it stays, and the caption is not kept (`caption_kept`).
        caption = _INNER_I.sub(lambda m: _THEY[m[0].lower().replace("\u2019", "'")], caption)
        caption = _THEY_WAS.sub("they were", caption)  # "since i was a kid"
    return caption


_BOTH = re.compile(r"^User (?:both|all) (?!of\b)")
_THEY = {"i": "they", "i'm": "they're", "i've": "they've", "i'd": "they'd", "i'll": "they'll"}
_THEY_WAS = re.compile(r"\bthey was\b")
_INNER_I = re.compile(r"(?<=\s)(?:i|i['\u2019](?:m|ve|d|ll))\b(?!['\u2019])", re.I)


def category(caption: str) -> str:
    """The registry's category for the fact (`facets.category_of`), else the one whose
    lexicon the caption names ("category_technical"), else personal."""
    found = category_of(caption)
    if found:
        return found
    for name in ("technical", "project", "preference"):
        if has_phrase(caption, f"category_{name}"):
            return name
    return Memory.Category.PERSONAL
