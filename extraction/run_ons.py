"""A message typed as one run without punctuation ("im 29 i work in sales my husband is a
teacher we have a cat"), marked into its clauses before it is split.

A new clause starts where a subject comes after a complete clause with no mark between: the
user ("i", "we", "i'm"), "he", "she" or "they", or one of the user's people ("my husband")
followed by a verb. A subject after a word that holds a clause open (a preposition, a
determiner, a conjunction, or a verb of thinking or saying: `core/lexicons/run_on_holds.txt`)
goes on in the same sentence ("i think my sister is pregnant", "a photo of my dog"), and a
run is only split once its own clause opened with a subject and has a word after it.
"""

from __future__ import annotations

from functools import cache

from core.lexicon import lexicon, pairs
from core.words import words_of
from extraction.people import mention_at, third_person_verb
from extraction.verbs import finite, third_singular

# The subjects besides the user (`user_subjects`) that open a clause of their own in a run.
_OTHERS = frozenset({"he", "she", "they", "he's", "she's", "they're"})
# What follows "its" only where it stands for "it's" ("its about 40 mins", "its so loud", "its
# mostly nights"), never its possessive ("its tail").
_ITS_IS = frozenset(
    {"a", "an", "the", "about", "so", "not", "been", "got", "only", "just", "really", "very",
     "mostly", "always", "never", "in", "at", "on", "like", "quite", "pretty", "too"}
)  # fmt: skip
# Where a clause ends as typed: a sentence mark, a comma or a dash.
_ENDS = (".", "!", "?", ";", ",", ":", "-", "\u2013", "\u2014")


@cache
def _holds() -> frozenset[str]:
    return (
        lexicon("run_on_holds")
        | lexicon("conjunctions")
        | lexicon("value_breaks")
        | lexicon("determiners")
        | lexicon("copulas")
        | lexicon("auxiliaries")
        | lexicon("first_person")
        | lexicon("subject_pronouns")
    ) - _TIMES


# The words of `value_breaks` that end a time, not open a value: a clause may end on them ("im
# a teacher now my classes are huge", "in spain most of the year my dad plays golf").
_TIMES = frozenset(
    {"now", "again", "too", "anymore", "lol", "haha", "ago", "yesterday", "recently", "day",
     "days", "week", "weeks", "month", "months", "year", "years"}
)  # fmt: skip


@cache
def _enders() -> frozenset[str]:
    """The chat words a clause ends on, whatever opened it ("lol", "tbh", "rn", "honestly"):
    a shorthand ("rn", "atm") where what it stands for is one."""
    temporary = lexicon("temporary")
    shorthands = {typed for typed, meant in pairs("chat_shorthands").items() if meant in temporary}
    return (
        (lexicon("chat_debris") | lexicon("fillers") | temporary | shorthands)
        - lexicon("conjunctions")
        - {"like", "so", "too", "as", "well", "either", "also", "please", "pls"}
    )


def run_ons_marked(text: str) -> str:
    """The text with a comma where a run-on opens a new clause (`_opens_clause`)."""
    tokens = text.split(" ")
    out: list[str] = []
    opened, length = False, 0  # whether the clause so far opened with a subject; its words
    for at, token in enumerate(tokens):
        said = words_of(token)
        if not said:
            out.append(token)
            if token in lexicon("emoticons"):
                out.append(",")  # an emoticon ends its clause, as an emoji does
                length = 0
            continue
        word = said[0]
        if length == 0 and word in lexicon("fillers"):
            out.append(token)  # "hi im sam": the clause opens after the greeting
            continue
        rest = _to_end(tokens[at:])
        # The word before: an emoticon (no word at all, ":(") holds nothing open.
        before = words_of(out[-1])[-1:] if out else ["."]
        ends = bool(set(before) & _enders())  # "work is crazy rn im a chef", "lol"
        if (
            (ends or (opened and length >= 2 and not (set(before) & _holds() or _named_one(out))))
            and length >= 1
            and not out[-1].endswith(_ENDS)
            and _opens_clause(word, rest)
        ):
            joined = len(out) >= 3 and words_of(out[-2]) in (["and"], ["but"], ["so"])
            if joined and set(before) & (_TIMES | {"then"}) and not out[-3].endswith(_ENDS):
                # "left teaching in july and now i work as ...": the time after the joining
                # word opens the next clause (it holds now), so the break goes before them.
                out[-3] = f"{out[-3]},"
            else:
                out[-1] = f"{out[-1]},"
            length = 0
        if length == 0:
            opened = (
                mention_at(rest, 0) is not None
                or _opens_clause(word, rest)
                or words_of(rest)[:2] == ["me", "and"]  # "me and my sister are ..."
            )
        length += 1
        out.append(token)
        if token.endswith(_ENDS):
            length = 0
    return " ".join(out)


def _named_one(out: list[str]) -> bool:
    """Whether the clause so far ends on "one" after a word that describes it ("the dji one i
    take to the beach": a relative clause goes on), never after a verb ("my daughter is one i
    think ...", "i have one")."""
    if len(out) < 2 or words_of(out[-1]) not in (["one"], ["ones"]) or out[-2].endswith(_ENDS):
        return False
    describes = words_of(out[-2])[-1:]
    verbs = lexicon("copulas") | lexicon("auxiliaries") | lexicon("numerals")
    return bool(describes) and describes[0] not in verbs


# How far ahead a run-on is read: whether words open a clause turns on its first few (a
# subject and its verb), and reading each to its end cost a hostile run of "and"s a pass a word.
_LOOKAHEAD = 16


def _to_end(tokens: list[str]) -> str:
    """The tokens up to the end of their clause as typed (its mark included), at most
    `_LOOKAHEAD` of them."""
    for at, token in enumerate(tokens[:_LOOKAHEAD]):
        if token.endswith(_ENDS):
            return " ".join(tokens[: at + 1])
    return " ".join(tokens[:_LOOKAHEAD])


def _opens_clause(word: str, rest: str) -> bool:
    """Whether the words from `rest` open a clause of their own: the user or a pronoun with a
    word after it, or one of the user's people and then a verb."""
    words = words_of(rest)
    if word in lexicon("user_subjects") or word in _OTHERS:
        # "i" and a verb ending the run close a relative clause ("every app i use"); a
        # contraction holds its verb ("i'm 29").
        if "'" in word:  # "they're in spain", "i'm 29"
            return len(words) >= 2
        return len(words) >= 3 and words[1] not in lexicon("value_breaks")
    if word == "its" and words[1:2] and words[1] in _ITS_IS:
        return True  # "every day its about 40 mins": "it's" typed without its apostrophe
    if word in {"it", "it's"}:  # "i love my job it is great"
        return word == "it's" or words[1:2] in (["is"], ["was"], ["has"])
    if word not in {"my", "our", "the", "his", "her", "their"}:
        return False
    mention = mention_at(rest, 0) if word in {"my", "our"} else None
    if mention is not None:
        return _verb_after(words[mention.end :], mention.relation)
    # "my shifts are 12 hours", "my physio is called ruth", "the eldest lives in berlin": a
    # noun or two, then a copula or a verb, and what it says. A "verb" that ends the words is
    # a plural noun ("i've read all the discworld books").
    for at in (2, 3):
        if words[at + 1 : at + 2] and (
            words[at] in lexicon("copulas") or third_singular(words[at])
        ):
            return not set(words[1:at]) & (_holds() | {"it", "that", "this", "there"})
    return False


def _verb_after(words: list[str], relation: str) -> bool:
    """Whether the words after one of the user's people open with their verb, maybe after an
    adverb ("my wife takes the train", "our daughter just passed her test", "my kids love
    it": the base form after several)."""
    while words[:1] and words[0] in lexicon("adverbs"):
        words = words[1:]
    if not words:
        return False
    return third_person_verb(words[0]) or finite(
        words[0], plural=relation in lexicon("people_plural")
    )


def time_trimmed(clause: str) -> str:
    """The clause without the time it ends on ("we got a kitten last week" is "we got a
    kitten", "adopted a dog 2 years ago" "adopted a dog"), so that what it ended by naming is
    still its last word (`people.named_last`)."""
    words = clause.split()
    while words and words_of(words[-1])[-1:] and words_of(words[-1])[-1] in _TIMES - {"too"}:
        words.pop()
        said = words_of(" ".join(words[-1:]))
        if said and (
            said[0] in {"last", "this", "next", "a", "few"}
            or said[0].isdigit()
            or said[0] in lexicon("numerals")
        ):
            words.pop()
    return " ".join(words)
